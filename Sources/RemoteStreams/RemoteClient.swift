import Foundation
public import Reactive
public import RemoteProtocol
import Synchronization
public import ZeroMQ

/// A client of a ``RemoteServer`` (or of several replicas of one): calls come back as `Single`s
/// and `Observable`s, following docs/PROTOCOL.md.
///
/// - Subscribing sends the opening frame; disposing before the end sends `CANCEL`, which makes the
///   server dispose its graph.
/// - Every call has a deadline, sent to the server too, which answers `ERROR timeout` when it
///   passes. The client's own timer fires a little later: the call then fails with `timeout` if the
///   connection to the replica is up, or `unavailable` if it is not (a server that is down or
///   restarting, as ZeroMQ's connection monitor reports); either way the client sends `CANCEL`.
///   ZeroMQ reconnects by itself, so calls made after a server returns succeed.
/// - With several endpoints the client keeps one DEALER per replica and spreads streams across
///   them round-robin; every frame of a stream goes to the replica that opened it.
/// - While streams are open the client pings each replica it uses, so the server knows it is alive.
///
/// Frames arrive on the client's socket loop thread and are delivered to subscribers there, in
/// order, with no thread hand-off; observers must not block (move work elsewhere with
/// `observe(on:)`, or into an actor). Calls can be made from any thread, including from an
/// observer on the loop's thread.
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

        /// A configuration.
        public init(
            endpoints: [String], deadline: Duration = .seconds(5), pingInterval: Duration = .seconds(2),
            limits: ProtocolLimits = ProtocolLimits(), name: String = "remote-client",
            curve: Curve? = nil
        ) {
            self.curve = curve
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

    private struct Pending: Sendable {
        let deliver: @Sendable (Event<[UInt8]>) -> Void
        /// A request: its `NEXT` is its answer, delivered without waiting for the `COMPLETE`.
        let isRequest: Bool
        let replica: Int
        /// A channel's subscription to its input; nil for requests and streams, which have none
        /// (one allocation and lock fewer per call).
        let input: SingleAssignmentDisposable?
    }

    private struct State: Sendable {
        var nextStream: UInt64 = 1
        var nextReplica = 0
        var pending: [UInt64: Pending] = [:]
        /// The client-side deadline of every open call (stream id), soonest first; entries of calls
        /// that ended stay until they come due or are pruned.
        var deadlines = DeadlineQueue<UInt64>()
        /// Replicas whose connection is up (handshake done, not disconnected since).
        var connected: Set<Int> = []
        /// Requests answered by their `NEXT`, whose `COMPLETE` is still to come (and is then
        /// absorbed rather than counted as dropped). Bounded: a server that never completes cannot
        /// grow it without limit.
        var answered: Set<UInt64> = []
        var counters = RemoteCounters()
    }

    private let configuration: Configuration
    private let codec: FrameCodec
    @usableFromInline let coder: JSONBodyCoder
    private let loop: SocketLoop
    private let state = Mutex(State())

    /// The most answered requests whose `COMPLETE` is awaited.
    static let maximumAnswered = 65_536

    /// How often the client looks for calls past their deadline.
    static let tick = Duration.milliseconds(10)

    /// Connects one DEALER per endpoint and starts the client's threads.
    public init(context: Context, configuration: Configuration, coder: JSONBodyCoder = .shared) throws {
        precondition(!configuration.endpoints.isEmpty, "a RemoteClient needs at least one endpoint")
        self.configuration = configuration
        self.codec = FrameCodec(limits: configuration.limits)
        self.coder = coder
        // One DEALER per replica, then one monitor PAIR per replica (indices shifted by the count).
        var sockets: [Socket] = []
        var monitors: [Socket] = []
        for endpoint in configuration.endpoints {
            let dealer = try Socket(context, .dealer, linger: 0)
            try dealer.set(.maxMessageSize, Int64(configuration.limits.maxMessageLength + 256))
            try dealer.set(.reconnectInterval, 100)
            try dealer.set(.reconnectIntervalMax, 2_000)
            try dealer.set(.heartbeatInterval, 1_000)
            try dealer.set(.heartbeatTimeout, 3_000)
            if let curve = configuration.curve {
                try dealer.set(.curveServerKey, curve.serverKey)
                try dealer.set(.curvePublicKey, curve.keys.publicKey)
                try dealer.set(.curveSecretKey, curve.keys.secretKey)
            }
            monitors.append(try dealer.monitor(events: [.handshakeSucceeded, .disconnected]).socket)
            try dealer.connect(endpoint)
            sockets.append(dealer)
        }
        sockets += monitors
        let inbox = Inbox()
        loop = try SocketLoop(
            context: context, sockets: sockets, configuration: .init(name: configuration.name)
        ) { batch in
            inbox.client?.receive(batch)
        }
        inbox.client = self
        // Both run on the loop's thread, where answers are delivered: a call never sees an answer
        // and its expiry at once.
        loop.schedule(every: configuration.pingInterval) { inbox.client?.ping() }
        loop.schedule(every: Self.tick) { inbox.client?.expireDue() }
    }

    /// Stops the client: fails the calls still open with `unavailable`, then closes the sockets.
    public func stop() async {
        // On the loop's thread, so that no answer is being delivered to a call meanwhile.
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
        await loop.stop()
    }

    private func failAll() {
        let open = state.withLock { state in
            defer { state.pending = [:] }
            return state.pending
        }
        for (_, call) in open {
            call.input?.dispose()
            call.deliver(.error(RemoteError(code: .unavailable, message: "the client stopped")))
        }
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
        // One sink between the caller and the wire: the answer (a request's NEXT) is decoded and
        // delivered where it arrives, without waiting for the COMPLETE behind it, which the
        // client absorbs.
        return Single.create { [self] done in
            open(
                .request, method, Result { () throws(RemoteError) in try coder.encode(parameters) },
                input: nil,
                deadline: deadline
            ) { event in
                switch event {
                case .next(let body):
                    done(
                        Result { () throws(RemoteError) in try coder.decode(Response.self, from: body) }
                            .mapError { $0 })
                case .error(let error):
                    done(.failure(error))
                case .completed:
                    done(
                        .failure(
                            RemoteError(code: .internal, message: "\(method) completed without an answer")))
                }
            }
        }
    }

    /// Subscribes to a stream method.
    @inlinable
    public func stream<Parameters: Encodable & Sendable, Element: Decodable & Sendable>(
        _ method: String, _ parameters: Parameters, as element: Element.Type = Element.self,
        deadline: Duration? = nil
    ) -> Observable<Element> {
        let coder = self.coder
        return Observable.create { [self] observer in
            open(
                .subscribe, method, Result { () throws(RemoteError) in try coder.encode(parameters) },
                input: nil, deadline: deadline
            ) { event in
                Self.deliver(event, decodedAs: Element.self, with: coder, to: observer)
            }
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
            open(
                .open, method, Result { () throws(RemoteError) in try coder.encode(parameters) },
                input: encodedInput, deadline: deadline
            ) { event in
                Self.deliver(event, decodedAs: Output.self, with: coder, to: observer)
            }
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
    /// `deliver` (on the loop's thread). The returned disposable cancels it.
    @usableFromInline
    func open(
        _ type: FrameType, _ method: String, _ parameters: Result<[UInt8], RemoteError>,
        input: Observable<[UInt8]>?, deadline: Duration?,
        deliver: @escaping @Sendable (Event<[UInt8]>) -> Void
    ) -> any Disposable {
        let deadline = deadline ?? configuration.deadline
        let body: [UInt8]
        switch parameters {
        case .success(let encoded): body = encoded
        case .failure(let error):
            deliver(.error(error))
            return Disposables.create()
        }
        let inputSubscription = input == nil ? nil : SingleAssignmentDisposable()
        let due = ContinuousClock.now + .milliseconds(Self.localDeadline(deadline))
        // One lock for the whole opening: id, replica, bookkeeping and the frame itself.
        let opened: Result<(Frame, UInt64, Int), RemoteError> = state.withLock { state in
            let stream = state.nextStream
            let replica = state.nextReplica % configuration.endpoints.count
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
            state.nextReplica &+= 1
            state.pending[stream] = Pending(
                deliver: deliver, isRequest: type == .request, replica: replica, input: inputSubscription)
            if state.deadlines.count > 2 * max(1_024, state.pending.count) {
                let pending = state.pending
                state.deadlines.removeAll { pending[$0] == nil }
            }
            state.deadlines.push(stream, due: due)
            state.counters.framesOut += 1
            return .success((frame, stream, replica))
        }
        let stream: UInt64
        let replica: Int
        switch opened {
        case .failure(let error):
            deliver(.error(error))
            return Disposables.create()
        case .success(let (frame, id, index)):
            stream = id
            replica = index
            loop.send(codec.messages(frame), to: SocketLoop.SocketID(replica))
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
    private func cancel(_ stream: UInt64) {
        guard let call = state.withLock({ $0.pending.removeValue(forKey: stream) }) else { return }
        call.input?.dispose()
        send(Frame.opened(.cancel, stream: stream, body: nil), to: call.replica)
    }

    /// On the loop's thread: fails the calls past their deadline with `timeout` (the replica is
    /// connected) or `unavailable` (it is not), and tells the server.
    private func expireDue() {
        let now = ContinuousClock.now
        let expired = state.withLock { state -> [(UInt64, Pending, connected: Bool)] in
            var expired: [(UInt64, Pending, connected: Bool)] = []
            while let stream = state.deadlines.popDue(now: now) {
                guard let call = state.pending.removeValue(forKey: stream) else { continue }
                expired.append((stream, call, state.connected.contains(call.replica)))
            }
            return expired
        }
        for (stream, call, connected) in expired {
            call.input?.dispose()
            send(Frame.opened(.cancel, stream: stream, body: nil), to: call.replica)
            call.deliver(
                .error(
                    connected
                        ? RemoteError(code: .timeout, message: "no answer before the deadline")
                        : RemoteError(
                            code: .unavailable, message: "the server did not answer before the deadline")))
        }
    }

    /// Handles a batch from the loop, on the loop's thread: decodes it, settles the bookkeeping under
    /// one lock, then delivers.
    private func receive(_ batch: [SocketLoop.Received]) {
        let replicas = configuration.endpoints.count
        var frames: [Frame] = []
        frames.reserveCapacity(batch.count)
        var undecodable = 0
        for message in batch {
            if message.socket.index >= replicas {
                noteConnection(
                    MonitorEvent(parts: message.parts.map(\.bytes)), of: message.socket.index - replicas)
                continue
            }
            do {
                frames.append(try codec.decode(message.parts[...]))
            } catch {
                undecodable += 1
            }
        }
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
                        // The answer: the call ends here, its COMPLETE is absorbed when it comes.
                        state.pending[frame.stream] = nil
                        if state.answered.count >= Self.maximumAnswered { state.answered.removeAll() }
                        state.answered.insert(frame.stream)
                    }
                case .complete, .error:
                    call = state.pending.removeValue(forKey: frame.stream)
                    if call != nil, let error = frame.remoteError {
                        state.counters.errorsByCode[error.code.rawValue, default: 0] += 1
                    }
                    if call == nil, state.answered.remove(frame.stream) != nil { continue }
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
                call.deliver(.next(frame.body ?? []))
            case .complete:
                call.input?.dispose()
                call.deliver(.completed)
            default:
                call.input?.dispose()
                call.deliver(
                    .error(frame.remoteError ?? RemoteError(code: .internal, message: "unreadable error")))
            }
        }
    }

    /// Tracks whether a replica's connection is up, from its DEALER's monitor.
    private func noteConnection(_ event: MonitorEvent?, of replica: Int) {
        guard let event else { return }
        switch event.kind {
        case .handshakeSucceeded: state.withLock { _ = $0.connected.insert(replica) }
        case .disconnected: state.withLock { _ = $0.connected.remove(replica) }
        default: break
        }
    }

    /// Pings the replicas that have open streams.
    private func ping() {
        let replicas = state.withLock { state in Set(state.pending.values.map(\.replica)) }
        for replica in replicas { send(.ping, to: replica) }
    }

    private func send(_ frame: Frame, to replica: Int) {
        state.withLock { $0.counters.framesOut += 1 }
        loop.send(codec.messages(frame), to: SocketLoop.SocketID(replica))
    }
}

/// Lets the loop's handler reach the client without a strong reference cycle.
private final class Inbox: Sendable {
    private let reference = Mutex<WeakClient>(WeakClient())

    var client: RemoteClient? {
        get { reference.withLock { $0.client } }
        set { reference.withLock { $0.client = newValue } }
    }

    private struct WeakClient { weak var client: RemoteClient? }
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
