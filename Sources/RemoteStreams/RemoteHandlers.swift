public import Reactive
public import RemoteProtocol

/// The methods a ``RemoteServer`` answers, by name, in the three interaction models of
/// docs/PROTOCOL.md: request/response (a `Single`), stream (an `Observable`), and channel (the
/// client's `Observable` in, an `Observable` out).
///
/// Parameters and elements are `Codable` and travel as JSON bodies. A handler fails a call by
/// failing its sequence: with a ``RemoteError`` to choose the code (`not_found`,
/// `unauthenticated`, …), with any other error for `internal`.
///
/// ```swift
/// var handlers = RemoteHandlers()
/// handlers.request("auth.exists") { (params: ExistsParams) in store.exists(params.username) }
/// handlers.stream("auth.events") { (_: Empty) in events.asObservable() }
/// ```
public struct RemoteHandlers: Sendable {
    /// The interaction model a method was registered for.
    public typealias Kind = InteractionModel

    /// A registered method, with its parameter and element coding erased to JSON bodies.
    @usableFromInline
    struct Method: Sendable {
        /// Starts a request: `reply` is called once with the encoded answer or the error, possibly
        /// before this returns; the disposable cancels the work.
        @usableFromInline
        typealias RequestStart =
            @Sendable (
                _ parameters: [UInt8], _ context: CallContext, _ reply: @escaping Reply
            ) throws(RemoteError) -> any Disposable

        /// How a request's handler answers, once.
        @usableFromInline
        typealias Reply = @Sendable (Result<[UInt8], RemoteError>) -> Void

        @usableFromInline
        enum Start: Sendable {
            /// A request/response method.
            case request(RequestStart)
            /// Builds a stream's or a channel's output for the parameters body, the call's context
            /// and (channels) the input bodies.
            case elements(
                @Sendable (_ parameters: [UInt8], _ context: CallContext, _ input: Observable<[UInt8]>)
                    throws(RemoteError) -> Observable<[UInt8]>)
        }

        let kind: Kind
        let start: Start

        @usableFromInline
        init(kind: Kind, start: Start) {
            self.kind = kind
            self.start = start
        }
    }

    private(set) var methods: [String: Method] = [:]
    @usableFromInline let coder: JSONBodyCoder

    /// An empty registry whose bodies are coded with `coder`.
    public init(coder: JSONBodyCoder = .shared) {
        self.coder = coder
    }

    /// The registered method names.
    public var names: [String] { methods.keys.sorted() }

    /// Registers a request/response method: one answer (or error) per call.
    @inlinable
    mutating func request<Parameters: Decodable & Sendable, Response: Encodable & Sendable>(
        _ name: String, _ handler: @escaping @Sendable (Parameters) -> Single<Response>
    ) {
        request(name) { (parameters: Parameters, _: CallContext) in handler(parameters) }
    }

    /// Registers a request/response method whose handler also sees the call's context (who
    /// called).
    @inlinable
    mutating func request<Parameters: Decodable & Sendable, Response: Encodable & Sendable>(
        _ name: String, _ handler: @escaping @Sendable (Parameters, CallContext) -> Single<Response>
    ) {
        let coder = self.coder
        // The answer is encoded where it arrives and handed to the server in one call: no operator
        // chain per request.
        add(
            name, .request,
            .request { (body, context, reply) throws(RemoteError) in
                let parameters = try coder.decode(Parameters.self, from: body)
                return handler(parameters, context).subscribe { event in
                    switch event {
                    case .success(let response):
                        reply(Result { () throws(RemoteError) in try coder.encode(response) })
                    case .failure(let error):
                        reply(.failure(.wrapping(error)))
                    }
                }
            })
    }

    /// Registers a stream method: any number of elements, then completion or an error.
    mutating func stream<Parameters: Decodable & Sendable, Element: Encodable & Sendable>(
        _ name: String, _ handler: @escaping @Sendable (Parameters) -> Observable<Element>
    ) {
        stream(name) { (parameters: Parameters, _: CallContext) in handler(parameters) }
    }

    /// Registers a stream method whose handler also sees the call's context.
    mutating func stream<Parameters: Decodable & Sendable, Element: Encodable & Sendable>(
        _ name: String, _ handler: @escaping @Sendable (Parameters, CallContext) -> Observable<Element>
    ) {
        let coder = self.coder
        add(
            name, .stream,
            .elements { (body, context, _) throws(RemoteError) in
                let parameters = try coder.decode(Parameters.self, from: body)
                return handler(parameters, context).map { element in try coder.encode(element) }
            })
    }

    /// Registers a channel method: the client streams `Input`s in, the method streams `Output`s
    /// back. An input element that does not decode fails the input sequence with `bad_request`.
    mutating func channel<
        Parameters: Decodable & Sendable, Input: Decodable & Sendable, Output: Encodable & Sendable
    >(
        _ name: String,
        _ handler: @escaping @Sendable (Parameters, Observable<Input>) -> Observable<Output>
    ) {
        channel(name) { (parameters: Parameters, input: Observable<Input>, _: CallContext) in
            handler(parameters, input)
        }
    }

    /// Registers a channel method whose handler also sees the call's context.
    mutating func channel<
        Parameters: Decodable & Sendable, Input: Decodable & Sendable, Output: Encodable & Sendable
    >(
        _ name: String,
        _ handler: @escaping @Sendable (Parameters, Observable<Input>, CallContext) -> Observable<Output>
    ) {
        let coder = self.coder
        add(
            name, .channel,
            .elements { (body, context, input) throws(RemoteError) in
                let parameters = try coder.decode(Parameters.self, from: body)
                let decodedInput = input.map { element in try coder.decode(Input.self, from: element) }
                return handler(parameters, decodedInput, context).map { output in try coder.encode(output) }
            })
    }

    @usableFromInline
    mutating func add(_ name: String, _ kind: Kind, _ start: Method.Start) {
        precondition(
            (1...ProtocolLimits.maxMethodLength).contains(name.utf8.count)
                && name.utf8.allSatisfy { byte in
                    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                        || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                        || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
                },
            "method names are 1-128 bytes of [a-z0-9._-]: \(name)")
        precondition(methods[name] == nil, "method \(name) is registered twice")
        methods[name] = Method(kind: kind, start: start)
    }
}

extension RemoteError {
    /// `error` as it travels in an `ERROR` frame: a ``RemoteError`` as it is, anything else as
    /// `internal` with its description.
    @usableFromInline
    static func wrapping(_ error: any Error) -> RemoteError {
        (error as? RemoteError) ?? RemoteError(code: .internal, message: String(describing: error))
    }
}

/// Who made a call: what a handler may use for per-client limits and logs.
public struct CallContext: Sendable, Hashable {
    /// The calling connection's ZeroMQ routing id.
    public let peerID: [UInt8]
    /// The method called.
    public let method: String

    /// A context (servers make these; tests may too).
    public init(peerID: [UInt8], method: String) {
        self.peerID = peerID
        self.method = method
    }

    /// The calling connection's routing id in hex (e.g. `00801bcf2a`): stable while the client
    /// stays connected, new after it reconnects. Made when asked, not for every call.
    public var peer: String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(peerID.count * 2)
        for byte in peerID {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

/// The parameters of a method that takes none (`{}` on the wire), for callers that import only
/// RemoteStreams.
public typealias NoParameters = RemoteProtocol.NoParameters
