import Dispatch
import Glibc
import Synchronization

/// An event loop: one thread that owns sockets, runs timers, and is the executor of actors.
///
/// The loop polls its sockets and a wake-up pipe. Each turn it reads up to
/// ``Options/maxMessagesPerSocket`` messages from every readable socket and hands them to the
/// handler of the sockets' ``Group`` in **one batch**; then it runs the work queued with
/// ``execute(_:)``, the timers that are due, and the jobs of its ``executor`` (the actors whose
/// executor it is run here, on this thread); then it sends what all of them queued. A process
/// that attaches every socket it has (its server's ROUTER and each upstream client's DEALER) to
/// one loop, and puts its actor on the loop's executor, handles a request from frame to reply on
/// one thread, with no hand-off.
///
/// Sockets come in groups (``attach(_:options:onPeerOverflow:handler:)``), each with its own
/// handler and socket ids numbered from 0; a group can be detached while the loop runs. Outgoing
/// messages are queued from any thread with ``Group/send(_:to:)`` (or ``send(_:to:)`` for the
/// sockets given to the loop's initializer), which never blocks: it appends to a mutex-protected
/// queue and wakes the loop (unless it runs on the loop's thread, which takes the queue at the end
/// of the turn).
///
/// Timers (``schedule(after:_:)``, ``schedule(every:_:)``) run on the loop's thread from one timer
/// queue: the loop sleeps in `poll` until the soonest is due, so they cost no thread of their own.
///
/// ``stop()`` closes every socket with linger 0 on the loop's own thread and joins the thread.
public final class SocketLoop: Sendable {
    /// A socket of a group: its index in the array the group was attached with.
    public struct SocketID: Hashable, Sendable {
        /// The index in the array of sockets.
        public let index: Int

        /// The socket at `index` of the array the group was attached with.
        public init(_ index: Int) { self.index = index }
    }

    /// One multipart message received on one of the loop's sockets.
    public struct Received: Sendable, Hashable {
        /// The socket it arrived on (its id in its group).
        public let socket: SocketID
        /// Its parts (for a ROUTER, the first is the peer's routing id).
        public let parts: [Message]
        /// On a routed socket (``Options/routed``), the descriptor of the connection it came from
        /// (`ZMQ_SRCFD`); -1 elsewhere, and for `inproc://` connections.
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

        /// The same message, as seen by a group whose first socket is `base`.
        fileprivate func rebased(by base: Int) -> Received {
            base == 0
                ? self
                : Received(
                    socket: SocketID(socket.index - base), parts: parts, sourceFD: sourceFD,
                    senderBlocked: senderBlocked)
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
        /// The routed socket (its id in its group).
        public let socket: SocketID
        /// The peer's routing id.
        public let peer: [UInt8]
        /// The messages dropped (those queued, and the one that went over the bound).
        public let dropped: Int
    }

    /// How the loop treats the sockets of one group.
    public struct Options: Sendable {
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

        /// Options for a group of sockets.
        public init(
            maxMessagesPerSocket: Int = 16, routed: [SocketID: PeerQueueLimit] = [:],
            drainedEachTurn: Set<SocketID> = []
        ) {
            self.maxMessagesPerSocket = max(1, maxMessagesPerSocket)
            self.routed = routed
            self.drainedEachTurn = drainedEachTurn
        }
    }

    /// How the loop works: its thread's name, and the options of the sockets given to the
    /// initializer.
    public struct Configuration: Sendable {
        /// The thread's name.
        public var name: String
        /// See ``Options/maxMessagesPerSocket``.
        public var maxMessagesPerSocket: Int
        /// See ``Options/routed``.
        public var routed: [SocketID: PeerQueueLimit]
        /// See ``Options/drainedEachTurn``.
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

        /// The options of the initializer's sockets.
        var options: Options {
            Options(maxMessagesPerSocket: maxMessagesPerSocket, routed: routed, drainedEachTurn: drainedEachTurn)
        }
    }

    /// Counters, read with ``statistics``.
    public struct Statistics: Sendable, Hashable {
        /// Batches handed to handlers.
        public var batches = 0
        /// Messages received.
        public var received = 0
        /// Messages sent.
        public var sent = 0
        /// Messages dropped because sending failed (for example `EHOSTUNREACH` on a ROUTER with
        /// router-mandatory, or a socket that cannot send), because their group was detached, or
        /// because the loop had stopped.
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

    /// A timer of the loop, to cancel it with ``cancelTimer(_:)``.
    public struct TimerID: Hashable, Sendable {
        let rawValue: Int
    }

