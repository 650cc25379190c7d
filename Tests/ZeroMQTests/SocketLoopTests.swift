import Foundation
import Glibc
import Synchronization
import Testing
import ZeroMQ

/// Collects what a loop hands over, and lets a test wait for a count with a deadline.
final class Collector: Sendable {
    private let state = Mutex<(batches: [[SocketLoop.Received]], messages: Int)>(([], 0))
    private let condition = NSCondition()

    func add(_ batch: [SocketLoop.Received]) {
        state.withLock {
            $0.batches.append(batch)
            $0.messages += batch.count
        }
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    var batches: [[SocketLoop.Received]] { state.withLock { $0.batches } }
    var messages: Int { state.withLock { $0.messages } }

    /// Waits (on the calling thread) until `count` messages arrived or `seconds` passed.
    func wait(for count: Int, seconds: Double = 10) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while messages < count {
            if !condition.wait(until: deadline) { return messages >= count }
        }
        return true
    }
}

/// Waits for a signal, up to 10 s, off the cooperative pool.
func arrived(_ semaphore: DispatchSemaphore) async -> Bool {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(returning: semaphore.wait(timeout: .now() + 10) == .success)
        }
    }
}

/// Which work ran, in order, and on which thread.
final class WorkLog: Sendable {
    private let state = Mutex<[(index: Int, thread: String)]>([])

    func record(_ index: Int) {
        // The kernel's name of the calling thread (what `Thread.name` set when the thread started).
        let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
        let thread = comm.trimmingCharacters(in: .newlines)
        state.withLock { $0.append((index, thread)) }
    }

    var entries: [(index: Int, thread: String)] { state.withLock { $0 } }
}

/// Counts turns of work across threads.
final class TurnCounter: Sendable {
    private let value = Atomic<Int>(0)

    /// Counts one more and returns the count.
    func next() -> Int { value.add(1, ordering: .relaxed).newValue }
    var count: Int { value.load(ordering: .relaxed) }
}

@Suite("Socket loop", .timeLimit(.minutes(1)))
struct SocketLoopTests {
    @Test("many queued messages arrive in few batches, in order")
    func batching() async throws {
        let total = 5000
        let collector = Collector()
        let context = try Context()
        let loop = try await onThread { () -> SocketLoop in
            let endpoint = inprocEndpoint()
            let pull = try Socket(context, .pull, linger: 0)
            try pull.set(.receiveHighWaterMark, 0)
            try pull.bind(endpoint)
            let push = try Socket(context, .push, linger: 0)
            try push.set(.sendHighWaterMark, 0)
            try push.connect(endpoint)
            for index in 0..<total { try push.send([Message("\(index)")]) }
            push.close(linger: -1)
            return try SocketLoop(
                context: context, sockets: [pull],
                configuration: .init(name: "batching", maxMessagesPerSocket: 256),
                handler: collector.add)
        }
        let arrived = try await onThread { collector.wait(for: total) }
        #expect(arrived)
        let batches = collector.batches
        #expect(batches.count <= total / 256 + 2)
        #expect(batches.allSatisfy { $0.count <= 256 })
        let numbers = batches.flatMap { $0 }.map { Int($0.parts[0].string) }
        #expect(numbers == Array(0..<total))
        #expect(loop.statistics.received == total)
        #expect(loop.statistics.batches == batches.count)
        await loop.stop()
    }

    @Test("a socket read one message at a time is still asked for more while the loop has work queued")
    func readOneWhileBusy() async throws {
        let collector = Collector()
        let context = try Context()
        let turns = TurnCounter()
        let limit = 200_000
        let loop = try await onThread { () -> SocketLoop in
            let endpoint = inprocEndpoint()
            let pull = try Socket(context, .pull, linger: 0)
            try pull.bind(endpoint)
            let push = try Socket(context, .push, linger: 0)
            defer { push.close(linger: 0) }
            try push.connect(endpoint)
            let loop = try SocketLoop(context: context, sockets: [pull], handler: collector.add)
            // One message at a time: each read finds one, so the socket reads one and leaves the
            // rest to the turn's ZMQ_EVENTS probe.
            for index in 0..<3 {
                try push.send([Message("\(index)")])
                #expect(collector.wait(for: index + 1))
            }
            // Work that queues itself again keeps the loop from sleeping (a bounded number of
            // turns), while a burst comes in whose first message alone fires the descriptor.
            @Sendable func busy() {
                if turns.next() < limit && collector.messages < 7 { _ = loop.execute(busy) }
            }
            _ = loop.execute(busy)
            for index in 3..<7 { try push.send([Message("\(index)")]) }
            #expect(collector.wait(for: 7))
            return loop
        }
        #expect(turns.count < limit)  // read while the loop was busy, not once it went quiet
        #expect(collector.batches.flatMap { $0 }.map { $0.parts[0].string } == (0..<7).map { "\($0)" })
        await loop.stop()
    }

