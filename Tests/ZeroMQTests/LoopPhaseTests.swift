import Foundation
import Glibc
import Synchronization
import Testing

@testable import ZeroMQ

/// The socket loop's decisions one phase at a time, without threads or sockets: its state, how long
/// it sleeps, what it reads, how it sends per peer, and the order of a turn.
@Suite("Socket loop phases", .timeLimit(.minutes(1)))
struct LoopPhaseTests {
    // MARK: State

    @Test("the state goes starting, running, stopping, stopped; the first reason to stop stays")
    func lifecycle() {
        var state = LoopState.starting
        #expect(state.acceptsWork && !state.runsTurns)
        let started = state.started()
        #expect(started && state == .running && state.runsTurns && state.acceptsWork)
        let startedAgain = state.started()
        let terminated = state.stop(.contextTerminated)
        let stoppedAgain = state.stop(.stopRequested)
        #expect(!startedAgain && terminated && !stoppedAgain)
        #expect(state == .stopping(.contextTerminated))
        #expect(!state.acceptsWork && !state.runsTurns)
        state.finished()
        let stoppedOnceStopped = state.stop(.stopRequested)
        let startedOnceStopped = state.started()
        #expect(state == .stopped && !stoppedOnceStopped && !startedOnceStopped)
    }

    @Test("a loop stopped before its thread started runs no turn")
    func stopBeforeStart() {
        var state = LoopState.starting
        let stopped = state.stop(.stopRequested)
        let started = state.started()
        #expect(stopped && !started && !state.runsTurns)
    }

    // MARK: Sleeping

    @Test("poll sleeps until the soonest timer, rounded up to a whole millisecond")
    func sleepUntilTimer() {
        let now = ContinuousClock.now
        var timeout = PollTimeout.indefinite
        timeout.wake(at: now + .microseconds(12_300), now: now)
        #expect(timeout.milliseconds == 13)
        timeout.wake(at: now + .milliseconds(40), now: now)  // later: no change
        #expect(timeout.milliseconds == 13)
        timeout.wake(at: now - .milliseconds(5), now: now)  // overdue: at once
        #expect(timeout.isZero)
        #expect(PollTimeout.milliseconds(.nanoseconds(1)) == 1)
        #expect(PollTimeout.milliseconds(.seconds(2)) == 2_000)
    }

    @Test(
        "a socket's events: readable wakes at once; writable with messages waiting retries now or after 1 ms")
    func socketEvents() {
        var idle = PollTimeout.indefinite
        idle.socketReported(readable: false, writable: true, hasPending: false, stalled: false)
        #expect(idle == .indefinite)
        var stalled = PollTimeout.indefinite
        stalled.socketReported(readable: false, writable: true, hasPending: true, stalled: true)
        #expect(stalled.milliseconds == PollTimeout.stalledRetry)
        var progressing = PollTimeout.indefinite
        progressing.socketReported(readable: false, writable: true, hasPending: true, stalled: false)
        #expect(progressing.isZero)
        var readable = PollTimeout.indefinite
        readable.atMost(PollTimeout.blockedPeerRetry)
        #expect(readable.milliseconds == 50)
        readable.socketReported(readable: true, writable: false, hasPending: false, stalled: false)
        #expect(readable.isZero)
    }

    // MARK: Reading

    @Test("a socket is read up to its limit per turn, then again next turn until it would block")
    func readLimit() {
        var slot = Slot(socket: nil, group: 0, local: 0, options: .init(maxMessagesPerSocket: 3))
        var queue = FakeQueue(count: 5)
        var batch: [SocketLoop.Received] = []
        let failure = slot.read(as: 7, into: &batch, { () throws(ZMQError) in queue.receive() })
        #expect(failure == nil)
        #expect(batch.map(\.parts) == (0..<3).map { [Message("\($0)")] })
        #expect(batch.allSatisfy { $0.socket == SocketLoop.SocketID(7) })
        #expect(slot.readable)  // stopped at the limit: read again without sleeping
        slot.unchecked = true
        batch = []
        _ = slot.read(as: 7, into: &batch, { () throws(ZMQError) in queue.receive() })
        #expect(batch.count == 2)
        #expect(!slot.readable && !slot.unchecked)  // would block: the descriptor is re-armed
    }

