import Glibc
import ProcessSupport

/// A group, as the loop thread keeps it.
struct GroupRecord {
    let group: SocketLoop.Group
    let handler: @Sendable ([SocketLoop.Received], SocketLoop.Group) -> Void
    let onPeerOverflow: (@Sendable (SocketLoop.PeerOverflow, SocketLoop.Group) -> Void)?
}

/// The phases of one turn of the loop thread, in the order ``LoopThread/run()`` runs them.
enum TurnPhase: CaseIterable {
    /// Work out how long `poll` may sleep (``PollTimeout``), asking `ZMQ_EVENTS` of the sockets
    /// sent on since they were last read, and of those read one message of (``Slot/expectsOne``).
    case computePollTimeout
    /// Wait in `poll(2)` on the wake-up pipe and the sockets' descriptors; on a wake-up, take what
    /// other threads queued.
    case poll
    /// Read every readable socket, up to its limit, into one batch.
    case read
    /// Hand each group its part of the batch: the groups' handlers run.
    case dispatch
    /// Run the work queued with ``SocketLoop/execute(_:)``.
    case runWork
    /// Run the timers that were due when the batch was handed over.
    case runTimers
    /// Run the executor's jobs (the loop's actors), a few rounds at most.
    case runJobs
    /// Take what handlers, work, timers and jobs queued, and end the handler phase.
    case absorbQueued
    /// Send what is queued (per peer on routed sockets) and report peers over their bound.
    case flush
    /// Close the groups whose detachment was asked for, now that what they queued went out.
    case completeDetachments
    /// Forget the peers cut off long enough ago.
    case sweepCutOff
    /// Publish the turn's counters, loop-wide and per group.
    case publish

    /// Whether a context terminated under the loop ends the turn after this phase (nothing read
    /// is handed over once the sockets are dead).
    var endsTurnOnTermination: Bool { self == .computePollTimeout || self == .read }
}

/// The loop thread: its ``LoopState`` (shared with callers), its sockets (``Slot``), timers, and
/// one method per ``TurnPhase``. ``run()`` runs turns while the state is running, then
/// ``shutDown()``.
final class LoopThread {
    let loop: SocketLoop
    let executor: LoopExecutor
    let wakeReadFD: Int32
    /// The loop's state as this thread last saw it (the truth is in the loop's shared state).
    private(set) var state = LoopState.starting
    var slots: [Slot] = []
    var groups: [Int: GroupRecord] = [:]
    /// `descriptors[0]` is the wake-up pipe; `descriptors[i + 1]` is slot `i`'s `ZMQ_FD` (-1: ignored).
    var descriptors: [pollfd]
    var timers = TimerQueue()
    var pollTimeout = PollTimeout.zero
    /// What this turn counted, by group id (``noGroup`` for what concerns no group).
    var tallies: [Int: SocketLoop.Tally] = [:]
    var overflows: [(SocketLoop.PeerOverflow, group: Int)] = []
    var backlogChanged = false
    var lastCutOffSweep = ContinuousClock.now
    /// This turn's batch, and when it was handed over (timers due then run).
    var batch: [SocketLoop.Received] = []
    var handedOver = ContinuousClock.now
    // Buffers swapped with the shared ones so that both keep their capacity.
    var taken: [(socket: Int, parts: [Message])] = []
    var work: [@Sendable () -> Void] = []
    var timerChanges: [SocketLoop.TimerChange] = []
    var jobs: [UnownedJob] = []
    var overflowed: [SocketLoop.PeerOverflow] = []
    /// Groups to remove at the end of the turn.
    var detachments: [(group: Int, done: @Sendable () -> Void)] = []

    /// The linger (ms) of a detached group's sockets.
    static let detachLinger: Int32 = 100

    /// The tally key of what concerns no group (a message for a socket the loop never had).
    static let noGroup = -1