    @Test("messages queued from many threads at once are all sent, none lost")
    func sendingFromManyThreads() async throws {
        let threads = 8
        let perThread = 500
        let context = try Context()
        let (loop, endpoint) = try await onThread { () -> (SocketLoop, String) in
            let push = try Socket(context, .push, linger: 0)
            try push.set(.sendHighWaterMark, 0)
            let endpoint = try push.bindLoopback()
            let loop = try SocketLoop(context: context, sockets: [push]) { _ in }
            return (loop, endpoint)
        }
        let received = try await onThread { () -> [String] in
            let pull = try Socket(context, .pull, linger: 0)
            try pull.connect(endpoint)
            let group = DispatchGroup()
            for thread in 0..<threads {
                group.enter()
                OwnedThread.spawn(name: "sender-\(thread)") {
                    for index in 0..<perThread {
                        loop.send([Message("\(thread)/\(index)")], to: SocketLoop.SocketID(0))
                    }
                    group.leave()
                }
            }
            var received: [String] = []
            for _ in 0..<(threads * perThread) {
                received.append(try pull.receiveMessage()[0].string)
            }
            group.wait()
            pull.close(linger: 0)
            return received
        }
        #expect(received.count == threads * perThread)
        #expect(Set(received).count == threads * perThread)
        // Each sender's messages keep their order.
        for thread in 0..<threads {
            let mine = received.filter { $0.hasPrefix("\(thread)/") }
            #expect(mine == (0..<perThread).map { "\(thread)/\($0)" })
        }
        await loop.stop()  // joins the loop's thread: its counters are final
        #expect(loop.statistics.sent == threads * perThread)
    }

    @Test("an echo server: a ROUTER in the loop answers DEALER requests through the queue")
    func echoServer() async throws {
        let context = try Context()
        let (loop, endpoint) = try await onThread { () -> (SocketLoop, String) in
            let router = try Socket(context, .router, linger: 0)
            try router.set(.routerMandatory, true)
            let endpoint = try router.bindLoopback()
            let loop = try SocketLoop(context: context, sockets: [router]) { batch, loop in
                for message in batch {
                    loop.send(
                        [message.parts[0], Message("echo " + message.parts[1].string)], to: message.socket)
                }
            }
            return (loop, endpoint)
        }
        try await onThread {
            let dealer = try Socket(context, .dealer, linger: 0)
            try dealer.connect(endpoint)
            for index in 0..<100 { try dealer.send([Message("\(index)")]) }
            for index in 0..<100 {
                #expect(try dealer.receiveMessage() == [Message("echo \(index)")])
            }
            dealer.close(linger: 0)
        }
        // A reply to a vanished peer fails with EHOSTUNREACH and is counted, not fatal.
        loop.send(["nobody", "lost"], to: SocketLoop.SocketID(0))
        let dropped = try await onThread { () -> Int in
            let deadline = Date(timeIntervalSinceNow: 10)
            while loop.statistics.dropped == 0 && Date() < deadline { sched_yield() }
            return loop.statistics.dropped
        }
        #expect(dropped == 1)
        #expect(loop.statistics.lastError?.code == .EHOSTUNREACH)
        await loop.stop()
    }

