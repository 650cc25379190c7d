import Foundation
public import Reactive
public import RemoteProtocol
import Synchronization
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
///
/// Inside, the client is a shell around a ``ClientStateMachine``: the machine decides (replicas and
/// the choice of one, calls in flight and their deadlines, retries, connections, shards and
/// names) and returns actions; the shell holds the sockets, the loop's timers and the resolver
/// thread, feeds the machine its events under one lock and performs the actions it returns
/// (docs/transport/remote-streams.md, "Inside the client").
public final class RemoteClient: Sendable {
    /// The machine, with the sockets of each replica and the shell's part of each call.
    typealias Machine = ClientStateMachine<SocketLoop.Group, ClientCall>

    let configuration: Configuration
    let codec: FrameCodec
    @usableFromInline let coder: JSONBodyCoder
    let context: Context
    private let loop: SocketLoop
    private let inbox: Inbox
    /// Whether the client made its loop (and stops it), or was attached to the process's.
    private let ownsLoop: Bool
    /// The ping and deadline timers (cancelled at ``stop()`` on a shared loop).
    private let timers: [SocketLoop.TimerID]
    let state: Mutex<Machine>
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
        var machine = Machine(
            configuration: .init(
                deadline: configuration.deadline, connectTimeout: configuration.connectTimeout,
                discoversShards: configuration.discoversShards))
        var groups: [SocketLoop.Group] = []
        do {
            for (replica, endpoint) in configuration.endpoints.enumerated() {
                let group = Self.attach(
                    try Self.connect(endpoint, context: context, configuration: configuration), as: replica,
                    to: socketLoop, inbox: inbox, configuration: configuration)
                groups.append(group)
                machine.addReplica(endpoint: endpoint, configured: endpoint, connection: group)
            }
        } catch {
            for group in groups { group.detachLater() }
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
        state = Mutex(machine)
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
    static func connect(_ endpoint: String, context: Context, configuration: Configuration) throws
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
        _ sockets: sending [Socket], as replica: Int, to loop: SocketLoop, inbox: Inbox,
        configuration: Configuration
    ) -> SocketLoop.Group {
        loop.attach(sockets, options: .init(maxMessagesPerSocket: configuration.maxMessagesPerTurn)) {
            batch, _ in inbox.deliver(batch, from: replica)
        }
    }

    /// Attaches a replica's DEALER and monitor to the client's loop as replica `replica`.
    func attach(_ sockets: sending [Socket], as replica: Int) -> SocketLoop.Group {
        Self.attach(sockets, as: replica, to: loop, inbox: inbox, configuration: configuration)
    }

    /// Stops the client: fails the calls still open with `unavailable`, then closes the sockets.
    public func stop() async {
        resolverThread?.stop()
        // On the loop's thread, so that no answer is being delivered to a call meanwhile.
        let loop = self.loop
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let queued = loop.execute { [self] in
                perform(state.withLock { $0.stop() })
                continuation.resume()
            }
            if !queued {
                perform(state.withLock { $0.stop() })
                continuation.resume()
            }
        }
        if ownsLoop {
            await loop.stop()
        } else {
            for timer in timers { loop.cancelTimer(timer) }
            for replica in state.withLock({ $0.replicas }) where !replica.isDetached {
                await replica.connection.detach()
            }
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
    public var isCutOff: Bool { state.withLock { $0.isCutOff } }

    /// The replicas' endpoints, by replica index (a retired replica keeps its place), and whether
    /// each takes new calls.
    public var replicas: [(endpoint: String, isRetired: Bool)] {
        state.withLock { $0.replicas.map { ($0.endpoint, $0.isRetired) } }
    }

    /// The calls open now on each replica, by replica index.
    public var callsInFlight: [Int] { state.withLock { $0.inFlight } }

    /// The client's counters.
    public var counters: RemoteCounters { state.withLock { $0.currentCounters } }

    /// The client's own deadline, in milliseconds (``ClientStateMachine/localDeadline(_:)``).
    static func localDeadline(_ deadline: Duration) -> Int { Machine.localDeadline(deadline) }

    /// The service this client calls, as its spans and hops name it: the client's name without a
    /// `-service` or `-client` suffix (`auth-service` is `auth`).
    var serviceName: String {
        var name = configuration.name
        for suffix in ["-service", "-client"] where name.hasSuffix(suffix) {
            name.removeLast(suffix.count)
        }
        return name
    }

    /// A replica's DEALER in its group.
    static let dealer = SocketLoop.SocketID(0)
    /// Its monitor.
    static let monitor = SocketLoop.SocketID(1)

    // MARK: Events

    /// On the loop's thread: the periodic look at deadlines.
    private func expireDue() {
        let now = ContinuousClock.now
        let actions = state.withLock { $0.deadlinesDue(now: now) }
        if !actions.isEmpty { perform(actions) }
    }

    /// Pings the replicas that have open streams.
    private func ping() {
        perform(state.withLock { $0.pingDue() })
    }

    /// Sends `frame` of an open call to `replica`.
    func send(_ frame: Frame, to replica: Int) {
        perform(state.withLock { $0.outgoing(frame, to: replica) })
    }

    /// Handles a batch from the loop, on the loop's thread: decodes it, hands the frames to the
    /// machine under one lock and performs what it returns, then the connection events.
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
        if !frames.isEmpty || undecodable > 0 {
            let now = ContinuousClock.now
            perform(
                state.withLock { $0.framesArrived(frames, undecodable: undecodable, from: replica, now: now) }
            )
        }
        for event in events {
            switch event.kind {
            case .handshakeSucceeded: perform(state.withLock { $0.connectionUp(replica) })
            case .disconnected:
                let now = ContinuousClock.now
                perform(state.withLock { $0.connectionLost(replica, now: now) })
            default: continue
            }
        }
    }