    init(loop: SocketLoop, wakeReadFD: Int32) {
        self.loop = loop
        executor = loop.executor
        self.wakeReadFD = wakeReadFD
        descriptors = [pollfd(fd: wakeReadFD, events: Int16(POLLIN), revents: 0)]
    }

    func run() {
        executor.attach(waker: { [weak loop] in loop?.wakeForJobs() })
        absorbShared()
        while state.runsTurns {
            for phase in TurnPhase.allCases {
                perform(phase)
                if phase.endsTurnOnTermination, state == .stopping(.contextTerminated) { break }
            }
        }
        executor.attach(waker: nil)
        shutDown()
    }

    func perform(_ phase: TurnPhase) {
        switch phase {
        case .computePollTimeout: computePollTimeout()
        case .poll: poll()
        case .read: batch = readBatch()
        case .dispatch:
            handedOver = ContinuousClock.now
            dispatch(batch)
            batch = []
        case .runWork:
            for item in work { item() }
            work.removeAll(keepingCapacity: true)
        case .runTimers:
            if timers.hasDue(now: handedOver) { timers.runDue(now: handedOver) }
        case .runJobs:
            // A few rounds at most so that sockets are polled again soon; what is left makes the
            // next poll return at once.
            var rounds = 0
            while rounds < 4, executor.take(into: &jobs) {
                executor.run(jobs)
                jobs.removeAll(keepingCapacity: true)
                rounds += 1
            }
        case .absorbQueued:
            absorbShared(leavingHandler: true)
            if !work.isEmpty || executor.hasJobs { pollTimeout.wakeNow() }
        case .flush: flush()
        case .completeDetachments: completeDetachments()
        case .sweepCutOff: sweepCutOff(now: ContinuousClock.now)
        case .publish: publish()
        }
    }

    /// The context was terminated under the loop: it stops.
    func terminate() {
        state = loop.withShared { shared in
            shared.state.stop(.contextTerminated)
            return shared.state
        }
    }

    // MARK: Taking what others queued

    /// Takes what other threads queued: groups (first, so their messages find them), outgoing
    /// messages, work, timer changes, detachments, and the state (a stop). The first call starts
    /// the loop. With `leavingHandler`, also ends the handler phase (later calls wake the loop
    /// again).
    func absorbShared(leavingHandler: Bool = false) {
        var attaching: [(group: SocketLoop.Group, attachment: SocketLoop.Attachment)] = []
        var detaching: [(group: Int, done: @Sendable () -> Void)] = []
        loop.withShared { shared in
            if leavingHandler { shared.inHandler = false }
            shared.state.started()
            state = shared.state
            swap(&attaching, &shared.attaching)
            swap(&taken, &shared.outgoing)
            if work.isEmpty {
                swap(&work, &shared.work)
            } else {
                work.append(contentsOf: shared.work)
                shared.work.removeAll(keepingCapacity: true)
            }
            swap(&timerChanges, &shared.timerChanges)
            swap(&detaching, &shared.detaching)
        }
        for (group, attachment) in attaching { add(attachment, as: group) }
        for change in timerChanges { timers.apply(change) }
        timerChanges.removeAll(keepingCapacity: true)
        for message in taken {
            if message.socket < slots.count, slots[message.socket].socket != nil {
                slots[message.socket].pending.append(message.parts)
            } else {
                tallies[group(of: message.socket), default: SocketLoop.Tally()].dropped += 1  // detached
            }
        }
        taken.removeAll(keepingCapacity: true)
        // Removed after this turn's sends, so that what was queued before the detach still goes out.
        detachments.append(contentsOf: detaching)
    }

    /// The group of loop-wide socket `index`.
    func group(of index: Int) -> Int {
        index < slots.count ? slots[index].group : Self.noGroup
    }

    /// Removes the groups whose detachment was asked for, once what they had queued was sent.
    func completeDetachments() {
        guard !detachments.isEmpty else { return }
        let done = detachments
        detachments.removeAll()
        for (group, finished) in done {
            remove(group)
            finished()
        }
    }

