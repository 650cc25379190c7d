import Dispatch
import Glibc
import Synchronization

/// A thread that owns a set of sockets and bridges them to actors.
///
/// The loop polls its sockets and a wake-up pipe. Each turn it reads up to
/// ``Configuration/maxMessagesPerSocket`` messages from every readable socket and hands them all to
/// the handler in **one batch**, so a consumer crosses into its actor once per batch rather than
/// once per message (a thread-to-actor hop costs microseconds here). Outgoing messages are queued
/// from any thread or actor with ``send(_:to:)``, which never blocks: it appends to a
/// mutex-protected queue and wakes the loop.
///
/// For ordered delivery into an actor, have the handler yield to an `AsyncStream` that the actor
/// consumes:
///
/// ```swift
/// let (batches, input) = AsyncStream.makeStream(of: [SocketLoop.Received].self)
/// let loop = try SocketLoop(context: context, sockets: [router]) { input.yield($0) }
/// Task { for await batch in batches { await core.handle(batch) } }
/// ```
///
/// ``stop()`` closes every socket with linger 0 on the loop's own thread and joins the thread.
public final class SocketLoop: Sendable {
    /// A socket of the loop: its index in the array given to
    /// ``init(context:sockets:configuration:handler:)``.
    public struct SocketID: Hashable, Sendable {
        /// The index in the array of sockets.
        public let index: Int

        /// The socket at `index` of the array the loop was created with.
        public init(_ index: Int) { self.index = index }
    }

    /// One multipart message received on one of the loop's sockets.
    public struct Received: Sendable, Hashable {
        /// The socket it arrived on.
        public let socket: SocketID
        /// Its parts (for a ROUTER, the first is the peer's routing id).
        public let parts: [Message]
        /// On a routed socket (``Configuration/routed``), the descriptor of the connection it came
        /// from (`ZMQ_SRCFD`); -1 elsewhere, and for `inproc://` connections.
        public let sourceFD: Int32
        /// On a routed socket, whether messages to its sender are waiting in the loop because it
        /// does not read (it has a backlog): answering it only adds to that backlog.
        public let senderBlocked: Bool

        /// A message received on `socket`.
        public init(socket: SocketID, parts: [Message], sourceFD: Int32 = -1, senderBlocked: Bool = false) {
            self.socket = socket
            self.parts = parts
            self.sourceFD = sourceFD
            self.senderBlocked = senderBlocked
        }
    }

    /// The bound on what one peer of a routed socket may have queued in the loop (beyond libzmq's
    /// own send high-water mark) while it does not read.
    public struct PeerQueueLimit: Sendable, Hashable {
        /// The most messages queued for one peer.
        public var messages: Int
        /// The most bytes (all parts) queued for one peer.
        public var bytes: Int

        /// A bound of `messages` and `bytes` (at least 1 each).
        public init(messages: Int = 1_000, bytes: Int = 4 << 20) {
            self.messages = max(1, messages)
            self.bytes = max(1, bytes)
        }
    }

    /// A peer of a routed socket went over its ``PeerQueueLimit``: the messages queued for it were
    /// dropped.
    public struct PeerOverflow: Sendable, Hashable {
        /// The routed socket.
        public let socket: SocketID
        /// The peer's routing id.
        public let peer: [UInt8]
        /// The messages dropped (those queued, and the one that went over the bound).
        public let dropped: Int
    }