    /// Sockets attached to a loop together, with one handler: a server's ROUTER and its monitor, a
    /// client's DEALERs and theirs. Socket ids count from 0 within the group.
    public final class Group: Sendable {
        /// The loop the group is attached to.
        public let loop: SocketLoop
        /// The loop-wide index of the group's first socket.
        let base: Int
        /// The number of sockets.
        public let count: Int
        let id: Int

        init(loop: SocketLoop, id: Int, base: Int, count: Int) {
            self.loop = loop
            self.id = id
            self.base = base
            self.count = count
        }

        /// Queues a message to send on socket `socket` of the group, without blocking. Returns false
        /// (and counts it as dropped) when the loop has stopped.
        @discardableResult
        public func send(_ parts: [Message], to socket: SocketID) -> Bool {
            precondition(socket.index >= 0 && socket.index < count, "no socket \(socket.index) in the group")
            return loop.enqueue(parts, to: base + socket.index)
        }

        /// Closes the group's sockets on the loop's thread, once what was queued to them before
        /// this call was sent (with a linger of 100 ms, so it reaches the peers), and forgets its
        /// handler; returns once that is done (at once if the loop has stopped).
        public func detach() async {
            await loop.detach(self)
        }

        /// Detaches the group as ``detach()`` does, without waiting for it (for code that cannot
        /// suspend, such as an initializer that failed half-way).
        public func detachLater() {
            loop.detach(self) {}
        }
    }

    /// The sockets of a group on their way to the loop's thread.
    ///
    /// Safe without compiler checking: the sockets were received as `sending`, so the caller keeps
    /// no access to them; the box is written once before it is queued under the loop's mutex (which
    /// orders the write before the loop thread reads it) and then touched only by the loop thread,
    /// which takes the sockets out exactly once.
    fileprivate final class Attachment: @unchecked Sendable {
        let group: Group
        let options: Options
        let handler: @Sendable ([Received], Group) -> Void
        let onPeerOverflow: (@Sendable (PeerOverflow, Group) -> Void)?
        private var sockets: [Socket]?

        init(
            group: Group, sockets: sending [Socket], options: Options,
            handler: @escaping @Sendable ([Received], Group) -> Void,
            onPeerOverflow: (@Sendable (PeerOverflow, Group) -> Void)?
        ) {
            self.group = group
            self.sockets = sockets
            self.options = options
            self.handler = handler
            self.onPeerOverflow = onPeerOverflow
        }

        func takeSockets() -> [Socket] {
            defer { sockets = nil }
            return sockets ?? []
        }
    }