    @Test(
        "after a read that found one message and then nothing, a socket reads one and leaves the rest to the probe"
    )
    func expectsOne() {
        var slot = Slot(socket: nil, group: 0, local: 0, options: .init(maxMessagesPerSocket: 16))
        var queue = FakeQueue(count: 1)
        var tries = 0
        var batch: [SocketLoop.Received] = []
        _ = slot.read(as: 0, into: &batch) { () throws(ZMQError) in
            tries += 1
            return queue.receive()
        }
        #expect(batch.count == 1 && tries == 2)  // one message, then the receive that would block
        #expect(slot.expectsOne && !slot.readable && !slot.unchecked)

        queue.count = 4
        tries = 0
        batch = []
        _ = slot.read(as: 0, into: &batch) { () throws(ZMQError) in
            tries += 1
            return queue.receive()
        }
        #expect(batch.count == 1 && tries == 1)  // no second receive
        #expect(!slot.readable && slot.unchecked)  // the turn's ZMQ_EVENTS probe must ask
        slot.expectsOne = false  // the probe found more (LoopThread.computePollTimeout)
        batch = []
        _ = slot.read(as: 0, into: &batch, { () throws(ZMQError) in queue.receive() })
        #expect(batch.count == 2 && !slot.unchecked)  // drained until it would block
        #expect(!slot.expectsOne)  // two found: drained next time too

        var drained = Slot(
            socket: nil, group: 0, local: 1,
            options: .init(maxMessagesPerSocket: 2, drainedEachTurn: [SocketLoop.SocketID(1)]))
        var one = FakeQueue(count: 1)
        _ = drained.read(as: 1, into: &batch, { () throws(ZMQError) in one.receive() })
        #expect(!drained.expectsOne)  // a socket drained each turn always is
        var single = Slot(socket: nil, group: 0, local: 0, options: .init(maxMessagesPerSocket: 1))
        var another = FakeQueue(count: 1)
        _ = single.read(as: 0, into: &batch, { () throws(ZMQError) in another.receive() })
        #expect(!single.expectsOne && single.readable)  // one per turn: read again next turn
    }

    @Test("a socket drained each turn is read until it would block, whatever the limit")
    func drainedEachTurn() {
        let options = SocketLoop.Options(maxMessagesPerSocket: 2, drainedEachTurn: [SocketLoop.SocketID(1)])
        var monitor = Slot(socket: nil, group: 0, local: 1, options: options)
        var queue = FakeQueue(count: 40)
        var batch: [SocketLoop.Received] = []
        _ = monitor.read(as: 1, into: &batch, { () throws(ZMQError) in queue.receive() })
        #expect(batch.count == 40)
        #expect(Slot(socket: nil, group: 0, local: 0, options: options).limit == 2)
    }

    @Test("on a routed socket, a message from a peer with a backlog or cut off says its sender is blocked")
    func senderBlocked() {
        var slot = routedSlot(limit: .init())
        _ = slot.backlogs[peerB, default: PeerBacklog()].append([Message(peerB)], size: 1, within: .init())
        slot.cutOff[peerC] = .now
        var queue = [peerA, peerB, peerC].map { [Message($0), Message("hi")] }
        var batch: [SocketLoop.Received] = []
        _ = slot.read(as: 0, into: &batch) {
            () throws(ZMQError) -> ZMQResult<(parts: [Message], sourceFD: Int32)> in
            queue.isEmpty ? .wouldBlock : .done((queue.removeFirst(), 9))
        }
        #expect(batch.map(\.senderBlocked) == [false, true, true])
        #expect(batch.allSatisfy { $0.sourceFD == 9 })
    }

    @Test("a failed receive ends the socket's reading and is returned")
    func readFailure() {
        var slot = Slot(socket: nil, group: 0, local: 0, options: .init())
        var batch: [SocketLoop.Received] = []
        let failure = slot.read(as: 0, into: &batch) {
            () throws(ZMQError) -> ZMQResult<(parts: [Message], sourceFD: Int32)> in
            throw ZMQError(code: .ETERM, function: "zmq_msg_recv")
        }
        #expect(failure?.isContextTerminated == true)
        #expect(batch.isEmpty && !slot.readable)
    }

