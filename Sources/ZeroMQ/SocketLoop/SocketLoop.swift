import Dispatch
import Glibc
import ProcessSupport
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
        func rebased(by base: Int) -> Received {
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
            Options(
                maxMessagesPerSocket: maxMessagesPerSocket, routed: routed, drainedEachTurn: drainedEachTurn)
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

        /// Adds what one turn counted.
        mutating func add(_ tally: Tally) {
            sent += tally.sent
            dropped += tally.dropped
            peerOverflows += tally.peerOverflows
            if let error = tally.lastError { lastError = error }
        }

        /// Sets the gauges of routed sockets' peers.
        mutating func set(_ gauges: PeerGauges) {
            blockedPeers = gauges.blockedPeers
            cutOffPeers = gauges.cutOffPeers
            queuedForBlockedPeers = gauges.queued
        }
    }

    /// What the loop thread's sends and drops counted in one turn, for one group, before it
    /// publishes it into ``Statistics`` (batches and received are counted as they are handed over).
    struct Tally {
        var sent = 0
        var dropped = 0
        var peerOverflows = 0
        var lastError: ZMQError?

        var isEmpty: Bool {
            sent == 0 && dropped == 0 && peerOverflows == 0 && lastError == nil
        }
    }

    /// The peers of routed sockets that wait (blocked) or are cut off now, and the messages kept
    /// for them.
    struct PeerGauges: Hashable {
        var blockedPeers = 0
        var cutOffPeers = 0
        var queued = 0

        /// Adds `slot`'s peers.
        mutating func count(_ slot: Slot) {
            blockedPeers += slot.blockedPeers.count
            cutOffPeers += slot.cutOff.count
            queued += slot.backlogged
        }

        /// Adds `other`'s peers.
        mutating func add(_ other: PeerGauges) {
            blockedPeers += other.blockedPeers
            cutOffPeers += other.cutOffPeers
            queued += other.queued
        }
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
            return loop.enqueue(parts, to: base + socket.index, group: id)
        }

        /// The group's counters so far: those of ``SocketLoop/statistics`` that concern its sockets
        /// (every counter but ``Statistics/batches`` counts the same way; a batch here is one call
        /// of the group's handler).
        public var statistics: Statistics { loop.shared.withLock { $0.groupStatistics[id] ?? Statistics() } }

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
    final class Attachment: @unchecked Sendable {
        let options: Options
        let handler: @Sendable ([Received], Group) -> Void
        let onPeerOverflow: (@Sendable (PeerOverflow, Group) -> Void)?
        private var sockets: [Socket]?

        init(
            sockets: sending [Socket], options: Options,
            handler: @escaping @Sendable ([Received], Group) -> Void,
            onPeerOverflow: (@Sendable (PeerOverflow, Group) -> Void)?
        ) {
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
    struct Shared: ~Copyable {
        /// Outgoing messages not yet taken by the loop thread (loop-wide socket indices).
        var outgoing: [(socket: Int, parts: [Message])] = []
        /// Work queued with ``execute(_:)``, not yet taken by the loop thread.
        var work: [@Sendable () -> Void] = []
        /// Timer changes not yet taken by the loop thread: new timers, and ids to cancel.
        var timerChanges: [TimerChange] = []
        /// Groups attached, not yet taken by the loop thread, in the order of their socket indices:
        /// a group's id and indices are given in the same step that queues it, so that the loop
        /// thread finds them in order whichever threads attach at once.
        var attaching: [(group: Group, attachment: Attachment)] = []
        /// Groups to detach, and what to call once they are.
        var detaching: [(group: Int, done: @Sendable () -> Void)] = []
        /// The next timer id.
        var nextTimer = 0
        /// The next group id, and the loop-wide index of the next group's first socket.
        var nextGroup = 0
        var nextSocket = 0
        /// A wake-up byte is in flight (at most one is ever queued, so sending it never blocks).
        var wakePending = false
        /// Where the loop is in its life.
        var state = LoopState.starting
        /// The loop thread is in a handler, work, a timer or the executor's jobs, and takes what is
        /// queued right after, so nothing queued meanwhile needs to wake it.
        var inHandler = false
        /// The write end of the wake-up pipe (non-blocking); only used under the mutex, closed (and set
        /// to -1) by the loop thread when it ends.
        var wakeWriteFD: Int32
        /// Async callers of ``stop()`` waiting for the thread to end.
        var waiters: [CheckedContinuation<Void, Never>] = []
        /// Loop-wide counters.
        var statistics = Statistics()
        /// Each group's counters, by group id.
        var groupStatistics: [Int: Statistics] = [:]
    }

    enum TimerChange {
        case add(id: Int, due: ContinuousClock.Instant, interval: Duration?, work: @Sendable () -> Void)
        case cancel(Int)
    }

    fileprivate let shared: Mutex<Shared>
    /// Signalled once when the loop thread ends (and passed on by each waiter).
    private let ended = DispatchSemaphore(value: 0)
    /// The executor whose jobs run on the loop's thread: actors that use it run here.
    public let executor: LoopExecutor
    /// The number of sockets given to the initializer (nil: none were; the loop has groups only).
    private let initialCount: Int?

    /// The loop's wake-up pipe, its failure reported as a ``ZMQError`` naming `pipe`.
    private static func wakePipe() throws(ZMQError) -> (read: Int32, write: Int32) {
        do throws(Posix.PosixError) {
            return try Posix.nonBlockingPipe()
        } catch {
            throw ZMQError(code: ZMQError.Code(rawValue: error.code), function: "pipe")
        }
    }

    /// A loop with no sockets yet (attach them with ``attach(_:options:onPeerOverflow:handler:)``),
    /// running jobs of `executor` (a new one by default) on its thread.
    public init(name: String = "zeromq-socket-loop", executor: LoopExecutor = LoopExecutor()) throws(ZMQError)
    {
        // The wake-up is a pipe rather than an inproc PAIR: a plain descriptor costs poll(2) alone,
        // while each ZeroMQ socket in the set costs a `ZMQ_EVENTS` query (two system calls).
        let ends = try Self.wakePipe()
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
        let ends = try Self.wakePipe()
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
            sockets: sockets, options: configuration.options,
            handler: { batch, group in handler(batch, group.loop) },
            onPeerOverflow: overflowHandler)
        let group = Group(loop: self, id: 0, base: 0, count: count)
        self.shared.withLock { $0.attaching.append((group, attachment)) }
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
        let attachment = Attachment(
            sockets: sockets, options: options, handler: handler, onPeerOverflow: onPeerOverflow)
        // The id and the indices are given and the group queued in one step: the loop thread takes
        // groups in the order of their indices, whichever threads attach at once.
        return shared.withLock { shared in
            let group = Group(loop: self, id: shared.nextGroup, base: shared.nextSocket, count: count)
            shared.nextGroup += 1
            shared.nextSocket += count
            // Never taken when the loop has stopped: the sockets close when the attachment goes.
            guard shared.state.acceptsWork else { return group }
            shared.attaching.append((group, attachment))
            if !shared.inHandler { Self.wake(&shared) }
            return group
        }
    }

    private func detach(_ group: Group) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            detach(group) { continuation.resume() }
        }
    }

    private func detach(_ group: Group, then done: @escaping @Sendable () -> Void) {
        let queued = shared.withLock { shared -> Bool in
            guard shared.state.acceptsWork else { return false }
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
        guard let initialCount else {
            preconditionFailure("this loop was made without sockets: send to a group")
        }
        precondition(
            socket.index >= 0 && socket.index < initialCount, "no socket \(socket.index) in the loop")
        return enqueue(parts, to: socket.index, group: 0)
    }

    fileprivate func enqueue(_ parts: [Message], to socket: Int, group: Int) -> Bool {
        shared.withLock { shared in
            guard shared.state.acceptsWork else {
                shared.statistics.dropped += 1
                shared.groupStatistics[group, default: Statistics()].dropped += 1
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
            guard shared.state.acceptsWork else { return false }
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
    /// ``stop()-swift.method``'s async form. Later calls return at once. Called on the loop's own
    /// thread (from a handler, a job, a timer, or the deinit of an object whose last reference a
    /// graph on the loop released), it cannot wait for that thread to end: it asks the loop to stop
    /// and returns, and the loop ends once the current turn is over.
    public func stop() {
        requestStop()
        guard !executor.isLoopThread else { return }
        ended.wait()
        ended.signal()
    }

    /// Stops the loop and suspends until its thread has closed the sockets and ended.
    public func stop() async {
        requestStop()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = shared.withLock { shared in
                if shared.state == .stopped { return true }
                shared.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    private func requestStop() {
        shared.withLock { shared in
            guard shared.state.stop(.stopRequested) else { return }
            Self.wake(&shared)
        }
    }

    /// Sends the wake-up byte unless one is already in flight. Called under the mutex.
    static func wake(_ shared: inout Shared) {
        guard !shared.wakePending, shared.wakeWriteFD >= 0 else { return }
        shared.wakePending = true
        Posix.wake(shared.wakeWriteFD)  // one byte in an empty pipe: never blocks
    }

    /// Runs `body` on the shared state (the loop thread's side).
    func withShared<R>(_ body: (inout Shared) -> R) -> R {
        shared.withLock { body(&$0) }
    }

    /// The loop thread ended: wakes those waiting in ``stop()``.
    func finished() {
        ended.signal()
    }
}
