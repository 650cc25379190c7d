/// One socket of the loop, as the loop thread keeps it: what to read from it in a turn, and what
/// waits to be sent on it (per peer on a routed socket).
///
/// Its decisions take the socket's calls as closures (`receive`, `send`) and the time as a value,
/// so they are tested without threads or sockets.
struct Slot {
    /// The socket; nil once its group is detached (or in tests).
    var socket: Socket?
    /// Its group, and its id there.
    let group: Int
    let local: Int
    /// The most messages read from it per turn.
    let limit: Int
    /// Its per-peer bound, if it is routed.
    let peerLimit: SocketLoop.PeerQueueLimit?
    /// To read in this turn: its descriptor fired, `ZMQ_EVENTS` said so, or the last turn stopped at
    /// the limit. True at first: messages may have arrived before.
    var readable = true
    /// Sent on since it was last read until it would block (a send may have processed the command
    /// that fired the descriptor), or read one message of without asking for more: it must be asked
    /// for `ZMQ_EVENTS` before sleeping.
    var unchecked = false
    /// Its last reads found one message each: read one and leave the question "is there more?" to
    /// the turn's `ZMQ_EVENTS` probe (``unchecked``), which the answer it sends needs anyway, rather
    /// than asking it twice (a receive that would block and `ZMQ_EVENTS` each make libzmq `poll` its
    /// mailbox). Set by a read that found one message and then nothing; cleared when the probe
    /// finds more. Never for a socket drained each turn or read one message per turn.
    var expectsOne = false
    /// Messages to send, in order, from `pendingStart` on.
    var pending: [[Message]] = []
    var pendingStart = 0
    /// The last send attempt made no progress although it reported writable.
    var stalled = false
    /// Routed: each blocked peer's backlog, the blocked peers in the order they blocked, and the
    /// peers cut off after going over their bound (with when).
    var backlogs: [[UInt8]: PeerBacklog] = [:]
    var blockedPeers: [[UInt8]] = []
    var cutOff: [[UInt8]: ContinuousClock.Instant] = [:]

    /// How long a peer that went over its bound stays cut off.
    static let cutOffMemory = Duration.seconds(30)

    /// Slot `local` of group `group`, read and sent as `options` say.
    init(socket: Socket?, group: Int, local: Int, options: SocketLoop.Options) {
        let id = SocketLoop.SocketID(local)
        self.socket = socket
        self.group = group
        self.local = local
        limit = options.drainedEachTurn.contains(id) ? Int.max : options.maxMessagesPerSocket
        peerLimit = options.routed[id]
    }

    var hasPending: Bool { pendingStart < pending.count }

    /// The messages waiting in the peers' backlogs.
    var backlogged: Int {
        var count = 0
        for backlog in backlogs.values { count += backlog.count }
        return count
    }

    /// The messages not sent yet: pending and backlogged.
    var unsent: Int { (pending.count - pendingStart) + backlogged }

    /// Whether messages to `peer` wait in the loop (a backlog) or it is cut off.
    func isBlocked(_ peer: [UInt8]) -> Bool {
        if !backlogs.isEmpty, backlogs[peer] != nil { return true }
        return !cutOff.isEmpty && cutOff[peer] != nil
    }

    // MARK: Reading

    /// Reads up to ``limit`` messages with `receive` into `batch` (as socket `index`, loop-wide),
    /// or one when it ``expectsOne``, and notes whether to read again next turn (it stopped at the
    /// limit: more may be queued, and the descriptor will not say so), to ask `ZMQ_EVENTS` before
    /// sleeping (it read its one), or neither (it would block: its descriptor is re-armed). Returns
    /// the error that ended the reading, if one did.
    mutating func read(
        as index: Int, into batch: inout [SocketLoop.Received],
        _ receive: () throws(ZMQError) -> ZMQResult<(parts: [Message], sourceFD: Int32)>
    ) -> ZMQError? {
        readable = false
        let routed = peerLimit != nil
        var received = 0
        var failure: ZMQError?
        let budget = expectsOne ? 1 : limit
        while received < budget {
            let result: ZMQResult<(parts: [Message], sourceFD: Int32)>
            do {
                result = try receive()
            } catch {
                failure = error
                break
            }
            guard case .done(let message) = result else { break }
            // One allocation for a typical batch rather than one per doubling.
            if batch.isEmpty { batch.reserveCapacity(min(limit, 16)) }
            let blocked = routed && isBlocked(message.parts[0].bytes)
            batch.append(
                SocketLoop.Received(
                    socket: SocketLoop.SocketID(index), parts: message.parts, sourceFD: message.sourceFD,
                    senderBlocked: blocked))
            received += 1
        }
        if received == limit {
            readable = true
        } else if received == budget {
            unchecked = true  // read its one: the turn's probe tells whether more is queued
        } else {
            unchecked = false
            if received > 0 { expectsOne = received == 1 && limit > 1 && limit < Int.max }
        }
        return failure
    }

    // MARK: Sending

    /// Sends what is pending with `send`, in order, until it would block; a message whose send
    /// fails is dropped (and counted in `tally`).
    mutating func flushInOrder(
        _ tally: inout SocketLoop.Tally, _ send: ([Message]) throws(ZMQError) -> ZMQResult<Void>
    ) {
        let before = pendingStart
        while hasPending {
            do {
                if case .wouldBlock = try send(pending[pendingStart]) { break }
                tally.sent += 1
            } catch {
                tally.dropped += 1
                tally.lastError = error
            }
            pendingStart += 1
        }
        unchecked = true
        if !hasPending {
            pending.removeAll(keepingCapacity: true)
            pendingStart = 0
            stalled = false
        } else {
            stalled = pendingStart == before
        }
    }

