import Foundation
public import Reactive
public import RemoteProtocol
public import Synchronization
public import ZeroMQ

/// A client of a ``RemoteServer`` (or of several replicas of one): calls come back as `Single`s
/// and `Observable`s, following docs/PROTOCOL.md.
///
/// - Subscribing sends the opening frame; disposing before the end sends `CANCEL`, which makes the
///   server dispose its graph.
/// - Every call has a deadline, sent to the server too, which answers `ERROR timeout` when it
///   passes. The client's own timer fires a little later: the call then fails with `timeout` if the
///   connection to the replica is up, or `unavailable` if it is not; either way the client sends
///   `CANCEL`.
/// - The client follows each replica's connection with ZeroMQ's socket monitor. When a connection
///   that was up is lost (the server stopped or was killed, or ZeroMQ's heartbeats found it silent),
///   every call open on it fails at once with `unavailable`. ZeroMQ reconnects by itself, every
///   ``Configuration/reconnectInterval`` at first, backing off to
///   ``Configuration/reconnectIntervalMax``.
/// - A call made while its replica has no connection waits in ZeroMQ's queue and goes out as soon
///   as the connection is up (a server that returns answers it), for at most its deadline, or
///   ``Configuration/connectTimeout`` when one is set: past that it fails with `unavailable`.
///   ``connectionChanges`` tells when connections come and go, e.g. to reopen a channel or ask
///   again.
/// - With several endpoints the client keeps one DEALER per replica and spreads streams across
///   the connected ones round-robin (across the configured ones while none is connected); every
///   frame of a stream goes to the replica that opened it.
/// - With ``Configuration/discoversShards``, each time a configured endpoint's connection comes up
///   the client asks it `sys.endpoints` and adds the shards it does not know yet as further
///   replicas (docs/transport/remote-streams.md, "Shards"). A server that does not know the method
///   is one replica, as before.
/// - While streams are open the client pings each replica it uses, so the server knows it is alive.
///
/// The client's DEALERs and their monitors are a group of a ``SocketLoop``: the process's event
/// loop (a service calling another attaches its clients to the loop its server and actor run on),
/// or one of the client's own. Frames are delivered to subscribers on the loop's thread, in order,
/// with no thread hand-off; observers must not block (move work elsewhere with `observe(on:)`, or
/// into an actor). Calls can be made from any thread, including from an observer on the loop's
/// thread.
public final class RemoteClient: Sendable {
    /// How a client runs.
    public struct Configuration: Sendable {
        /// The server's endpoints, one per replica.
        public var endpoints: [String]
        /// The deadline of calls that do not give their own.
        public var deadline: Duration
        /// How often replicas with open streams are pinged.
        public var pingInterval: Duration
        /// Body limits for decoding answers.
        public var limits: ProtocolLimits
        /// The threads' names.
        public var name: String
        /// CURVE security, or nil for plain connections.
        public var curve: Curve?
        /// The most messages the client reads from one replica per turn of its loop before it
        /// delivers them and sends what their observers queued (calls made from an answer's
        /// callback go out after each turn, not after the whole backlog).
        public var maxMessagesPerTurn: Int
        /// How long a call made while its replica has no connection waits for one before it fails
        /// with `unavailable`; nil: as long as the call's deadline. A command-line client sets a
        /// few seconds, so that a server that is down is reported soon; a service calling another
        /// leaves it nil, so that a call made during an outage goes out when the server returns.
        public var connectTimeout: Duration?
        /// How soon ZeroMQ tries again after a connection attempt failed or a connection was lost
        /// (`ZMQ_RECONNECT_IVL`).
        public var reconnectInterval: Duration
        /// The longest interval between attempts: each failed attempt doubles the interval up to this
        /// (`ZMQ_RECONNECT_IVL_MAX`), so a server that returns is reached within about this long.
        public var reconnectIntervalMax: Duration
        /// Whether the client asks each configured endpoint for its server's shards (`sys.endpoints`)
        /// when its connection comes up, and spreads its calls over them too. Services calling
        /// services turn it on; a command-line client keeps its one connection.
        public var discoversShards: Bool

        /// A configuration.
        public init(
            endpoints: [String], deadline: Duration = .seconds(5), pingInterval: Duration = .seconds(2),
            limits: ProtocolLimits = ProtocolLimits(), name: String = "remote-client",
            curve: Curve? = nil, maxMessagesPerTurn: Int = 16, connectTimeout: Duration? = nil,
            reconnectInterval: Duration = .milliseconds(100),
            reconnectIntervalMax: Duration = .milliseconds(250), discoversShards: Bool = false
        ) {
            self.discoversShards = discoversShards
            self.curve = curve
            self.maxMessagesPerTurn = maxMessagesPerTurn
            self.connectTimeout = connectTimeout
            self.reconnectInterval = reconnectInterval
            self.reconnectIntervalMax = reconnectIntervalMax
            self.endpoints = endpoints
            self.deadline = deadline
            self.pingInterval = pingInterval
            self.limits = limits
            self.name = name
        }
    }

