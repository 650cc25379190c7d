public import Metrics
import Reactive
public import RemoteProtocol
import Synchronization
public import Tracing
public import ZeroMQ

/// A ROUTER that serves ``RemoteHandlers`` over the remote-streams protocol (docs/PROTOCOL.md).
///
/// Threading follows docs/ARCHITECTURE.md §3: the server's ROUTER and its monitor are a group of a
/// ``SocketLoop`` (the process's event loop, shared with its upstream clients, or one of the
/// server's own), whose thread is the executor of the server's actor (`ServerCore`): a batch is
/// decoded and handed to the handlers on that thread, every open stream's graph is subscribed
/// there, and its outgoing frames are queued to the loop, which sends them at the end of the turn. A stream ends, and its graph is disposed, on its terminal
/// event, on `CANCEL`, when its deadline passes (`ERROR timeout`), when its client's connection
/// closes (libzmq's monitor reports it, or a new client turns up on the same descriptor), when its
/// client falls silent for longer than ``Configuration/clientTimeout``, or when its client stops
/// reading and its queue of unread answers goes over ``Configuration/peerQueue`` (`ERROR
/// overloaded`).
///
/// Answers are queued per client: a client that does not read delays only its own answers, never
/// anyone else's (``SocketLoop/Configuration/routed``), and while answers wait for it its new calls
/// are refused with `overloaded` without being started.
public final class RemoteServer: Sendable {
    /// How a server runs.
    public struct Configuration: Sendable {
        /// ZeroMQ endpoints to bind (`tcp://127.0.0.1:*` picks a free port).
        public var endpoints: [String]
        /// Body limits for decoding.
        public var limits: ProtocolLimits
        /// Streams one client may have open at once; past it, `ERROR overloaded`.
        public var maxStreamsPerClient: Int
        /// Streams open at once in total; past it, `ERROR overloaded`.
        public var maxStreamsTotal: Int
        /// A client that sends nothing (not even `PING`) for this long is lost: its streams are
        /// disposed. Clients with open streams ping well within it.
        public var clientTimeout: Duration
        /// The socket loop thread's name.
        public var name: String
        /// CURVE security, or nil for plain connections.
        public var curve: Curve?
        /// The most messages the server reads per turn of its loop before it answers them and
        /// reads on (``SocketLoop/Configuration/maxMessagesPerSocket``). Small turns keep the
        /// pipeline moving: the first answers are on their way while later requests are read, so
        /// the client, the server and libzmq's I/O thread work at once instead of taking turns
        /// (docs/BENCHMARKS.md, "Transport").
        public var maxMessagesPerTurn: Int
        /// What one client may have waiting in the server while it does not read its answers,
        /// beyond libzmq's own queue of 1,000 messages per connection. Past it, that client's queued
        /// answers are dropped and its streams end with `ERROR overloaded`; other clients are not
        /// affected either way.
        public var peerQueue: SocketLoop.PeerQueueLimit
        /// Whether the server counts its calls by method and outcome and times them
        /// (``RemoteCounters/methods``), for a metrics endpoint; off, the request path does none of it.
        public var countsCalls: Bool
        /// The shard this server is in its process (its spans' `shard` attribute).
        public var shard: Int
        /// Whether each channel input element without a `traceparent` of its own starts a trace
        /// (sampled at the tracer's ratio), instead of running in its channel's: the gateway's flows,
        /// where every keystroke and tap is a trace.
        public var tracesInputs: Bool
        /// The body of a `NEXT` sent on a channel when the span of an input that carried a sampled
        /// `traceparent` ends, made from its trace id and hops (the input's own span first, at depth 0,
        /// then the calls made under it one level deeper); nil (or a nil body): none is sent.
        public var inputTraceReport: (@Sendable (_ traceID: String, _ hops: [Hop]) -> [UInt8]?)?

        /// A configuration with the defaults of docs/PROTOCOL.md.
        public init(
            endpoints: [String], limits: ProtocolLimits = ProtocolLimits(), maxStreamsPerClient: Int = 256,
            maxStreamsTotal: Int = 8_192, clientTimeout: Duration = .seconds(15),
            name: String = "remote-server", curve: Curve? = nil, maxMessagesPerTurn: Int = 16,
            peerQueue: SocketLoop.PeerQueueLimit = SocketLoop.PeerQueueLimit(), countsCalls: Bool = false,
            shard: Int = 0, tracesInputs: Bool = false,
            inputTraceReport: (@Sendable (_ traceID: String, _ hops: [Hop]) -> [UInt8]?)? = nil
        ) {
            self.shard = shard
            self.tracesInputs = tracesInputs
            self.inputTraceReport = inputTraceReport
            self.peerQueue = peerQueue
            self.countsCalls = countsCalls
            self.curve = curve
            self.maxMessagesPerTurn = maxMessagesPerTurn
            self.endpoints = endpoints
            self.limits = limits
            self.maxStreamsPerClient = maxStreamsPerClient
            self.maxStreamsTotal = maxStreamsTotal
            self.clientTimeout = clientTimeout
            self.name = name
        }
    }

    /// CURVE settings of a server.
    public struct Curve: Sendable {
        /// The server's key pair; clients need its public key.
        public var keys: CurveKeyPair
        /// The client public keys allowed in; nil lets in any client that knows the server's public
        /// key (encryption without an allow-list).
        public var allowList: CurveAllowList?

        /// CURVE with `keys`, restricted to `allowList` when given.
        public init(keys: CurveKeyPair, allowList: CurveAllowList?) {
            self.keys = keys
            self.allowList = allowList
        }
    }

    /// The endpoints bound, with wildcard ports resolved.
    public let endpoints: [String]