    @Test("a peer that does not read delays only itself; past its bound its queue is dropped and reported")
    func aPeerThatDoesNotReadOnlyHurtsItself() async throws {
        let context = try Context()
        let overflows = Mutex<[SocketLoop.PeerOverflow]>([])
        let answer = Message([UInt8](repeating: 7, count: 4_096))
        let (loop, endpoint) = try await onThread { () -> (SocketLoop, String) in
            let router = try Socket(context, .router, linger: 0)
            try router.set(.routerMandatory, true)
            try router.set(.sendHighWaterMark, 10)
            let endpoint = try router.bindLoopback()
            let loop = try SocketLoop(
                context: context, sockets: [router],
                configuration: .init(
                    name: "peer-queues",
                    routed: [SocketLoop.SocketID(0): .init(messages: 20, bytes: 1 << 20)]),
                onPeerOverflow: { overflow, _ in overflows.withLock { $0.append(overflow) } }
            ) { batch, loop in
                for message in batch {
                    #expect(message.sourceFD >= 0)
                    loop.send([message.parts[0], message.parts[1], answer], to: message.socket)
                }
            }
            return (loop, endpoint)
        }
        // The peer that never reads: a small receive queue and TCP buffer, so that its answers
        // back up into the server quickly.
        let release = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        Thread {
            do {
                let dealer = try Socket(context, .dealer, linger: 0)
                try dealer.set(.receiveHighWaterMark, 5)
                try dealer.set(.receiveBuffer, 4_096)
                try dealer.set(.routingID, Array("stuck".utf8))
                try dealer.connect(endpoint)
                for index in 0..<2_000 { try dealer.send([Message("\(index)")]) }
                _ = release.wait(timeout: .now() + 60)
                dealer.close(linger: 0)
            } catch {
                Issue.record("the peer that does not read: \(error)")
            }
            released.signal()
        }.start()
        try await onThread {
            let deadline = Date(timeIntervalSinceNow: 20)
            while loop.statistics.peerOverflows == 0, Date() < deadline { usleep(1_000) }
        }
        #expect(loop.statistics.peerOverflows >= 1)
        #expect(overflows.withLock { $0.first?.peer } == Array("stuck".utf8))
        #expect(overflows.withLock { $0.first?.dropped } == 21)
        // Everyone else is answered at once, in order, while that peer is still not reading.
        try await onThread {
            let dealer = try Socket(context, .dealer, linger: 0)
            try dealer.connect(endpoint)
            for index in 0..<100 {
                try dealer.send([Message("\(index)")])
                let parts = try dealer.receiveMessage(within: 2_000)
                #expect(parts.first == Message("\(index)"))
            }
            dealer.close(linger: 0)
        }
        let statistics = loop.statistics
        #expect(statistics.blockedPeers <= 1)
        #expect(statistics.queuedForBlockedPeers <= 20)
        // Over its bound it is cut off (what comes for it later is tried once and dropped, not
        // kept) until a message goes through again.
        #expect(statistics.cutOffPeers + statistics.blockedPeers <= 1)
        release.signal()
        #expect(await arrived(released))
        await loop.stop()
    }

    @Test("a routed socket's messages carry their connection's descriptor: one per connection")
    func sourceDescriptors() async throws {
        let context = try Context()
        let seen = Mutex<[String: Int32]>([:])
        let collector = Collector()
        let (loop, endpoint) = try await onThread { () -> (SocketLoop, String) in
            let router = try Socket(context, .router, linger: 0)
            let endpoint = try router.bindLoopback()
            let loop = try SocketLoop(
                context: context, sockets: [router],
                configuration: .init(routed: [SocketLoop.SocketID(0): .init()])
            ) { batch in
                seen.withLock { seen in
                    for message in batch { seen[message.parts[1].string] = message.sourceFD }
                }
                collector.add(batch)
            }
            return (loop, endpoint)
        }
        try await onThread {
            let first = try Socket(context, .dealer, linger: 0)
            try first.connect(endpoint)
            let second = try Socket(context, .dealer, linger: 0)
            try second.connect(endpoint)
            try first.send(["first"])
            try second.send(["second"])
            try first.send(["first again"])
            #expect(collector.wait(for: 3))
            first.close(linger: 0)
            second.close(linger: 0)
        }
        let descriptors = seen.withLock { $0 }
        #expect(descriptors["first"].map { $0 >= 0 } == true)
        #expect(descriptors["first"] == descriptors["first again"])
        #expect(descriptors["first"] != descriptors["second"])
        await loop.stop()
    }

