public import RemoteProtocol

extension Methods {
    /// The auth service's methods (docs/services/auth.md), called by the gateway, the validation
    /// service, the hero catalog and the load generator.
    ///
    /// Field names on the wire are snake_case, as in the original demos (`status_code`,
    /// `user_token`). Messages are codes (``MessageCode``) the gateway renders in the client's locale.
    public enum Auth {
        /// `auth.register` ``RegisterRequest`` → ``RegisterResponse``. Safe to send again only with a
        /// ``RegisterRequest/requestID`` (the service answers a repeat with the first attempt's
        /// outcome).
        public static let register = RequestMethod<RegisterRequest, RegisterResponse>(
            "auth.register", retrySafety: .when { $0.requestID != nil })
        /// `auth.login` ``LoginRequest`` → ``LoginResponse``. Not idempotent: each login makes a
        /// session and counts towards the throttles.
        public static let login = RequestMethod<LoginRequest, LoginResponse>("auth.login")
        /// `auth.exists` ``ExistsRequest`` → ``ExistsResponse``.
        public static let exists = RequestMethod<ExistsRequest, ExistsResponse>(
            "auth.exists", retrySafety: .idempotent)
        /// `auth.verify` ``VerifyRequest`` → ``VerifyResponse``, or `ERROR unauthenticated`.
        public static let verify = RequestMethod<VerifyRequest, VerifyResponse>(
            "auth.verify", retrySafety: .idempotent)
        /// `auth.logout` ``LogoutRequest`` → ``LogoutResponse``.
        public static let logout = RequestMethod<LogoutRequest, LogoutResponse>("auth.logout")
        /// `auth.events` (stream) `{}` → ``AccountEvent``*.
        public static let events = StreamMethod<NoParameters, AccountEvent>("auth.events")

        /// Every method auth-service answers besides ``System``'s.
        public static let all: [any RemoteMethod] = [register, login, exists, verify, logout, events]
    }
}

/// `auth.register`'s parameters.
public struct RegisterRequest: Codable, Sendable, Hashable {
    /// The username as typed; the service normalizes it (NFC) before checking and storing it.
    public var username: String
    /// The password.
    public var password: String
    /// The end client the request is made for (the gateway passes its client's identity), for
    /// per-client limits; nil means the connection's own identity.
    public var client: String?
    /// A key the client makes once per registration it means (a UUID, say) and sends again with
    /// every retry of it: a retry whose first attempt was committed but never answered then gets
    /// that attempt's `201` instead of `409`. At most 128 UTF-8 bytes; nil: no such guarantee.
    public var requestID: String?

    /// Parameters for registering `username` with `password`.
    public init(username: String, password: String, client: String? = nil, requestID: String? = nil) {
        self.username = username
        self.password = password
        self.client = client
        self.requestID = requestID
    }

    enum CodingKeys: String, CodingKey {
        case username, password, client, requestID = "request_id"
    }