    private let loop: SocketLoop.Group
    /// Whether the server made its loop (and stops it), or was attached to the process's.
    private let ownsLoop: Bool
    /// The ZAP handler the server made for its allow-list (and stops); nil when it was given one or
    /// needs none.
    private let authenticator: ZAPHandler?
    private let scheduler: LoopBound<ServerCore>
    // The core, bound to the loop by `scheduler` (which holds it too).
    private let core: ServerCore

    /// The largest message the server reads in order to answer it `too_large` (16 MiB) when the
    /// body limit is smaller.
    static let readableMessageLength = 16 << 20

    /// Binds the endpoints and starts serving `handlers` on a loop of the server's own.
    public convenience init(context: Context, configuration: Configuration, handlers: RemoteHandlers) throws {
        let loop = try SocketLoop(name: configuration.name)
        do {
            try self.init(
                context: context, loop: loop, ownsLoop: true, configuration: configuration, handlers: handlers
            )
        } catch {
            loop.stop()
            throw error
        }
    }

    /// Binds the endpoints and starts serving `handlers` on `loop`, the process's event loop: the
    /// server's actor runs on the loop's executor (``SocketLoop/executor``), so graphs that other
    /// code on the loop builds (an upstream client's answers, an actor of the process on the same
    /// executor) meet the server's streams without a thread hand-off.
    ///
    /// With CURVE and an allow-list, `authenticator` is the context's ZAP handler when the caller
    /// made it (a process of several shards shares one: libzmq takes one per context), which the
    /// server then neither makes nor stops; nil: the server makes its own.
    public convenience init(
        context: Context, loop: SocketLoop, configuration: Configuration, handlers: RemoteHandlers,
        authenticator: ZAPHandler? = nil
    ) throws {
        try self.init(
            context: context, loop: loop, ownsLoop: false, configuration: configuration, handlers: handlers,
            authenticator: authenticator)
    }

    private init(
        context: Context, loop socketLoop: SocketLoop, ownsLoop: Bool, configuration: Configuration,
        handlers: RemoteHandlers, authenticator shared: ZAPHandler? = nil
    ) throws {
        self.ownsLoop = ownsLoop
        let router = try Socket(context, .router, linger: 0)
        try router.set(.routerMandatory, true)
        if configuration.endpoints.contains(where: { $0.hasPrefix("tcp://[") }) {
            try router.set(.ipv6, true)  // to bind an IPv6 address
        }
        // Messages up to `readableMessageLength` (or the limit plus some slack, if larger) are read
        // and an oversize body is answered `too_large`; larger ones disconnect their sender before
        // they are read (ZeroMQ's own limit), so a client never waits out its deadline for a
        // body that is merely too big.
        try router.set(
            .maxMessageSize,
            Int64(max(configuration.limits.maxMessageLength + 256, Self.readableMessageLength)))
        // ZeroMQ heartbeats drop connections whose peer died without closing them.
        try router.set(.heartbeatInterval, 1_000)
        try router.set(.heartbeatTimeout, 3_000)
        // One ZAP handler serves a whole context: a second allow-listing server in the same
        // context that makes its own fails to start (its endpoint is taken).
        authenticator =
            shared != nil
            ? nil
            : try configuration.curve?.allowList.map {
                try ZAPHandler(context: context, allowList: $0)
            }
        if let curve = configuration.curve {
            try router.set(.curveServer, true)
            try router.set(.curveSecretKey, curve.keys.secretKey)
        }
        // Before binding: libzmq drops events while no monitor is connected. A closed connection
        // ends its client's streams at once instead of after the client timeout.
        let monitor = try router.monitor(events: [.disconnected]).socket
        var bound: [String] = []
        for endpoint in configuration.endpoints {
            try router.bind(endpoint)
            bound.append(try router.lastEndpoint)
        }
        endpoints = bound
        let core = ServerCore(configuration: configuration, handlers: handlers, executor: socketLoop.executor)
        let scheduler = LoopBound(core, on: socketLoop)
        self.core = core
        self.scheduler = scheduler
        // The monitor comes first: in each turn its events are read (all of them) before the
        // router's messages, so a closed connection is seen before a new one on the same descriptor.
        loop = socketLoop.attach(
            [monitor, router],
            options: .init(
                maxMessagesPerSocket: configuration.maxMessagesPerTurn,
                routed: [ServerCore.router: configuration.peerQueue], drainedEachTurn: [ServerCore.monitor]),
            onPeerOverflow: { overflow, loop in
                core.assumeIsolated { core in
                    scheduler.run(on: core) { core.peerOverflowed(overflow, loop: loop) }
                }
            }
        ) { batch, loop in
            // The handler runs on the loop's thread, which is the core's executor: enter the actor
            // right here instead of queueing a job for later in the same turn.
            core.assumeIsolated { core in
                scheduler.run(on: core) { core.receive(batch, loop: loop, scheduler: scheduler) }
            }
        }
        let loop = self.loop
        scheduler.perform { core in core.startTicking(loop: loop, scheduler: scheduler) }
    }

    /// The server's counters.
    public var counters: RemoteCounters {
        get async {
            var counters = await scheduler.run { core in core.snapshot }
            // Its own group's counters: the loop may also carry clients' sockets.
            let loop = loop.statistics
            counters.blockedClients = loop.blockedPeers + loop.cutOffPeers
            counters.queuedForBlockedClients = loop.queuedForBlockedPeers
            counters.messagesDropped = loop.dropped
            return counters
        }
    }

    /// Drains the server for a graceful stop: new streams are refused with `ERROR unavailable`,
    /// open subscriptions and channels are ended the same way, and this returns once every request
    /// in flight has been answered. Call ``stop()`` afterwards (or when a deadline passes).
    public func drain() async {
        let loop = self.loop
        await core.drain(loop: loop)
    }

