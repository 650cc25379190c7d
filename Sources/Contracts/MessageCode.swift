public import RemoteProtocol

/// A message code: what a service means, for the gateway to render in the client's locale
/// (docs/ARCHITECTURE.md §6). Services never send rendered text.
public struct MessageCode: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    /// The code, e.g. `login.ok`.
    public let rawValue: String

    /// The code `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The code `value`.
    public init(stringLiteral value: String) { self.rawValue = value }

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

extension MessageCode {
    /// Login succeeded.
    public static let loginOK: MessageCode = "login.ok"
    /// Login failed: wrong username or password (never which).
    public static let loginWrongPassword: MessageCode = "login.wrongPassword"
    /// Too many failed logins: wait `retry_after` seconds.
    public static let loginThrottled: MessageCode = "login.throttled"
    /// Registration succeeded.
    public static let registerOK: MessageCode = "register.ok"
    /// The username is taken.
    public static let usernameExists: MessageCode = "username.exists"
    /// The username is shorter than the minimum (`{n}`).
    public static let usernameShort: MessageCode = "username.short"
    /// The username is longer than the maximum (`{n}`).
    public static let usernameLong: MessageCode = "username.long"
    /// The username contains control characters.
    public static let usernameInvalid: MessageCode = "username.invalid"
    /// The password is shorter than the minimum (`{n}`).
    public static let passwordMin: MessageCode = "password.min"
    /// The password is longer than the maximum (`{n}` bytes).
    public static let passwordLong: MessageCode = "password.long"
    /// Too many requests from this client: wait `retry_after` seconds.
    public static let rateLimited: MessageCode = "rate.limited"
}

extension MessageCode {
    /// The phone number has something other than ASCII digits in it.
    public static let phoneFormat: MessageCode = "phone.format"
    /// The phone number has more digits than allowed.
    public static let phoneLong: MessageCode = "phone.long"
    /// The phone number has fewer digits than required.
    public static let phoneShort: MessageCode = "phone.short"
    /// The password is too short to log in with (no parameters: the login message names no limit).
    public static let passwordShort: MessageCode = "password.short"
    /// The password is acceptable for a new account.
    public static let passwordOK: MessageCode = "password.ok"
    /// The username is free to register.
    public static let usernameAvailable: MessageCode = "username.available"
    /// No account has this username (sign-in).
    public static let usernameUnknown: MessageCode = "username.unknown"
    /// The username is being checked against the auth service (state `validating`).
    public static let usernameChecking: MessageCode = "username.checking"
    /// Too many username checks from this client: the auth service refused the check for now.
    public static let usernameThrottled: MessageCode = "username.throttled"
    /// The repeated password differs from the password.
    public static let repeatMismatch: MessageCode = "repeat.mismatch"
    /// A service could not be reached, did not answer in time, or answered something unreadable.
    public static let networkError: MessageCode = "network.error"
}

extension MessageCode {
    /// Login failed; `{message}` is the code of the auth service's reason, rendered in place.
    public static let loginFailed: MessageCode = "login.failed"
    /// Registration failed; `{message}` (optional) is the code of the reason, rendered in place.
    public static let registerFailed: MessageCode = "register.failed"
    /// The session token is unknown, expired or revoked: sign in again.
    public static let sessionExpired: MessageCode = "session.expired"
    /// The numbers or their sum are out of range.
    public static let numbersOverflow: MessageCode = "numbers.overflow"
}

/// A code on the wire is its string (as its `Codable` conformance).
extension MessageCode: JSONFieldValue {}