    /// CURVE settings of a client.
    public struct Curve: Sendable {
        /// The server's public key.
        public var serverKey: [UInt8]
        /// This client's key pair (its public key must be on the server's allow-list, if any).
        public var keys: CurveKeyPair

        /// CURVE towards a server whose public key is `serverKey`, as `keys`.
        public init(serverKey: [UInt8], keys: CurveKeyPair) {
            self.serverKey = serverKey
            self.keys = keys
        }
    }

    /// A replica's connection came up or was lost.
    public struct ConnectionChange: Sendable, Hashable, CustomStringConvertible {
        /// The replica: its index in ``Configuration/endpoints``, then (past them) in the order the
        /// shards were discovered.
        public let replica: Int
        /// Its endpoint.
        public let endpoint: String
        /// True: the handshake succeeded (calls go out now); false: the connection was lost (its
        /// calls failed with `unavailable`; ZeroMQ is reconnecting).
        public let isUp: Bool

        /// A change of `replica`'s connection.
        public init(replica: Int, endpoint: String, isUp: Bool) {
            self.replica = replica
            self.endpoint = endpoint
            self.isUp = isUp
        }

        /// E.g. `tcp://127.0.0.1:5561 (replica 0) up`.
        public var description: String { "\(endpoint) (replica \(replica)) \(isUp ? "up" : "down")" }
    }

    private struct Pending: Sendable {
        let receiver: any CallReceiver
        /// A request: its `NEXT` is its answer and ends it (docs/PROTOCOL.md).
        let isRequest: Bool
        let replica: Int
        /// A channel's subscription to its input; nil for requests and streams, which have none
        /// (one allocation and lock fewer per call).
        let input: SingleAssignmentDisposable?
    }

    /// One replica: a configured endpoint or a discovered shard, with its DEALER and monitor.
    private struct Replica: Sendable {
        let endpoint: String
        /// The DEALER (socket 0) and its monitor (socket 1).
        let sockets: SocketLoop.Group
    }

    private struct State: Sendable {
        /// The configured endpoints' replicas, then the discovered ones.
        var replicas: [Replica] = []
        var nextStream: UInt64 = 1
        var nextReplica = 0
        var pending: [UInt64: Pending] = [:]
        /// The client-side deadline of every open call (stream id), soonest first; entries of calls
        /// that ended stay until they come due or are pruned.
        var deadlines = DeadlineQueue<UInt64>()
        /// When calls opened while their replica had no connection stop waiting for one (with a
        /// ``Configuration/connectTimeout``).
        var connectDeadlines = DeadlineQueue<UInt64>()
        /// Replicas whose connection is up (handshake done, not disconnected since).
        var connected: Set<Int> = []
        /// Whether any replica's connection was ever up.
        var everConnected = false
        var counters = RemoteCounters()
    }

    private let configuration: Configuration
    private let codec: FrameCodec
    @usableFromInline let coder: JSONBodyCoder
    private let context: Context
    private let loop: SocketLoop
    private let inbox: Inbox
    /// Whether the client made its loop (and stops it), or was attached to the process's.
    private let ownsLoop: Bool
    /// The ping and deadline timers (cancelled at ``stop()`` on a shared loop).
    private let timers: [SocketLoop.TimerID]
    private let state = Mutex(State())
    private let changes = PublishRelay<ConnectionChange>()

    /// How often the client looks for calls past their deadline.
    static let tick = Duration.milliseconds(10)

    /// Connects one DEALER per endpoint, on a loop of the client's own.
    public convenience init(context: Context, configuration: Configuration, coder: JSONBodyCoder = .shared)
        throws
    {
        let loop = try SocketLoop(name: configuration.name)
        do {
            try self.init(
                context: context, loop: loop, ownsLoop: true, configuration: configuration, coder: coder)
        } catch {
            loop.stop()
            throw error
        }
    }

    /// Connects one DEALER per endpoint, on `loop` (the process's event loop): answers are delivered
    /// on its thread, where the process's actor runs.
    public convenience init(
        context: Context, loop: SocketLoop, configuration: Configuration, coder: JSONBodyCoder = .shared
    ) throws {
        try self.init(
            context: context, loop: loop, ownsLoop: false, configuration: configuration, coder: coder)
    }