    /// How the loop works.
    public struct Configuration: Sendable {
        /// The thread's name.
        public var name: String
        /// The most messages read from one socket per turn (bounds a batch and keeps sockets fair).
        public var maxMessagesPerSocket: Int
        /// ROUTER sockets whose outgoing messages are queued per peer (the first part, the routing
        /// id, names the peer), each peer's queue bounded. A peer that does not read blocks only
        /// its own messages: the loop sends everyone else's and keeps the blocked peer's until
        /// libzmq takes them, and a peer over its bound has them dropped (``PeerOverflow``). The
        /// messages received on these sockets carry their connection's descriptor
        /// (``Received/sourceFD``). Set `ZMQ_ROUTER_MANDATORY` on them so that a full peer is
        /// "would block" rather than a silent drop.
        public var routed: [SocketID: PeerQueueLimit]
        /// Sockets read until they would block in every turn, whatever ``maxMessagesPerSocket``
        /// says: monitors, whose events must be seen before the messages that follow them.
        public var drainedEachTurn: Set<SocketID>

        /// A configuration.
        public init(
            name: String = "zeromq-socket-loop", maxMessagesPerSocket: Int = 16,
            routed: [SocketID: PeerQueueLimit] = [:], drainedEachTurn: Set<SocketID> = []
        ) {
            self.name = name
            self.maxMessagesPerSocket = max(1, maxMessagesPerSocket)
            self.routed = routed
            self.drainedEachTurn = drainedEachTurn
        }
    }

    /// Counters, read with ``statistics``.
    public struct Statistics: Sendable, Hashable {
        /// Batches handed to the handler.
        public var batches = 0
        /// Messages received.
        public var received = 0
        /// Messages sent.
        public var sent = 0
        /// Messages dropped because sending failed (for example `EHOSTUNREACH` on a ROUTER with
        /// router-mandatory, or a socket that cannot send), or because the loop had stopped.
        public var dropped = 0
        /// The last send error, if any.
        public var lastError: ZMQError?
        /// Times a peer of a routed socket went over its bound (its queued messages dropped; they
        /// are counted in ``dropped`` too).
        public var peerOverflows = 0
        /// Peers of routed sockets with messages waiting in the loop now (they are not reading).
        public var blockedPeers = 0
        /// Messages waiting in the loop for those peers now.
        public var queuedForBlockedPeers = 0
        /// Peers of routed sockets that went over their bound and still do not read: each message
        /// for them is tried once and dropped (for up to 30 s after the overflow; the first message
        /// that goes through ends it).
        public var cutOffPeers = 0
    }

    /// What other threads share with the loop thread, under the mutex.
    private struct Shared: ~Copyable {
        /// Outgoing messages not yet taken by the loop thread.
        var outgoing: [(socket: Int, parts: [Message])] = []
        /// Work queued with ``execute(_:)``, not yet taken by the loop thread.
        var work: [@Sendable () -> Void] = []
        /// Timer changes not yet taken by the loop thread: new timers, and ids to cancel.
        var timerChanges: [TimerChange] = []
        /// The next timer id.
        var nextTimer = 0
        /// A wake-up byte is in flight (at most one is ever queued, so sending it never blocks).
        var wakePending = false
        /// ``stop()`` was called.
        var stopping = false
        /// The loop thread is in the handler and takes ``outgoing`` right after it, so ``send(_:to:)``
        /// need not wake it (replies from the handler go out in the same turn).
        var inHandler = false
        /// The loop thread has closed its sockets and ended.
        var finished = false
        /// The write end of the wake-up pipe (non-blocking); only used under the mutex, closed (and set
        /// to -1) by the loop thread when it ends.
        var wakeWriteFD: Int32
        /// Async callers of ``stop()`` waiting for the thread to end.
        var waiters: [CheckedContinuation<Void, Never>] = []
        /// Counters.
        var statistics = Statistics()
    }

    /// A periodic timer run by the loop thread.
    private struct LoopTimer {
        let id: Int
        let interval: Duration
        var next: ContinuousClock.Instant
        let work: @Sendable () -> Void
    }

    private enum TimerChange {
        case add(LoopTimer)
        case cancel(Int)
    }

    /// A timer of the loop, to cancel it with ``cancelTimer(_:)``.
    public struct TimerID: Hashable, Sendable {
        let rawValue: Int
    }

