import Foundation
public import Reactive
public import RemoteProtocol
public import Synchronization
import Tracing
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
/// - With several endpoints the client keeps one DEALER per replica and sends each new call to the
///   connected replica with the fewest calls open (ties round-robin; while none is connected, to a
///   configured one, where it waits as above); every frame of a stream goes to the replica that
///   opened it.
/// - A request refused with `overloaded`, or failed `unavailable` (its connection was lost, or it
///   never had one), is sent again to another connected replica within its deadline when that is
///   safe: always after `overloaded` or when it never left the client, otherwise only when its
///   method's ``RetrySafety`` allows it (docs/transport/remote-streams.md, "Balancing and
///   retries").
/// - An endpoint `tcp://name:port` whose host is a name is resolved every
///   ``Configuration/resolveInterval`` on a thread of the client's own: one replica per address,
///   replicas added for new addresses and retired (no new calls; open ones finish) for vanished
///   ones, so a name with several addresses (a Kubernetes headless Service) is a list of replicas.
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
        /// Resolves the host names of `tcp://` endpoints into addresses, one replica each; nil:
        /// names are dialled as they are (libzmq connects to the first address of a name).
        public var resolver: NameResolver?
        /// How often names are resolved again.
        public var resolveInterval: Duration

        /// A configuration.
        public init(
            endpoints: [String], deadline: Duration = .seconds(5), pingInterval: Duration = .seconds(2),
            limits: ProtocolLimits = ProtocolLimits(), name: String = "remote-client",
            curve: Curve? = nil, maxMessagesPerTurn: Int = 16, connectTimeout: Duration? = nil,
            reconnectInterval: Duration = .milliseconds(100),
            reconnectIntervalMax: Duration = .milliseconds(250), discoversShards: Bool = false,
            resolver: NameResolver? = .system, resolveInterval: Duration = .seconds(5)
        ) {
            self.discoversShards = discoversShards
            self.resolver = resolver
            self.resolveInterval = resolveInterval
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

    /// Turns a host name into its addresses (`10.0.0.5`, `::1`), for endpoints `tcp://name:port`.
    public struct NameResolver: Sendable {
        /// The addresses of a name, or nil when it could not be resolved (the client then keeps
        /// the replicas it has). Called on the client's resolver thread: it may block.
        public let resolve: @Sendable (_ host: String) -> [String]?

        /// A resolver that calls `resolve`.
        public init(_ resolve: @escaping @Sendable (_ host: String) -> [String]?) {
            self.resolve = resolve
        }

        /// The system's resolver (`getaddrinfo`): IPv4 and IPv6 addresses, in its order, without
        /// repeats.
        public static var system: NameResolver { NameResolver(systemAddresses(of:)) }
    }

    /// A replica's connection came up or was lost.
    public struct ConnectionChange: Sendable, Hashable, CustomStringConvertible {
        /// The replica: its index in ``Configuration/endpoints``, then (past them) in the order the
        /// replicas were added: discovered shards, and addresses of resolved names.
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
        /// The replica the call is open on (another one after a retry).
        var replica: Int
        /// A channel's subscription to its input; nil for requests and streams, which have none
        /// (one allocation and lock fewer per call).
        let input: SingleAssignmentDisposable?
        /// What a request needs to be sent again; nil for streams, channels, pinned calls and calls
        /// opened while the client had one replica. Boxed, so that a pending call without one (every
        /// call of a one-replica client) stays as small as it was in the pending table.
        private var retryBox: RetryBox?
        /// The call's trace: its client span and the context its answers are delivered in; nil when
        /// the call was made outside any trace.
        let trace: CallTrace?
        /// A channel's inputs sent in a sampled trace, waiting for their reports; nil for requests
        /// and streams.
        let inputTraces: InputTraces?

        /// `retry` is boxed by the caller, so that a call without one never handles an optional
        /// ``Retry``.
        init(
            receiver: any CallReceiver, isRequest: Bool, replica: Int, input: SingleAssignmentDisposable?,
            retry: RetryBox?, trace: CallTrace?, inputTraces: InputTraces?
        ) {
            self.receiver = receiver
            self.isRequest = isRequest
            self.replica = replica
            self.input = input
            retryBox = retry
            self.trace = trace
            self.inputTraces = inputTraces
        }

        /// Whether it has ``retry`` state (without copying it out).
        var mayRetry: Bool { retryBox != nil }

        var retry: Retry? {
            get { retryBox?.retry }
            set { retryBox = newValue.map(RetryBox.init) }
        }
    }

    /// A request's ``Retry``, boxed (see ``Pending``).
    private final class RetryBox: Sendable {
        let retry: Retry
        init(_ retry: Retry) { self.retry = retry }
    }

    /// A request's opening, kept to send it again to another replica (no copy: the method and the
    /// body are the call's own).
    private struct Retry: Sendable {
        let method: String
        let body: [UInt8]
        /// When the call was opened, and its deadline: a retry carries what is left of it.
        let opened: ContinuousClock.Instant
        let deadline: Duration
        /// Its method allows running it twice (``RetrySafety``).
        let isIdempotent: Bool
        /// Whether its replica's connection was up when it was sent there, and that replica's
        /// handshake count then: a call queued for a replica that has not connected since never
        /// left the client.
        var sentConnected: Bool
        var handshakesWhenSent: Int
        /// Times sent again so far.
        var attempts: Int
    }

    /// One replica: a configured endpoint (or an address of a configured name) or a discovered
    /// shard, with its DEALER and monitor.
    private struct Replica: Sendable {
        let endpoint: String
        /// The DEALER (socket 0) and its monitor (socket 1).
        let sockets: SocketLoop.Group
        /// The configured endpoint it stands for (itself, or the name it is an address of); nil
        /// for a discovered shard.
        let configured: String?
        /// Handshakes that succeeded so far.
        var handshakes = 0
        /// Takes no new calls; its sockets are detached once its open calls have ended.
        var isRetired = false
        var isDetached = false
        /// The server's shard it reaches: 0 for a configured endpoint (a server's documented
        /// endpoint is its shard 0), the index in `sys.endpoints` for a discovered one.
        var shard = 0
    }

    private struct State: Sendable {
        /// The configured endpoints' replicas, then those added later (discovered shards, addresses
        /// of resolved names), never removed: a retired replica keeps its index.
        var replicas: [Replica] = []
        /// Per replica: whether its connection is up (handshake done, not disconnected since).
        var isConnected: [Bool] = []
        /// Per replica: connected and not retired (new calls may go there).
        var isUsable: [Bool] = []
        /// Per replica: calls open on it.
        var inFlight: [Int] = []
        var connectedCount = 0
        /// Retired replicas whose sockets are still attached.
        var retiring = 0
        var nextStream: UInt64 = 1
        var nextReplica = 0
        var pending: [UInt64: Pending] = [:]
        /// The client-side deadline of every open call (stream id), soonest first; entries of calls
        /// that ended stay until they come due or are pruned.
        var deadlines = DeadlineQueue<UInt64>()
        /// When calls opened while their replica had no connection stop waiting for one (with a
        /// ``Configuration/connectTimeout``).
        var connectDeadlines = DeadlineQueue<UInt64>()
        /// Whether any replica's connection was ever up.
        var everConnected = false
        var counters = RemoteCounters()

        mutating func append(_ replica: Replica) {
            replicas.append(replica)
            isConnected.append(false)
            isUsable.append(false)
            inFlight.append(0)
        }

        /// Adds open call `stream`, made in place in `pending`: a `Pending` passed in would be
        /// copied there, and its copy and release cost more than the rest of the bookkeeping.
        mutating func insert(
            _ stream: UInt64, receiver: any CallReceiver, isRequest: Bool, replica: Int,
            input: SingleAssignmentDisposable?, retry: RetryBox?, trace: CallTrace?,
            inputTraces: InputTraces? = nil
        ) {
            pending[stream] = Pending(
                receiver: receiver, isRequest: isRequest, replica: replica, input: input, retry: retry,
                trace: trace, inputTraces: inputTraces)
            inFlight[replica] &+= 1
        }

        mutating func remove(_ stream: UInt64) -> Pending? {
            guard let index = pending.index(forKey: stream) else { return nil }
            return remove(at: index)
        }

        /// Removes the call at `index` of `pending`, found once by the caller: a call's answer
        /// hashes its id once.
        mutating func remove(at index: Dictionary<UInt64, Pending>.Index) -> Pending {
            let call = pending.remove(at: index).value
            inFlight[call.replica] &-= 1
            return call
        }

        /// The replica a new call goes to: the usable one with the fewest calls open, the first of
        /// equals from `nextReplica` on (round-robin); while none is usable, the configured one
        /// (not a discovered shard, which may be gone with its server) with the fewest. `excluding`
        /// is never chosen; nil when nothing else is usable (`usableOnly`) or left. `advance`: the
        /// next call starts looking after the one chosen.
        mutating func choose(excluding: Int = -1, usableOnly: Bool = false, advance: Bool = true) -> Int? {
            let count = replicas.count
            if count == 1 { return excluding == 0 || (usableOnly && !isUsable[0]) ? nil : 0 }
            var start = nextReplica
            if start >= count { start = 0 }
            var best = -1
            var fewest = Int.max
            var candidate = start
            for _ in 0..<count {
                if isUsable[candidate], candidate != excluding, inFlight[candidate] < fewest {
                    best = candidate
                    fewest = inFlight[candidate]
                    if fewest == 0 { break }
                }
                candidate += 1
                if candidate == count { candidate = 0 }
            }
            if best < 0 {
                if usableOnly { return nil }
                candidate = start
                for _ in 0..<count {
                    let replica = replicas[candidate]
                    if replica.configured != nil, !replica.isRetired, candidate != excluding,
                        inFlight[candidate] < fewest
                    {
                        best = candidate
                        fewest = inFlight[candidate]
                    }
                    candidate += 1
                    if candidate == count { candidate = 0 }
                }
                if best < 0 { return nil }
            }
            if advance { nextReplica = best + 1 }
            return best
        }

        /// Moves open request `stream`, which just failed with `code` on its replica, to another
        /// usable replica when that is safe and its deadline leaves time: returns the frame to
        /// send there and where, and the replica it leaves (to cancel it there). The call keeps
        /// its id, which is per connection (docs/PROTOCOL.md).
        mutating func retry(
            _ stream: UInt64, after code: ErrorCode, answered: Bool = false, now: ContinuousClock.Instant
        ) -> (frame: Frame, sockets: SocketLoop.Group, left: Int)? {
            guard var call = pending[stream], var retry = call.retry else { return nil }
            let neverSent =
                !answered && !retry.sentConnected
                && replicas[call.replica].handshakes == retry.handshakesWhenSent
            guard code == .overloaded || neverSent || retry.isIdempotent else { return nil }
            let active = replicas.count { !$0.isRetired }
            guard retry.attempts < max(1, active - 1) else { return nil }
            let left = retry.deadline - (now - retry.opened)
            guard left >= .milliseconds(1),
                let target = choose(excluding: call.replica, usableOnly: true, advance: false),
                let frame = try? Frame(
                    type: .request, stream: stream,
                    deadlineMilliseconds: UInt32(clamping: left.wholeMilliseconds),
                    method: retry.method, body: retry.body)
            else { return nil }
            let from = call.replica
            retry.attempts += 1
            retry.sentConnected = true
            retry.handshakesWhenSent = replicas[target].handshakes
            call.retry = retry
            call.replica = target
            pending[stream] = call
            inFlight[from] &-= 1
            inFlight[target] &+= 1
            counters.retries += 1
            counters.framesOut += 1
            return (frame, replicas[target].sockets, from)
        }

        /// Marks retired replicas with no call open detached, and returns their sockets to detach.
        mutating func detachIdleRetired() -> [SocketLoop.Group] {
            guard retiring > 0 else { return [] }
            var groups: [SocketLoop.Group] = []
            for replica in replicas.indices
            where replicas[replica].isRetired && !replicas[replica].isDetached && inFlight[replica] == 0 {
                replicas[replica].isDetached = true
                retiring -= 1
                groups.append(replicas[replica].sockets)
                if isConnected[replica] {
                    isConnected[replica] = false
                    connectedCount -= 1
                }
            }
            return groups
        }
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
    /// Resolves the configured names again and again; nil when no endpoint has one to resolve.
    private let resolverThread: ResolverThread?

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
                        endpoint: endpoint, configured: endpoint, as: replica, to: socketLoop, inbox: inbox,
                        configuration: configuration))
            }
        } catch {
            for replica in replicas { replica.sockets.detachLater() }
            throw error
        }
        // Until a name is resolved its replica dials it as it is.
        var names: [String] = []
        for endpoint in configuration.endpoints where Self.resolvableHost(of: endpoint) != nil {
            if !names.contains(endpoint) { names.append(endpoint) }
        }
        // Both run on the loop's thread, where answers are delivered: a call never sees an answer
        // and its expiry at once.
        timers = [
            socketLoop.schedule(every: configuration.pingInterval) { inbox.client?.ping() },
            socketLoop.schedule(every: Self.tick) { inbox.client?.expireDue() },
        ]
        state.withLock { state in
            for replica in replicas { state.append(replica) }
        }
        if let resolver = configuration.resolver, !names.isEmpty {
            resolverThread = ResolverThread(
                names: names, resolver: resolver, interval: configuration.resolveInterval, loop: socketLoop,
                inbox: inbox, name: configuration.name)
        } else {
            resolverThread = nil
        }
        inbox.bind(self)
        resolverThread?.start()
        // What the loop read before the client was bound (the first handshake, typically) is
        // delivered on the loop's thread, before anything read later.
        socketLoop.execute { inbox.deliver([], from: 0) }
    }

    deinit {
        resolverThread?.stop()
    }

    /// A DEALER connected to `endpoint`, and its monitor.
    private static func connect(_ endpoint: String, context: Context, configuration: Configuration) throws
        -> sending [Socket]
    {
        let dealer = try Socket(context, .dealer, linger: 0)
        if endpoint.hasPrefix("tcp://[") { try dealer.set(.ipv6, true) }
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
        _ sockets: sending [Socket], endpoint: String, configured: String?, as replica: Int,
        to loop: SocketLoop,
        inbox: Inbox, configuration: Configuration
    ) -> Replica {
        let group = loop.attach(
            sockets, options: .init(maxMessagesPerSocket: configuration.maxMessagesPerTurn)
        ) {
            batch, _ in inbox.deliver(batch, from: replica)
        }
        return Replica(endpoint: endpoint, sockets: group, configured: configured)
    }

    /// Stops the client: fails the calls still open with `unavailable`, then closes the sockets.
    public func stop() async {
        resolverThread?.stop()
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
            for replica in state.withLock({ $0.replicas }) where !replica.isDetached {
                await replica.sockets.detach()
            }
        }
    }

    private func failAll() {
        let open = state.withLock { state in
            defer {
                state.pending = [:]
                for replica in state.inFlight.indices { state.inFlight[replica] = 0 }
            }
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
        state.withLock { $0.isConnected.indices.contains(replica) && $0.isConnected[replica] }
    }

    /// Whether the client had a connection and has none now: every replica it reached went away and
    /// none is back yet. False while the client is still making its first connection.
    public var isCutOff: Bool {
        state.withLock { $0.everConnected && $0.connectedCount == 0 }
    }

    /// The replicas' endpoints, by replica index (a retired replica keeps its place), and whether
    /// each takes new calls.
    public var replicas: [(endpoint: String, isRetired: Bool)] {
        state.withLock { $0.replicas.map { ($0.endpoint, $0.isRetired) } }
    }

    /// The calls open now on each replica, by replica index.
    public var callsInFlight: [Int] { state.withLock { $0.inFlight } }

    /// The client's counters.
    public var counters: RemoteCounters {
        state.withLock { state in
            var counters = state.counters
            counters.openStreams = state.pending.count
            return counters
        }
    }

    // MARK: Typed calls

    /// Calls a request/response method. `idempotent`: running it twice does no harm, so it may be
    /// sent again to another replica after its connection was lost (``RetrySafety``); a call
    /// refused with `overloaded`, or that never left the client, is sent again either way.
    @inlinable
    func request<Parameters: Encodable & Sendable, Response: Decodable & Sendable>(
        _ method: String, _ parameters: Parameters, as response: Response.Type = Response.self,
        deadline: Duration? = nil, idempotent: Bool = false
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
                    input: nil, deadline: deadline, receiver: call, idempotent: idempotent)
                call.opened(stream, by: self)
                return call
            }))
    }

    /// Subscribes to a stream method.
    @inlinable
    func stream<Parameters: Encodable & Sendable, Element: Decodable & Sendable>(
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
    func channel<
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
        input: Observable<[UInt8]>?, deadline: Duration?, receiver: any CallReceiver,
        idempotent: Bool = false,
        on pinned: Int? = nil
    ) -> UInt64? {
        let deadline = deadline ?? configuration.deadline
        var body: [UInt8]
        switch parameters {
        case .success(let encoded): body = encoded
        case .failure(let error):
            receiver.receive(.error(error))
            return nil
        }
        // Inside a trace: a client span, whose context the opening frame carries (or, for work the
        // sampler did not take, the unsampled context, so that the server follows the decision).
        let trace = CallTrace.start(method: method, model: type, service: serviceName)
        if let trace {
            if let span = trace.span {
                body = TraceBody.inject(span.context, into: body)
            } else if let parent = trace.parentContext {
                body = TraceBody.inject(parent, into: body)
            }
        }
        let inputSubscription = input == nil ? nil : SingleAssignmentDisposable()
        let inputTraces = input != nil && Tracing.tracer != nil ? InputTraces() : nil
        let now = ContinuousClock.now
        let due = now + .milliseconds(Self.localDeadline(deadline))
        // One lock for the whole opening: id, replica, bookkeeping and the frame itself.
        let opened: Result<(Frame, UInt64, Int, SocketLoop.Group), RemoteError> = state.withLock { state in
            let stream = state.nextStream
            guard let replica = pinned ?? state.choose() else {
                return .failure(RemoteError(code: .unavailable, message: "no replica to call"))
            }
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
            let connected = state.isConnected[replica]
            // With one replica there is nowhere else to send it: no bookkeeping.
            let retry =
                type == .request && pinned == nil && state.replicas.count > 1
                ? RetryBox(
                    Retry(
                        method: method, body: body, opened: now, deadline: deadline, isIdempotent: idempotent,
                        sentConnected: connected, handshakesWhenSent: state.replicas[replica].handshakes,
                        attempts: 0)) : nil
            state.insert(
                stream, receiver: receiver, isRequest: type == .request, replica: replica,
                input: inputSubscription, retry: retry, trace: trace, inputTraces: inputTraces)
            trace?.shard = state.replicas[replica].shard
            if state.deadlines.count > 2 * max(1_024, state.pending.count) {
                let pending = state.pending
                state.deadlines.removeAll { pending[$0] == nil }
            }
            state.deadlines.push(stream, due: due)
            if let connectTimeout = configuration.connectTimeout, !connected {
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
            trace?.finish(outcome: error.code.rawValue, answer: nil)
            trace?.release()
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
                        // An input sent inside a trace carries the sender's context: the server
                        // handles it as a message of that trace (docs/PROTOCOL.md, "Trace context").
                        let body = inputTraces?.send(element) ?? CallTrace.injectCurrent(into: element)
                        self?.send(Frame.opened(.next, stream: stream, body: body), to: replica)
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
        guard let call = state.withLock({ $0.remove(stream) }) else { return }
        call.input?.dispose()
        send(Frame.opened(.cancel, stream: stream, body: nil), to: call.replica)
        call.trace?.finish(outcome: "cancelled", answer: nil)
        call.trace?.release()
    }

    /// On the loop's thread: fails the calls past their deadline with `timeout` (the replica is
    /// connected) or `unavailable` (it is not), and the calls still without a connection past the
    /// connect timeout with `unavailable`; tells the server.
    private func expireDue() {
        let now = ContinuousClock.now
        let (expired, unconnected, retried, detached) = state.withLock {
            state -> (
                [(UInt64, Pending, connected: Bool)], [(UInt64, Pending)], [Retried], [SocketLoop.Group]
            ) in
            var expired: [(UInt64, Pending, connected: Bool)] = []
            while let stream = state.deadlines.popDue(now: now) {
                guard let call = state.remove(stream) else { continue }
                expired.append((stream, call, state.isConnected[call.replica]))
            }
            var unconnected: [(UInt64, Pending)] = []
            var retried: [Retried] = []
            while let stream = state.connectDeadlines.popDue(now: now) {
                guard let call = state.pending[stream], !state.isConnected[call.replica] else {
                    continue
                }
                // It never left the client: another replica that is connected takes it.
                if let moved = state.retry(stream, after: .unavailable, now: now) {
                    retried.append(
                        Retried(stream: stream, frame: moved.frame, sockets: moved.sockets, left: moved.left))
                    continue
                }
                _ = state.remove(stream)
                unconnected.append((stream, call))
            }
            return (expired, unconnected, retried, state.detachIdleRetired())
        }
        for group in detached { group.detachLater() }
        resend(retried)
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

    /// A request moved to another replica: its opening frame, where it goes, and the replica it left.
    private struct Retried {
        let stream: UInt64
        let frame: Frame
        let sockets: SocketLoop.Group
        let left: Int
    }

    /// Sends requests moved to other replicas, and cancels them where they were (for a server
    /// that sees the frames after all; a frame from there for the call is dropped).
    private func resend(_ retried: [Retried]) {
        for call in retried {
            call.sockets.send(codec.messages(call.frame), to: Self.dealer)
            send(Frame.opened(.cancel, stream: call.stream, body: nil), to: call.left)
        }
    }

    /// Ends a call the client gave up on (already out of `pending`): stops its input, tells the
    /// server (`CANCEL`, which ZeroMQ holds until there is a connection) and fails it with `error`.
    private func end(_ stream: UInt64, _ call: Pending, _ error: RemoteError) {
        call.input?.dispose()
        send(Frame.opened(.cancel, stream: stream, body: nil), to: call.replica)
        guard let trace = call.trace else { return call.receiver.receive(.error(error)) }
        trace.finish(outcome: error.code.rawValue, answer: nil)
        trace.deliver { call.receiver.receive(.error(error)) }
        trace.release()
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
        deliver(frames, undecodable: undecodable, from: replica)
        for event in events { noteConnection(event, of: replica) }
    }

    /// Settles the bookkeeping of decoded frames from `replica` under one lock, then delivers them.
    /// A frame from another replica than the call's (it was sent again elsewhere) is dropped; a
    /// request refused with `overloaded`, or failed `unavailable` when safe, is sent again to
    /// another replica instead of failing.
    private func deliver(_ frames: [Frame], undecodable: Int, from replica: Int) {
        guard !frames.isEmpty || undecodable > 0 else { return }
        var retried: [Retried] = []
        let deliveries = state.withLock { state -> [(Frame, Pending)] in
            state.counters.droppedFrames += undecodable
            state.counters.framesIn += frames.count
            var deliveries: [(Frame, Pending)] = []
            deliveries.reserveCapacity(frames.count)
            for frame in frames {
                var call: Pending? = nil
                // One lookup of the call's id, kept for removing it.
                guard let index = state.pending.index(forKey: frame.stream),
                    state.pending.values[index].replica == replica
                else {
                    state.counters.droppedFrames += 1
                    continue
                }
                switch frame.type {
                case .next:
                    // A request's answer ends it: no COMPLETE follows a request's NEXT.
                    call =
                        state.pending.values[index].isRequest
                        ? state.remove(at: index) : state.pending.values[index]
                case .complete, .error:
                    let error = frame.remoteError
                    if let error {
                        state.counters.errorsByCode[error.code.rawValue, default: 0] += 1
                        if state.pending.values[index].mayRetry,
                            error.code == .overloaded || error.code == .unavailable,
                            let moved = state.retry(
                                frame.stream, after: error.code, answered: true, now: .now)
                        {
                            retried.append(
                                Retried(
                                    stream: frame.stream, frame: moved.frame, sockets: moved.sockets, left: -1
                                ))
                            continue
                        }
                    }
                    call = state.remove(at: index)  // a declined retry changed nothing
                default:
                    break
                }
                if let call {
                    deliveries.append((frame, call))
                } else {
                    state.counters.droppedFrames += 1
                }
            }
            return deliveries
        }
        // The server that answered is done with the call: nothing to cancel there.
        for call in retried { call.sockets.send(codec.messages(call.frame), to: Self.dealer) }
        for (frame, call) in deliveries {
            // The report of an input sent in a trace is the trace's, not the caller's.
            if frame.type == .next, let inputTraces = call.inputTraces {
                let body = frame.body ?? []
                if inputTraces.consume(body) { continue }
                // An element the server sent while handling an input traced from here belongs to
                // that input's trace.
                if let sender = inputTraces.sender(of: body) {
                    Tracing.with(sender.context, span: sender) { Self.deliver(frame, to: call) }
                    continue
                }
            }
            guard let trace = call.trace else {
                Self.deliver(frame, to: call)
                continue
            }
            // The answers of a traced call are delivered in its caller's context, so that what the
            // caller does next (another call) is part of the same trace. The span ends before its
            // end is delivered (an answer built from it sees the hop), and releases its parent after
            // (calls made meanwhile hold the parent first).
            let ends = frame.type != .next || call.isRequest
            if ends {
                let error = frame.type == .error ? frame.remoteError?.code.rawValue ?? "internal" : nil
                trace.finish(outcome: error ?? "ok", answer: frame.type == .next ? frame.body : nil)
            }
            trace.deliver { Self.deliver(frame, to: call) }
            if ends { trace.release() }
        }
    }

    private static func deliver(_ frame: Frame, to call: Pending) {
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

    /// The service this client calls, as its spans and hops name it: the client's name without a
    /// `-service` or `-client` suffix (`auth-service` is `auth`).
    var serviceName: String {
        var name = configuration.name
        for suffix in ["-service", "-client"] where name.hasSuffix(suffix) {
            name.removeLast(suffix.count)
        }
        return name
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
            let (inserted, configured) = state.withLock { state in
                state.everConnected = true
                state.replicas[replica].handshakes += 1
                guard !state.isConnected[replica] else { return (false, false) }
                state.isConnected[replica] = true
                state.isUsable[replica] = !state.replicas[replica].isRetired
                state.connectedCount += 1
                return (true, state.replicas[replica].configured != nil)
            }
            guard inserted else { return }
            change = ConnectionChange(replica: replica, endpoint: endpoint, isUp: true)
            lost = []
            if configuration.discoversShards, configured {
                discoverShards(through: replica)
            }
        case .disconnected:
            // A connection that never completed its handshake (refused, wrong key) ends no call:
            // those wait for a connection (up to their deadline or the connect timeout).
            var retried: [Retried] = []
            let ended = state.withLock { state -> [(UInt64, Pending)]? in
                guard state.isConnected[replica] else { return nil }
                state.isConnected[replica] = false
                state.isUsable[replica] = false
                state.connectedCount -= 1
                let now = ContinuousClock.now
                var ended: [(UInt64, Pending)] = []
                for stream in state.pending.filter({ $0.value.replica == replica }).keys.sorted() {
                    if let moved = state.retry(stream, after: .unavailable, now: now) {
                        retried.append(
                            Retried(
                                stream: stream, frame: moved.frame, sockets: moved.sockets, left: moved.left))
                    } else if let call = state.remove(stream) {
                        ended.append((stream, call))
                    }
                }
                return ended
            }
            guard let ended else { return }
            resend(retried)
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
        let dialled = endpoint(of: replica)
        let coder = self.coder
        let receiver = ClosureReceiver { [weak self] event in
            guard case .next(let body) = event, let self,
                let answer = try? coder.decode(ShardEndpoints.self, from: body)
            else { return }
            self.addShards(answer, dialled: dialled)
        }
        let method = RequestMethod<NoParameters, ShardEndpoints>.shardEndpoints.name
        _ = open(
            .request, method, Result { () throws(RemoteError) in try coder.encode(NoParameters()) },
            input: nil,
            deadline: nil, receiver: receiver, on: replica)
    }

    /// On the loop's thread: connects to the shards of `answer` other than the one that answered
    /// (which is `dialled`), as many times each as `dialled` is configured, less those known.
    private func addShards(_ answer: ShardEndpoints, dialled: String) {
        let copies = state.withLock { state in
            state.replicas.count { $0.endpoint == dialled && $0.configured != nil && !$0.isRetired }
        }
        for (shard, endpoint) in answer.endpoints.enumerated() where shard != answer.shard {
            let endpoint = Self.dialableEndpoint(endpoint, dialled: dialled)
            addReplicas(of: endpoint, upTo: copies, shard: shard)
        }
    }

    /// Connects to `endpoint` until the client has `copies` replicas of it.
    private func addReplicas(of endpoint: String, upTo copies: Int, shard: Int) {
        for _ in 0..<copies {
            let replica = state.withLock { state -> Int? in
                state.replicas.count { $0.endpoint == endpoint } >= copies ? nil : state.replicas.count
            }
            guard let replica else { return }
            // Only this thread adds replicas, so the index stays free until appended.
            var added: Replica
            do {
                added = Self.attach(
                    try Self.connect(endpoint, context: context, configuration: configuration),
                    endpoint: endpoint,
                    configured: nil, as: replica, to: loop, inbox: inbox, configuration: configuration)
            } catch {
                return  // not an endpoint this client can dial: the shards it reached still serve
            }
            added.shard = shard
            state.withLock { $0.append(added) }
        }
    }

    // MARK: Names

    /// The host of a `tcp://host:port` endpoint when it is a name to resolve: not an IPv4 or a
    /// bracketed IPv6 address, not a wildcard, not a `source;host` pair.
    public static func resolvableHost(of endpoint: String) -> String? {
        let prefix = "tcp://"
        guard endpoint.hasPrefix(prefix), !endpoint.contains(";"), let colon = endpoint.lastIndex(of: ":")
        else {
            return nil
        }
        let start = endpoint.index(endpoint.startIndex, offsetBy: prefix.count)
        guard start < colon else { return nil }
        let host = String(endpoint[start..<colon])
        guard !host.hasPrefix("["), host != "*" else { return nil }
        var address = in_addr()
        return inet_pton(AF_INET, host, &address) == 1 ? nil : host
    }

    /// The addresses `getaddrinfo` gives for `host` (numeric, IPv4 and IPv6, in its order, without
    /// repeats), or nil when it fails.
    static func systemAddresses(of host: String) -> [String]? {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let list else { return nil }
        defer { freeaddrinfo(list) }
        var addresses: [String] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = list
        var text = [CChar](repeating: 0, count: 1_025)  // NI_MAXHOST
        while let entry = cursor {
            cursor = entry.pointee.ai_next
            guard
                getnameinfo(
                    entry.pointee.ai_addr, entry.pointee.ai_addrlen, &text, socklen_t(text.count), nil, 0,
                    NI_NUMERICHOST) == 0
            else { continue }
            let address = String(
                decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !addresses.contains(address) { addresses.append(address) }
        }
        return addresses
    }

    /// On the loop's thread: the name of configured endpoint `configured` resolved to `addresses`.
    /// Connects a replica to each address it has none for (or takes back a retired one not yet
    /// detached), then retires the replicas of `configured` at addresses no longer listed (and the
    /// one that dialled the name itself): they take no new calls, and are detached once their open
    /// calls have ended. No address at all changes nothing.
    fileprivate func resolved(_ configured: String, to addresses: [String]) {
        guard !addresses.isEmpty, let colon = configured.lastIndex(of: ":") else { return }
        let port = configured[configured.index(after: colon)...]
        var wanted: [String] = []
        for address in addresses {
            let endpoint = address.contains(":") ? "tcp://[\(address)]:\(port)" : "tcp://\(address):\(port)"
            if !wanted.contains(endpoint) { wanted.append(endpoint) }
        }
        let missing = state.withLock { state in
            wanted.filter { endpoint in
                !state.replicas.contains {
                    $0.configured == configured && $0.endpoint == endpoint && !$0.isDetached
                }
            }
        }
        // Only this thread adds replicas, so the indices stay free until appended.
        var added: [Replica] = []
        let first = state.withLock { $0.replicas.count }
        for endpoint in missing {
            do {
                added.append(
                    Self.attach(
                        try Self.connect(endpoint, context: context, configuration: configuration),
                        endpoint: endpoint,
                        configured: configured, as: first + added.count, to: loop, inbox: inbox,
                        configuration: configuration))
            } catch {
                continue  // an address this client cannot dial: the others still serve
            }
        }
        if added.isEmpty, missing.count == wanted.count { return }  // nothing reachable: keep what there is
        let detached = state.withLock { state in
            for replica in added { state.append(replica) }
            for index in state.replicas.indices where state.replicas[index].configured == configured {
                let replica = state.replicas[index]
                guard !replica.isDetached else { continue }
                if wanted.contains(replica.endpoint) {
                    if replica.isRetired {
                        state.replicas[index].isRetired = false
                        state.retiring -= 1
                        state.isUsable[index] = state.isConnected[index]
                    }
                } else if !replica.isRetired {
                    state.replicas[index].isRetired = true
                    state.retiring += 1
                    state.isUsable[index] = false
                }
            }
            return state.detachIdleRetired()
        }
        for group in detached { group.detachLater() }
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

/// Resolves the configured names on a thread of its own (`getaddrinfo` blocks: never on the loop's
/// thread nor the cooperative pool), at once and then every interval until stopped, and hands each
/// answer to the client on its loop's thread.
private final class ResolverThread: Sendable {
    private let names: [String]
    private let resolver: RemoteClient.NameResolver
    private let interval: Duration
    private let loop: SocketLoop
    private let inbox: Inbox
    private let name: String
    private let stopped = DispatchSemaphore(value: 0)

    init(
        names: [String], resolver: RemoteClient.NameResolver, interval: Duration, loop: SocketLoop,
        inbox: Inbox,
        name: String
    ) {
        self.names = names
        self.resolver = resolver
        self.interval = interval
        self.loop = loop
        self.inbox = inbox
        self.name = name
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "\(name)-resolver"
        thread.start()
    }

    /// Ends the thread (after the lookup in progress, if any).
    func stop() { stopped.signal() }

    private func run() {
        let wait = DispatchTimeInterval.milliseconds(Int(clamping: max(1, interval.wholeMilliseconds)))
        repeat {
            for endpoint in names {
                guard let host = RemoteClient.resolvableHost(of: endpoint),
                    let addresses = resolver.resolve(host),
                    !addresses.isEmpty
                else { continue }
                let inbox = self.inbox
                _ = loop.execute { inbox.client?.resolved(endpoint, to: addresses) }
            }
        } while stopped.wait(timeout: .now() + wait) == .timedOut
    }
}

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
