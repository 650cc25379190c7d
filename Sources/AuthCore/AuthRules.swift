public import Contracts
import Foundation

/// The registration rules the auth service enforces itself, so that a client that skips the
/// validation service cannot register what it would refuse (docs/services/auth.md).
///
/// - Usernames are normalized to Unicode NFC before anything else (so `é` typed precomposed or
///   decomposed is one name), must have 6 to 64 user-perceived characters, and contain no control,
///   format or line/paragraph-separator characters. Names are case-sensitive. They also have at
///   most 1,024 UTF-8 bytes: a few characters could otherwise carry megabytes of combining marks.
/// - Passwords have at least 6 user-perceived characters and at most 1,024 UTF-8 bytes (argon2id
///   takes any length, but a bound keeps a 10 MB password from costing anything).
public struct AuthRules: Sendable, Hashable {
    /// Fewest characters in a username.
    public var minimumUsernameLength: Int
    /// Most characters in a username.
    public var maximumUsernameLength: Int
    /// Most UTF-8 bytes in a normalized username (refused as too long past it).
    public var maximumUsernameBytes: Int
    /// Fewest characters in a password.
    public var minimumPasswordLength: Int
    /// Most UTF-8 bytes in a password.
    public var maximumPasswordBytes: Int

    /// The rules; the defaults are auth-service's (docs/services/auth.md).
    public init(
        minimumUsernameLength: Int = 6, maximumUsernameLength: Int = 64, maximumUsernameBytes: Int = 1_024,
        minimumPasswordLength: Int = 6, maximumPasswordBytes: Int = 1_024
    ) {
        self.minimumUsernameLength = minimumUsernameLength
        self.maximumUsernameLength = maximumUsernameLength
        self.maximumUsernameBytes = maximumUsernameBytes
        self.minimumPasswordLength = minimumPasswordLength
        self.maximumPasswordBytes = maximumPasswordBytes
    }

    /// A broken rule: a message code and its parameter (`{n}`).
    public struct Violation: Error, Sendable, Hashable, CustomStringConvertible {
        /// The message code.
        public let code: MessageCode
        /// The limit the message interpolates, if any.
        public let limit: Int?

        public var description: String {
            limit.map { "\(code.rawValue) (n=\($0))" } ?? code.rawValue
        }
    }

    /// `username` in NFC, the form it is checked, stored and looked up in.
    public static func normalize(_ username: String) -> String {
        username.precomposedStringWithCanonicalMapping
    }

    /// `password` in NFC, the form it is hashed in, so that a password typed with a precomposed
    /// `é` on one keyboard and a decomposed one on another is the same password (NIST SP 800-63B
    /// asks for normalization too).
    public static func normalizePassword(_ password: String) -> String {
        password.precomposedStringWithCanonicalMapping
    }

    /// The normalized username if it may be registered.
    public func checkUsername(_ username: String) -> Result<String, Violation> {
        let tooLong = Violation(code: .usernameLong, limit: maximumUsernameLength)
        // NFC at most triples a text's length, so past that it is too long even normalized; and a
        // megabyte is not worth normalizing.
        if username.utf8.count > 3 * maximumUsernameBytes { return .failure(tooLong) }
        let normalized = Self.normalize(username)
        if normalized.unicodeScalars.contains(where: Self.isForbidden) {
            return .failure(Violation(code: .usernameInvalid, limit: nil))
        }
        if normalized.utf8.count > maximumUsernameBytes { return .failure(tooLong) }
        let length = normalized.count
        if length < minimumUsernameLength {
            return .failure(Violation(code: .usernameShort, limit: minimumUsernameLength))
        }
        if length > maximumUsernameLength { return .failure(tooLong) }
        return .success(normalized)
    }

    /// Whether `password` may be registered.
    public func checkPassword(_ password: String) -> Violation? {
        // Bytes first: counting the characters of a huge string is the expensive check.
        if password.utf8.count > maximumPasswordBytes {
            return Violation(code: .passwordLong, limit: maximumPasswordBytes)
        }
        if password.count < minimumPasswordLength {
            return Violation(code: .passwordMin, limit: minimumPasswordLength)
        }
        return nil
    }

    /// Whether a login attempt is even worth a lookup: too-long passwords are refused like wrong
    /// ones, without hashing a megabyte.
    func isPlausibleLogin(password: String) -> Bool {
        password.utf8.count <= maximumPasswordBytes
    }

    /// The name a login attempt is looked up under (NFC), or nil when the text is too long to be
    /// any account's name (it is then not worth normalizing, looking up or remembering).
    func loginName(_ username: String) -> String? {
        username.utf8.count > 3 * maximumUsernameBytes ? nil : Self.normalize(username)
    }

    private static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned:
            true
        default:
            false
        }
    }
}