    /// A fresh ``requestID``: 128 random bits as 32 hexadecimal digits. Make one per registration
    /// meant, and send it with every attempt of it; it makes the registration safe to send again to
    /// another replica (``Methods/Auth/register``).
    public static func newRequestID() -> String {
        var generator = SystemRandomNumberGenerator()
        return [generator.next(), generator.next()].map { (half: UInt64) in
            let digits = String(half, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
    }
}

/// `auth.register`'s answer: `status_code` 201 with `register.ok`, or 409 with `username.exists`.
/// Input that breaks the registration rules is `ERROR bad_request` instead.
public struct RegisterResponse: Codable, Sendable, Hashable {
    /// 201 registered, 409 the username is taken.
    public var statusCode: Int
    /// `register.ok` or `username.exists`.
    public var message: MessageCode
    /// The account's name as stored (normalized).
    public var username: String

    /// An answer.
    public init(statusCode: Int, message: MessageCode, username: String) {
        self.statusCode = statusCode
        self.message = message
        self.username = username
    }

    enum CodingKeys: String, CodingKey {
        case statusCode = "status_code", message, username
    }
}

/// `auth.login`'s parameters.
public struct LoginRequest: Codable, Sendable, Hashable {
    /// The username as typed (normalized by the service).
    public var username: String
    /// The password.
    public var password: String
    /// The end client the request is made for, for throttling (see ``RegisterRequest/client``).
    public var client: String?
    /// The device token an earlier successful login to this account answered
    /// (``LoginResponse/User/deviceToken``), if the client kept one: with it the attempt has the
    /// device's own allowance instead of the account's shared budget. An invalid one counts as none.
    public var deviceToken: String?

    /// Parameters for logging in as `username`.
    public init(username: String, password: String, client: String? = nil, deviceToken: String? = nil) {
        self.username = username
        self.password = password
        self.client = client
        self.deviceToken = deviceToken
    }

    enum CodingKeys: String, CodingKey {
        case username, password, client, deviceToken = "device_token"
    }
}

/// `auth.login`'s answer, in the demos' shape: `{status_code, message, user: {name, user_token}}`.
///
/// - 200 `login.ok` with the user, a fresh session token and the client's device token;
/// - 401 `login.wrongPassword` for an unknown user and a wrong password alike (never which);
/// - 429 `login.throttled` with `retry_after` seconds, when too many logins failed.
public struct LoginResponse: Codable, Sendable, Hashable {
    /// 200, 401 or 429.
    public var statusCode: Int
    /// The outcome as a message code.
    public var message: MessageCode
    /// The user and token on success.
    public var user: User?
    /// Seconds to wait before trying again (429 only).
    public var retryAfter: Int?

    /// A logged-in user.
    public struct User: Codable, Sendable, Hashable {
        /// The account's name.
        public var name: String
        /// The session token (256 random bits, base64url).
        public var userToken: String
        /// The device token for this account and client (64 base64url characters): keep it, per
        /// account, and send it as ``LoginRequest/deviceToken`` with later logins. The same device
        /// gets the same token again.
        public var deviceToken: String?

        /// A user with a token.
        public init(name: String, userToken: String, deviceToken: String? = nil) {
            self.name = name
            self.userToken = userToken
            self.deviceToken = deviceToken
        }

        enum CodingKeys: String, CodingKey {
            case name, userToken = "user_token", deviceToken = "device_token"
        }
    }

    /// An answer.
    public init(statusCode: Int, message: MessageCode, user: User? = nil, retryAfter: Int? = nil) {
        self.statusCode = statusCode
        self.message = message
        self.user = user
        self.retryAfter = retryAfter
    }

    enum CodingKeys: String, CodingKey {
        case statusCode = "status_code", message, user, retryAfter = "retry_after"
    }
}

/// `auth.exists`'s parameters.
public struct ExistsRequest: Codable, Sendable, Hashable {
    /// The username as typed (normalized by the service).
    public var username: String
    /// The end client the request is made for, for rate limiting (see ``RegisterRequest/client``).
    public var client: String?

    /// Parameters asking whether `username` is taken.
    public init(username: String, client: String? = nil) {
        self.username = username
        self.client = client
    }
}

/// `auth.exists`'s answer.
public struct ExistsResponse: Codable, Sendable, Hashable {
    /// Whether an account has this (normalized) name.
    public var exists: Bool

    /// An answer.
    public init(exists: Bool) { self.exists = exists }
}

/// `auth.verify`'s parameters.
public struct VerifyRequest: Codable, Sendable, Hashable {
    /// A session token from `auth.login`.
    public var token: String

    /// Parameters verifying `token`.
    public init(token: String) { self.token = token }
}

/// `auth.verify`'s answer for a valid token (an invalid, expired or revoked one is
/// `ERROR unauthenticated`).
public struct VerifyResponse: Codable, Sendable, Hashable {
    /// The token's user.
    public var name: String
    /// When the token expires: whole seconds since the Unix epoch (1970-01-01T00:00:00Z).
    public var expiresAt: Int64

    /// An answer.
    public init(name: String, expiresAt: Int64) {
        self.name = name
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case name, expiresAt = "expires_at"
    }
}

/// `auth.logout`'s parameters.
public struct LogoutRequest: Codable, Sendable, Hashable {
    /// The session token to revoke.
    public var token: String

    /// Parameters revoking `token`.
    public init(token: String) { self.token = token }
}

/// `auth.logout`'s answer (acknowledged once the revocation is committed).
public struct LogoutResponse: Codable, Sendable, Hashable {
    /// Whether a live token was revoked (false: it was unknown, expired or already revoked).
    public var revoked: Bool

    /// An answer.
    public init(revoked: Bool) { self.revoked = revoked }
}

/// An account event on `auth.events`, for monitoring. Never carries a password or a token.
public struct AccountEvent: Codable, Sendable, Hashable {
    /// What happened.
    public enum Kind: String, Codable, Sendable, Hashable {
        case registered
        case loggedIn = "logged_in"
        case failed
        case locked
        case loggedOut = "logged_out"
    }

    /// What happened.
    public var kind: Kind
    /// The (normalized) username concerned; for `failed`, the name that was tried.
    public var username: String
    /// The end client, when known.
    public var client: String?
    /// When: milliseconds since the Unix epoch (1970-01-01T00:00:00Z).
    public var at: Int64

    /// An event.
    public init(kind: Kind, username: String, client: String?, at: Int64) {
        self.kind = kind
        self.username = username
        self.client = client
        self.at = at
    }
}

// MARK: Direct JSON codings (docs/transport/json.md, "Direct codings"): one line per stored property.

extension RegisterRequest: JSONBody {
    public static let jsonFields = JSONFields<Self>(
        blank: RegisterRequest(username: "", password: ""),
        [
            .field("username", \.username), .field("password", \.password), .field("client", \.client),
            .field("request_id", \.requestID),
        ])
}

extension RegisterResponse: JSONBody {
    public static let jsonFields = JSONFields<Self>(
        blank: RegisterResponse(statusCode: 0, message: "", username: ""),
        [.field("status_code", \.statusCode), .field("message", \.message), .field("username", \.username)])
}

extension LoginRequest: JSONBody {
    public static let jsonFields = JSONFields<Self>(
        blank: LoginRequest(username: "", password: ""),
        [
            .field("username", \.username), .field("password", \.password), .field("client", \.client),
            .field("device_token", \.deviceToken),
        ])
}

extension LoginResponse: JSONBody {
    public static let jsonFields = JSONFields<Self>(
        blank: LoginResponse(statusCode: 0, message: ""),
        [
            .field("status_code", \.statusCode), .field("message", \.message), .field("user", \.user),
            .field("retry_after", \.retryAfter),
        ])
}

extension LoginResponse.User: JSONBody {
    public static let jsonFields = JSONFields<Self>(
        blank: LoginResponse.User(name: "", userToken: ""),
        [.field("name", \.name), .field("user_token", \.userToken), .field("device_token", \.deviceToken)])
}

extension ExistsRequest: JSONBody {
    public static let jsonFields = JSONFields<Self>(
        blank: ExistsRequest(username: ""), [.field("username", \.username), .field("client", \.client)])
}

extension ExistsResponse: JSONBody {
    public static let jsonFields = JSONFields<Self>(
        blank: ExistsResponse(exists: false), [.field("exists", \.exists)])
}

extension VerifyRequest: JSONBody {
    public static let jsonFields = JSONFields<Self>(
        blank: VerifyRequest(token: ""), [.field("token", \.token)])
}

extension VerifyResponse: JSONBody {
    public static let jsonFields = JSONFields<Self>(
        blank: VerifyResponse(name: "", expiresAt: 0),
        [.field("name", \.name), .field("expires_at", \.expiresAt)])
}

extension LogoutRequest: JSONBody {
    public static let jsonFields = JSONFields<Self>(
        blank: LogoutRequest(token: ""), [.field("token", \.token)])
}

extension LogoutResponse: JSONBody {
    public static let jsonFields = JSONFields<Self>(
        blank: LogoutResponse(revoked: false), [.field("revoked", \.revoked)])
}

extension AccountEvent.Kind: JSONFieldValue {}

extension AccountEvent: JSONBody {
    public static let jsonFields = JSONFields<Self>(
        blank: AccountEvent(kind: .failed, username: "", client: nil, at: 0),
        [
            .field("kind", \.kind), .field("username", \.username), .field("client", \.client),
            .field("at", \.at),
        ])
}
