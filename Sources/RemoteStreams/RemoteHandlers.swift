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
    public enum Kind: String, Sendable {
        case request, stream, channel

        /// The opening frame type that calls this kind of method.
        var openingType: FrameType {
            switch self {
            case .request: .request
            case .stream: .subscribe
            case .channel: .open
            }
        }
    }

    /// A registered method, with its parameter and element coding erased to JSON bodies.
    struct Method: Sendable {
        let kind: Kind
        /// Builds the method's output for the parameters body and (channels) the input bodies.
        let start:
            @Sendable (_ parameters: [UInt8], _ input: Observable<[UInt8]>) throws(RemoteError) ->
                Observable<[UInt8]>
    }

    private(set) var methods: [String: Method] = [:]
    private let coder: JSONBodyCoder

    /// An empty registry whose bodies are coded with `coder`.
    public init(coder: JSONBodyCoder = .shared) {
        self.coder = coder
    }

    /// The registered method names.
    public var names: [String] { methods.keys.sorted() }

    /// Registers a request/response method: one answer (or error) per call.
    public mutating func request<Parameters: Decodable & Sendable, Response: Encodable & Sendable>(
        _ name: String, _ handler: @escaping @Sendable (Parameters) -> Single<Response>
    ) {
        let coder = self.coder
        add(name, .request) { (body, _) throws(RemoteError) in
            let parameters = try coder.decode(Parameters.self, from: body)
            return handler(parameters).asObservable().map { response in try coder.encode(response) }
        }
    }

    /// Registers a stream method: any number of elements, then completion or an error.
    public mutating func stream<Parameters: Decodable & Sendable, Element: Encodable & Sendable>(
        _ name: String, _ handler: @escaping @Sendable (Parameters) -> Observable<Element>
    ) {
        let coder = self.coder
        add(name, .stream) { (body, _) throws(RemoteError) in
            let parameters = try coder.decode(Parameters.self, from: body)
            return handler(parameters).map { element in try coder.encode(element) }
        }
    }

    /// Registers a channel method: the client streams `Input`s in, the method streams `Output`s
    /// back. An input element that does not decode fails the input sequence with `bad_request`.
    public mutating func channel<
        Parameters: Decodable & Sendable, Input: Decodable & Sendable, Output: Encodable & Sendable
    >(
        _ name: String,
        _ handler: @escaping @Sendable (Parameters, Observable<Input>) -> Observable<Output>
    ) {
        let coder = self.coder
        add(name, .channel) { (body, input) throws(RemoteError) in
            let parameters = try coder.decode(Parameters.self, from: body)
            let decodedInput = input.map { element in try coder.decode(Input.self, from: element) }
            return handler(parameters, decodedInput).map { output in try coder.encode(output) }
        }
    }

    private mutating func add(
        _ name: String, _ kind: Kind,
        _ start:
            @escaping @Sendable ([UInt8], Observable<[UInt8]>) throws(RemoteError) -> Observable<[UInt8]>
    ) {
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
    static func wrapping(_ error: any Error) -> RemoteError {
        (error as? RemoteError) ?? RemoteError(code: .internal, message: String(describing: error))
    }
}

/// A parameters type for methods that take none (`{}` on the wire).
public struct NoParameters: Codable, Sendable, Hashable {
    /// The empty parameters.
    public init() {}
}