    /// Stops serving: disposes every open stream, then closes the socket (and the server's own
    /// loop, if it made one).
    public func stop() async {
        let loop = self.loop
        await scheduler.run { core in core.disposeAll(loop: loop) }
        if ownsLoop {
            await loop.loop.stop()
        } else {
            await loop.detach()
        }
        await authenticator?.stop()
    }
}

/// Counters of a server or client.
public struct RemoteCounters: Sendable, Hashable {
    /// Streams open now.
    public var openStreams = 0
    /// Messages received.
    public var framesIn = 0
    /// Messages queued for sending.
    public var framesOut = 0
    /// Frames for unknown streams, and messages too short to route, dropped.
    public var droppedFrames = 0
    /// `ERROR`s sent, by code.
    public var errorsByCode: [String: Int] = [:]
    /// Requests a handler answered while it was being started (the fast path: no stream kept).
    public var requestsAnsweredAtOnce = 0
    /// Clients lost: their connection closed (or they fell silent), and their streams were ended.
    public var clientsLost = 0
    /// Times a client that did not read went over its queue bound: its queued answers were dropped
    /// and its streams ended with `overloaded`.
    public var clientOverflows = 0
    /// Clients not reading now: with answers waiting for them in the server, or cut off after
    /// going over their bound.
    public var blockedClients = 0
    /// Answers waiting now for the clients that do not read.
    public var queuedForBlockedClients = 0
    /// Messages the server could not send: to clients over their bound, to clients gone.
    public var messagesDropped = 0
    /// Calls refused with `overloaded` unread because their client's earlier answers were still
    /// waiting in the server (it was not reading).
    public var refusedWhileBlocked = 0
    /// A client's: requests sent again to another replica after `overloaded` or `unavailable`
    /// (docs/transport/remote-streams.md, "Balancing and retries").
    public var retries = 0
    /// A server's, with ``RemoteServer/Configuration/countsCalls``: its calls by method (every
    /// registered method, called or not).
    public var methods: [String: MethodCalls] = [:]
    /// A server's, with ``RemoteServer/Configuration/countsCalls``: the streams open now by
    /// interaction model.
    public var openByModel: [InteractionModel: Int] = [:]

    /// No counts yet.
    public init() {}
}

/// The calls of one method a server has finished, by outcome, and how long they took.
public struct MethodCalls: Sendable, Hashable {
    /// The method's interaction model.
    public var model: InteractionModel
    /// Calls that ended well: a request's answer, a stream's or channel's `COMPLETE`.
    public var ok = 0
    /// Calls that ended without an answer: the client cancelled or went away, or the server stopped.
    public var cancelled = 0
    /// Calls that ended with an `ERROR`, by code (refusals before the call started included).
    public var errors: [String: Int] = [:]
    /// From the read of the opening frame to the answer or terminal frame (a request's latency, a
    /// stream's or channel's lifetime), for every outcome but `cancelled`.
    public var duration = DurationHistogram()

    /// No calls yet of a method of `model`.
    public init(model: InteractionModel) {
        self.model = model
    }

    /// The counts by outcome: `ok`, `cancelled` and each error code.
    public var outcomes: [String: Int] {
        var outcomes = errors
        outcomes["ok"] = ok
        outcomes["cancelled"] = cancelled
        return outcomes
    }
}

/// Holds a request's answer when it comes while the server is still starting the request, and
/// otherwise the stream the request was registered as, made only then (most requests are answered
/// at once and never need one).
final class EarlyReply: Sendable {
    private struct State {
        var starting = true
        var answer: Result<[UInt8], RemoteError>?
        var stream: ServerCore.OpenStream?
    }

    private let state = Mutex(State())

    /// While the request is being started, keeps `answer` (the first one) and returns nil; after
    /// that, returns the stream the request was registered as, which `answer` is for, once (nil if
    /// the request was answered while starting, and for a second answer: it is ignored).
    ///
    /// The stream is handed over rather than kept: it holds the subscription whose observer holds
    /// this reply, so keeping it would make a cycle that outlives the request.
    func keepIfStarting(_ answer: Result<[UInt8], RemoteError>) -> ServerCore.OpenStream? {
        state.withLock { state in
            guard state.starting else {
                defer { state.stream = nil }
                return state.stream
            }
            state.answer = state.answer ?? answer
            return nil
        }
    }

    /// The request is started: the answer that came meanwhile, if any; otherwise the stream made by
    /// `makeStream`, kept for the later answer, to register.
    func endStarting(
        orKeep makeStream: () -> ServerCore.OpenStream
    ) -> Started {
        state.withLock { state in
            state.starting = false
            if let answer = state.answer { return .answered(answer) }
            let stream = makeStream()
            state.stream = stream
            return .pending(stream)
        }
    }

    /// How starting a request ended.
    enum Started {
        /// The handler answered while it was being started.
        case answered(Result<[UInt8], RemoteError>)
        /// No answer yet: the request's stream, to register.
        case pending(ServerCore.OpenStream)
    }
}

/// A counter shared with code running off the actor.
final class SharedCounter: Sendable {
    private let value = Atomic<Int>(0)

    func increment() { value.add(1, ordering: .relaxed) }

    var count: Int { value.load(ordering: .relaxed) }
}

extension Duration {
    /// The duration in whole milliseconds (at least 1).
    var wholeMilliseconds: Int {
        let (seconds, attoseconds) = components
        return max(1, Int(seconds) * 1_000 + Int(attoseconds / 1_000_000_000_000_000))
    }
}