    private init(
        context: Context, loop socketLoop: SocketLoop, ownsLoop: Bool, configuration: Configuration,
        coder: JSONBodyCoder
    ) throws {
        self.ownsLoop = ownsLoop
        precondition(!configuration.endpoints.isEmpty, "a RemoteClient needs at least one endpoint")
        self.configuration = configuration
        self.codec = FrameCodec(limits: configuration.limits)
        self.coder = coder
        self.context = context
        self.loop = socketLoop
        let inbox = Inbox()
        self.inbox = inbox
        // One DEALER and its monitor PAIR per replica, a group of the loop each.
        var replicas: [Replica] = []
        do {
            for (replica, endpoint) in configuration.endpoints.enumerated() {
                replicas.append(
                    Self.attach(
                        try Self.connect(endpoint, context: context, configuration: configuration),
                        endpoint: endpoint, as: replica, to: socketLoop, inbox: inbox, configuration: configuration))
            }
        } catch {
            for replica in replicas { replica.sockets.detachLater() }
            throw error
        }
        // Both run on the loop's thread, where answers are delivered: a call never sees an answer
        // and its expiry at once.
        timers = [
            socketLoop.schedule(every: configuration.pingInterval) { inbox.client?.ping() },
            socketLoop.schedule(every: Self.tick) { inbox.client?.expireDue() },
        ]
        state.withLock { $0.replicas = replicas }
        inbox.bind(self)
        // What the loop read before the client was bound (the first handshake, typically) is
        // delivered on the loop's thread, before anything read later.
        socketLoop.execute { inbox.deliver([], from: 0) }
    }

    /// A DEALER connected to `endpoint`, and its monitor.
    private static func connect(_ endpoint: String, context: Context, configuration: Configuration) throws
        -> sending [Socket]
    {
        let dealer = try Socket(context, .dealer, linger: 0)
        try dealer.set(.maxMessageSize, Int64(configuration.limits.maxMessageLength + 256))
        try dealer.set(.reconnectInterval, Int32(clamping: configuration.reconnectInterval.wholeMilliseconds))
        try dealer.set(
            .reconnectIntervalMax, Int32(clamping: configuration.reconnectIntervalMax.wholeMilliseconds))
        try dealer.set(.heartbeatInterval, 1_000)
        try dealer.set(.heartbeatTimeout, 3_000)
        if let curve = configuration.curve {
            try dealer.set(.curveServerKey, curve.serverKey)
            try dealer.set(.curvePublicKey, curve.keys.publicKey)
            try dealer.set(.curveSecretKey, curve.keys.secretKey)
        }
        let monitor = try dealer.monitor(events: [.handshakeSucceeded, .disconnected]).socket
        try dealer.connect(endpoint)
        return [dealer, monitor]
    }

    /// Attaches a replica's DEALER and monitor to `loop` as replica `replica`.
    private static func attach(
        _ sockets: sending [Socket], endpoint: String, as replica: Int, to loop: SocketLoop, inbox: Inbox,
        configuration: Configuration
    ) -> Replica {
        let group = loop.attach(sockets, options: .init(maxMessagesPerSocket: configuration.maxMessagesPerTurn)) {
            batch, _ in inbox.deliver(batch, from: replica)
        }
        return Replica(endpoint: endpoint, sockets: group)
    }