    /// Sends with `send` per peer (the first part names it) on a routed socket: the blocked peers'
    /// backlogs first (so each peer's messages keep their order), then what is pending. A peer that
    /// would block keeps its messages in its backlog, within `peerLimit`; one that goes over it has
    /// them dropped, is reported in `overflows` and is cut off (from `now`): each message for it is
    /// tried once and dropped, until one goes through. A peer that is gone (the send fails) has its
    /// backlog dropped. Returns whether the backlogs or cut-off peers changed.
    mutating func flushRouted(
        _ peerLimit: SocketLoop.PeerQueueLimit, now: ContinuousClock.Instant, _ tally: inout SocketLoop.Tally,
        _ overflows: inout [SocketLoop.PeerOverflow], _ send: ([Message]) throws(ZMQError) -> ZMQResult<Void>
    ) -> Bool {
        var changed = false
        if !blockedPeers.isEmpty {
            var kept = 0
            for peer in blockedPeers {
                var gone = false
                while let parts = backlogs[peer]?.first {
                    do {
                        if case .wouldBlock = try send(parts) { break }
                        tally.sent += 1
                        backlogs[peer]?.removeFirst()
                    } catch {
                        // The peer is gone (`EHOSTUNREACH`): nothing queued for it can go.
                        tally.dropped += backlogs[peer]?.count ?? 0
                        tally.lastError = error
                        gone = true
                        break
                    }
                }
                if gone || backlogs[peer]?.count ?? 0 == 0 {
                    backlogs[peer] = nil
                } else {
                    blockedPeers[kept] = peer
                    kept += 1
                }
            }
            if kept < blockedPeers.count { blockedPeers.removeLast(blockedPeers.count - kept) }
            changed = true
        }
        for position in pendingStart..<pending.count {
            let parts = pending[position]
            let peer = parts[0].bytes
            if backlogs.isEmpty || backlogs[peer] == nil {
                let wasCutOff = !cutOff.isEmpty && cutOff[peer] != nil
                do {
                    if case .done = try send(parts) {
                        tally.sent += 1
                        if wasCutOff {
                            cutOff[peer] = nil  // it reads again
                            changed = true
                        }
                        continue
                    }
                } catch {
                    tally.dropped += 1
                    tally.lastError = error
                    if wasCutOff { cutOff[peer] = nil }
                    continue
                }
                if wasCutOff {
                    // Still not reading: nothing is kept for it.
                    tally.dropped += 1
                    continue
                }
            }
            // The peer would block: keep the message for it, within its bound.
            changed = true
            let size = parts.reduce(0) { $0 + $1.count }
            if backlogs[peer] == nil { blockedPeers.append(peer) }
            if backlogs[peer, default: PeerBacklog()].append(parts, size: size, within: peerLimit) {
                continue
            }
            let dropped = (backlogs.removeValue(forKey: peer)?.count ?? 0) + 1
            blockedPeers.removeAll { $0 == peer }
            tally.dropped += dropped
            tally.peerOverflows += 1
            cutOff[peer] = now
            overflows.append(
                SocketLoop.PeerOverflow(socket: SocketLoop.SocketID(local), peer: peer, dropped: dropped))
        }
        pending.removeAll(keepingCapacity: true)
        pendingStart = 0
        unchecked = true
        return changed
    }

    /// Forgets the peers cut off ``cutOffMemory`` or longer before `now`.
    mutating func expireCutOff(now: ContinuousClock.Instant) {
        cutOff = cutOff.filter { now - $0.value < Self.cutOffMemory }
    }

    /// Closes the socket (with `linger` ms) and forgets everything queued; returns the messages
    /// that were never sent.
    mutating func close(linger: Int32) -> Int {
        socket?.close(linger: linger)
        socket = nil
        let unsent = unsent
        pending = []
        pendingStart = 0
        backlogs = [:]
        blockedPeers = []
        cutOff = [:]
        readable = false
        unchecked = false
        return unsent
    }
}

/// The messages a loop keeps for one peer of a routed socket that would block.
struct PeerBacklog {
    private var messages: [[Message]] = []
    private var start = 0
    /// The bytes of the messages kept.
    private(set) var bytes = 0

    /// The number of messages kept.
    var count: Int { messages.count - start }

    /// The oldest message kept.
    var first: [Message]? { start < messages.count ? messages[start] : nil }

    /// Keeps `parts` (of `size` bytes) unless that would go over `limit`; false when it would.
    mutating func append(_ parts: [Message], size: Int, within limit: SocketLoop.PeerQueueLimit) -> Bool {
        guard count < limit.messages, bytes + size <= limit.bytes else { return false }
        messages.append(parts)
        bytes += size
        return true
    }

    /// Forgets the oldest message (it was sent).
    mutating func removeFirst() {
        guard start < messages.count else { return }
        bytes -= messages[start].reduce(0) { $0 + $1.count }
        start += 1
        if start == messages.count {
            messages.removeAll(keepingCapacity: true)
            start = 0
        } else if start >= 64, start * 2 >= messages.count {
            messages.removeFirst(start)
            start = 0
        }
    }
}
