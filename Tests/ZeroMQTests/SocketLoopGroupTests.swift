import Foundation
import Glibc
import Synchronization
import Testing

@testable import ZeroMQ

/// The event loop's groups (several socket sets, each with its own handler, on one thread), its
/// one-shot timers and its timer queue, one phase at a time.
@Suite("Socket loop: groups and timers", .timeLimit(.minutes(1)))
struct SocketLoopGroupTests {
    @Test(
        "two groups on one loop: each handler gets its own sockets' messages, ids from 0, on the one thread")
    func groupsShareTheThread() async throws {
        let context = try Context()
        let loop = try SocketLoop(name: "groups")
        let first = Collector()
        let second = Collector()
        let threads = WorkLog()
        let endpoints = (0..<3).map { _ in inprocEndpoint() }
        // Group A: one PULL; group B: two PULLs (its second is B's socket 1, the loop's socket 2).
        let a = try await onThread { () -> SocketLoop.Group in
            let pull = try Socket(context, .pull, linger: 0)
            try pull.bind(endpoints[0])
            return loop.attach([pull]) { batch, _ in
                threads.record(0)
                first.add(batch)
            }
        }
        let b = try await onThread { () -> SocketLoop.Group in
            let pulls = try endpoints[1...].map { endpoint in
                let pull = try Socket(context, .pull, linger: 0)
                try pull.bind(endpoint)
                return pull
            }
            return loop.attach(pulls) { batch, _ in
                threads.record(1)
                second.add(batch)
            }
        }
        #expect(a.count == 1 && b.count == 2)
        try await onThread {
            for (index, endpoint) in endpoints.enumerated() {
                let push = try Socket(context, .push, linger: 0)
                try push.connect(endpoint)
                _ = try push.send([Message("to \(index)")])
                push.close(linger: -1)
            }
        }
        let arrived = try await onThread { first.wait(for: 1) && second.wait(for: 2) }
        #expect(arrived)
        func seen(_ collector: Collector) -> [String] {
            collector.batches.flatMap { $0 }.map { "\($0.socket.index): \($0.parts[0].string)" }.sorted()
        }
        #expect(seen(first) == ["0: to 0"])
        #expect(seen(second) == ["0: to 1", "1: to 2"])
        #expect(threads.entries.allSatisfy { $0.thread == "groups" })
        await loop.stop()
        context.terminate()
    }

    @Test("a group sends on its own sockets; once detached its sockets are closed and its messages dropped")
    func groupSendAndDetach() async throws {
        let context = try Context()
        let loop = try SocketLoop(name: "detach")
        // A group whose socket 1 is the PUSH (socket 0 is an idle PAIR): ids are the group's own.
        let (group, received) = try await onThread { () -> (SocketLoop.Group, String) in
            let endpoint = inprocEndpoint()
            let pull = try Socket(context, .pull, linger: 0)
            try pull.bind(endpoint)
            let pair = try Socket(context, .pair, linger: 0)
            try pair.bind(inprocEndpoint())
            let push = try Socket(context, .push, linger: 0)
            try push.connect(endpoint)
            let group = loop.attach([pair, push]) { _, _ in }
            group.send([Message("one")], to: SocketLoop.SocketID(1))
            let message = try pull.receiveMessage()
            pull.close()
            return (group, message[0].string)
        }
        #expect(received == "one")
        await group.detach()
        let droppedBefore = loop.statistics.dropped
        group.send([Message("two")], to: SocketLoop.SocketID(1))
        // A loop turn later (work queued after the send runs after it was taken), it is counted.
        await withCheckedContinuation { continuation in _ = loop.execute { continuation.resume() } }
        await withCheckedContinuation { continuation in _ = loop.execute { continuation.resume() } }
        #expect(loop.statistics.dropped == droppedBefore + 1)
        await loop.stop()
        context.terminate()
    }

    @Test("stop() on the loop's own thread (a deinit there) asks it to stop and returns: no self-join")
    func stopFromTheLoopsOwnThread() async throws {
        let loop = try SocketLoop(name: "self-stop")
        let returned = DispatchSemaphore(value: 0)
        _ = loop.execute {
            loop.stop()
            returned.signal()
        }
        #expect(await arrived(returned))
        // The loop ends after that turn: the async stop resumes, and later work is refused.
        await loop.stop()
        #expect(!loop.execute {})
    }