    /// Stops the client: fails the calls still open with `unavailable`, then closes the sockets.
    public func stop() async {
        // On the loop's thread, so that no answer is being delivered to a call meanwhile.
        let loop = self.loop
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let queued = loop.execute { [self] in
                failAll()
                continuation.resume()
            }
            if !queued {
                failAll()
                continuation.resume()
            }
        }
        if ownsLoop {
            await loop.stop()
        } else {
            for timer in timers { loop.cancelTimer(timer) }
            for replica in state.withLock({ $0.replicas }) { await replica.sockets.detach() }
        }
    }

    private func failAll() {
        let open = state.withLock { state in
            defer { state.pending = [:] }
            return state.pending
        }
        for (_, call) in open {
            call.input?.dispose()
            call.receiver.receive(.error(RemoteError(code: .unavailable, message: "the client stopped")))
        }
    }

    /// Every change of a replica's connection, as it happens, on the client's loop thread (observers
    /// must not block). A connection that comes up after one was lost is the moment to ask again.
    public var connectionChanges: Observable<ConnectionChange> { changes.asObservable() }

    /// Whether `replica`'s connection is up now.
    public func isConnected(replica: Int = 0) -> Bool {
        state.withLock { $0.connected.contains(replica) }
    }

    /// Whether the client had a connection and has none now: every replica it reached went away and
    /// none is back yet. False while the client is still making its first connection.
    public var isCutOff: Bool {
        state.withLock { $0.everConnected && $0.connected.isEmpty }
    }

    /// The client's counters.
    public var counters: RemoteCounters {
        state.withLock { state in
            var counters = state.counters
            counters.openStreams = state.pending.count
            return counters
        }
    }

    // MARK: Typed calls

    /// Calls a request/response method.
    @inlinable
    public func request<Parameters: Encodable & Sendable, Response: Decodable & Sendable>(
        _ method: String, _ parameters: Parameters, as response: Response.Type = Response.self,
        deadline: Duration? = nil
    ) -> Single<Response> {
        let coder = self.coder
        // One object between the subscriber and the wire (a `RequestCall`): it receives the answer
        // (a request's one NEXT), decodes it where it arrives, and is the subscription's
        // disposable. It keeps the single's grammar itself, so no `create` sink, observer box or
        // cancel closure is made per call.
        return Single(
            raw: Observable(unsafeSubscribe: { [self] downstream in
                let call = RequestCall(downstream: downstream, coder: coder, method: method)
                let stream = open(
                    .request, method, Result { () throws(RemoteError) in try coder.encode(parameters) },
                    input: nil, deadline: deadline, receiver: call)
                call.opened(stream, by: self)
                return call
            }))
    }

    /// Subscribes to a stream method.
    @inlinable
    public func stream<Parameters: Encodable & Sendable, Element: Decodable & Sendable>(
        _ method: String, _ parameters: Parameters, as element: Element.Type = Element.self,
        deadline: Duration? = nil
    ) -> Observable<Element> {
        let coder = self.coder
        return Observable.create { [self] observer in
            let stream = open(
                .subscribe, method, Result { () throws(RemoteError) in try coder.encode(parameters) },
                input: nil, deadline: deadline,
                receiver: ClosureReceiver { event in
                    Self.deliver(event, decodedAs: Element.self, with: coder, to: observer)
                })
            return cancellation(of: stream)
        }
    }

    /// Opens a channel: `input` is streamed to the server, its answers come back.
    @inlinable
    public func channel<
        Parameters: Encodable & Sendable, Input: Encodable & Sendable, Output: Decodable & Sendable
    >(
        _ method: String, _ parameters: Parameters, input: Observable<Input>,
        as output: Output.Type = Output.self, deadline: Duration? = nil
    ) -> Observable<Output> {
        let coder = self.coder
        let encodedInput = input.map { element in try coder.encode(element) }
        return Observable.create { [self] observer in
            let stream = open(
                .open, method, Result { () throws(RemoteError) in try coder.encode(parameters) },
                input: encodedInput, deadline: deadline,
                receiver: ClosureReceiver { event in
                    Self.deliver(event, decodedAs: Output.self, with: coder, to: observer)
                })
            return cancellation(of: stream)
        }
    }

    /// Decodes an element and passes the event on; an element that does not decode fails the
    /// stream (and disposing it then cancels it on the server).
    @inlinable
    static func deliver<Element: Decodable & Sendable>(
        _ event: Event<[UInt8]>, decodedAs: Element.Type, with coder: JSONBodyCoder,
        to observer: AnyObserver<Element>
    ) {
        switch event {
        case .next(let body):
            do {
                observer.onNext(try coder.decode(Element.self, from: body))
            } catch {
                observer.onError(error)
            }
        case .error(let error): observer.onError(error)
        case .completed: observer.onCompleted()
        }
    }

    // MARK: Streams

    /// Opens a stream: sends the opening frame with the encoded parameters and routes its frames to
    /// `receiver` (on the loop's thread). Returns the stream's id, or nil if it could not be opened
    /// (`receiver` then has the error already).
    @usableFromInline
    func open(
        _ type: FrameType, _ method: String, _ parameters: Result<[UInt8], RemoteError>,
        input: Observable<[UInt8]>?, deadline: Duration?, receiver: any CallReceiver, on pinned: Int? = nil
    ) -> UInt64? {
        let deadline = deadline ?? configuration.deadline
        let body: [UInt8]
        switch parameters {
        case .success(let encoded): body = encoded
        case .failure(let error):
            receiver.receive(.error(error))
            return nil
        }
        let inputSubscription = input == nil ? nil : SingleAssignmentDisposable()
        let now = ContinuousClock.now
        let due = now + .milliseconds(Self.localDeadline(deadline))
        // One lock for the whole opening: id, replica, bookkeeping and the frame itself.
        let opened: Result<(Frame, UInt64, Int, SocketLoop.Group), RemoteError> = state.withLock { state in
            let stream = state.nextStream
            let replica =
                pinned
                ?? Self.replica(
                    after: state.nextReplica, of: state.replicas.count, configured: configuration.endpoints.count,
                    connected: state.connected)
            let frame: Frame
            do {
                frame = try Frame(
                    type: type, stream: stream,
                    deadlineMilliseconds: UInt32(clamping: deadline.wholeMilliseconds),
                    method: method, body: body)
            } catch let error as ProtocolError {
                return .failure(error.remoteError)  // an invalid method name
            } catch {
                return .failure(.wrapping(error))
            }
            state.nextStream &+= 1
            if pinned == nil { state.nextReplica = replica &+ 1 }
            state.pending[stream] = Pending(
                receiver: receiver, isRequest: type == .request, replica: replica, input: inputSubscription)
            if state.deadlines.count > 2 * max(1_024, state.pending.count) {
                let pending = state.pending
                state.deadlines.removeAll { pending[$0] == nil }
            }
            state.deadlines.push(stream, due: due)
            if let connectTimeout = configuration.connectTimeout, !state.connected.contains(replica) {
                if state.connectDeadlines.count > 2 * max(1_024, state.pending.count) {
                    let pending = state.pending
                    state.connectDeadlines.removeAll { pending[$0] == nil }
                }
                state.connectDeadlines.push(stream, due: now + connectTimeout)
            }
            state.counters.framesOut += 1
            return .success((frame, stream, replica, state.replicas[replica].sockets))
        }
        let stream: UInt64
        let replica: Int
        switch opened {
        case .failure(let error):
            receiver.receive(.error(error))
            return nil
        case .success(let (frame, id, index, sockets)):
            stream = id
            replica = index
            sockets.send(codec.messages(frame), to: Self.dealer)
        }
        if let input, let inputSubscription {
            inputSubscription.setDisposable(
                input.subscribe(
                    onNext: { [weak self] element in
                        self?.send(Frame.opened(.next, stream: stream, body: element), to: replica)
                    },
                    onError: { [weak self] error in
                        self?.send(.error(stream: stream, .wrapping(error)), to: replica)
                    },
                    onCompleted: { [weak self] in
                        self?.send(Frame.opened(.complete, stream: stream, body: nil), to: replica)
                    }))
        }
        return stream
    }

    /// The replica a new call goes to: the first connected one from `next` on (round-robin), or,
    /// while none is connected, one of the `configured` first ones (discovered shards may be gone).
    private static func replica(after next: Int, of count: Int, configured: Int, connected: Set<Int>) -> Int {
        guard count > 1 else { return 0 }
        guard !connected.isEmpty else { return next % configured }
        let first = next % count
        for offset in 0..<count {
            let candidate = (first + offset) % count
            if connected.contains(candidate) { return candidate }
        }
        return first
    }

    /// What disposing a stream or channel subscription does: cancel `stream`, if it was opened.
    @usableFromInline
    func cancellation(of stream: UInt64?) -> any Disposable {
        guard let stream else { return Disposables.create() }
        return Disposables.create { [weak self] in self?.cancel(stream) }
    }

    /// The client's own deadline, in milliseconds: a little after the server's, so that a live
    /// server's `ERROR timeout` normally arrives first and only a silent server ends as
    /// `unavailable`.
    static func localDeadline(_ deadline: Duration) -> Int {
        let milliseconds = deadline.wholeMilliseconds
        return milliseconds + max(100, milliseconds / 10)
    }

    /// The subscriber disposed: if the stream is still open, forget it and tell the server.
    @usableFromInline
    func cancel(_ stream: UInt64) {
        guard let call = state.withLock({ $0.pending.removeValue(forKey: stream) }) else { return }
        call.input?.dispose()
        send(Frame.opened(.cancel, stream: stream, body: nil), to: call.replica)
    }

    /// On the loop's thread: fails the calls past their deadline with `timeout` (the replica is
    /// connected) or `unavailable` (it is not), and the calls still without a connection past the
    /// connect timeout with `unavailable`; tells the server.
    private func expireDue() {
        let now = ContinuousClock.now
        let (expired, unconnected) = state.withLock {
            state -> ([(UInt64, Pending, connected: Bool)], [(UInt64, Pending)]) in
            var expired: [(UInt64, Pending, connected: Bool)] = []
            while let stream = state.deadlines.popDue(now: now) {
                guard let call = state.pending.removeValue(forKey: stream) else { continue }
                expired.append((stream, call, state.connected.contains(call.replica)))
            }
            var unconnected: [(UInt64, Pending)] = []
            while let stream = state.connectDeadlines.popDue(now: now) {
                guard let call = state.pending[stream], !state.connected.contains(call.replica) else {
                    continue
                }
                state.pending[stream] = nil
                unconnected.append((stream, call))
            }
            return (expired, unconnected)
        }
        for (stream, call, connected) in expired {
            end(
                stream, call,
                connected
                    ? RemoteError(code: .timeout, message: "no answer before the deadline")
                    : RemoteError(
                        code: .unavailable, message: "the server did not answer before the deadline"))
        }
        for (stream, call) in unconnected {
            let milliseconds = (configuration.connectTimeout ?? .zero).wholeMilliseconds
            let timeout =
                milliseconds % 1_000 == 0 ? "\(milliseconds / 1_000) s" : "\(milliseconds) ms"
            end(
                stream, call,
                RemoteError(
                    code: .unavailable,
                    message: "no connection to \(endpoint(of: call.replica)) within \(timeout)"))
        }
    }

    /// Ends a call the client gave up on (already out of `pending`): stops its input, tells the
    /// server (`CANCEL`, which ZeroMQ holds until there is a connection) and fails it with `error`.
    private func end(_ stream: UInt64, _ call: Pending, _ error: RemoteError) {
        call.input?.dispose()
        send(Frame.opened(.cancel, stream: stream, body: nil), to: call.replica)
        call.receiver.receive(.error(error))
    }

    /// Handles a batch from the loop, on the loop's thread: decodes it, settles the bookkeeping under
    /// one lock, then delivers.
    fileprivate func receive(_ batch: [SocketLoop.Received], from replica: Int) {
        var frames: [Frame] = []
        frames.reserveCapacity(batch.count)
        var undecodable = 0
        var events: [MonitorEvent] = []
        for message in batch {
            if message.socket == Self.monitor {
                if let event = MonitorEvent(parts: message.parts.map(\.bytes)) { events.append(event) }
                continue
            }
            do {
                frames.append(try codec.decode(message.parts[...]))
            } catch {
                undecodable += 1
            }
        }
        // What arrived before a connection was lost is delivered before its calls fail.
        deliver(frames, undecodable: undecodable)
        for event in events { noteConnection(event, of: replica) }
    }

    /// Settles the bookkeeping of decoded frames under one lock, then delivers them.
    private func deliver(_ frames: [Frame], undecodable: Int) {
        guard !frames.isEmpty || undecodable > 0 else { return }
        let deliveries = state.withLock { state -> [(Frame, Pending)] in
            state.counters.droppedFrames += undecodable
            state.counters.framesIn += frames.count
            var deliveries: [(Frame, Pending)] = []
            deliveries.reserveCapacity(frames.count)
            for frame in frames {
                let call: Pending?
                switch frame.type {
                case .next:
                    call = state.pending[frame.stream]
                    if let call, call.isRequest {
                        // The answer ends the call: no COMPLETE follows a request's NEXT.
                        state.pending[frame.stream] = nil
                    }
                case .complete, .error:
                    call = state.pending.removeValue(forKey: frame.stream)
                    if call != nil, let error = frame.remoteError {
                        state.counters.errorsByCode[error.code.rawValue, default: 0] += 1
                    }
                default:
                    call = nil
                }
                if let call {
                    deliveries.append((frame, call))
                } else {
                    state.counters.droppedFrames += 1
                }
            }
            return deliveries
        }
        for (frame, call) in deliveries {
            switch frame.type {
            case .next:
                if call.isRequest { call.input?.dispose() }
                call.receiver.receive(.next(frame.body ?? []))
            case .complete:
                call.input?.dispose()
                call.receiver.receive(.completed)
            default:
                call.input?.dispose()
                call.receiver.receive(
                    .error(frame.remoteError ?? RemoteError(code: .internal, message: "unreadable error")))
            }
        }
    }

    /// Tracks whether a replica's connection is up, from its DEALER's monitor. When a connection
    /// that was up is lost, every call open on the replica fails with `unavailable` (and is
    /// cancelled, for a server that sees the frames after all).
    private func noteConnection(_ event: MonitorEvent, of replica: Int) {
        let change: ConnectionChange
        let lost: [(UInt64, Pending)]
        let endpoint = self.endpoint(of: replica)
        switch event.kind {
        case .handshakeSucceeded:
            let inserted = state.withLock { state in
                state.everConnected = true
                return state.connected.insert(replica).inserted
            }
            guard inserted else { return }
            change = ConnectionChange(replica: replica, endpoint: endpoint, isUp: true)
            lost = []
            if configuration.discoversShards, replica < configuration.endpoints.count {
                discoverShards(through: replica)
            }
        case .disconnected:
            // A connection that never completed its handshake (refused, wrong key) ends no call:
            // those wait for a connection (up to their deadline or the connect timeout).
            let ended = state.withLock { state -> [(UInt64, Pending)]? in
                guard state.connected.remove(replica) != nil else { return nil }
                let ended = state.pending.filter { $0.value.replica == replica }
                for (stream, _) in ended { state.pending[stream] = nil }
                return ended.sorted { $0.key < $1.key }
            }
            guard let ended else { return }
            change = ConnectionChange(replica: replica, endpoint: endpoint, isUp: false)
            lost = ended
        default:
            return
        }
        for (stream, call) in lost {
            end(
                stream, call,
                RemoteError(code: .unavailable, message: "the connection to \(endpoint) was lost"))
        }
        changes.accept(change)
    }

    /// Pings the replicas that have open streams.
    private func ping() {
        let replicas = state.withLock { state in Set(state.pending.values.map(\.replica)) }
        for replica in replicas { send(.ping, to: replica) }
    }

    private func send(_ frame: Frame, to replica: Int) {
        let sockets = state.withLock { state in
            state.counters.framesOut += 1
            return state.replicas[replica].sockets
        }
        sockets.send(codec.messages(frame), to: Self.dealer)
    }

    private func endpoint(of replica: Int) -> String {
        state.withLock { $0.replicas[replica].endpoint }
    }

    /// A replica's DEALER in its group.
    private static let dealer = SocketLoop.SocketID(0)
    /// Its monitor.
    private static let monitor = SocketLoop.SocketID(1)

    // MARK: Shards

    /// Asks configured replica `replica`, whose connection just came up, for its server's shards
    /// (`sys.endpoints`), and adds those it does not know. A server without the method answers
    /// `unknown_method`: it has one shard, nothing to add.
    private func discoverShards(through replica: Int) {
        let dialled = configuration.endpoints[replica]
        let coder = self.coder
        let receiver = ClosureReceiver { [weak self] event in
            guard case .next(let body) = event, let self,
                let answer = try? coder.decode(ShardEndpoints.self, from: body)
            else { return }
            self.addShards(answer, dialled: dialled)
        }
        let method = RequestMethod<NoParameters, ShardEndpoints>.shardEndpoints.name
        _ = open(
            .request, method, Result { () throws(RemoteError) in try coder.encode(NoParameters()) }, input: nil,
            deadline: nil, receiver: receiver, on: replica)
    }

    /// On the loop's thread: connects to the shards of `answer` other than the one that answered
    /// (which is `dialled`), as many times each as `dialled` is configured, less those known.
    private func addShards(_ answer: ShardEndpoints, dialled: String) {
        let copies = configuration.endpoints.filter { $0 == dialled }.count
        for (shard, endpoint) in answer.endpoints.enumerated() where shard != answer.shard {
            let endpoint = Self.dialableEndpoint(endpoint, dialled: dialled)
            addReplicas(of: endpoint, upTo: copies)
        }
    }

    /// Connects to `endpoint` until the client has `copies` replicas of it.
    private func addReplicas(of endpoint: String, upTo copies: Int) {
        for _ in 0..<copies {
            let replica = state.withLock { state -> Int? in
                state.replicas.count { $0.endpoint == endpoint } >= copies ? nil : state.replicas.count
            }
            guard let replica else { return }
            // Only this thread adds replicas, so the index stays free until appended.
            let added: Replica
            do {
                added = Self.attach(
                    try Self.connect(endpoint, context: context, configuration: configuration), endpoint: endpoint,
                    as: replica, to: loop, inbox: inbox, configuration: configuration)
            } catch {
                return  // not an endpoint this client can dial: the shards it reached still serve
            }
            state.withLock { $0.replicas.append(added) }
        }
    }

    /// `endpoint` as this client can dial it: a TCP endpoint bound to a wildcard host (`0.0.0.0`,
    /// `*`, `::`) takes the host of `dialled`, the endpoint the client reached the server at.
    public static func dialableEndpoint(_ endpoint: String, dialled: String) -> String {
        let prefix = "tcp://"
        guard endpoint.hasPrefix(prefix), dialled.hasPrefix(prefix),
            let colon = endpoint.lastIndex(of: ":"), let dialledColon = dialled.lastIndex(of: ":")
        else { return endpoint }
        let host = endpoint[endpoint.index(endpoint.startIndex, offsetBy: prefix.count)..<colon]
        guard ["0.0.0.0", "*", "::", "[::]", "[*]"].contains(host) else { return endpoint }
        return String(dialled[..<dialledColon]) + String(endpoint[colon...])
    }
}

