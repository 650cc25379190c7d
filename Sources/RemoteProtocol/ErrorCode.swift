/// The stable code of an `ERROR` body (docs/PROTOCOL.md, "Error codes").
///
/// An extensible set: new codes may be added, and a peer may send one this build does not know.
/// Clients treat an unknown code like `internal` (see `isKnown`).
public struct ErrorCode: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    /// The code as it travels, e.g. `bad_request`.
    public let rawValue: String

    /// A code from its wire string.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// A code from its wire string.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// A code from a string literal, e.g. `let code: ErrorCode = "rate_limited"`.
    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    /// The wire string.
    public var description: String { rawValue }

    /// Malformed message, or parameters the method cannot read.
    public static let badRequest = ErrorCode("bad_request")
    /// A body over the limit.
    public static let tooLarge = ErrorCode("too_large")
    /// No such method on this server.
    public static let unknownMethod = ErrorCode("unknown_method")
    /// The method's subject does not exist.
    public static let notFound = ErrorCode("not_found")
    /// The deadline passed before the answer.
    public static let timeout = ErrorCode("timeout")
    /// The server is at its in-flight limit; retry later.
    public static let overloaded = ErrorCode("overloaded")
    /// This caller made too many requests of this kind; retry later (the message says when).
    public static let rateLimited = ErrorCode("rate_limited")
    /// Missing or invalid credentials (a session token, a CURVE key).
    public static let unauthenticated = ErrorCode("unauthenticated")
    /// The service (or one it depends on) cannot be reached.
    public static let unavailable = ErrorCode("unavailable")
    /// Anything else on the server's side.
    public static let `internal` = ErrorCode("internal")

    /// Every code docs/PROTOCOL.md defines, in its order.
    public static let documented: [ErrorCode] = [
        .badRequest, .tooLarge, .unknownMethod, .notFound, .timeout, .overloaded, .rateLimited,
        .unauthenticated, .unavailable, .internal,
    ]

    /// Whether docs/PROTOCOL.md defines this code (an unknown code is handled like `internal`).
    public var isKnown: Bool { Self.documented.contains(self) }
}