/// The actor a server's graphs live in. It runs on its socket loop's thread (a ``LoopExecutor``):
/// batches reach it and its replies leave without a thread hand-off, and a busy or blocked
/// cooperative pool elsewhere in the process never delays the service.
actor ServerCore {
    nonisolated let executor: LoopExecutor

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// One open stream: the subscription to its graph and a channel's input.
    final class OpenStream: Sendable {
        let subscription = SingleAssignmentDisposable()
        let input: PublishSubject<[UInt8]>?
        let kind: RemoteHandlers.Kind
        /// The method's index in the server's call counts.
        let method: Int
        /// When the opening frame's batch was read.
        let opened: ContinuousClock.Instant
        /// Set when the client sent its own `COMPLETE` or `ERROR` on a channel (read and written
        /// only on the actor): more input after it is a protocol error.
        let inputEnded = Atomic<Bool>(false)
        /// The call's trace, when it is in one.
        let trace: ServerTrace?

        init(
            input: PublishSubject<[UInt8]>?, kind: RemoteHandlers.Kind, method: Int,
            opened: ContinuousClock.Instant,
            trace: ServerTrace? = nil
        ) {
            self.input = input
            self.kind = kind
            self.method = method
            self.opened = opened
            self.trace = trace
        }

        func dispose() {
            subscription.dispose()
        }
    }

    /// The stream a deadline belongs to.
    struct Deadline: Sendable {
        let key: StreamKey
        let stream: OpenStream
    }

    struct StreamKey: Hashable, Sendable {
        let peer: [UInt8]
        let stream: UInt64
    }

    private let configuration: RemoteServer.Configuration
    private let handlers: RemoteHandlers
    private let codec: FrameCodec
    private var streams: [StreamKey: OpenStream] = [:]
    private var streamsPerPeer: [[UInt8]: Int] = [:]
    private var lastHeard: [[UInt8]: ContinuousClock.Instant] = [:]
    /// The client on each connection's descriptor, and each client's descriptor (from the messages'
    /// `ZMQ_SRCFD`): an open descriptor names one connection, so a new client on a descriptor means
    /// the one before it is gone, and the monitor's "disconnected" names the client to drop.
    private var peerOfDescriptor: [Int32: [UInt8]] = [:]
    private var descriptorOfPeer: [[UInt8]: Int32] = [:]
    private var ticker: SocketLoop.TimerID?
    /// Set by ``drain(loop:)``: new streams are refused, and these wait for the open ones to end.
    private var draining = false
    /// Set by ``disposeAll(loop:)``: the server is stopping, nothing opens or waits any more.
    private var stopped = false
    private var drainWaiters: [CheckedContinuation<Void, Never>] = []
    private var deadlines = DeadlineQueue<Deadline>()
    private var lastSweep = ContinuousClock.now
    private var counters = RemoteCounters()
    /// The method last looked up by name (``method(named:)``), and its index in ``calls``.
    private var lastMethod: (name: String, method: RemoteHandlers.Method, index: Int)?
    /// `NEXT` frames sent by the graphs, counted where they are sent (off the actor).
    private let elementsSent = SharedCounter()
    /// Each registered method's index in ``calls``.
    private let methodIndex: [String: Int]
    /// The registered methods' names, by index.
    private let methodNames: [String]
    /// The methods' call counts (with ``RemoteServer/Configuration/countsCalls``), by index.
    private var calls: [MethodCalls]
    private let countsCalls: Bool
    /// When the batch being handled was read: the start of the calls it opens.
    private var turnStarted = ContinuousClock.now
    /// The methods of the calls the batch answered at once, timed together when it is done: one
    /// clock read per batch instead of one per call.
    private var answeredThisTurn: [Int] = []

    init(configuration: RemoteServer.Configuration, handlers: RemoteHandlers, executor: LoopExecutor) {
        self.executor = executor
        self.configuration = configuration
        self.handlers = handlers
        self.codec = FrameCodec(limits: configuration.limits)
        let names = handlers.methods.keys.sorted()
        methodIndex = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) })
        methodNames = names
        calls = names.map { MethodCalls(model: handlers.methods[$0]?.kind ?? .request) }
        countsCalls = configuration.countsCalls
    }

    // MARK: Receiving

    /// Handles one batch from the socket loop (on the actor, one hop per batch).
    /// Runs inside the scheduler's drain, so work the graphs schedule on the actor meanwhile runs
    /// inline instead of hopping again.
    func receive(
        _ batch: [SocketLoop.Received], loop: SocketLoop.Group, scheduler: LoopBound<ServerCore>
    ) {
        let now = ContinuousClock.now
        turnStarted = now
        defer { if !answeredThisTurn.isEmpty { timeAnsweredThisTurn() } }
        // A batch mostly comes from one client: note when each peer was heard once per run of its
        // messages, not once per message (a dictionary update hashes the routing id).
        var lastPeer: [UInt8]?
        for message in batch {
            guard message.socket == Self.router else {
                if case .disconnected(let descriptor)? = MonitorEvent(parts: message.parts.map(\.bytes))?.kind
                {
                    connectionClosed(descriptor)
                }
                continue
            }
            counters.framesIn += 1
            guard message.parts.count >= 2 else {
                counters.droppedFrames += 1
                continue
            }
            let peer = message.parts[0].bytes
            if peer != lastPeer {
                lastHeard[peer] = now
                lastPeer = peer
                if message.sourceFD >= 0 { note(peer, on: message.sourceFD) }
            }
            let frame: Frame
            do {
                frame = try codec.decode(message.parts.dropFirst())
            } catch {
                // Never answer an ERROR with an ERROR: a malformed one is only dropped.
                let header = message.parts[1].bytes
                if header.count > 1, header[1] == FrameType.error.rawValue {
                    counters.droppedFrames += 1
                } else {
                    sendError(error.remoteError, stream: error.stream ?? 0, to: peer, loop: loop)
                }
                continue
            }
            if message.senderBlocked,
                frame.type == .request || frame.type == .subscribe || frame.type == .open
            {
                // Its earlier answers wait unread: refuse new work at once rather than do it for
                // nobody (a login would cost a password hash).
                counters.refusedWhileBlocked += 1
                sendError(
                    RemoteError(
                        code: .overloaded, message: "earlier answers are waiting unread: read them first"),
                    stream: frame.stream, to: peer, loop: loop)
                continue
            }
            handle(frame, from: peer, loop: loop, scheduler: scheduler)
        }
    }

    private func handle(
        _ frame: Frame, from peer: [UInt8], loop: SocketLoop.Group, scheduler: LoopBound<ServerCore>
    ) {
        let key = StreamKey(peer: peer, stream: frame.stream)
        switch frame.type {
        case .request, .subscribe, .open:
            open(frame, key: key, loop: loop, scheduler: scheduler)
        case .next, .complete, .error:
            guard let stream = streams[key], let input = stream.input else { return drop() }
            guard !stream.inputEnded.load(ordering: .relaxed) else {
                // The channel is still answering (a lookup in flight), but its input is over.
                return refuseInput(key, stream, frame.type, loop: loop)
            }
            switch frame.type {
            case .next:
                let body = frame.body ?? []
                guard Tracing.tracer != nil else { return input.onNext(body) }
                receiveInput(body, on: stream, key: key, loop: loop)
            case .complete:
                stream.inputEnded.store(true, ordering: .relaxed)
                input.onCompleted()
            default:
                stream.inputEnded.store(true, ordering: .relaxed)
                input.onError(frame.remoteError ?? RemoteError(code: .internal, message: "unreadable error"))
            }
        case .cancel:
            guard let stream = close(key) else { return drop() }
            count(stream, .cancelled)
            stream.dispose()
        case .ping:
            send(.pong, to: peer, loop: loop)
        case .pong:
            drop()
        }
    }

    private func drop() {
        counters.droppedFrames += 1
    }

    /// A channel's input element, with tracing on: handled in its own span (or its channel's), which
    /// ends once the calls it made are done.
    private func receiveInput(_ body: [UInt8], on stream: OpenStream, key: StreamKey, loop: SocketLoop.Group)
    {
        guard let input = stream.input else { return }
        let codec = self.codec
        let report = configuration.inputTraceReport.map { make in
            { @Sendable (traceID: String, hops: [Hop]) in
                guard let answer = make(traceID, hops) else { return }
                loop.send(
                    Self.message(to: key.peer, Self.nextFrame(stream: key.stream, body: answer), codec),
                    to: Self.router)
            }
        }
        let (context, span, own) = ServerTrace.input(
            body, method: methodName(stream.method), channel: stream.trace, shard: configuration.shard,
            tracesInputs: configuration.tracesInputs, report: report)
        Tracing.with(context, span: span) { input.onNext(body) }
        if own { span?.endWhenReleased() }
    }

    /// The name of the method at `index` of ``calls``.
    private func methodName(_ index: Int) -> String {
        methodNames.indices.contains(index) ? methodNames[index] : "unknown"
    }

    /// The method registered as `name`. The last one found is remembered: calls mostly come in
    /// runs of one method, and comparing a short name costs less than hashing it.
    private func method(named name: String) -> (method: RemoteHandlers.Method, index: Int)? {
        if let last = lastMethod, last.name == name { return (last.method, last.index) }
        guard let method = handlers.methods[name], let index = methodIndex[name] else { return nil }
        lastMethod = (name, method, index)
        return (method, index)
    }

    /// Input on a channel after the client's own `COMPLETE` or `ERROR`: the channel ends with
    /// `ERROR bad_request` and its graph is disposed.
    private func refuseInput(
        _ key: StreamKey, _ stream: OpenStream, _ type: FrameType, loop: SocketLoop.Group
    ) {
        guard close(key) != nil else { return }
        stream.dispose()
        count(stream, .error(.badRequest))
        sendError(
            RemoteError(
                code: .badRequest, message: "\(type) on stream \(key.stream) after the channel's input ended"),
            stream: key.stream, to: key.peer, loop: loop)
    }

    // MARK: Streams

    private func open(
        _ frame: Frame, key: StreamKey, loop: SocketLoop.Group, scheduler: LoopBound<ServerCore>
    ) {
        let peer = key.peer
        func refuse(_ code: ErrorCode, _ message: String) {
            sendError(RemoteError(code: code, message: message), stream: key.stream, to: peer, loop: loop)
        }
        guard !draining else {
            return refuse(.unavailable, "the server is shutting down; retry on another replica")
        }
        // (Most requests are answered at once and never open a stream: skip the lookups then.)
        guard streams.isEmpty || streams[key] == nil else {
            return refuse(.badRequest, "stream \(key.stream) is already open")
        }
        guard let (method, index) = method(named: frame.method) else {
            return refuse(.unknownMethod, "no method \(frame.method) on this server")
        }
        guard method.kind.openingType == frame.type else {
            countAtOnce(index, .error(.badRequest))
            return refuse(
                .badRequest,
                "\(frame.method) is a \(method.kind.rawValue) method: open it with "
                    + "\(method.kind.openingType)")
        }
        guard
            streams.count < configuration.maxStreamsPerClient
                || streamsPerPeer[peer, default: 0] < configuration.maxStreamsPerClient,
            streams.count < configuration.maxStreamsTotal
        else {
            countAtOnce(index, .error(.overloaded))
            return refuse(.overloaded, "too many open streams; retry later")
        }
        let context = CallContext(peerID: peer, method: frame.method)
        let body = frame.body ?? []
        let output: Observable<[UInt8]>
        let input = frame.type == .open ? PublishSubject<[UInt8]>() : nil
        let trace = ServerTrace.open(
            method: frame.method, model: method.kind, body: body, shard: configuration.shard,
            tracesInputs: configuration.tracesInputs)
        switch method.start {
        case .request(let start):
            return openRequest(
                start, method: index, body: body, context: context, key: key,
                deadline: frame.deadlineMilliseconds, loop: loop, scheduler: scheduler, trace: trace)
        case .elements(let start):
            do {
                if let trace {
                    output = try trace.run { () throws(RemoteError) in
                        try start(body, context, input?.asObservable() ?? .never())
                    }
                } else {
                    output = try start(body, context, input?.asObservable() ?? .never())
                }
            } catch {
                trace?.end(error.code.rawValue)
                countAtOnce(index, .error(error.code))
                return refuse(error.code, error.message)
            }
        }
        let stream = OpenStream(
            input: input, kind: method.kind, method: index, opened: turnStarted, trace: trace)
        register(stream, key: key, deadline: frame.deadlineMilliseconds)
        let id = key.stream
        let codec = self.codec
        let elementsSent = self.elementsSent
        let tagsElements = input != nil
        // Elements go straight to the loop from whatever thread the graph emits on (the loop's
        // queue keeps their order); the terminal event comes back to the actor to close the stream.
        stream.subscription.setDisposable(
            output.subscribe(
                onNext: { element in
                    elementsSent.increment()
                    // A channel's element sent while an input that asked for its trace is handled
                    // carries that input's trace id.
                    let body = tagsElements && Tracing.tracer != nil ? ServerTrace.tagged(element) : element
                    if let trace { trace.responseBytes.add(body.count, ordering: .relaxed) }
                    loop.send(
                        Self.message(to: peer, Self.nextFrame(stream: id, body: body), codec), to: Self.router
                    )
                },
                onError: { error in
                    scheduler.schedule(isolated: { core in
                        core.finish(key, stream, with: .wrapping(error), loop: loop)
                    })
                },
                onCompleted: {
                    scheduler.schedule(isolated: { core in core.finish(key, stream, with: nil, loop: loop) })
                }))
    }

    /// Starts a request. A handler that answers at once (while it is being started, as most do)
    /// is answered right here: the stream is never registered, and no operator chain, timer entry
    /// or hop back to the actor is needed. A later answer comes back to the actor.
    private func openRequest(
        _ start: RemoteHandlers.Method.RequestStart, method: Int, body: [UInt8], context: CallContext,
        key: StreamKey, deadline: UInt32, loop: SocketLoop.Group, scheduler: LoopBound<ServerCore>,
        trace: ServerTrace?
    ) {
        let reply = EarlyReply()
        let subscription: any Disposable
        let reach: RemoteHandlers.Method.Reply = { result in
            guard let stream = reply.keepIfStarting(result) else { return }
            scheduler.schedule(isolated: { core in core.answer(key, stream, with: result, loop: loop) })
        }
        do {
            if let trace {
                subscription = try trace.run { () throws(RemoteError) in try start(body, context, reach) }
            } else {
                subscription = try start(body, context, reach)
            }
        } catch {
            trace?.end(error.code.rawValue)
            countAtOnce(method, .error(error.code))
            return sendError(error, stream: key.stream, to: key.peer, loop: loop)
        }
        let opened = turnStarted
        switch reply.endStarting(orKeep: {
            OpenStream(input: nil, kind: .request, method: method, opened: opened, trace: trace)
        }) {
        case .answered(let result):
            counters.requestsAnsweredAtOnce += 1
            countAtOnce(method, Outcome(result))
            sendAnswer(Self.traced(result, trace), key: key, loop: loop)
        case .pending(let stream):
            stream.subscription.setDisposable(subscription)
            register(stream, key: key, deadline: deadline)
        }
    }

    /// Records an open stream and its deadline.
    private func register(_ stream: OpenStream, key: StreamKey, deadline: UInt32) {
        streams[key] = stream
        streamsPerPeer[key.peer, default: 0] += 1
        counters.openStreams = streams.count
        guard deadline > 0 else { return }
        // Entries of streams that ended stay until they come due; drop them when they pile up.
        if deadlines.count > 2 * max(1_024, streams.count) {
            deadlines.removeAll { deadline in streams[deadline.key] !== deadline.stream }
        }
        deadlines.push(Deadline(key: key, stream: stream), due: .now + .milliseconds(Int(deadline)))
    }

    /// A request answered later: send the answer and forget the stream, unless a cancel or the
    /// deadline closed it first.
    private func answer(
        _ key: StreamKey, _ stream: OpenStream, with result: Result<[UInt8], RemoteError>,
        loop: SocketLoop.Group
    ) {
        guard streams[key] === stream, close(key) != nil else { return }
        // The graph has answered: release it now, not when the stream's deadline entry goes.
        stream.subscription.dispose()
        let answer = Self.traced(result, stream.trace)
        count(stream, Outcome(result))
        sendAnswer(answer, key: key, loop: loop)
    }

    /// A request's result with its span ended: the answer carries the span's hops when the caller
    /// asked for them.
    private static func traced(
        _ result: Result<[UInt8], RemoteError>, _ trace: ServerTrace?
    ) -> Result<[UInt8], RemoteError> {
        guard let trace else { return result }
        switch result {
        case .success(let body):
            return .success(trace.answer(body, hops: trace.end("ok", responseBytes: body.count)))
        case .failure(let error):
            trace.end(error.code.rawValue)
            return result
        }
    }

    /// A request's answer: one `NEXT`, which ends the stream (no `COMPLETE` follows: one message
    /// per answer, not two), or one `ERROR`.
    private func sendAnswer(_ result: Result<[UInt8], RemoteError>, key: StreamKey, loop: SocketLoop.Group) {
        switch result {
        case .success(let body):
            send(Self.nextFrame(stream: key.stream, body: body), to: key.peer, loop: loop)
        case .failure(let error):
            sendError(error, stream: key.stream, to: key.peer, loop: loop)
        }
    }

    /// The stream sent its terminal event (`error`, or completion when nil): send it and forget the
    /// stream, unless a cancel or the deadline closed it first.
    private func finish(
        _ key: StreamKey, _ stream: OpenStream, with error: RemoteError?, loop: SocketLoop.Group
    ) {
        guard streams[key] === stream, close(key) != nil else { return }
        count(stream, error.map { .error($0.code) } ?? .ok)
        if let error {
            sendError(error, stream: key.stream, to: key.peer, loop: loop)
        } else {
            send(Self.completeFrame(stream: key.stream), to: key.peer, loop: loop)
        }
    }

    /// The stream's deadline passed: dispose it and tell the client.
    private func expire(_ key: StreamKey, _ stream: OpenStream, loop: SocketLoop.Group) {
        guard streams[key] === stream, close(key) != nil else { return }
        stream.dispose()
        count(stream, .error(.timeout))
        sendError(
            RemoteError(code: .timeout, message: "the deadline passed"), stream: key.stream, to: key.peer,
            loop: loop)
    }

    private func close(_ key: StreamKey) -> OpenStream? {
        guard let stream = streams.removeValue(forKey: key) else { return nil }
        let remaining = streamsPerPeer[key.peer, default: 1] - 1
        streamsPerPeer[key.peer] = remaining > 0 ? remaining : nil
        counters.openStreams = streams.count
        if draining, streams.isEmpty { resumeDrainWaiters() }
        return stream
    }

    /// Stops taking new streams, ends the open subscriptions and channels (`ERROR unavailable`:
    /// they would never finish by themselves), and returns once the requests in flight have been
    /// answered.
    func drain(loop: SocketLoop.Group) async {
        // A stop that came first (a drain deadline that passed before this ran) disposed everything.
        guard !stopped else { return }
        draining = true
        for (key, stream) in streams where stream.kind != .request {
            guard close(key) != nil else { continue }
            stream.dispose()
            count(stream, .error(.unavailable))
            sendError(
                RemoteError(code: .unavailable, message: "the server is shutting down"), stream: key.stream,
                to: key.peer, loop: loop)
        }
        guard !streams.isEmpty else { return }
        await withCheckedContinuation { continuation in
            // Checked again where the waiter is kept: a stop that got in first has no one to wake.
            if stopped || streams.isEmpty {
                continuation.resume()
            } else {
                drainWaiters.append(continuation)
            }
        }
    }

    private func resumeDrainWaiters() {
        let waiters = drainWaiters
        drainWaiters = []
        for waiter in waiters { waiter.resume() }
    }

    // MARK: Lost clients

    /// `peer`'s messages come from connection `descriptor`. A different client seen before on that
    /// descriptor has closed its connection (the descriptor was reused): it is lost.
    private func note(_ peer: [UInt8], on descriptor: Int32) {
        if let known = peerOfDescriptor[descriptor] {
            if known == peer { return }
            lose(known)
        }
        peerOfDescriptor[descriptor] = peer
        descriptorOfPeer[peer] = descriptor
    }

    /// libzmq's monitor says the connection on `descriptor` closed: its client is lost (unless
    /// that client has since been heard on another connection, with the same routing id).
    private func connectionClosed(_ descriptor: Int32) {
        guard let peer = peerOfDescriptor.removeValue(forKey: descriptor) else { return }
        guard descriptorOfPeer[peer] == descriptor else { return }
        lose(peer)
    }

    /// Forgets `peer` and disposes its streams: nobody is there to read what they send.
    private func lose(_ peer: [UInt8]) {
        lastHeard[peer] = nil
        if let descriptor = descriptorOfPeer.removeValue(forKey: peer), peerOfDescriptor[descriptor] == peer {
            peerOfDescriptor[descriptor] = nil
        }
        counters.clientsLost += 1
        guard streamsPerPeer[peer] != nil else { return }
        for key in streams.keys.filter({ $0.peer == peer }) { closeCancelled(key) }
    }

    /// `overflow.peer` stopped reading and went over its queue bound: its queued answers were
    /// dropped; its streams end with `ERROR overloaded` (which it reads if it ever reads again).
    func peerOverflowed(_ overflow: SocketLoop.PeerOverflow, loop: SocketLoop.Group) {
        counters.clientOverflows += 1
        let peer = overflow.peer
        guard streamsPerPeer[peer] != nil else { return }
        for key in streams.keys.filter({ $0.peer == peer }) {
            guard let stream = close(key) else { continue }
            stream.dispose()
            count(stream, .error(.overloaded))
            sendError(
                RemoteError(
                    code: .overloaded,
                    message: "answers were not read: \(overflow.dropped) were dropped, and the stream ended"),
                stream: key.stream, to: peer, loop: loop)
        }
    }

    /// Starts the core's clock: every `tick` (on the loop's thread, so a busy cooperative pool never
    /// delays it) it expires the deadlines that passed and, every ``sweepInterval(_:)``, disposes the
    /// streams of clients silent for longer than the client timeout. One periodic timer for all streams costs far less than a timer per
    /// request.
    func startTicking(
        loop: SocketLoop.Group, scheduler: LoopBound<ServerCore>,
        every tick: Duration = .milliseconds(10)
    ) {
        ticker = loop.loop.schedule(every: tick) {
            scheduler.perform { core in core.tick(loop: loop) }
        }
    }

    private func tick(loop: SocketLoop.Group) {
        let now = ContinuousClock.now
        while let next = deadlines.popDue(now: now) {
            expire(next.key, next.stream, loop: loop)
        }
        if now - lastSweep >= Self.sweepInterval(configuration.clientTimeout) {
            lastSweep = now
            sweep()
        }
    }

    /// How often lost clients are swept: every second (every half timeout if that is shorter), so
    /// a silent client is dropped within the client timeout plus one second.
    static func sweepInterval(_ clientTimeout: Duration) -> Duration {
        min(clientTimeout / 2, .seconds(1))
    }

    /// Disposes the streams of clients not heard from within the client timeout.
    private func sweep() {
        let deadline = ContinuousClock.now - configuration.clientTimeout
        let lost = Set(lastHeard.filter { $0.value < deadline }.map(\.key))
        guard !lost.isEmpty else { return }
        for peer in lost {
            lastHeard[peer] = nil
            if let descriptor = descriptorOfPeer.removeValue(forKey: peer),
                peerOfDescriptor[descriptor] == peer
            {
                peerOfDescriptor[descriptor] = nil
            }
        }
        counters.clientsLost += lost.count
        for key in streams.keys where lost.contains(key.peer) {
            closeCancelled(key)
        }
    }

    /// Disposes every open stream (the server is stopping).
    func disposeAll(loop: SocketLoop.Group) {
        stopped = true
        draining = true
        if let ticker { loop.loop.cancelTimer(ticker) }
        for key in streams.keys { closeCancelled(key) }
        resumeDrainWaiters()
    }

    // MARK: Sending

    /// The server's socket.
    static let router = SocketLoop.SocketID(1)
    /// The router's monitor (its "disconnected" events).
    static let monitor = SocketLoop.SocketID(0)

    private func send(_ frame: Frame, to peer: [UInt8], loop: SocketLoop.Group) {
        counters.framesOut += 1
        loop.send(Self.message(to: peer, frame, codec), to: Self.router)
    }

    private func sendError(_ error: RemoteError, stream: UInt64, to peer: [UInt8], loop: SocketLoop.Group) {
        counters.errorsByCode[error.code.rawValue, default: 0] += 1
        send(.error(stream: stream, error), to: peer, loop: loop)
    }

    /// The counters, with the elements sent from the graphs' threads (and, counting calls, each
    /// method's calls and the open streams by model).
    var snapshot: RemoteCounters {
        var counters = self.counters
        counters.framesOut += elementsSent.count
        guard countsCalls else { return counters }
        for (name, index) in methodIndex { counters.methods[name] = calls[index] }
        for model in InteractionModel.allCases { counters.openByModel[model] = 0 }
        for stream in streams.values { counters.openByModel[stream.kind, default: 0] += 1 }
        return counters
    }

    // MARK: Counting calls

    /// How a call ended, for its method's counts.
    enum Outcome {
        case ok
        case cancelled
        case error(ErrorCode)

        init(_ result: Result<[UInt8], RemoteError>) {
            switch result {
            case .success: self = .ok
            case .failure(let error): self = .error(error.code)
            }
        }

        /// `ok`, `cancelled` or the error code.
        var name: String {
            switch self {
            case .ok: "ok"
            case .cancelled: "cancelled"
            case .error(let code): code.rawValue
            }
        }
    }

    /// Counts a call of method `index` that ended while its batch was handled; it is timed when the
    /// batch is done.
    private func countAtOnce(_ index: Int, _ outcome: Outcome) {
        guard countsCalls else { return }
        tally(index, outcome)
        answeredThisTurn.append(index)
    }

    /// Counts `stream`'s end, timed from its opening (a cancelled one is not timed), and ends its
    /// span.
    private func count(_ stream: OpenStream, _ outcome: Outcome) {
        if let trace = stream.trace { trace.end(outcome.name) }
        guard countsCalls else { return }
        tally(stream.method, outcome)
        if case .cancelled = outcome { return }
        calls[stream.method].duration.record(ContinuousClock.now - stream.opened)
    }

    private func tally(_ index: Int, _ outcome: Outcome) {
        switch outcome {
        case .ok: calls[index].ok += 1
        case .cancelled: calls[index].cancelled += 1
        case .error(let code): calls[index].errors[code.rawValue, default: 0] += 1
        }
    }

    /// Times the calls the batch answered at once, from its read to now.
    private func timeAnsweredThisTurn() {
        let elapsed = ContinuousClock.now - turnStarted
        for index in answeredThisTurn { calls[index].duration.record(elapsed) }
        answeredThisTurn.removeAll(keepingCapacity: true)
    }

    /// Closes and disposes the stream at `key`, if open, counting it cancelled.
    private func closeCancelled(_ key: StreamKey) {
        guard let stream = close(key) else { return }
        count(stream, .cancelled)
        stream.dispose()
    }

    private static func message(to peer: [UInt8], _ frame: Frame, _ codec: FrameCodec) -> [Message] {
        codec.messages(frame, to: peer)
    }

    private static func nextFrame(stream: UInt64, body: [UInt8]) -> Frame {
        do { return try .next(stream: stream, body: body) } catch { return error.errorFrame }
    }

    private static func completeFrame(stream: UInt64) -> Frame {
        do { return try .complete(stream: stream) } catch { return error.errorFrame }
    }
}
