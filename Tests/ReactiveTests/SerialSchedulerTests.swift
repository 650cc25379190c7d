import Dispatch
import Foundation
import Glibc
import Reactive
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite(.timeLimit(.minutes(1)))
struct SerialSchedulerTests {
    @Test func runsWorkInFIFOOrderOnOneThreadOfItsOwn() {
        let scheduler = SerialScheduler(name: "serial-fifo")
        defer { scheduler.dispose() }
        let order = Shared<[Int]>([])
        let threads = Shared<Set<UInt>>([])
        let done = DispatchSemaphore(value: 0)
        for index in 0..<500 {
            scheduler.schedule {
                order.append(index)
                threads.mutate { _ = $0.insert(currentThreadID()) }
                if index == 499 { done.signal() }
            }
        }
        #expect(arrived(done))
        #expect(order.value == Array(0..<500))
        #expect(threads.value.count == 1)
        #expect(!threads.value.contains(currentThreadID()))
    }

    @Test func workDisposedBeforeItRunsNeverRuns() {
        let scheduler = SerialScheduler(name: "serial-dispose")
        defer { scheduler.dispose() }
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

    @Test func delayedWorkRunsInDueOrderAndNoEarlierThanDue() {
        let scheduler = SerialScheduler(name: "serial-timers")
        defer { scheduler.dispose() }
        let start = DispatchTime.now()
        let runs = Shared<[(id: Int, elapsed: UInt64)]>([])
        let done = DispatchSemaphore(value: 0)
        // Gaps of 60 ms keep the due order stable even if this loop is preempted on a busy machine.
        for (id, delay) in [(3, 180), (1, 60), (2, 120)] {
            _ = scheduler.scheduleRelative(id, dueTime: .milliseconds(delay)) { id in
                runs.append((id, DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds))
                if runs.value.count == 3 { done.signal() }
                return Disposables.create()
            }
        }
        #expect(arrived(done))
        #expect(runs.value.map(\.id) == [1, 2, 3])
        for run in runs.value {
            #expect(run.elapsed >= UInt64(run.id * 60_000_000))
        }
    }

    @Test func disposedTimerNeverRuns() {
        let scheduler = SerialScheduler(name: "serial-timer-dispose")
        defer { scheduler.dispose() }
        let ran = Shared<[String]>([])
        let done = DispatchSemaphore(value: 0)
        let cancelled = scheduler.scheduleRelative((), dueTime: .milliseconds(10)) { _ in
            ran.append("cancelled")
            return Disposables.create()
        }
        cancelled.dispose()
        _ = scheduler.scheduleRelative((), dueTime: .milliseconds(30)) { _ in
            ran.append("kept")
            done.signal()
            return Disposables.create()
        }
        #expect(arrived(done))
        #expect(ran.value == ["kept"])
    }

    @Test func dueTimersAndQueuedWorkRunInTheOrderTheyBecameRunnable() {
        let scheduler = SerialScheduler(name: "serial-interleave")
        defer { scheduler.dispose() }
        let release = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let order = Shared<[String]>([])
        scheduler.schedule { _ = arrived(release) }
        scheduler.schedule { order.append("queued first") }
        _ = scheduler.scheduleRelative((), dueTime: .nanoseconds(0)) { _ in
            order.append("due timer")
            return Disposables.create()
        }
        scheduler.schedule { order.append("queued last") }
        scheduler.schedule { done.signal() }
        release.signal()
        #expect(arrived(done))
        #expect(order.value == ["queued first", "due timer", "queued last"])
    }

    @Test func periodicWorkThreadsItsStateUntilDisposed() {
        let scheduler = SerialScheduler(name: "serial-periodic")
        defer { scheduler.dispose() }
        checkPeriodicWorkThreadsItsStateUntilDisposed(on: scheduler)
    }

    @Test func recursiveSchedulingStaysOnTheSchedulerThread() {
        let scheduler = SerialScheduler(name: "serial-recursive")
        defer { scheduler.dispose() }
        let threads = Shared<Set<UInt>>([])
        let done = DispatchSemaphore(value: 0)
        _ = scheduler.scheduleRecursive(0) { count, recurse in
            threads.mutate { _ = $0.insert(currentThreadID()) }
            if count == 5 { done.signal() } else { recurse(count + 1) }
        }
        #expect(arrived(done))
        #expect(threads.value.count == 1)
    }

    @Test func disposeJoinsTheThreadAndCancelsPendingWork() {
        let scheduler = SerialScheduler(name: "serial-join")
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finished = Shared(false)
        let ran = Shared<[String]>([])
        scheduler.schedule {
            started.signal()
            _ = arrived(release)
            finished.value = true
        }
        scheduler.schedule { ran.append("queued") }
        _ = scheduler.scheduleRelative((), dueTime: .milliseconds(1)) { _ in
            ran.append("timer")
            return Disposables.create()
        }
        #expect(arrived(started))
        // dispose() on another thread; the running item is released only once the stop has begun
        // (scheduling is then refused), so the queued work cannot slip in before it.
        let disposed = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            scheduler.dispose()
            disposed.signal()
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let probe = scheduler.schedule {}
            if (probe as? any Cancelable)?.isDisposed == true { break }
            probe.dispose()
            sched_yield()
        }
        release.signal()
        #expect(arrived(disposed))
        // dispose() returned: the running item finished and nothing else will ever run.
        #expect(finished.value)
        let late = scheduler.schedule { ran.append("late") }
        #expect((late as? any Cancelable)?.isDisposed == true)
        #expect(ran.value == [])
        scheduler.dispose()
    }

    @Test func releasingTheSchedulerJoinsItsThread() {
        var scheduler: SerialScheduler? = SerialScheduler(name: "serial-deinit")
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finished = Shared(false)
        scheduler?.schedule {
            started.signal()
            _ = arrived(release)
            finished.value = true
        }
        #expect(arrived(started))
        DispatchQueue.global().async { release.signal() }
        scheduler = nil
        #expect(finished.value)
    }

    @Test func disposingFromItsOwnThreadDoesNotWaitForItself() {
        let scheduler = SerialScheduler(name: "serial-self-dispose")
        let done = DispatchSemaphore(value: 0)
        let ran = Shared<[String]>([])
        scheduler.schedule {
            scheduler.dispose()
            ran.append("disposer")
            done.signal()
        }
        scheduler.schedule { ran.append("pending") }
        #expect(arrived(done))
        scheduler.dispose()
        #expect(ran.value == ["disposer"])
    }

    @Test func nowIsTheWallClock() {
        let scheduler = SerialScheduler(name: "serial-now")
        defer { scheduler.dispose() }
        #expect(abs(scheduler.now.timeIntervalSinceNow) < 1)
    }
}