    /// What other threads share with the loop thread, under the mutex.
    fileprivate struct Shared: ~Copyable {
        /// Outgoing messages not yet taken by the loop thread (loop-wide socket indices).
        var outgoing: [(socket: Int, parts: [Message])] = []
        /// Work queued with ``execute(_:)``, not yet taken by the loop thread.
        var work: [@Sendable () -> Void] = []
        /// Timer changes not yet taken by the loop thread: new timers, and ids to cancel.
        var timerChanges: [TimerChange] = []
        /// Groups attached, not yet taken by the loop thread.
        var attaching: [Attachment] = []
        /// Groups to detach, and what to call once they are.
        var detaching: [(group: Int, done: @Sendable () -> Void)] = []
        /// The next timer id.
        var nextTimer = 0
        /// The next group id, and the loop-wide index of the next group's first socket.
        var nextGroup = 0
        var nextSocket = 0
        /// A wake-up byte is in flight (at most one is ever queued, so sending it never blocks).
        var wakePending = false
        /// ``stop()`` was called.
        var stopping = false
        /// The loop thread is in a handler, work, a timer or the executor's jobs, and takes what is
        /// queued right after, so nothing queued meanwhile needs to wake it.
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

    fileprivate enum TimerChange {
        case add(id: Int, due: ContinuousClock.Instant, interval: Duration?, work: @Sendable () -> Void)
        case cancel(Int)
    }

    private let shared: Mutex<Shared>
    /// Signalled once when the loop thread ends (and passed on by each waiter).
    private let ended = DispatchSemaphore(value: 0)
    /// The executor whose jobs run on the loop's thread: actors that use it run here.
    public let executor: LoopExecutor
    /// The number of sockets given to the initializer (nil: none were; the loop has groups only).
    private let initialCount: Int?

    /// A loop with no sockets yet (attach them with ``attach(_:options:onPeerOverflow:handler:)``),
    /// running jobs of `executor` (a new one by default) on its thread.
    public init(name: String = "zeromq-socket-loop", executor: LoopExecutor = LoopExecutor()) throws(ZMQError) {
        // The wake-up is a pipe rather than an inproc PAIR: a plain descriptor costs poll(2) alone,
        // while each ZeroMQ socket in the set costs a `ZMQ_EVENTS` query (two system calls).
        let ends = try Posix.nonBlockingPipe()
        self.executor = executor
        shared = Mutex(Shared(wakeWriteFD: ends.write))
        initialCount = nil
        OwnedThread.spawn(name: name) { [self] in
            LoopThread(loop: self, wakeReadFD: ends.read).run()
        }
    }

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
    /// With an `executor`, the loop runs that executor's jobs on its thread (see ``LoopExecutor``);
    /// without one it makes its own (``executor``). `onPeerOverflow` runs on the loop's thread when
    /// a peer of a routed socket goes over its bound (``Configuration/routed``), after that turn's
    /// sends; messages it queues go out in the next turn.
    public init(
        context: Context,
        sockets: sending [Socket],
        configuration: Configuration = Configuration(),
        executor: LoopExecutor? = nil,
        onPeerOverflow: (@Sendable (PeerOverflow, SocketLoop) -> Void)? = nil,
        handlerWithLoop handler: @escaping @Sendable ([Received], SocketLoop) -> Void
    ) throws(ZMQError) {
        let ends = try Posix.nonBlockingPipe()
        self.executor = executor ?? LoopExecutor()
        let count = sockets.count
        for socket in configuration.routed.keys.map(\.index) + configuration.drainedEachTurn.map(\.index) {
            precondition(socket >= 0 && socket < count, "no socket \(socket) in the loop")
        }
        var shared = Shared(wakeWriteFD: ends.write)
        shared.nextGroup = 1
        shared.nextSocket = count
        self.shared = Mutex(shared)
        initialCount = count
        var overflowHandler: (@Sendable (PeerOverflow, Group) -> Void)?
        if let onPeerOverflow {
            overflowHandler = { overflow, group in onPeerOverflow(overflow, group.loop) }
        }
        let attachment = Attachment(
            group: Group(loop: self, id: 0, base: 0, count: count), sockets: sockets,
            options: configuration.options, handler: { batch, group in handler(batch, group.loop) },
            onPeerOverflow: overflowHandler)
        self.shared.withLock { $0.attaching.append(attachment) }
        OwnedThread.spawn(name: configuration.name) { [self] in
            LoopThread(loop: self, wakeReadFD: ends.read).run()
        }
    }

    /// Attaches `sockets` (bound or connected as the caller wants) to the loop as one group:
    /// `handler` runs on the loop's thread with each non-empty batch from them, in order, socket ids
    /// counted from 0 in `sockets`; it must not block. `onPeerOverflow` runs on the loop's thread
    /// when a peer of one of the group's routed sockets goes over its bound. Messages can be queued
    /// to the group at once; the loop takes the sockets over at the start of its next turn.
    public func attach(
        _ sockets: sending [Socket], options: Options = Options(),
        onPeerOverflow: (@Sendable (PeerOverflow, Group) -> Void)? = nil,
        handler: @escaping @Sendable ([Received], Group) -> Void
    ) -> Group {
        let count = sockets.count
        for socket in options.routed.keys.map(\.index) + options.drainedEachTurn.map(\.index) {
            precondition(socket >= 0 && socket < count, "no socket \(socket) in the group")
        }
        let (id, base) = shared.withLock { shared in
            defer {
                shared.nextGroup += 1
                shared.nextSocket += count
            }
            return (shared.nextGroup, shared.nextSocket)
        }
        let group = Group(loop: self, id: id, base: base, count: count)
        let attachment = Attachment(
            group: group, sockets: sockets, options: options, handler: handler, onPeerOverflow: onPeerOverflow)
        shared.withLock { shared in
            if shared.stopping {
                // Never taken: the sockets close when the attachment goes.
                return
            }
            shared.attaching.append(attachment)
            if !shared.inHandler { Self.wake(&shared) }
        }
        return group
    }

    fileprivate func detach(_ group: Group) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            detach(group) { continuation.resume() }
        }
    }

    fileprivate func detach(_ group: Group, then done: @escaping @Sendable () -> Void) {
        let queued = shared.withLock { shared -> Bool in
            guard !shared.stopping else { return false }
            shared.detaching.append((group.id, done))
            if !shared.inHandler { Self.wake(&shared) }
            return true
        }
        if !queued { done() }
    }

    /// Whether the calling code runs on the loop's thread.
    public var isLoopThread: Bool { executor.isLoopThread }