    @Test("messages queued while the socket would block go out, in order, once it can send")
    func backPressure() async throws {
        let context = try Context()
        let (loop, endpoint) = try await onThread { () -> (SocketLoop, String) in
            let push = try Socket(context, .push, linger: 0)
            try push.set(.sendHighWaterMark, 5)
            let endpoint = try push.bindLoopback()
            return (try SocketLoop(context: context, sockets: [push]) { _ in }, endpoint)
        }
        // No peer yet: a PUSH cannot send, so everything stays queued in the loop.
        for index in 0..<50 { loop.send([Message("\(index)")], to: SocketLoop.SocketID(0)) }
        let received = try await onThread { () -> [String] in
            let pull = try Socket(context, .pull, linger: 0)
            try pull.set(.receiveHighWaterMark, 5)
            try pull.connect(endpoint)
            let received = try (0..<50).map { _ in try pull.receiveMessage()[0].string }
            pull.close(linger: 0)
            return received
        }
        #expect(received == (0..<50).map { "\($0)" })
        #expect(loop.statistics.dropped == 0)
        await loop.stop()
    }

    @Test("execute runs work on the loop's thread, in order, and what it sends goes out")
    func executeJoinsTheLoopThread() async throws {
        let context = try Context()
        let runs = WorkLog()
        let (received, refusedAfterStop) = try await onThread { () -> ([String], Bool) in
            let endpoint = inprocEndpoint()
            let pull = try Socket(context, .pull, linger: 0)
            try pull.bind(endpoint)
            let push = try Socket(context, .push, linger: 0)
            try push.connect(endpoint)
            let loop = try SocketLoop(context: context, sockets: [push], configuration: .init(name: "exec")) {
                _ in
            }
            for index in 0..<100 {
                _ = loop.execute {
                    runs.record(index)
                    loop.send([Message("\(index)")], to: SocketLoop.SocketID(0))
                }
            }
            let received = try (0..<100).map { _ in try pull.receiveMessage()[0].string }
            loop.stop()
            pull.close(linger: 0)
            return (received, !loop.execute {})
        }
        #expect(received == (0..<100).map { "\($0)" })
        #expect(runs.entries.map(\.index) == Array(0..<100))
        #expect(runs.entries.allSatisfy { $0.thread == "exec" })
        #expect(refusedAfterStop)
        context.terminate()
    }

    @Test("timers run on the loop's thread, repeatedly, until cancelled")
    func timers() async throws {
        let context = try Context()
        let fast = WorkLog()
        let slow = WorkLog()
        let snapshot = Mutex<Int?>(nil)
        let done = DispatchSemaphore(value: 0)
        let loop = try await onThread { () -> SocketLoop in
            let pair = try Socket(context, .pair, linger: 0)
            try pair.bind(inprocEndpoint())
            return try SocketLoop(context: context, sockets: [pair], configuration: .init(name: "timers")) {
                _ in
            }
        }
        let fastTimer = Mutex<SocketLoop.TimerID?>(nil)
        fastTimer.withLock { timer in
            timer = loop.schedule(every: .milliseconds(2)) {
                fast.record(fast.entries.count)
                if fast.entries.count == 5, let id = fastTimer.withLock({ $0 }) {
                    loop.cancelTimer(id)
                    loop.execute { snapshot.withLock { $0 = fast.entries.count } }
                    // Two more ticks of another timer, then look again.
                    loop.schedule(every: .milliseconds(15)) {
                        slow.record(slow.entries.count)
                        if slow.entries.count == 2 { done.signal() }
                    }
                }
            }
        }
        #expect(await arrived(done))
        #expect(fast.entries.count == 5)
        #expect(snapshot.withLock { $0 } == 5)
        #expect((fast.entries + slow.entries).allSatisfy { $0.thread == "timers" })
        await loop.stop()
        context.terminate()
    }

    @Test("stop closes the sockets on the loop thread and joins it; the context then terminates")
    func cleanShutdown() async throws {
        let context = try Context()
        let loop = try await onThread { () -> SocketLoop in
            let dealer = try Socket(context, .dealer, linger: 0)
            // Connected to nobody: queued messages would hang a context with infinite linger.
            try dealer.connect("tcp://127.0.0.1:1")
            let router = try Socket(context, .router, linger: 0)
            try router.bind(inprocEndpoint())
            return try SocketLoop(context: context, sockets: [dealer, router]) { _ in }
        }
        for index in 0..<10 { loop.send([Message("\(index)")], to: SocketLoop.SocketID(0)) }
        await loop.stop()
        await loop.stop()
        #expect(!loop.send(["late"], to: SocketLoop.SocketID(0)))
        try await onThread {
            loop.stop()
            context.terminate()
        }
    }
}
