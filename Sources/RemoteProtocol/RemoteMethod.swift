/// How a method is called: the three interaction models of docs/PROTOCOL.md, each opened by its own
/// frame type.
public enum InteractionModel: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Request/response: `REQUEST`, answered by one `NEXT` or one `ERROR`.
    case request
    /// Request/stream: `SUBSCRIBE`, answered by `NEXT`* then `COMPLETE` or `ERROR`.
    case stream
    /// Channel: `OPEN`; the client streams `NEXT`* in and the server streams `NEXT`* back.
    case channel

    /// The frame type that opens a call of this model.
    @inlinable
    public var openingType: FrameType {
        switch self {
        case .request: .request
        case .stream: .subscribe
        case .channel: .open
        }
    }

    public var description: String { rawValue }
}

/// A method's descriptor: its name on the wire, the interaction model it is called with, and the
/// Swift types of its bodies. A server registers a handler for a descriptor and a client calls it,
/// so the name, the model and the body types cannot disagree between the two: calling a method
/// with the wrong parameters, expecting the wrong answer, or subscribing to a request method does
/// not compile.
///
/// ```swift
/// let add = RequestMethod<Pair, Int>("math.add")
/// handlers.handle(add) { pair in .just(pair.a + pair.b) }
/// let sum = try await client.request(add, Pair(a: 2, b: 40)).value
/// ```
///
/// The descriptors of this system's services are in `Contracts` (`Methods`).
public protocol RemoteMethod: Sendable, Hashable, CustomStringConvertible {
    /// The parameters: the opening frame's body.
    associatedtype Parameters: Codable & Sendable

    /// The interaction model every method of this kind is called with.
    static var model: InteractionModel { get }

    /// The method's name: 1–128 bytes of `[a-z0-9._-]`, e.g. `auth.login`.
    var name: String { get }
}

extension RemoteMethod {
    /// The interaction model this method is called with.
    public var model: InteractionModel { Self.model }

    /// E.g. `auth.login (request)`.
    public var description: String { "\(name) (\(Self.model))" }
}

/// A request/response method: ``Parameters`` in, one ``Answer`` (or an error) out.
///
/// Two descriptors are equal when their names are: the name is the method on the wire.
public struct RequestMethod<Parameters: Codable & Sendable, Answer: Codable & Sendable>: RemoteMethod {
    public static var model: InteractionModel { .request }

    public let name: String
    /// Whether a call that may have reached a server which then failed to answer (its connection
    /// was lost) may be sent again to another replica: see ``RetrySafety``.
    public let retrySafety: RetrySafety<Parameters>

    /// The method `name`, which must be a valid method name (1–128 bytes of `[a-z0-9._-]`); a
    /// client sends a call again after it may have run only when `retrySafety` allows it.
    public init(_ name: String, retrySafety: RetrySafety<Parameters> = .unsafe) {
        self.name = checkedMethodName(name)
        self.retrySafety = retrySafety
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.name == rhs.name }

    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

/// Whether a request may run twice: what a client with several replicas may do with a call that
/// reached a server which then failed to answer it (its connection was lost, or it answered
/// `unavailable`). A call the server refused with `overloaded`, or that never left the client (its
/// replica had no connection), is sent again to another replica whatever its method's safety;
/// docs/transport/remote-streams.md, "Balancing and retries".
public struct RetrySafety<Parameters: Sendable>: Sendable {
    @usableFromInline
    enum Rule: Sendable {
        case unsafe
        case idempotent
        case when(@Sendable (Parameters) -> Bool)
    }

    @usableFromInline let rule: Rule

    /// Running the call twice may do something once too often (a login that makes two sessions):
    /// it is sent again only when it never reached a server, or was refused with `overloaded`.
    public static var unsafe: Self { Self(rule: .unsafe) }

    /// Running the call twice does what running it once does (a lookup, a search, a check): it is
    /// also sent again after its replica's connection was lost.
    public static var idempotent: Self { Self(rule: .idempotent) }

    /// Idempotent when `isIdempotent` says so of the call's parameters (a registration carrying
    /// the key the server deduplicates it by).
    public static func when(_ isIdempotent: @escaping @Sendable (Parameters) -> Bool) -> Self {
        Self(rule: .when(isIdempotent))
    }

    /// Whether a call with `parameters` may run twice.
    @inlinable
    public func allowsRetry(of parameters: Parameters) -> Bool {
        switch rule {
        case .unsafe: false
        case .idempotent: true
        case .when(let isIdempotent): isIdempotent(parameters)
        }
    }
}

/// A request/stream method: ``Parameters`` in, any number of ``Element``s out, then completion or
/// an error.
public struct StreamMethod<Parameters: Codable & Sendable, Element: Codable & Sendable>: RemoteMethod {
    public static var model: InteractionModel { .stream }

    public let name: String

    /// The method `name`, which must be a valid method name (1–128 bytes of `[a-z0-9._-]`).
    public init(_ name: String) {
        self.name = checkedMethodName(name)
    }
}

/// A channel method: opened with ``Parameters``; the client streams ``Input``s in and the server
/// streams ``Output``s back.
public struct ChannelMethod<
    Parameters: Codable & Sendable, Input: Codable & Sendable, Output: Codable & Sendable
>: RemoteMethod {
    public static var model: InteractionModel { .channel }

    public let name: String

    /// The method `name`, which must be a valid method name (1–128 bytes of `[a-z0-9._-]`).
    public init(_ name: String) {
        self.name = checkedMethodName(name)
    }
}

/// `name`, which must be a valid method name: a descriptor with a bad one is a programming error,
/// caught where the descriptor is made rather than at the first call.
private func checkedMethodName(_ name: String) -> String {
    var name = name
    let valid = name.withUTF8 { bytes in
        (1...ProtocolLimits.maxMethodLength).contains(bytes.count)
            && Frame.firstInvalidMethodByte(UnsafeRawBufferPointer(bytes)) == nil
    }
    precondition(valid, "method names are 1-128 bytes of [a-z0-9._-]: \(name)")
    return name
}

/// The parameters of a method that takes none: `{}` on the wire.
public struct NoParameters: Codable, Sendable, Hashable {
    /// The empty parameters.
    public init() {}
}

/// The answer of `sys.endpoints` (docs/PROTOCOL.md, "System methods"): where each shard of a
/// server process listens, so that a client of its documented endpoint can spread its calls over
/// all of them.
public struct ShardEndpoints: Codable, Sendable, Hashable {
    /// Every shard's bound endpoint, shard 0 (the documented endpoint) first. A wildcard host
    /// (`0.0.0.0`, `*`, `::`) stands for the host the client dialled.
    public var endpoints: [String]
    /// The index in ``endpoints`` of the shard that answered.
    public var shard: Int

    /// An answer.
    public init(endpoints: [String], shard: Int) {
        self.endpoints = endpoints
        self.shard = shard
    }
}

extension RequestMethod where Parameters == NoParameters, Answer == ShardEndpoints {
    /// `sys.endpoints` `{}` → ``ShardEndpoints``: the transport's own discovery method, which
    /// `RemoteClient` calls (and `Contracts` lists with the other system methods).
    public static var shardEndpoints: Self { Self("sys.endpoints", retrySafety: .idempotent) }
}

extension ShardEndpoints: JSONBody {
    public static let jsonFields = JSONFields<Self>(
        blank: ShardEndpoints(endpoints: [], shard: 0),
        [.field("endpoints", \.endpoints), .field("shard", \.shard)])
}
