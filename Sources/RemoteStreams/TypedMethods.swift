public import Reactive
public import RemoteProtocol

// Registering and calling methods by their descriptors (``RequestMethod``, ``StreamMethod``,
// ``ChannelMethod``): the descriptor fixes the name, the interaction model and the body types, so a
// handler or a call that disagrees with it does not compile. Each overload hands the descriptor's
// name to the string-based API it stands for; the bytes on the wire are the same.

/// A lenient view of a method's parameters, for a handler that must answer a body that does not
/// decode as them with an error of its own (the hero catalog reads the token first, so a call
/// without a valid token is `unauthenticated` whatever else is wrong with it).
///
/// A view is tied to the parameters it reads: `handle(_:reading:_:)` takes only a view whose
/// ``Parameters`` are the method's.
public protocol ParametersView<Parameters>: Decodable, Sendable {
    /// The parameters this view reads.
    associatedtype Parameters: Codable & Sendable
}

extension RemoteHandlers {
    /// Registers the request/response `method`.
    @inlinable
    public mutating func handle<Parameters, Answer>(
        _ method: RequestMethod<Parameters, Answer>,
        _ handler: @escaping @Sendable (Parameters) -> Single<Answer>
    ) {
        request(method.name, handler)
    }

    /// Registers the request/response `method`; the handler also sees the call's context.
    @inlinable
    public mutating func handle<Parameters, Answer>(
        _ method: RequestMethod<Parameters, Answer>,
        _ handler: @escaping @Sendable (Parameters, CallContext) -> Single<Answer>
    ) {
        request(method.name, handler)
    }

    /// Registers the request/response `method`, its parameters read through `view`.
    @inlinable
    public mutating func handle<Parameters, Answer, View: ParametersView>(
        _ method: RequestMethod<Parameters, Answer>, reading view: View.Type,
        _ handler: @escaping @Sendable (View) -> Single<Answer>
    ) where View.Parameters == Parameters {
        request(method.name, handler)
    }

    /// Registers the stream `method`.
    public mutating func handle<Parameters, Element>(
        _ method: StreamMethod<Parameters, Element>,
        _ handler: @escaping @Sendable (Parameters) -> Observable<Element>
    ) {
        stream(method.name, handler)
    }

    /// Registers the stream `method`; the handler also sees the call's context.
    public mutating func handle<Parameters, Element>(
        _ method: StreamMethod<Parameters, Element>,
        _ handler: @escaping @Sendable (Parameters, CallContext) -> Observable<Element>
    ) {
        stream(method.name, handler)
    }

    /// Registers the stream `method`, its parameters read through `view`.
    public mutating func handle<Parameters, Element, View: ParametersView>(
        _ method: StreamMethod<Parameters, Element>, reading view: View.Type,
        _ handler: @escaping @Sendable (View) -> Observable<Element>
    ) where View.Parameters == Parameters {
        stream(method.name, handler)
    }

    /// Registers the channel `method`.
    public mutating func handle<Parameters, Input, Output>(
        _ method: ChannelMethod<Parameters, Input, Output>,
        _ handler: @escaping @Sendable (Parameters, Observable<Input>) -> Observable<Output>
    ) {
        channel(method.name, handler)
    }

    /// Registers the channel `method`; the handler also sees the call's context.
    public mutating func handle<Parameters, Input, Output>(
        _ method: ChannelMethod<Parameters, Input, Output>,
        _ handler: @escaping @Sendable (Parameters, Observable<Input>, CallContext) -> Observable<Output>
    ) {
        channel(method.name, handler)
    }
}

extension RemoteClient {
    /// Calls the request/response `method`; whether it may be sent again to another replica after
    /// its connection was lost is its ``RequestMethod/retrySafety``'s verdict on `parameters`.
    @inlinable
    public func request<Parameters, Answer>(
        _ method: RequestMethod<Parameters, Answer>, _ parameters: Parameters, deadline: Duration? = nil
    ) -> Single<Answer> {
        request(
            method.name, parameters, as: Answer.self, deadline: deadline,
            idempotent: method.retrySafety.allowsRetry(of: parameters))
    }

    /// Subscribes to the stream `method`.
    @inlinable
    public func stream<Parameters, Element>(
        _ method: StreamMethod<Parameters, Element>, _ parameters: Parameters, deadline: Duration? = nil
    ) -> Observable<Element> {
        stream(method.name, parameters, as: Element.self, deadline: deadline)
    }

    /// Opens the channel `method`: `input` is streamed to the server, its answers come back.
    @inlinable
    public func channel<Parameters, Input, Output>(
        _ method: ChannelMethod<Parameters, Input, Output>, _ parameters: Parameters,
        input: Observable<Input>, deadline: Duration? = nil
    ) -> Observable<Output> {
        channel(method.name, parameters, input: input, as: Output.self, deadline: deadline)
    }
}

extension RemoteClient {
    /// Calls the request/response `method` with no parameters (`{}`).
    @inlinable
    public func request<Answer>(
        _ method: RequestMethod<NoParameters, Answer>, deadline: Duration? = nil
    ) -> Single<Answer> {
        request(method, NoParameters(), deadline: deadline)
    }

    /// Subscribes to the stream `method`, which takes no parameters (`{}`).
    @inlinable
    public func stream<Element>(
        _ method: StreamMethod<NoParameters, Element>, deadline: Duration? = nil
    ) -> Observable<Element> {
        stream(method, NoParameters(), deadline: deadline)
    }
}