    // MARK: Sending in order

    @Test(
        "in order: a socket that would block keeps the rest, stalled when nothing went; a failure drops one")
    func inOrder() {
        var slot = Slot(socket: nil, group: 0, local: 0, options: .init())
        slot.pending = (0..<4).map { [Message("\($0)")] }
        var tally = SocketLoop.Tally()
        var sent: [String] = []
        slot.flushInOrder(&tally) { (parts: [Message]) throws(ZMQError) -> ZMQResult<Void> in
            if parts[0].string == "1" { throw ZMQError(code: .EHOSTUNREACH, function: "zmq_msg_send") }
            if parts[0].string == "3" { return .wouldBlock }
            sent.append(parts[0].string)
            return .done(())
        }
        #expect(sent == ["0", "2"])
        #expect(tally.sent == 2 && tally.dropped == 1 && tally.lastError?.code == .EHOSTUNREACH)
        #expect(slot.hasPending && !slot.stalled && slot.unchecked)
        slot.flushInOrder(&tally) { (_: [Message]) throws(ZMQError) -> ZMQResult<Void> in .wouldBlock }
        #expect(slot.stalled)
        slot.flushInOrder(&tally) { (_: [Message]) throws(ZMQError) -> ZMQResult<Void> in .done(()) }
        #expect(!slot.hasPending && !slot.stalled && slot.pending.isEmpty)
    }

    // MARK: Sending per peer

    @Test("per peer: a peer that would block keeps its messages in order; the others' go out")
    func backlog() {
        var slot = routedSlot(limit: .init(messages: 10, bytes: 1 << 20))
        var peers = FakePeers(blocked: [peerB])
        slot.pending = [message(peerA, 1), message(peerB, 1), message(peerA, 2), message(peerB, 2)]
        var tally = SocketLoop.Tally()
        let changed = peers.flush(&slot, &tally).changed
        #expect(changed && peers.sent == ["A1", "A2"])
        #expect(slot.blockedPeers == [peerB] && slot.backlogged == 2 && !slot.hasPending)
        // B reads again: its backlog goes first, then what came for it meanwhile.
        peers.blocked = []
        slot.pending = [message(peerB, 3), message(peerA, 3)]
        _ = peers.flush(&slot, &tally)
        #expect(peers.sent == ["A1", "A2", "B1", "B2", "B3", "A3"])
        #expect(slot.blockedPeers.isEmpty && slot.backlogs.isEmpty)
        #expect(tally.sent == 6 && tally.dropped == 0)
    }