    /// Queues a message to send on socket `socket` of the sockets given to the initializer, without
    /// blocking. Returns false (and counts it as dropped) when the loop has stopped.
    @discardableResult
    public func send(_ parts: [Message], to socket: SocketID) -> Bool {
        guard let initialCount else { preconditionFailure("this loop was made without sockets: send to a group") }
        precondition(socket.index >= 0 && socket.index < initialCount, "no socket \(socket.index) in the loop")
        return enqueue(parts, to: socket.index)
    }

    fileprivate func enqueue(_ parts: [Message], to socket: Int) -> Bool {
        shared.withLock { shared in
            guard !shared.stopping else {
                shared.statistics.dropped += 1
                return false
            }
            shared.outgoing.append((socket, parts))
            if !shared.inHandler { Self.wake(&shared) }
            return true
        }
    }

    /// Runs `work` on the loop's thread, after the handlers of its next turn, in the order queued;
    /// messages it sends go out in that turn. Never blocks: it queues `work` and wakes the loop.
    /// Returns false (and drops `work`) when the loop has stopped.
    ///
    /// This is how code elsewhere joins the loop's thread, so that everything a consumer does with
    /// what the loop receives happens on one thread without locks between them.
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
    /// batches, until ``cancelTimer(_:)``; messages it sends go out in that turn. A turn that runs
    /// late skips the missed ticks.
    @discardableResult
    public func schedule(every interval: Duration, _ work: @escaping @Sendable () -> Void) -> TimerID {
        precondition(interval > .zero, "a loop timer needs a positive interval")
        return addTimer(due: .now + interval, interval: interval, work)
    }

    /// Runs `work` once on the loop's thread, `delay` from now (at the next turn if it is not
    /// positive), unless ``cancelTimer(_:)`` comes first; messages it sends go out in that turn.
    @discardableResult
    public func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> TimerID {
        addTimer(due: .now + max(.zero, delay), interval: nil, work)
    }