/// Lets the loop's handler reach the client without a strong reference cycle.
/// Lets the loop's handler reach the client without a strong reference cycle, and keeps what the
/// loop reads before the client is bound to it (the loop runs from its creation, before the client's
/// `init` can hand it `self`).
private final class Inbox: Sendable {
    private struct State {
        weak var client: RemoteClient?
        var bound = false
        /// Batches read before ``bind(_:)``, in order, with their replicas.
        var early: [(batch: [SocketLoop.Received], replica: Int)] = []
    }

    private let state = Mutex(State())

    var client: RemoteClient? { state.withLock { $0.client } }

    /// From now on batches go to `client`.
    func bind(_ client: RemoteClient) {
        state.withLock { state in
            state.client = client
            state.bound = true
        }
    }

    /// On the loop's thread: hands `batch`, from replica `replica`, to the client, after the batches
    /// kept from before it was bound; keeps it while the client is not bound yet.
    func deliver(_ batch: [SocketLoop.Received], from replica: Int) {
        let (client, early) = state.withLock {
            state -> (RemoteClient?, [(batch: [SocketLoop.Received], replica: Int)]) in
            guard state.bound else {
                state.early.append((batch, replica))
                return (nil, [])
            }
            defer { state.early = [] }
            return (state.client, state.early)
        }
        guard let client else { return }
        for kept in early { client.receive(kept.batch, from: kept.replica) }
        if !batch.isEmpty { client.receive(batch, from: replica) }
    }
}

