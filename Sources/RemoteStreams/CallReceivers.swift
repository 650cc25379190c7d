public import Reactive
public import RemoteProtocol
public import Synchronization

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