    @Test(
        "per peer: over its bound a peer's messages are dropped and reported; cut off, it is tried once per message until it reads"
    )
    func overflowAndCutOff() {
        var slot = routedSlot(limit: .init(messages: 2, bytes: 1 << 20))
        var peers = FakePeers(blocked: [peerB])
        slot.pending = (1...3).map { message(peerB, $0) }
        var tally = SocketLoop.Tally()
        let result = peers.flush(&slot, &tally)
        #expect(
            result.overflows == [
                SocketLoop.PeerOverflow(socket: SocketLoop.SocketID(1), peer: peerB, dropped: 3)
            ])
        #expect(tally.dropped == 3 && tally.peerOverflows == 1)
        #expect(slot.cutOff[peerB] == peers.now && slot.blockedPeers.isEmpty && slot.backlogged == 0)
        // Still not reading: a message for it is tried, then dropped, not kept.
        slot.pending = [message(peerB, 4)]
        _ = peers.flush(&slot, &tally)
        #expect(peers.tried.last == "B4" && tally.dropped == 4 && slot.backlogs.isEmpty)
        #expect(slot.isBlocked(peerB))
        // It reads again: the next message goes through and ends the cut-off.
        peers.blocked = []
        slot.pending = [message(peerB, 5)]
        let readsAgain = peers.flush(&slot, &tally).changed
        #expect(readsAgain && peers.sent == ["B5"] && slot.cutOff.isEmpty)
    }

    @Test("per peer: a peer that is gone has its backlog dropped")
    func goneDropsBacklog() {
        var slot = routedSlot(limit: .init())
        var peers = FakePeers(blocked: [peerB])
        slot.pending = [message(peerB, 1), message(peerB, 2)]
        var tally = SocketLoop.Tally()
        _ = peers.flush(&slot, &tally)
        peers.gone = [peerB]
        _ = peers.flush(&slot, &tally)
        #expect(tally.dropped == 2 && tally.lastError?.code == .EHOSTUNREACH)
        #expect(slot.blockedPeers.isEmpty && slot.backlogs.isEmpty)
    }

    @Test("a cut-off peer is forgotten 30 s after its overflow")
    func cutOffExpiry() {
        var slot = routedSlot(limit: .init())
        let overflow = ContinuousClock.now
        slot.cutOff = [peerA: overflow, peerB: overflow + .seconds(10)]
        slot.expireCutOff(now: overflow + .seconds(29))
        #expect(slot.cutOff.count == 2)
        slot.expireCutOff(now: overflow + .seconds(30))
        #expect(Array(slot.cutOff.keys) == [peerB])
        slot.expireCutOff(now: overflow + .seconds(40))
        #expect(slot.cutOff.isEmpty)
    }

    @Test("closing a slot counts what it never sent and forgets it")
    func closeCountsUnsent() {
        var slot = routedSlot(limit: .init())
        var peers = FakePeers(blocked: [peerB])
        slot.pending = [message(peerB, 1), message(peerB, 2)]
        var tally = SocketLoop.Tally()
        _ = peers.flush(&slot, &tally)
        slot.pending = [message(peerA, 1)]
        let unsent = slot.close(linger: 0)
        #expect(unsent == 3)
        #expect(slot.unsent == 0 && slot.blockedPeers.isEmpty && !slot.readable)
    }

    // MARK: The turn

    @Test("a turn hands over, then runs work, timers and jobs, takes what they queued, sends, then counts")
    func turnOrder() {
        let phases = TurnPhase.allCases
        func position(_ phase: TurnPhase) -> Int { phases.firstIndex(of: phase) ?? -1 }
        #expect(
            phases == [
                .computePollTimeout, .poll, .read, .dispatch, .runWork, .runTimers, .runJobs, .absorbQueued,
                .flush, .completeDetachments, .sweepCutOff, .publish,
            ])
        // What handlers, work, timers and jobs queue goes out in the same turn; a detached group's
        // last messages go before its sockets close.
        #expect(position(.absorbQueued) < position(.flush))
        #expect(position(.flush) < position(.completeDetachments))
        #expect(phases.filter(\.endsTurnOnTermination) == [.computePollTimeout, .read])
    }

    @Test("a batch is handed to each group as runs of its own sockets, in order")
    func runsOfABatch() {
        let groupOf = [0, 0, 1, 1, 2]
        let batch = [0, 1, 2, 3, 3, 4].map {
            SocketLoop.Received(socket: SocketLoop.SocketID($0), parts: [Message("x")])
        }
        let runs = LoopThread.runs(of: batch) { groupOf[$0] }
        #expect(runs.map(\.group) == [0, 1, 2])
        #expect(runs.map(\.range) == [0..<2, 2..<5, 5..<6])
        #expect(LoopThread.runs(of: []) { groupOf[$0] }.isEmpty)
    }

    // MARK: Helpers

    let peerA = Array("A".utf8)
    let peerB = Array("B".utf8)
    let peerC = Array("C".utf8)

    func message(_ peer: [UInt8], _ index: Int) -> [Message] { [Message(peer), Message("\(index)")] }

    func routedSlot(limit: SocketLoop.PeerQueueLimit) -> Slot {
        Slot(socket: nil, group: 0, local: 1, options: .init(routed: [SocketLoop.SocketID(1): limit]))
    }
}

/// A socket's incoming queue: `count` messages "0", "1", …, then would-block.
struct FakeQueue {
    var count: Int
    var position = 0

    mutating func receive() -> ZMQResult<(parts: [Message], sourceFD: Int32)> {
        guard position < count else { return .wouldBlock }
        defer { position += 1 }
        return .done(([Message("\(position)")], -1))
    }
}