extension Frame {
    /// A frame of an open stream (stream ids are never 0 there, so it cannot fail).
    static func opened(_ type: FrameType, stream: UInt64, body: [UInt8]?) -> Frame {
        do {
            return try Frame(type: type, stream: stream, body: body)
        } catch {
            return error.errorFrame
        }
    }

}

/// Where the frames of one call go, on the client's loop thread.
@usableFromInline
protocol CallReceiver: AnyObject, Sendable {
    /// A frame of the call, as an event: an element, the end, or the error.
    func receive(_ event: Event<[UInt8]>)
}

/// A receiver that passes the events to a closure (streams and channels).
@usableFromInline
final class ClosureReceiver: CallReceiver {
    @usableFromInline let handler: @Sendable (Event<[UInt8]>) -> Void

    @inlinable
    init(_ handler: @escaping @Sendable (Event<[UInt8]>) -> Void) {
        self.handler = handler
    }

    @inlinable
    func receive(_ event: Event<[UInt8]>) { handler(event) }
}

/// One request, from subscription to answer: receives the answer and hands it to the subscriber,
/// and is the subscription's disposable (disposing before the answer cancels the call on the
/// server). It keeps the single's grammar itself: the subscriber gets the element and `completed`,
/// or one error, and nothing after it is disposed.
///
/// Not generic: the typed part (decoding the answer, the subscriber) is the `deliver` closure made
/// where ``RemoteClient/request(_:_:as:deadline:)`` is specialised, so receiving an answer and
/// releasing the call look up no generic metadata at run time.
@usableFromInline
final class RequestCall: CallReceiver, Cancelable {
    /// Decodes an answer and passes it on, or passes the failure on.
    @usableFromInline
    typealias Deliver = @Sendable (Event<[UInt8]>) -> Void

