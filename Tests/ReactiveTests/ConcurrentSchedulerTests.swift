import Dispatch
import Foundation
import Reactive
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite(.timeLimit(.minutes(1)))
struct ConcurrentSchedulerTests {
    @Test func runsWorkInParallelOffTheCallingThread() {
        let scheduler = ConcurrentScheduler(qos: .userInitiated)
        let first = DispatchSemaphore(value: 0)
        let second = DispatchSemaphore(value: 0)
        let met = Shared(0)
        let done = DispatchSemaphore(value: 0)
        let threads = Shared<Set<UInt>>([])
        // Each item waits for the other: both finish only if they run at the same time.
        for (mine, theirs) in [(first, second), (second, first)] {
            scheduler.schedule {
                threads.mutate { _ = $0.insert(currentThreadID()) }
                mine.signal()
                if arrived(theirs) { met.increment() }
                done.signal()
            }
        }
        #expect(arrived(done))
        #expect(arrived(done))
        #expect(met.value == 2)
        #expect(threads.value.count == 2)
        #expect(!threads.value.contains(currentThreadID()))
    }

    @Test func workDisposedBeforeItRunsNeverRuns() {
        let scheduler = ConcurrentScheduler(queue: DispatchQueue(label: "concurrent-tests.serial"))
        let release = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let ran = Shared<[String]>([])
        scheduler.schedule { _ = arrived(release) }
        let cancelled = scheduler.schedule { ran.append("cancelled") }
        scheduler.schedule { ran.append("kept") }
        cancelled.dispose()
        scheduler.schedule { done.signal() }
        release.signal()
        #expect(arrived(done))
        #expect(ran.value == ["kept"])
    }

    @Test func delayedWorkRunsNoEarlierThanDue() {
        let scheduler = ConcurrentScheduler()
        let start = DispatchTime.now()
        let elapsed = Shared<UInt64>(0)
        let done = DispatchSemaphore(value: 0)
        _ = scheduler.scheduleRelative((), dueTime: .milliseconds(20)) { _ in
            elapsed.value = DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds
            done.signal()
            return Disposables.create()
        }
        #expect(arrived(done))
        #expect(elapsed.value >= 20_000_000)
    }

    @Test func disposedDelayedWorkNeverRuns() {
        let scheduler = ConcurrentScheduler(queue: DispatchQueue(label: "concurrent-tests.timers"))
        let ran = Shared<[String]>([])
        let done = DispatchSemaphore(value: 0)
        let cancelled = scheduler.scheduleRelative((), dueTime: .milliseconds(5)) { _ in
            ran.append("cancelled")
            return Disposables.create()
        }
        cancelled.dispose()
        _ = scheduler.scheduleRelative((), dueTime: .milliseconds(20)) { _ in
            ran.append("kept")
            done.signal()
            return Disposables.create()
        }
        #expect(arrived(done))
        #expect(ran.value == ["kept"])
        #expect((cancelled as? any Cancelable)?.isDisposed == true)
    }

    @Test func periodicWorkThreadsItsStateUntilDisposed() {
        let scheduler = ConcurrentScheduler(queue: DispatchQueue(label: "concurrent-tests.periodic"))
        checkPeriodicWorkThreadsItsStateUntilDisposed(on: scheduler)
    }

    @Test func nowIsTheWallClock() {
        #expect(abs(ConcurrentScheduler().now.timeIntervalSinceNow) < 1)
    }
}