/// The peers of a routed socket: those `blocked` would block, those `gone` are unreachable; records
/// each send tried and each that went ("A1": peer A, message 1).
struct FakePeers {
    var blocked: Set<[UInt8]>
    var gone: Set<[UInt8]> = []
    var sent: [String] = []
    var tried: [String] = []
    let now = ContinuousClock.now

    mutating func flush(
        _ slot: inout Slot, _ tally: inout SocketLoop.Tally
    ) -> (changed: Bool, overflows: [SocketLoop.PeerOverflow]) {
        var overflows: [SocketLoop.PeerOverflow] = []
        let limit = slot.peerLimit ?? .init()
        let changed = slot.flushRouted(limit, now: now, &tally, &overflows) {
            (parts: [Message]) throws(ZMQError) -> ZMQResult<Void> in
            let name = parts[0].string + parts[1].string
            tried.append(name)
            if gone.contains(parts[0].bytes) { throw ZMQError(code: .EHOSTUNREACH, function: "zmq_msg_send") }
            if blocked.contains(parts[0].bytes) { return .wouldBlock }
            sent.append(name)
            return .done(())
        }
        return (changed, overflows)
    }
}

@Suite("Socket loop: per-group statistics", .timeLimit(.minutes(1)))
struct GroupStatisticsTests {
    @Test("two groups on one loop each count only their own drops and blocked peers; the loop counts both")
    func ownCounters() async throws {
        let context = try Context()
        let loop = try SocketLoop(name: "group-statistics")
        let release = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        let (first, second) = try await onThread { () -> (SocketLoop.Group, SocketLoop.Group) in
            func router() throws -> Socket {
                let router = try Socket(context, .router, linger: 0)
                try router.set(.routerMandatory, true)
                try router.set(.sendHighWaterMark, 1)
                return router
            }
            let options = SocketLoop.Options(routed: [SocketLoop.SocketID(0): .init(messages: 100)])
            let dropping = try router()
            try dropping.bind(inprocEndpoint())
            let endpoint = inprocEndpoint()
            let blocking = try router()
            try blocking.bind(endpoint)
            // The second group answers each request with ten messages, to a peer that does not read.
            let first = loop.attach([dropping], options: options) { _, _ in }
            let second = loop.attach([blocking], options: options) { batch, group in
                for message in batch {
                    for index in 0..<10 {
                        group.send([message.parts[0], Message("\(index)")], to: message.socket)
                    }
                }
            }
            // The peer that asks once and then does not read, open until released.
            Thread {
                do {
                    let dealer = try Socket(context, .dealer, linger: 0)
                    try dealer.set(.receiveHighWaterMark, 1)
                    try dealer.connect(endpoint)
                    try dealer.send([Message("ask")])
                    _ = release.wait(timeout: .now() + 30)
                    dealer.close(linger: 0)
                } catch {
                    Issue.record("the peer that does not read: \(error)")
                }
                released.signal()
            }.start()
            return (first, second)
        }
        first.send([Message("nobody"), Message("x")], to: SocketLoop.SocketID(0))  // unreachable: dropped
        try await onThread {
            let deadline = Date(timeIntervalSinceNow: 10)
            while first.statistics.dropped == 0 || second.statistics.blockedPeers == 0, Date() < deadline {
                usleep(1_000)
            }
        }
        let (one, two, all) = (first.statistics, second.statistics, loop.statistics)
        #expect(
            one.dropped == 1 && one.blockedPeers == 0 && one.queuedForBlockedPeers == 0 && one.received == 0)
        #expect(
            two.dropped == 0 && two.blockedPeers == 1 && two.queuedForBlockedPeers > 0 && two.received == 1)
        #expect(two.lastError == nil && one.lastError?.code == .EHOSTUNREACH)
        #expect(all.dropped == 1 && all.blockedPeers == 1 && all.received == 1)
        #expect(all.queuedForBlockedPeers == two.queuedForBlockedPeers)
        #expect(all.sent == one.sent + two.sent)
        await first.detach()
        #expect(first.statistics.dropped == 1)  // kept once detached
        release.signal()
        #expect(await arrived(released))
        await loop.stop()
    }
}
