import Dispatch
import Foundation
import Testing

@testable import Reactive

/// An actor with state that only isolated code can touch.
private actor Counter {
    var values: [Int] = []

    func append(_ value: Int) { values.append(value) }

    /// Records `value` from scheduled work; traps if the work is not isolated to this actor.
    nonisolated func recordFromScheduledWork(_ value: Int) {
        assumeIsolated { $0.values.append(value) }
    }
}

@Suite(.timeLimit(.minutes(1)))
struct ActorSchedulerTests {
    @Test func scheduledWorkRunsIsolatedToTheActorInOrder() async {
        let counter = Counter()
        let scheduler = ActorScheduler(counter)
        for value in 0..<1_000 {
            scheduler.schedule { counter.recordFromScheduledWork(value) }
        }
        let values = await scheduler.run { counter in counter.values }
        #expect(values == Array(0..<1_000))
    }

    @Test func aBurstFromOutsideCrossesIntoTheActorInFewHops() async {
        let counter = Counter()
        let scheduler = ActorScheduler(counter)
        let done = DispatchSemaphore(value: 0)
        Thread {
            for value in 0..<10_000 { scheduler.schedule { counter.recordFromScheduledWork(value) } }
            done.signal()
        }.start()
        #expect(await arrived(done))
        // `run` is queued behind everything scheduled before it.
        #expect(await scheduler.run { counter in counter.values } == Array(0..<10_000))
        // 10,000 items in batches of at most 1,024: far fewer hops than items.
        #expect(scheduler.drainCount.load(ordering: .relaxed) < 1_000)
    }

    @Test func workScheduledFromTheActorRunsInline() async {
        let counter = Counter()
        let scheduler = ActorScheduler(counter)
        let ranInline = await scheduler.run { counter -> Bool in
            let ran = Shared(false)
            scheduler.schedule { ran.value = true }
            return ran.value
        }
        #expect(ranInline)
    }

    @Test func runOnMarksAnActorMethodAsOnTheScheduler() async {
        let counter = Counter()
        let scheduler = ActorScheduler(counter)
        #expect(!scheduler.isOnActor)
        let inline = await counter.withScheduler(scheduler)
        #expect(inline)
    }

    @Test func batchLimitYieldsButKeepsOrder() async {
        let counter = Counter()
        let scheduler = ActorScheduler(counter, batchLimit: 10)
        for value in 0..<100 { scheduler.schedule { counter.recordFromScheduledWork(value) } }
        let values = await scheduler.run { counter in counter.values }
        #expect(values == Array(0..<100))
        #expect(scheduler.drainCount.load(ordering: .relaxed) >= 10)
    }

    @Test func disposedWorkNeverRuns() async {
        let counter = Counter()
        let scheduler = ActorScheduler(counter)
        let blocked = DispatchSemaphore(value: 0)
        // Hold the actor busy so the next items stay queued while we dispose one of them.
        scheduler.perform { _ in _ = blocked.wait(timeout: .now() + 10) }
        let cancelled = scheduler.schedule { counter.recordFromScheduledWork(1) }
        scheduler.schedule { counter.recordFromScheduledWork(2) }
        cancelled.dispose()
        blocked.signal()
        let values = await scheduler.run { counter in counter.values }
        #expect(values == [2])
    }

    @Test func delayedWorkRunsNoEarlierThanDue() async {
        let counter = Counter()
        let scheduler = ActorScheduler(counter)
        let start = ContinuousClock.now
        let ran: ContinuousClock.Instant = await withCheckedContinuation { continuation in
            _ = scheduler.scheduleRelative((), dueTime: .milliseconds(50)) { _ in
                counter.recordFromScheduledWork(1)
                continuation.resume(returning: ContinuousClock.now)
                return Disposables.create()
            }
        }
        #expect(ran - start >= .milliseconds(50))
        #expect(await counter.values == [1])
    }

    @Test func workForAnActorThatIsGoneIsDropped() async {
        let ran = Shared(0)
        var scheduler: ActorScheduler<Counter>?
        do {
            let counter = Counter()
            scheduler = ActorScheduler(counter)
        }
        scheduler?.schedule { ran.increment() }
        #expect(scheduler?.actor == nil)
        #expect(ran.value == 0)
    }
}

extension Counter {
    /// From inside an actor method: is scheduled work inline while `run(on:)` marks the actor?
    func withScheduler(_ scheduler: ActorScheduler<Counter>) -> Bool {
        scheduler.run(on: self) {
            let ran = Shared(false)
            scheduler.schedule { ran.value = true }
            return ran.value && scheduler.isOnActor
        }
    }
}

@Suite(.timeLimit(.minutes(1)))
struct ActorSchedulerRecursionTests {
    @Test func recursiveSchedulingOnTheActorDoesNotNest() async {
        let counter = Counter()
        let scheduler = ActorScheduler(counter)
        let maxDepth = Shared(0)
        let depth = Shared(0)
        let done: Int = await withCheckedContinuation { continuation in
            _ = scheduler.scheduleRecursive(0) { value, recurse in
                let current = depth.mutate {
                    $0 += 1; return $0
                }
                maxDepth.mutate { $0 = max($0, current) }
                if value < 100_000 { recurse(value + 1) } else { continuation.resume(returning: value) }
                depth.mutate { $0 -= 1 }
            }
        }
        #expect(done == 100_000)
        #expect(maxDepth.value <= 2)
    }

    @Test func isolatedScheduleRunsInlineOnTheActorAndQueuedOutside() async {
        let counter = Counter()
        let scheduler = ActorScheduler(counter)
        scheduler.schedule(isolated: { counter in counter.append(1) })
        let inline = await scheduler.run { _ -> Bool in
            let ran = Shared(false)
            scheduler.schedule(isolated: { counter in
                counter.append(2)
                ran.value = true
            })
            return ran.value
        }
        #expect(inline)
        #expect(await counter.values == [1, 2])
    }
}
