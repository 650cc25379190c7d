public import Reactive
public import RemoteProtocol
import Tracing
import ZeroMQ

extension RemoteClient {
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
        // One lock for the whole opening: id, replica, bookkeeping and the frame itself.
        let opened = state.withLock { state in
            let opened = state.open(
                type, method: method, body: body, deadline: deadline, idempotent: idempotent, pinned: pinned,
                call: ClientCall(
                    receiver: receiver, input: inputSubscription, trace: trace, inputTraces: inputTraces),
                now: now)
            if case .send(_, _, _, let shard, _) = opened { trace?.shard = shard }
            return opened
        }
        let stream: UInt64
        let replica: Int
        switch opened {
        case .fail(let error):
            trace?.finish(outcome: error.code.rawValue, answer: nil)
            trace?.release()
            receiver.receive(.error(error))
            return nil
        case .send(let frame, let id, let index, _, let sockets):
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

    /// The subscriber disposed: if the stream is still open, forget it and tell the server.
    @usableFromInline
    func cancel(_ stream: UInt64) {
        guard let (call, cancel) = state.withLock({ $0.cancel(stream) }) else { return }
        call.input?.dispose()
        perform(cancel)
        call.trace?.finish(outcome: "cancelled", answer: nil)
        call.trace?.release()
    }
}