    private let shared: Mutex<Shared>
    /// Signalled once when the loop thread ends (and passed on by each waiter).
    private let ended = DispatchSemaphore(value: 0)
    /// The number of sockets.
    public let socketCount: Int

    /// Creates the loop and starts its thread, which takes over `sockets` (bound or connected as the
    /// caller wants). `handler` runs on the loop's thread with each non-empty batch, in order; it
    /// must not block.
    public convenience init(
        context: Context,
        sockets: sending [Socket],
        configuration: Configuration = Configuration(),
        executor: LoopExecutor? = nil,
        handler: @escaping @Sendable ([Received]) -> Void
    ) throws(ZMQError) {
        try self.init(
            context: context, sockets: sockets, configuration: configuration, executor: executor,
            onPeerOverflow: nil
        ) { batch, _ in handler(batch) }
    }

    /// Creates the loop and starts its thread, which takes over `sockets`. `handler` runs on the
    /// loop's thread with each non-empty batch and the loop itself, so it can queue replies with
    /// ``send(_:to:)`` from the very first batch; it must not block.
    ///
    /// With an `executor`, the loop also runs that executor's jobs on its thread after each batch
    /// (see ``LoopExecutor``). `onPeerOverflow` runs on the loop's thread when a peer of a routed
    /// socket goes over its bound (``Configuration/routed``), after that turn's sends; messages it
    /// queues go out in the next turn.
    public init(
        context: Context,
        sockets: sending [Socket],
        configuration: Configuration = Configuration(),
        executor: LoopExecutor? = nil,
        onPeerOverflow: (@Sendable (PeerOverflow, SocketLoop) -> Void)? = nil,
        handlerWithLoop handler: @escaping @Sendable ([Received], SocketLoop) -> Void
    ) throws(ZMQError) {
        // The wake-up is a pipe rather than an inproc PAIR: `zmq_poll` checks a plain descriptor with
        // `poll(2)` alone, while each ZeroMQ socket in the set costs a `ZMQ_EVENTS` query (two
        // system calls) per pass.
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw ZMQError(code: ZMQError.Code(rawValue: errno), function: "pipe") }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        let wakeReadFD = ends[0]
        socketCount = sockets.count
        shared = Mutex(Shared(wakeWriteFD: ends[1]))
        for socket in configuration.routed.keys.map(\.index) + configuration.drainedEachTurn.map(\.index) {
            precondition(socket >= 0 && socket < sockets.count, "no socket \(socket) in the loop")
        }
        OwnedThread.spawn(name: configuration.name) { [self] in
            run(
                wakeReadFD: wakeReadFD, sockets: sockets, configuration: configuration, executor: executor,
                onPeerOverflow: onPeerOverflow, handler: handler)
        }
    }

    /// Wakes the loop for an executor's jobs, unless it is in the handler or running jobs (it
    /// takes them right after).
    private func wakeForJobs() {
        shared.withLock { shared in
            if !shared.inHandler { Self.wake(&shared) }
        }
    }

    /// Queues a message to send on a socket of the loop, without blocking. Returns false (and counts
    /// it as dropped) when the loop has stopped.
    @discardableResult
    public func send(_ parts: [Message], to socket: SocketID) -> Bool {
        precondition(socket.index >= 0 && socket.index < socketCount, "no socket \(socket.index) in the loop")
        return shared.withLock { shared in
            guard !shared.stopping else {
                shared.statistics.dropped += 1
                return false
            }
            shared.outgoing.append((socket.index, parts))
            if !shared.inHandler { Self.wake(&shared) }
            return true
        }
    }

    /// Runs `work` on the loop's thread, after the batch handler of its next turn, in the order
    /// queued; messages it sends go out in that turn. Never blocks: it queues `work` and wakes the
    /// loop. Returns false (and drops `work`) when the loop has stopped.
    ///
    /// This is how code elsewhere (a timer, say) joins the loop's thread, so that everything a
    /// consumer does with what the loop receives happens on one thread without locks between them.
    @discardableResult
    public func execute(_ work: @escaping @Sendable () -> Void) -> Bool {
        shared.withLock { shared in
            guard !shared.stopping else { return false }
            shared.work.append(work)
            if !shared.inHandler { Self.wake(&shared) }
            return true
        }
    }

    /// Runs `work` on the loop's thread every `interval` (first after one interval), between
    /// batches, until ``cancelTimer(_:)``; messages it sends go out in that turn. The loop sleeps in
    /// `poll` until the soonest timer is due, so timers cost no thread of their own and are never
    /// held up by a busy cooperative pool. A turn that runs late skips the missed ticks.
    @discardableResult
    public func schedule(every interval: Duration, _ work: @escaping @Sendable () -> Void) -> TimerID {
        precondition(interval > .zero, "a loop timer needs a positive interval")
        return shared.withLock { shared in
            let id = shared.nextTimer
            shared.nextTimer += 1
            shared.timerChanges.append(
                .add(LoopTimer(id: id, interval: interval, next: .now + interval, work: work)))
            if !shared.inHandler { Self.wake(&shared) }
            return TimerID(rawValue: id)
        }
    }

    /// Stops a timer; it does not run after this returns, unless it is running right now.
    public func cancelTimer(_ timer: TimerID) {
        shared.withLock { shared in
            shared.timerChanges.append(.cancel(timer.rawValue))
            if !shared.inHandler { Self.wake(&shared) }
        }
    }

    /// The counters so far.
    public var statistics: Statistics { shared.withLock { $0.statistics } }

    /// Stops the loop: its thread closes every socket with linger 0 and ends; this call returns when
    /// it has (a join). Blocks the caller for at most one loop turn; from async code prefer
    /// ``stop()-swift.method``'s async form. Later calls return at once.
    public func stop() {
        requestStop()
        ended.wait()
        ended.signal()
    }

    /// Stops the loop and suspends until its thread has closed the sockets and ended.
    public func stop() async {
        requestStop()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = shared.withLock { shared in
                if shared.finished { return true }
                shared.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    private func requestStop() {
        shared.withLock { shared in
            guard !shared.stopping else { return }
            shared.stopping = true
            Self.wake(&shared)
        }
    }

    /// `duration` in whole milliseconds, rounded up (a poll timeout that wakes early would spin).
    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        let milliseconds = seconds * 1_000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int(clamping: milliseconds)
    }

    /// Sends the wake-up byte unless one is already in flight. Called under the mutex.
    private static func wake(_ shared: inout Shared) {
        guard !shared.wakePending, shared.wakeWriteFD >= 0 else { return }
        shared.wakePending = true
        var byte: UInt8 = 0
        _ = Glibc.write(shared.wakeWriteFD, &byte, 1)  // one byte in an empty pipe: never blocks
    }

    /// The loop thread's body.
    private func run(
        wakeReadFD: Int32, sockets: [Socket], configuration: Configuration, executor: LoopExecutor?,
        onPeerOverflow: (@Sendable (PeerOverflow, SocketLoop) -> Void)?,
        handler: @Sendable ([Received], SocketLoop) -> Void
    ) {
        let limit = configuration.maxMessagesPerSocket
        let limits = sockets.indices.map { index in
            configuration.drainedEachTurn.contains(SocketID(index)) ? Int.max : limit
        }
        // Per-peer queues of the routed sockets (nil: one queue for the socket, in order).
        let peerLimits = sockets.indices.map { configuration.routed[SocketID($0)] }
        var backlogs = [[[UInt8]: PeerBacklog]](repeating: [:], count: sockets.count)
        // The peers with a backlog, in the order they blocked (retried in that order).
        var blockedPeers = [[[UInt8]]](repeating: [], count: sockets.count)
        // Peers that went over their bound, and when: their pipe is still full, so each message for
        // them is tried once and dropped while it would block; the first that goes through (the
        // peer reads again) ends it. Forgotten after `cutOffMemory`.
        var cutOff = [[[UInt8]: ContinuousClock.Instant]](repeating: [:], count: sockets.count)
        let cutOffMemory = Duration.seconds(30)
        var lastCutOffSweep = ContinuousClock.now
        var overflows: [PeerOverflow] = []
        var overflowCount = 0
        var backlogChanged = false
        executor?.attach(waker: { [weak self] in self?.wakeForJobs() })
        defer { executor?.attach(waker: nil) }
        var jobs: [UnownedJob] = []
        // The loop polls the wake-up pipe and each socket's `ZMQ_FD` with poll(2) itself rather than
        // through `zmq_poll`, which on every blocking call polls twice (first with a zero timeout)
        // and asks every socket for `ZMQ_EVENTS` after each poll (a system call or two apiece). Here
        // a socket is asked only when something may have changed that its descriptor does not
        // show: after the loop sent on it. A socket whose descriptor fired is read until it would
        // block (which processes its commands and re-arms the descriptor); an idle socket, such as
        // a monitor's PAIR, costs nothing per turn.
        var descriptors = [pollfd](repeating: pollfd(fd: -1, events: Int16(POLLIN), revents: 0), count: 1)
        descriptors[0].fd = wakeReadFD
        for socket in sockets {
            let descriptor = (try? socket.fileDescriptor) ?? -1  // -1: poll(2) ignores the entry
            descriptors.append(pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0))
        }
        var drain = [UInt8](repeating: 0, count: 16)
        // Sockets to read in this turn: their descriptor fired, `ZMQ_EVENTS` said so, or the last
        // turn stopped at the limit. All of them at first: messages may have arrived before.
        var readable = [Bool](repeating: true, count: sockets.count)
        // Sockets the loop sent on since it last read them until they would block: a send may have
        // processed the command that fired the descriptor, so it must be asked before sleeping.
        var unchecked = [Bool](repeating: false, count: sockets.count)
        var pending = [[[Message]]](repeating: [], count: sockets.count)
        var pendingStart = [Int](repeating: 0, count: sockets.count)
        // Sockets whose last send attempt made no progress although they reported writable.
        var stalled = [Bool](repeating: false, count: sockets.count)
        // Jobs enqueued before the waker was attached woke nobody: look at once.
        var pollTimeout = executor?.hasJobs == true ? 0 : -1
        var stopping = false
        var terminated = false
        var sentCount = 0
        var droppedCount = 0
        var lastError: ZMQError?
        // The outgoing queue is taken by swapping it with this empty one under the mutex, and both
        // keep their capacity: copying it out and emptying it in place would allocate a new buffer
        // every turn (the copy still shares the old one).
        var taken: [(socket: Int, parts: [Message])] = []
        var work: [@Sendable () -> Void] = []
        var timers: [LoopTimer] = []
        var timerChanges: [TimerChange] = []
        func applyTimerChanges() {
            for change in timerChanges {
                switch change {
                case .add(let timer): timers.append(timer)
                case .cancel(let id): timers.removeAll { $0.id == id }
                }
            }
            timerChanges.removeAll(keepingCapacity: true)
        }

        while !stopping && !terminated {
            if let soonest = timers.map(\.next).min() {
                let wait = max(0, Self.milliseconds(soonest - .now))
                pollTimeout = pollTimeout < 0 ? wait : min(pollTimeout, wait)
            }
            if readable.contains(true) { pollTimeout = 0 }
            if pollTimeout != 0 {
                // About to sleep: ask the sockets whose descriptor may not tell.
                for index in sockets.indices where unchecked[index] {
                    unchecked[index] = false
                    let events: PollEvents
                    do {
                        events = try sockets[index].events
                    } catch {
                        terminated = terminated || error.isContextTerminated
                        continue
                    }
                    if events.contains(.readable) {
                        readable[index] = true
                        pollTimeout = 0
                    }
                    if events.contains(.writable), pendingStart[index] < pending[index].count {
                        // A ROUTER reports writable while the addressed peer is at its high-water
                        // mark: after an attempt without progress, retry in 1 ms instead of spinning.
                        let retry = stalled[index] ? 1 : 0
                        pollTimeout = pollTimeout < 0 ? retry : min(pollTimeout, retry)
                    }
                }
                if terminated { break }
            }
            let count = descriptors.withUnsafeMutableBufferPointer { buffer in
                Glibc.poll(buffer.baseAddress, nfds_t(buffer.count), Int32(clamping: pollTimeout))
            }
            pollTimeout = -1
            if count > 0 {
                if descriptors[0].revents != 0 {
                    while Glibc.read(wakeReadFD, &drain, drain.count) > 0 {}
                    shared.withLock { shared in
                        shared.wakePending = false
                        stopping = shared.stopping
                        swap(&taken, &shared.outgoing)
                        work.append(contentsOf: shared.work)
                        shared.work.removeAll(keepingCapacity: true)
                        swap(&timerChanges, &shared.timerChanges)
                    }
                    applyTimerChanges()
                    for message in taken { pending[message.socket].append(message.parts) }
                    taken.removeAll(keepingCapacity: true)
                }
                for index in sockets.indices where descriptors[index + 1].revents != 0 {
                    readable[index] = true
                }
            }
            var batch: [Received] = []
            for index in sockets.indices where readable[index] {
                readable[index] = false
                let socket = sockets[index]
                let routed = peerLimits[index] != nil
                let limit = limits[index]
                var received = 0
                while received < limit {
                    let result: ZMQResult<(parts: [Message], sourceFD: Int32)>
                    do {
                        if routed {
                            result = try socket.receiveWithSource(dontWait: true)
                        } else if case .done(let parts) = try socket.receive(dontWait: true) {
                            result = .done((parts, -1))
                        } else {
                            result = .wouldBlock
                        }
                    } catch {
                        terminated = terminated || error.isContextTerminated
                        break
                    }
                    guard case .done(let message) = result else { break }
                    // One allocation for a typical batch rather than one per doubling.
                    if batch.isEmpty { batch.reserveCapacity(min(limit, 16)) }
                    let blocked =
                        routed
                        && ((!backlogs[index].isEmpty && backlogs[index][message.parts[0].bytes] != nil)
                            || (!cutOff[index].isEmpty && cutOff[index][message.parts[0].bytes] != nil))
                    batch.append(
                        Received(
                            socket: SocketID(index), parts: message.parts, sourceFD: message.sourceFD,
                            senderBlocked: blocked))
                    received += 1
                }
                if received == limit {
                    // Stopped at the limit: more may be queued, and the descriptor will not say so.
                    readable[index] = true
                } else {
                    // Read until it would block: its commands are processed, its descriptor re-armed.
                    unchecked[index] = false
                }
            }
            if terminated { break }
            let batchSize = batch.count
            let now = ContinuousClock.now
            let timersDue = timers.contains { $0.next <= now }
            let busy = batchSize > 0 || !work.isEmpty || executor != nil || timersDue
            if busy {
                // Sends from the handler, the work and the jobs need not wake the loop: it takes
                // them right after.
                shared.withLock { shared in
                    shared.statistics.batches += batchSize > 0 ? 1 : 0
                    shared.statistics.received += batchSize
                    shared.inHandler = true
                }
            }
            if batchSize > 0 { handler(batch, self) }
            for item in work { item() }
            work.removeAll(keepingCapacity: true)
            if timersDue {
                for index in timers.indices where timers[index].next <= now {
                    timers[index].work()
                    timers[index].next += timers[index].interval
                    if timers[index].next <= now { timers[index].next = now + timers[index].interval }
                }
            }
            // The executor's jobs (an actor fed by the handler runs here, on this thread), a few
            // rounds at most so that sockets are polled again soon; what is left wakes the next turn.
            if let executor {
                var rounds = 0
                while rounds < 4, executor.take(into: &jobs) {
                    executor.run(jobs)
                    jobs.removeAll(keepingCapacity: true)
                    rounds += 1
                }
            }
            if busy {
                // Take what the handler, the work and the jobs (or anyone meanwhile) queued: messages
                // go out in this turn, work queued meanwhile runs in the next.
                shared.withLock { shared in
                    shared.inHandler = false
                    swap(&taken, &shared.outgoing)
                    swap(&work, &shared.work)
                    swap(&timerChanges, &shared.timerChanges)
                }
                applyTimerChanges()
                for message in taken { pending[message.socket].append(message.parts) }
                taken.removeAll(keepingCapacity: true)
                // Work or a job queued while `inHandler` was still set did not wake the loop.
                if !work.isEmpty || executor?.hasJobs == true { pollTimeout = 0 }
            }
            // Send what is queued, in order, until a socket would block; on a routed socket, until
            // each peer would block (the rest waits in that peer's backlog).
            for index in sockets.indices {
                if let peerLimit = peerLimits[index] {
                    guard !blockedPeers[index].isEmpty || pendingStart[index] < pending[index].count else {
                        continue
                    }
                    let socket = sockets[index]
                    // Backlogs first, so that each peer's messages keep their order.
                    if !blockedPeers[index].isEmpty {
                        var kept = 0
                        for peer in blockedPeers[index] {
                            var gone = false
                            while let parts = backlogs[index][peer]?.first {
                                do {
                                    if case .wouldBlock = try socket.send(parts, dontWait: true) { break }
                                    sentCount += 1
                                    backlogs[index][peer]?.removeFirst()
                                } catch {
                                    // The peer is gone (`EHOSTUNREACH`): nothing queued for it can go.
                                    droppedCount += backlogs[index][peer]?.count ?? 0
                                    lastError = error
                                    gone = true
                                    break
                                }
                            }
                            if gone || backlogs[index][peer]?.count ?? 0 == 0 {
                                backlogs[index][peer] = nil
                            } else {
                                blockedPeers[index][kept] = peer
                                kept += 1
                            }
                        }
                        if kept < blockedPeers[index].count {
                            blockedPeers[index].removeLast(blockedPeers[index].count - kept)
                        }
                        backlogChanged = true
                    }
                    for parts in pending[index] {
                        let peer = parts[0].bytes
                        if backlogs[index].isEmpty || backlogs[index][peer] == nil {
                            let wasCutOff = !cutOff[index].isEmpty && cutOff[index][peer] != nil
                            do {
                                if case .done = try socket.send(parts, dontWait: true) {
                                    sentCount += 1
                                    if wasCutOff {
                                        cutOff[index][peer] = nil  // it reads again
                                        backlogChanged = true
                                    }
                                    continue
                                }
                            } catch {
                                droppedCount += 1
                                lastError = error
                                if wasCutOff { cutOff[index][peer] = nil }
                                continue
                            }
                            if wasCutOff {
                                // Still not reading: nothing is kept for it.
                                droppedCount += 1
                                continue
                            }
                        }
                        // The peer would block: keep the message for it, within its bound.
                        backlogChanged = true
                        let size = parts.reduce(0) { $0 + $1.count }
                        if backlogs[index][peer] == nil { blockedPeers[index].append(peer) }
                        if backlogs[index][peer, default: PeerBacklog()].append(parts, size: size, within: peerLimit) {
                            continue
                        }
                        let dropped = (backlogs[index].removeValue(forKey: peer)?.count ?? 0) + 1
                        blockedPeers[index].removeAll { $0 == peer }
                        droppedCount += dropped
                        overflowCount += 1
                        cutOff[index][peer] = ContinuousClock.now
                        overflows.append(PeerOverflow(socket: SocketID(index), peer: peer, dropped: dropped))
                    }
                    pending[index].removeAll(keepingCapacity: true)
                    pendingStart[index] = 0
                    unchecked[index] = true
                    continue
                }
                guard pendingStart[index] < pending[index].count else { continue }
                let socket = sockets[index]
                let before = pendingStart[index]
                while pendingStart[index] < pending[index].count {
                    do {
                        let result = try socket.send(pending[index][pendingStart[index]], dontWait: true)
                        if case .wouldBlock = result { break }
                        sentCount += 1
                    } catch {
                        droppedCount += 1
                        lastError = error
                    }
                    pendingStart[index] += 1
                }
                unchecked[index] = true
                if pendingStart[index] == pending[index].count {
                    pending[index].removeAll(keepingCapacity: true)
                    pendingStart[index] = 0
                    stalled[index] = false
                } else {
                    stalled[index] = pendingStart[index] == before
                }
            }
            if cutOff.contains(where: { !$0.isEmpty }), ContinuousClock.now - lastCutOffSweep >= .seconds(1) {
                let now = ContinuousClock.now
                lastCutOffSweep = now
                for index in cutOff.indices where !cutOff[index].isEmpty {
                    cutOff[index] = cutOff[index].filter { now - $0.value < cutOffMemory }
                }
                backlogChanged = true
            }
            if backlogChanged {
                backlogChanged = false
                let peers = blockedPeers.reduce(0) { $0 + $1.count }
                let cutOffPeers = cutOff.reduce(0) { $0 + $1.count }
                let queued = backlogs.reduce(0) { total, socket in total + socket.values.reduce(0) { $0 + $1.count } }
                let overflowed = overflowCount
                overflowCount = 0
                shared.withLock { shared in
                    shared.statistics.blockedPeers = peers
                    shared.statistics.cutOffPeers = cutOffPeers
                    shared.statistics.queuedForBlockedPeers = queued
                    shared.statistics.peerOverflows += overflowed
                }
            }
            // A blocked peer's pipe gets room when it reads, which libzmq signals on the socket's
            // descriptor; look again in a while in any case.
            if blockedPeers.contains(where: { !$0.isEmpty }) {
                pollTimeout = pollTimeout < 0 ? 50 : min(pollTimeout, 50)
            }
            if !overflows.isEmpty {
                let happened = overflows
                overflows.removeAll(keepingCapacity: true)
                for overflow in happened { onPeerOverflow?(overflow, self) }
            }
            if sentCount > 0 || droppedCount > 0 {
                let sent = sentCount
                let dropped = droppedCount
                let error = lastError
                shared.withLock { shared in
                    shared.statistics.sent += sent
                    shared.statistics.dropped += dropped
                    if let error { shared.statistics.lastError = error }
                }
                sentCount = 0
                droppedCount = 0
                lastError = nil
            }
        }

        for socket in sockets { socket.close(linger: 0) }
        Glibc.close(wakeReadFD)
        let unsent =
            pending.indices.reduce(0) { $0 + pending[$1].count - pendingStart[$1] }
            + backlogs.reduce(0) { total, socket in total + socket.values.reduce(0) { $0 + $1.count } }
        let waiters = shared.withLock { shared in
            if shared.wakeWriteFD >= 0 { Glibc.close(shared.wakeWriteFD) }
            shared.wakeWriteFD = -1
            shared.finished = true
            shared.statistics.dropped += unsent + shared.outgoing.count
            shared.outgoing.removeAll()
            shared.work.removeAll()
            defer { shared.waiters.removeAll() }
            return shared.waiters
        }
        ended.signal()
        for waiter in waiters { waiter.resume() }
    }
}

/// The messages a loop keeps for one peer of a routed socket that would block.
private struct PeerBacklog {
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