    @Test("one-shot timers run once, soonest first, on the loop's thread; a cancelled one never runs")
    func oneShotTimers() async throws {
        let loop = try SocketLoop(name: "oneshot")
        let log = WorkLog()
        let done = DispatchSemaphore(value: 0)
        let cancelled = loop.schedule(after: .milliseconds(5)) { log.record(99) }
        loop.cancelTimer(cancelled)
        loop.schedule(after: .milliseconds(30)) {
            log.record(3)
            done.signal()
        }
        loop.schedule(after: .milliseconds(20)) { log.record(2) }
        loop.schedule(after: .milliseconds(10)) { log.record(1) }
        loop.schedule(after: .zero) { log.record(0) }
        #expect(await arrived(done))
        // Anything else due by now would have run in the same turn as the last.
        await withCheckedContinuation { continuation in _ = loop.execute { continuation.resume() } }
        #expect(log.entries.map(\.index) == [0, 1, 2, 3])
        #expect(log.entries.allSatisfy { $0.thread == "oneshot" })
        await loop.stop()
    }

    @Test("the executor is between jobs in a handler or timer, not while it runs an actor's job")
    func betweenJobs() async throws {
        let loop = try SocketLoop(name: "jobs")
        let inTimer = Mutex<Bool?>(nil)
        let done = DispatchSemaphore(value: 0)
        loop.schedule(after: .zero) {
            inTimer.withLock { $0 = loop.executor.isBetweenJobs }
            done.signal()
        }
        #expect(await arrived(done))
        #expect(inTimer.withLock { $0 } == true)
        let bound = OnLoop(loop: loop)
        #expect(await bound.betweenJobs() == false)
        #expect(!loop.executor.isBetweenJobs)  // not the loop's thread
        await loop.stop()
    }
}

/// An actor on a loop's executor.
private actor OnLoop {
    nonisolated let loop: SocketLoop
    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor.asUnownedSerialExecutor() }

    init(loop: SocketLoop) { self.loop = loop }

    func betweenJobs() -> Bool { loop.executor.isBetweenJobs }
}

@Suite("Timer queue", .timeLimit(.minutes(1)))
struct TimerQueueTests {
    @Test("due timers run soonest first; periodic ones come back an interval later; cancelled ones never")
    func dueOrder() {
        var queue = TimerQueue()
        let start = ContinuousClock.now
        let log = Mutex<[Int]>([])
        queue.add(id: 1, due: start + .milliseconds(30), interval: nil) { log.withLock { $0.append(1) } }
        queue.add(id: 2, due: start + .milliseconds(10), interval: .milliseconds(15)) {
            log.withLock { $0.append(2) }
        }
        queue.add(id: 3, due: start + .milliseconds(20), interval: nil) { log.withLock { $0.append(3) } }
        queue.cancel(3)
        #expect(queue.count == 2)
        #expect(!queue.hasDue(now: start))
        queue.runDue(now: start + .milliseconds(10))
        #expect(log.withLock { $0 } == [2])
        queue.runDue(now: start + .milliseconds(30))  // 2 again (at 25), then 1
        #expect(log.withLock { $0 } == [2, 2, 1])
        #expect(queue.count == 1)
        // Late by far: a periodic timer skips the ticks it missed.
        queue.runDue(now: start + .seconds(1))
        #expect(log.withLock { $0 } == [2, 2, 1, 2])
        #expect(!queue.hasDue(now: start + .seconds(1)))
    }

    @Test("cancelled entries are pruned once they outnumber the live ones")
    func pruning() {
        var queue = TimerQueue()
        let start = ContinuousClock.now
        for id in 0..<1_000 { queue.add(id: id, due: start + .seconds(60), interval: nil) {} }
        for id in 1..<1_000 { queue.cancel(id) }
        #expect(queue.count == 1)
        #expect(queue.entries <= 4 * 64)
    }
}