    /// Takes over an attached group's sockets.
    func add(_ attachment: SocketLoop.Attachment, as group: SocketLoop.Group) {
        let sockets = attachment.takeSockets()
        precondition(group.base == slots.count, "groups are attached in the order their ids were given")
        for (local, socket) in sockets.enumerated() {
            slots.append(Slot(socket: socket, group: group.id, local: local, options: attachment.options))
            let descriptor = (try? socket.fileDescriptor) ?? -1  // -1: poll(2) ignores the entry
            descriptors.append(pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0))
        }
        groups[group.id] = GroupRecord(
            group: group, handler: attachment.handler, onPeerOverflow: attachment.onPeerOverflow)
        pollTimeout.wakeNow()
    }

    /// Closes a group's sockets and forgets it (its slots stay, empty, so indices keep their meaning).
    func remove(_ group: Int) {
        guard groups.removeValue(forKey: group) != nil else { return }
        for index in Self.closingOrder(slots.indices.filter { slots[$0].group == group }, of: slots) {
            // A short linger: the last answers it sent (a draining server's) still reach their peers;
            // closing never blocks, and the context waits at most this long for them.
            tallies[group, default: SocketLoop.Tally()].dropped += slots[index].close(
                linger: Self.detachLinger)
            descriptors[index + 1].fd = -1
        }
        backlogChanged = true
    }

    /// `indices` in the order their sockets are closed: monitored sockets first, then the rest (a
    /// monitor's PAIR among them), so that closing a socket stops its monitor while the PAIR is
    /// still there (``Socket/close(linger:)``).
    static func closingOrder(_ indices: [Int], of slots: [Slot]) -> [Int] {
        indices.filter { slots[$0].socket?.isMonitored == true }
            + indices.filter { slots[$0].socket?.isMonitored != true }
    }

    // MARK: Waiting

    /// How long the next poll may sleep (``PollTimeout``): until the soonest timer, not at all when
    /// a socket is to be read. Sockets the loop sent on, or read one message of, are asked for
    /// `ZMQ_EVENTS` first (their descriptor may not tell); one that has more is drained from then on.
    func computePollTimeout() {
        if let soonest = timers.nextDue { pollTimeout.wake(at: soonest, now: .now) }
        if slots.contains(where: \.readable) { pollTimeout.wakeNow() }
        for index in slots.indices where slots[index].unchecked {
            // When the loop will not sleep anyway, the next turn asks; but nothing but the probe
            // says whether a socket read one message of has more, so it is asked now.
            if pollTimeout.isZero && !slots[index].expectsOne { continue }
            slots[index].unchecked = false
            guard let socket = slots[index].socket else { continue }
            let events: PollEvents
            do {
                events = try socket.events
            } catch {
                if error.isContextTerminated { terminate() }
                continue
            }
            if events.contains(.readable) {
                slots[index].readable = true
                slots[index].expectsOne = false
            }
            pollTimeout.socketReported(
                readable: events.contains(.readable), writable: events.contains(.writable),
                hasPending: slots[index].hasPending, stalled: slots[index].stalled)
        }
    }

    /// Polls the wake-up pipe and the sockets' descriptors with poll(2) itself rather than through
    /// `zmq_poll`, which on every blocking call polls twice and asks every socket for
    /// `ZMQ_EVENTS` after each poll. A socket whose descriptor fired is read until it would block
    /// (which processes its commands and re-arms the descriptor); an idle socket costs nothing.
    func poll() {
        let timeout = Int32(clamping: pollTimeout.milliseconds)
        let count = descriptors.withUnsafeMutableBufferPointer { buffer in
            Glibc.poll(buffer.baseAddress, nfds_t(buffer.count), timeout)
        }
        pollTimeout = .indefinite
        guard count > 0 else { return }
        if descriptors[0].revents != 0 {
            Posix.drain(wakeReadFD)
            loop.withShared { $0.wakePending = false }
            absorbShared()
        }
        for index in slots.indices where descriptors[index + 1].revents != 0 {
            slots[index].readable = true
        }
    }

    // MARK: Reading

    /// Reads every readable socket, up to its limit, into one batch (loop-wide socket indices).
    func readBatch() -> [SocketLoop.Received] {
        var batch: [SocketLoop.Received] = []
        for index in slots.indices where slots[index].readable {
            guard let socket = slots[index].socket else {
                slots[index].readable = false
                continue
            }
            let routed = slots[index].peerLimit != nil
            let failure = slots[index].read(as: index, into: &batch) { () throws(ZMQError) in
                if routed { return try socket.receiveWithSource(dontWait: true) }
                guard case .done(let parts) = try socket.receive(dontWait: true) else { return .wouldBlock }
                return .done((parts, -1))
            }
            if let failure, failure.isContextTerminated { terminate() }
        }
        return batch
    }

    /// Hands each group its part of `batch` (runs of consecutive slots), with group socket ids,
    /// after counting it; from here until ``absorbShared(leavingHandler:)`` the loop is "in a
    /// handler" and what is queued needs no wake-up.
    func dispatch(_ batch: [SocketLoop.Received]) {
        let runs = Self.runs(of: batch) { slots[$0].group }
        loop.withShared { shared in
            if !batch.isEmpty {
                shared.statistics.batches += 1
                shared.statistics.received += batch.count
                for run in runs {
                    shared.groupStatistics[run.group, default: SocketLoop.Statistics()].batches += 1
                    shared.groupStatistics[run.group, default: SocketLoop.Statistics()].received +=
                        run.range.count
                }
            }
            shared.inHandler = true
        }
        for run in runs {
            guard let record = groups[run.group] else { continue }
            let base = record.group.base
            if run.range.count == batch.count && base == 0 {
                record.handler(batch, record.group)
            } else {
                record.handler(batch[run.range].map { $0.rebased(by: base) }, record.group)
            }
        }
    }

    /// The runs of consecutive messages of `batch` from one group (`groupOf` a loop-wide socket
    /// index), in order.
    static func runs(
        of batch: [SocketLoop.Received], groupOf: (Int) -> Int
    ) -> [(group: Int, range: Range<Int>)] {
        var runs: [(group: Int, range: Range<Int>)] = []
        var start = 0
        while start < batch.count {
            let group = groupOf(batch[start].socket.index)
            var end = start + 1
            while end < batch.count, groupOf(batch[end].socket.index) == group { end += 1 }
            runs.append((group, start..<end))
            start = end
        }
        return runs
    }

    // MARK: Sending

    /// Sends what is queued, in order, until a socket would block; on a routed socket, until each
    /// peer would block (the rest waits in that peer's backlog, within its bound).
    func flush() {
        let now = ContinuousClock.now
        for index in slots.indices where slots[index].hasPending || !slots[index].blockedPeers.isEmpty {
            guard let socket = slots[index].socket else { continue }
            let group = slots[index].group
            let send = { (parts: [Message]) throws(ZMQError) -> ZMQResult<Void> in
                try socket.send(parts, dontWait: true)
            }
            if let peerLimit = slots[index].peerLimit {
                if slots[index].flushRouted(
                    peerLimit, now: now, &tallies[group, default: SocketLoop.Tally()], &overflowed, send)
                {
                    backlogChanged = true
                }
                for overflow in overflowed { overflows.append((overflow, group)) }
                overflowed.removeAll(keepingCapacity: true)
            } else {
                slots[index].flushInOrder(&tallies[group, default: SocketLoop.Tally()], send)
            }
        }
        // A blocked peer's pipe gets room when it reads, which libzmq signals on the socket's
        // descriptor; look again in a while in any case.
        if slots.contains(where: { !$0.blockedPeers.isEmpty }) {
            pollTimeout.atMost(PollTimeout.blockedPeerRetry)
        }
        if !overflows.isEmpty {
            let happened = overflows
            overflows.removeAll(keepingCapacity: true)
            for (overflow, group) in happened {
                guard let record = groups[group] else { continue }
                record.onPeerOverflow?(overflow, record.group)
            }
        }
    }

    /// Forgets cut-off peers after ``Slot/cutOffMemory``, looking once a second.
    func sweepCutOff(now: ContinuousClock.Instant) {
        guard now - lastCutOffSweep >= .seconds(1), slots.contains(where: { !$0.cutOff.isEmpty }) else {
            return
        }
        lastCutOffSweep = now
        for index in slots.indices where !slots[index].cutOff.isEmpty {
            slots[index].expireCutOff(now: now)
        }
        backlogChanged = true
    }

    // MARK: Counting

    /// Publishes the counters gathered this turn, loop-wide and per group.
    func publish() {
        var gauges: [Int: SocketLoop.PeerGauges]?
        if backlogChanged {
            backlogChanged = false
            var byGroup: [Int: SocketLoop.PeerGauges] = [:]
            for slot in slots { byGroup[slot.group, default: SocketLoop.PeerGauges()].count(slot) }
            gauges = byGroup
        }
        let turn = tallies.filter { !$0.value.isEmpty }
        tallies.removeAll(keepingCapacity: true)
        guard gauges != nil || !turn.isEmpty else { return }
        loop.withShared { shared in
            if let gauges {
                var total = SocketLoop.PeerGauges()
                for (group, counted) in gauges {
                    total.add(counted)
                    shared.groupStatistics[group, default: SocketLoop.Statistics()].set(counted)
                }
                shared.statistics.set(total)
            }
            for (group, tally) in turn {
                shared.statistics.add(tally)
                if group != Self.noGroup {
                    shared.groupStatistics[group, default: SocketLoop.Statistics()].add(tally)
                }
            }
        }
    }

    // MARK: Ending

    /// Closes every socket and the pipe, counts what was never sent, completes the detachments
    /// asked for, and wakes those in ``SocketLoop/stop()``: the state becomes stopped.
    func shutDown() {
        publish()
        var unsent: [Int: Int] = [:]
        for index in Self.closingOrder(Array(slots.indices), of: slots) {
            let count = slots[index].close(linger: 0)
            if count > 0 { unsent[slots[index].group, default: 0] += count }
        }
        Posix.close(wakeReadFD)
        var detaching: [(group: Int, done: @Sendable () -> Void)] = detachments
        detachments.removeAll()
        let waiters = loop.withShared { shared in
            if shared.wakeWriteFD >= 0 { Posix.close(shared.wakeWriteFD) }
            shared.wakeWriteFD = -1
            shared.state.finished()
            for message in shared.outgoing { unsent[group(of: message.socket), default: 0] += 1 }
            for (group, count) in unsent {
                shared.statistics.dropped += count
                if group != Self.noGroup {
                    shared.groupStatistics[group, default: SocketLoop.Statistics()].dropped += count
                }
            }
            shared.outgoing.removeAll()
            shared.work.removeAll()
            shared.attaching.removeAll()
            detaching += shared.detaching
            shared.detaching.removeAll()
            defer { shared.waiters.removeAll() }
            return shared.waiters
        }
        state = .stopped
        groups = [:]
        for (_, done) in detaching { done() }
        loop.finished()
        for waiter in waiters { waiter.resume() }
    }
}

extension SocketLoop {
    /// Wakes the loop for an executor's jobs, unless it is in a handler or running jobs (it takes
    /// them right after).
    fileprivate func wakeForJobs() {
        withShared { shared in
            if !shared.inHandler { Self.wake(&shared) }
        }
    }
}