    private func addTimer(
        due: ContinuousClock.Instant, interval: Duration?, _ work: @escaping @Sendable () -> Void
    ) -> TimerID {
        shared.withLock { shared in
            let id = shared.nextTimer
            shared.nextTimer += 1
            shared.timerChanges.append(.add(id: id, due: due, interval: interval, work: work))
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

    /// Sends the wake-up byte unless one is already in flight. Called under the mutex.
    fileprivate static func wake(_ shared: inout Shared) {
        guard !shared.wakePending, shared.wakeWriteFD >= 0 else { return }
        shared.wakePending = true
        var byte: UInt8 = 0
        _ = Glibc.write(shared.wakeWriteFD, &byte, 1)  // one byte in an empty pipe: never blocks
    }

    /// Runs `body` on the shared state (the loop thread's side).
    fileprivate func withShared<R>(_ body: (inout Shared) -> R) -> R {
        shared.withLock { body(&$0) }
    }

    /// The loop thread ended: wakes those waiting in ``stop()``.
    fileprivate func finished() {
        ended.signal()
    }
}

// MARK: - The loop thread

/// One socket of the loop, as the loop thread keeps it.
private struct Slot {
    /// The socket; nil once its group is detached.
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
    /// Sent on since it was last read until it would block: a send may have processed the command
    /// that fired the descriptor, so it must be asked before sleeping.
    var unchecked = false
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

    var hasPending: Bool { pendingStart < pending.count }

    /// The messages waiting in the peers' backlogs.
    var backlogged: Int {
        var count = 0
        for backlog in backlogs.values { count += backlog.count }
        return count
    }

    /// The messages not sent yet: pending and backlogged.
    var unsent: Int { (pending.count - pendingStart) + backlogged }
}

/// A group, as the loop thread keeps it.
private struct GroupRecord {
    let group: SocketLoop.Group
    let handler: @Sendable ([SocketLoop.Received], SocketLoop.Group) -> Void
    let onPeerOverflow: (@Sendable (SocketLoop.PeerOverflow, SocketLoop.Group) -> Void)?
}

/// The loop thread's state and its phases, run in order each turn by ``run()``:
/// ``absorbShared()`` (what other threads queued), ``computePollTimeout()`` and ``poll()``,
/// ``readBatch()``, ``dispatch(_:)`` to the groups' handlers, then work, timers and executor jobs,
/// ``flush()`` (send, per peer on routed sockets), and ``publish()`` (counters).
private final class LoopThread {
    let loop: SocketLoop
    let wakeReadFD: Int32
    var slots: [Slot] = []
    var groups: [Int: GroupRecord] = [:]
    /// `descriptors[0]` is the wake-up pipe; `descriptors[i + 1]` is slot `i`'s `ZMQ_FD` (-1: ignored).
    var descriptors: [pollfd]
    var timers = TimerQueue()
    var pollTimeout = 0
    var stopping = false
    var terminated = false
    var sentCount = 0
    var droppedCount = 0
    var lastError: ZMQError?
    var overflowCount = 0
    var overflows: [(SocketLoop.PeerOverflow, group: Int)] = []
    var backlogChanged = false
    var lastCutOffSweep = ContinuousClock.now
    // Buffers swapped with the shared ones so that both keep their capacity.
    var taken: [(socket: Int, parts: [Message])] = []
    var work: [@Sendable () -> Void] = []
    var timerChanges: [SocketLoop.TimerChange] = []
    var jobs: [UnownedJob] = []
    /// Groups to remove at the end of the turn.
    var detachments: [(group: Int, done: @Sendable () -> Void)] = []

    /// The linger (ms) of a detached group's sockets.
    static let detachLinger: Int32 = 100

    /// How long a peer that went over its bound stays cut off.
    static let cutOffMemory = Duration.seconds(30)

    init(loop: SocketLoop, wakeReadFD: Int32) {
        self.loop = loop
        self.wakeReadFD = wakeReadFD
        descriptors = [pollfd(fd: wakeReadFD, events: Int16(POLLIN), revents: 0)]
    }

    func run() {
        let executor = loop.executor
        executor.attach(waker: { [weak loop] in loop?.wakeForJobs() })
        absorbShared()
        while !stopping && !terminated {
            computePollTimeout()
            if terminated { break }
            poll()
            let batch = readBatch()
            if terminated { break }
            let now = ContinuousClock.now
            let due = timers.hasDue(now: now)
            loop.withShared { shared in
                if !batch.isEmpty {
                    shared.statistics.batches += 1
                    shared.statistics.received += batch.count
                }
                shared.inHandler = true
            }
            dispatch(batch)
            for item in work { item() }
            work.removeAll(keepingCapacity: true)
            if due { timers.runDue(now: now) }
            // The executor's jobs (the actors on this loop), a few rounds at most so that sockets
            // are polled again soon; what is left makes the next poll return at once.
            var rounds = 0
            while rounds < 4, executor.take(into: &jobs) {
                executor.run(jobs)
                jobs.removeAll(keepingCapacity: true)
                rounds += 1
            }
            absorbShared(leavingHandler: true)
            if !work.isEmpty || executor.hasJobs { pollTimeout = 0 }
            flush()
            completeDetachments()
            sweepCutOff()
            publish()
        }
        executor.attach(waker: nil)
        shutDown()
    }

    // MARK: Taking what others queued

    /// Takes what other threads queued: groups (first, so their messages find them), outgoing
    /// messages, work, timer changes, detachments and the stop request. With `leavingHandler`, also
    /// ends the handler phase (later calls wake the loop again).
    func absorbShared(leavingHandler: Bool = false) {
        var attaching: [SocketLoop.Attachment] = []
        var detaching: [(group: Int, done: @Sendable () -> Void)] = []
        loop.withShared { shared in
            if leavingHandler { shared.inHandler = false }
            stopping = shared.stopping
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
        for attachment in attaching { add(attachment) }
        for change in timerChanges { timers.apply(change) }
        timerChanges.removeAll(keepingCapacity: true)
        for message in taken {
            if message.socket < slots.count, slots[message.socket].socket != nil {
                slots[message.socket].pending.append(message.parts)
            } else {
                droppedCount += 1  // its group was detached
            }
        }
        taken.removeAll(keepingCapacity: true)
        // Removed after this turn's sends, so that what was queued before the detach still goes out.
        detachments.append(contentsOf: detaching)
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
    func add(_ attachment: SocketLoop.Attachment) {
        let group = attachment.group
        let sockets = attachment.takeSockets()
        precondition(group.base == slots.count, "groups are attached in the order their ids were given")
        let options = attachment.options
        for (local, socket) in sockets.enumerated() {
            let id = SocketLoop.SocketID(local)
            let limit: Int = options.drainedEachTurn.contains(id) ? Int.max : options.maxMessagesPerSocket
            slots.append(Slot(socket: socket, group: group.id, local: local, limit: limit, peerLimit: options.routed[id]))
            let descriptor = (try? socket.fileDescriptor) ?? -1  // -1: poll(2) ignores the entry
            descriptors.append(pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0))
        }
        groups[group.id] = GroupRecord(
            group: group, handler: attachment.handler, onPeerOverflow: attachment.onPeerOverflow)
        pollTimeout = 0
    }

    /// Closes a group's sockets and forgets it (its slots stay, empty, so indices keep their meaning).
    func remove(_ group: Int) {
        guard groups.removeValue(forKey: group) != nil else { return }
        for index in slots.indices where slots[index].group == group {
            // A short linger: the last answers it sent (a draining server's) still reach their peers;
            // closing never blocks, and the context waits at most this long for them.
            slots[index].socket?.close(linger: Self.detachLinger)
            slots[index].socket = nil
            droppedCount += slots[index].unsent
            slots[index].pending = []
            slots[index].pendingStart = 0
            slots[index].backlogs = [:]
            slots[index].blockedPeers = []
            slots[index].cutOff = [:]
            slots[index].readable = false
            slots[index].unchecked = false
            descriptors[index + 1].fd = -1
        }
        backlogChanged = true
    }

    // MARK: Waiting

    /// How long the next poll may sleep: until the soonest timer, not at all when a socket is to
    /// be read, briefly when a socket reported writable without taking anything. Sockets the loop
    /// sent on are asked for `ZMQ_EVENTS` first (their descriptor may not tell).
    func computePollTimeout() {
        if let soonest = timers.nextDue {
            let wait = max(0, Self.milliseconds(soonest - .now))
            pollTimeout = pollTimeout < 0 ? wait : min(pollTimeout, wait)
        }
        if slots.contains(where: \.readable) { pollTimeout = 0 }
        guard pollTimeout != 0 else { return }
        for index in slots.indices where slots[index].unchecked {
            slots[index].unchecked = false
            guard let socket = slots[index].socket else { continue }
            let events: PollEvents
            do {
                events = try socket.events
            } catch {
                terminated = terminated || error.isContextTerminated
                continue
            }
            if events.contains(.readable) {
                slots[index].readable = true
                pollTimeout = 0
            }
            if events.contains(.writable), slots[index].hasPending {
                // A ROUTER reports writable while the addressed peer is at its high-water mark:
                // after an attempt without progress, retry in 1 ms instead of spinning.
                let retry = slots[index].stalled ? 1 : 0
                pollTimeout = pollTimeout < 0 ? retry : min(pollTimeout, retry)
            }
        }
    }

    /// Polls the wake-up pipe and the sockets' descriptors with poll(2) itself rather than through
    /// `zmq_poll`, which on every blocking call polls twice and asks every socket for
    /// `ZMQ_EVENTS` after each poll. A socket whose descriptor fired is read until it would block
    /// (which processes its commands and re-arms the descriptor); an idle socket costs nothing.
    func poll() {
        let timeout = Int32(clamping: pollTimeout)
        let count = descriptors.withUnsafeMutableBufferPointer { buffer in
            Glibc.poll(buffer.baseAddress, nfds_t(buffer.count), timeout)
        }
        pollTimeout = -1
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
            slots[index].readable = false
            guard let socket = slots[index].socket else { continue }
            let routed = slots[index].peerLimit != nil
            let limit = slots[index].limit
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
                let blocked = routed && slots[index].isBlocked(message.parts[0].bytes)
                batch.append(
                    SocketLoop.Received(
                        socket: SocketLoop.SocketID(index), parts: message.parts, sourceFD: message.sourceFD,
                        senderBlocked: blocked))
                received += 1
            }
            if received == limit {
                // Stopped at the limit: more may be queued, and the descriptor will not say so.
                slots[index].readable = true
            } else {
                // Read until it would block: its commands are processed, its descriptor re-armed.
                slots[index].unchecked = false
            }
        }
        return batch
    }

    /// Hands each group its part of `batch` (runs of consecutive slots), with group socket ids.
    func dispatch(_ batch: [SocketLoop.Received]) {
        guard !batch.isEmpty else { return }
        var start = 0
        while start < batch.count {
            let group = slots[batch[start].socket.index].group
            var end = start + 1
            while end < batch.count, slots[batch[end].socket.index].group == group { end += 1 }
            if let record = groups[group] {
                let base = record.group.base
                if start == 0 && end == batch.count && base == 0 {
                    record.handler(batch, record.group)
                } else {
                    record.handler(batch[start..<end].map { $0.rebased(by: base) }, record.group)
                }
            }
            start = end
        }
    }

    // MARK: Sending

    /// Sends what is queued, in order, until a socket would block; on a routed socket, until each
    /// peer would block (the rest waits in that peer's backlog, within its bound).
    func flush() {
        for index in slots.indices where slots[index].hasPending || !slots[index].blockedPeers.isEmpty {
            guard let socket = slots[index].socket else { continue }
            if let peerLimit = slots[index].peerLimit {
                flushRouted(index, socket, peerLimit)
            } else {
                flushInOrder(index, socket)
            }
        }
        // A blocked peer's pipe gets room when it reads, which libzmq signals on the socket's
        // descriptor; look again in a while in any case.
        if slots.contains(where: { !$0.blockedPeers.isEmpty }) {
            pollTimeout = pollTimeout < 0 ? 50 : min(pollTimeout, 50)
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

    func flushInOrder(_ index: Int, _ socket: Socket) {
        let before = slots[index].pendingStart
        while slots[index].hasPending {
            do {
                let result = try socket.send(slots[index].pending[slots[index].pendingStart], dontWait: true)
                if case .wouldBlock = result { break }
                sentCount += 1
            } catch {
                droppedCount += 1
                lastError = error
            }
            slots[index].pendingStart += 1
        }
        slots[index].unchecked = true
        if !slots[index].hasPending {
            slots[index].pending.removeAll(keepingCapacity: true)
            slots[index].pendingStart = 0
            slots[index].stalled = false
        } else {
            slots[index].stalled = slots[index].pendingStart == before
        }
    }

    func flushRouted(_ index: Int, _ socket: Socket, _ peerLimit: SocketLoop.PeerQueueLimit) {
        var slot = slots[index]
        slots[index].pending = []  // `slot` owns the arrays meanwhile (no copy on write)
        slots[index].backlogs = [:]
        slots[index].blockedPeers = []
        slots[index].cutOff = [:]
        defer { slots[index] = slot }
        // Backlogs first, so that each peer's messages keep their order.
        if !slot.blockedPeers.isEmpty {
            var kept = 0
            for peer in slot.blockedPeers {
                var gone = false
                while let parts = slot.backlogs[peer]?.first {
                    do {
                        if case .wouldBlock = try socket.send(parts, dontWait: true) { break }
                        sentCount += 1
                        slot.backlogs[peer]?.removeFirst()
                    } catch {
                        // The peer is gone (`EHOSTUNREACH`): nothing queued for it can go.
                        droppedCount += slot.backlogs[peer]?.count ?? 0
                        lastError = error
                        gone = true
                        break
                    }
                }
                if gone || slot.backlogs[peer]?.count ?? 0 == 0 {
                    slot.backlogs[peer] = nil
                } else {
                    slot.blockedPeers[kept] = peer
                    kept += 1
                }
            }
            if kept < slot.blockedPeers.count { slot.blockedPeers.removeLast(slot.blockedPeers.count - kept) }
            backlogChanged = true
        }
        for position in slot.pendingStart..<slot.pending.count {
            let parts = slot.pending[position]
            let peer = parts[0].bytes
            if slot.backlogs.isEmpty || slot.backlogs[peer] == nil {
                let wasCutOff = !slot.cutOff.isEmpty && slot.cutOff[peer] != nil
                do {
                    if case .done = try socket.send(parts, dontWait: true) {
                        sentCount += 1
                        if wasCutOff {
                            slot.cutOff[peer] = nil  // it reads again
                            backlogChanged = true
                        }
                        continue
                    }
                } catch {
                    droppedCount += 1
                    lastError = error
                    if wasCutOff { slot.cutOff[peer] = nil }
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
            if slot.backlogs[peer] == nil { slot.blockedPeers.append(peer) }
            if slot.backlogs[peer, default: PeerBacklog()].append(parts, size: size, within: peerLimit) {
                continue
            }
            let dropped = (slot.backlogs.removeValue(forKey: peer)?.count ?? 0) + 1
            slot.blockedPeers.removeAll { $0 == peer }
            droppedCount += dropped
            overflowCount += 1
            slot.cutOff[peer] = ContinuousClock.now
            overflows.append(
                (SocketLoop.PeerOverflow(socket: SocketLoop.SocketID(slot.local), peer: peer, dropped: dropped), slot.group))
        }
        slot.pending.removeAll(keepingCapacity: true)
        slot.pendingStart = 0
        slot.unchecked = true
    }

    /// Forgets cut-off peers after ``cutOffMemory``, looking once a second.
    func sweepCutOff() {
        let now = ContinuousClock.now
        guard now - lastCutOffSweep >= .seconds(1), slots.contains(where: { !$0.cutOff.isEmpty }) else { return }
        lastCutOffSweep = now
        for index in slots.indices where !slots[index].cutOff.isEmpty {
            slots[index].cutOff = slots[index].cutOff.filter { now - $0.value < Self.cutOffMemory }
        }
        backlogChanged = true
    }

    // MARK: Counting

    /// Publishes the counters gathered this turn.
    func publish() {
        if backlogChanged {
            backlogChanged = false
            var peers = 0
            var cutOffPeers = 0
            var queued = 0
            for slot in slots {
                peers += slot.blockedPeers.count
                cutOffPeers += slot.cutOff.count
                queued += slot.backlogged
            }
            let overflowed = overflowCount
            overflowCount = 0
            loop.withShared { shared in
                shared.statistics.blockedPeers = peers
                shared.statistics.cutOffPeers = cutOffPeers
                shared.statistics.queuedForBlockedPeers = queued
                shared.statistics.peerOverflows += overflowed
            }
        }
        if sentCount > 0 || droppedCount > 0 {
            let (sent, dropped, error) = (sentCount, droppedCount, lastError)
            loop.withShared { shared in
                shared.statistics.sent += sent
                shared.statistics.dropped += dropped
                if let error { shared.statistics.lastError = error }
            }
            sentCount = 0
            droppedCount = 0
            lastError = nil
        }
    }

    // MARK: Ending

    /// Closes every socket and the pipe, counts what was never sent, and wakes those in ``stop()``.
    func shutDown() {
        for index in slots.indices { slots[index].socket?.close(linger: 0) }
        Glibc.close(wakeReadFD)
        var unsent = 0
        for slot in slots { unsent += slot.unsent }
        var detaching: [(group: Int, done: @Sendable () -> Void)] = detachments
        detachments.removeAll()
        let waiters = loop.withShared { shared in
            if shared.wakeWriteFD >= 0 { Glibc.close(shared.wakeWriteFD) }
            shared.wakeWriteFD = -1
            shared.finished = true
            shared.statistics.dropped += unsent + shared.outgoing.count
            shared.outgoing.removeAll()
            shared.work.removeAll()
            shared.attaching.removeAll()
            detaching += shared.detaching
            shared.detaching.removeAll()
            defer { shared.waiters.removeAll() }
            return shared.waiters
        }
        groups = [:]
        for (_, done) in detaching { done() }
        loop.finished()
        for waiter in waiters { waiter.resume() }
    }

    /// `duration` in whole milliseconds, rounded up (a poll timeout that wakes early would spin).
    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        let milliseconds = seconds * 1_000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int(clamping: milliseconds)
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

extension Slot {
    /// Whether messages to `peer` wait in the loop (a backlog) or it is cut off.
    func isBlocked(_ peer: [UInt8]) -> Bool {
        if !backlogs.isEmpty, backlogs[peer] != nil { return true }
        return !cutOff.isEmpty && cutOff[peer] != nil
    }
}

/// The loop's timers: one-shot and periodic, soonest first, cancelled lazily (a cancelled timer's
/// heap entry is skipped when it comes up).
struct TimerQueue {
    private struct Timer {
        let interval: Duration?
        let work: @Sendable () -> Void
    }

    private var heap = DeadlineQueue<Int>()
    private var timers: [Int: Timer] = [:]

    /// The number of live timers.
    var count: Int { timers.count }

    /// The heap's entries, cancelled ones included.
    var entries: Int { heap.count }

    /// When the soonest entry comes due (possibly a cancelled timer's: the loop then wakes for
    /// nothing once).
    var nextDue: ContinuousClock.Instant? { heap.nextDue }

    func hasDue(now: ContinuousClock.Instant) -> Bool {
        guard let due = heap.nextDue else { return false }
        return due <= now
    }

    fileprivate mutating func apply(_ change: SocketLoop.TimerChange) {
        switch change {
        case .add(let id, let due, let interval, let work):
            add(id: id, due: due, interval: interval, work: work)
        case .cancel(let id):
            cancel(id)
        }
    }

    mutating func add(
        id: Int, due: ContinuousClock.Instant, interval: Duration?, work: @escaping @Sendable () -> Void
    ) {
        timers[id] = Timer(interval: interval, work: work)
        heap.push(id, due: due)
    }

    mutating func cancel(_ id: Int) {
        guard timers.removeValue(forKey: id) != nil else { return }
        // Entries of cancelled timers wait in the heap until they come due; prune them when they
        // outnumber the live ones.
        if heap.count > 64 && heap.count > 4 * timers.count {
            let live = timers
            heap.removeAll { live[$0] == nil }
        }
    }

    /// Runs the timers due at `now`, soonest first; a periodic one comes due again one interval
    /// later (or one interval from `now`, when it ran late).
    mutating func runDue(now: ContinuousClock.Instant) {
        var due: [(Int, Timer, ContinuousClock.Instant)] = []
        while let next = heap.nextDue, next <= now, let id = heap.popDue(now: now) {
            guard let timer = timers[id] else { continue }
            due.append((id, timer, next))
        }
        for (id, timer, when) in due {
            if let interval = timer.interval {
                var next = when + interval
                if next <= now { next = now + interval }
                heap.push(id, due: next)
            } else {
                timers[id] = nil
            }
        }
        for (_, timer, _) in due { timer.work() }
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