    // MARK: Actions

    /// Performs what the machine decided, in order, outside its lock.
    func perform(_ actions: [Machine.Action]) {
        for action in actions { perform(action) }
    }

    func perform(_ action: Machine.Action) {
        switch action {
        case .send(let frame, let sockets):
            sockets.send(codec.messages(frame), to: Self.dealer)
        case .deliver(let frame, let call, let isRequest):
            deliver(frame, to: call, isRequest: isRequest)
        case .fail(let stream, let call, let error, let cancelOn):
            // A call the client gave up on: stop its input, tell the server (`CANCEL`, which ZeroMQ
            // holds until there is a connection), fail it.
            call.input?.dispose()
            cancelOn.send(codec.messages(Frame.opened(.cancel, stream: stream, body: nil)), to: Self.dealer)
            guard let trace = call.trace else { return call.receiver.receive(.error(error)) }
            trace.finish(outcome: error.code.rawValue, answer: nil)
            trace.deliver { call.receiver.receive(.error(error)) }
            trace.release()
        case .abandon(let call, let error):
            call.input?.dispose()
            call.receiver.receive(.error(error))
        case .detach(let sockets):
            sockets.detachLater()
        case .discoverShards(let replica):
            discoverShards(through: replica)
        case .connectionChanged(let change):
            changes.accept(change)
        }
    }

    /// Delivers a frame to its call, in the call's trace.
    private func deliver(_ frame: Frame, to call: ClientCall, isRequest: Bool) {
        // The report of an input sent in a trace is the trace's, not the caller's.
        if frame.type == .next, let inputTraces = call.inputTraces {
            let body = frame.body ?? []
            if inputTraces.consume(body) { return }
            // An element the server sent while handling an input traced from here belongs to that
            // input's trace.
            if let sender = inputTraces.sender(of: body) {
                Tracing.with(sender.context, span: sender) {
                    Self.deliver(frame, to: call, isRequest: isRequest)
                }
                return
            }
        }
        guard let trace = call.trace else { return Self.deliver(frame, to: call, isRequest: isRequest) }
        // The answers of a traced call are delivered in its caller's context, so that what the
        // caller does next (another call) is part of the same trace. The span ends before its end
        // is delivered (an answer built from it sees the hop), and releases its parent after (calls
        // made meanwhile hold the parent first).
        let ends = frame.type != .next || isRequest
        if ends {
            let error = frame.type == .error ? frame.remoteError?.code.rawValue ?? "internal" : nil
            trace.finish(outcome: error ?? "ok", answer: frame.type == .next ? frame.body : nil)
        }
        trace.deliver { Self.deliver(frame, to: call, isRequest: isRequest) }
        if ends { trace.release() }
    }

    private static func deliver(_ frame: Frame, to call: ClientCall, isRequest: Bool) {
        switch frame.type {
        case .next:
            if isRequest { call.input?.dispose() }
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

/// The shell's side of an open call: where its frames go, its input, its trace.
struct ClientCall: Sendable {
    let receiver: any CallReceiver
    /// A channel's subscription to its input; nil for requests and streams, which have none (one
    /// allocation and lock fewer per call).
    let input: SingleAssignmentDisposable?
    /// The call's trace: its client span and the context its answers are delivered in; nil when
    /// the call was made outside any trace.
    let trace: CallTrace?
    /// A channel's inputs sent in a sampled trace, waiting for their reports; nil for requests and
    /// streams.
    let inputTraces: InputTraces?
}

/// Lets the loop's handler reach the client without a strong reference cycle, and keeps what the
/// loop reads before the client is bound to it (the loop runs from its creation, before the client's
/// `init` can hand it `self`).
final class Inbox: Sendable {
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
