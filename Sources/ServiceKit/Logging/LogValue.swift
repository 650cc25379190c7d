/// A secret (password, token, key) that prints, interpolates, dumps and logs as `<redacted>`.
///
/// Wrap secrets as soon as they are decoded; read ``value`` only where the secret is used.
///
/// ```swift
/// let password = Redacted(request.password)
/// logger.info("login attempt", ["user": "\(name)", "password": LogValue(password)])
/// // ... user=alice password=<redacted>
/// ```
public struct Redacted<Value: Sendable>: Sendable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The secret itself.
    public let value: Value

    /// Wraps a secret.
    public init(_ value: Value) { self.value = value }

    /// Always `<redacted>`.
    public var description: String { "<redacted>" }
    /// Always `<redacted>`.
    public var debugDescription: String { "<redacted>" }
    /// A mirror with no children, so `dump` shows nothing of the secret.
    public var customMirror: Mirror { Mirror(self, children: []) }
}

extension Redacted: Equatable where Value: Equatable {}
extension Redacted: Hashable where Value: Hashable {}

/// A metadata value in a log event.
///
/// Literals work directly: `["user": "alice", "attempt": 3, "ok": true, "ms": 1.5]`, and so does
/// string interpolation: `["peer": "\(endpoint)"]`.
public enum LogValue: Sendable, Hashable, ExpressibleByStringInterpolation, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral
{
    /// Text.
    case string(String)
    /// An integer.
    case integer(Int)
    /// A floating-point number.
    case double(Double)
    /// A boolean.
    case bool(Bool)
    /// A secret: always written as `<redacted>`.
    case redacted

    /// Any secret logs as ``redacted``.
    public init<Secret>(_ secret: Redacted<Secret>) { self = .redacted }

    /// Text from a string literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer literal.
    public init(integerLiteral value: Int) { self = .integer(value) }
    /// A floating-point literal.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A boolean literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }

    /// True for metadata keys that name secrets (`password`, `passwd`, `token`, `secret`, `key`,
    /// `credential`, `authorization`, in any case and anywhere in the key): their values are
    /// redacted whatever they are.
    public static func isSensitiveKey(_ key: String) -> Bool {
        let lowered = key.lowercased()
        return sensitiveWords.contains { lowered.contains($0) }
    }

    private static let sensitiveWords = [
        "password", "passwd", "token", "secret", "key", "credential", "authorization",
    ]
}