    @usableFromInline
    struct State: Sendable {
        /// Delivers to the subscriber, until the call ends or is disposed.
        @usableFromInline var deliver: Deliver?
        /// The stream, once opened.
        @usableFromInline var stream: UInt64?
        @usableFromInline weak var client: RemoteClient?
        /// Disposed while it was still being opened: cancel it once it is.
        @usableFromInline var disposedWhileOpening = false

        @inlinable
        init(deliver: @escaping Deliver) {
            self.deliver = deliver
        }
    }

    @usableFromInline let state: Mutex<State>

    @inlinable
    init(deliver: @escaping Deliver) {
        state = Mutex(State(deliver: deliver))
    }

    /// A call whose answer is decoded as a `Response` for `downstream`; `method` names it in the
    /// error for an answer that never came.
    @inlinable
    convenience init<Response: Decodable & Sendable>(
        downstream: AnyObserver<Response>, coder: JSONBodyCoder, method: String
    ) {
        self.init { event in
            switch event {
            case .next(let body):
                let answer: Response
                do {
                    answer = try coder.decode(Response.self, from: body)
                } catch {
                    return downstream.on(.error(error))
                }
                downstream.on(.next(answer))
                downstream.on(.completed)
            case .error(let error):
                downstream.on(.error(error))
            case .completed:
                downstream.on(
                    .error(RemoteError(code: .internal, message: "\(method) completed without an answer")))
            }
        }
    }

    /// The client opened the call as `stream` (nil: it could not, and the error is delivered).
    @inlinable
    func opened(_ stream: UInt64?, by client: RemoteClient) {
        let cancelNow = state.withLock { state in
            state.stream = stream
            state.client = client
            return state.disposedWhileOpening
        }
        if cancelNow, let stream { client.cancel(stream) }
    }

    @usableFromInline
    func receive(_ event: Event<[UInt8]>) {
        guard let deliver = state.withLock({ $0.deliver.take() }) else { return }
        deliver(event)
    }

    @inlinable
    var isDisposed: Bool { state.withLock { $0.deliver == nil } }

    @inlinable
    func dispose() {
        let (stream, client) = state.withLock { state -> (UInt64?, RemoteClient?) in
            guard state.deliver.take() != nil else { return (nil, nil) }
            guard let stream = state.stream else {
                state.disposedWhileOpening = true
                return (nil, nil)
            }
            return (stream, state.client)
        }
        if let stream, let client { client.cancel(stream) }
    }
}
