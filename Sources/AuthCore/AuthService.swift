public import Contracts
import Foundation
public import Reactive
import RemoteProtocol
public import RemoteStreams
public import Sodium
import Synchronization

/// The clocks the service reads: a monotonic one for throttling, wall-clock seconds for token
/// expiry. Injected so tests control time.
public struct AuthClock: Sendable {
    /// Monotonic now.
    public var now: @Sendable () -> ContinuousClock.Instant
    /// Seconds since 1970.
    public var wallSeconds: @Sendable () -> Int64

    /// A clock.
    public init(
        now: @escaping @Sendable () -> ContinuousClock.Instant,
        wallSeconds: @escaping @Sendable () -> Int64
    ) {
        self.now = now
        self.wallSeconds = wallSeconds
    }

    /// The system's clocks.
    public static let system = AuthClock(
        now: { ContinuousClock.now }, wallSeconds: { Int64(Date().timeIntervalSince1970) })
}

/// How the auth service behaves (each is a flag of `auth-service`).
public struct AuthConfiguration: Sendable {
    /// The registration rules.
    public var rules: AuthRules
    /// Throttling and rate limits.
    public var throttle: ThrottlePolicy
    /// The argon2id cost of new hashes (and of the dummy hash unknown users are verified against).
    public var cost: Argon2id.Cost
    /// How long a session token lives.
    public var tokenLifetime: Duration
    /// The device tokens logins issue and accept (the service's are under `device.key` in its
    /// state directory).
    public var deviceTokens: DeviceTokens

    /// A configuration with the defaults: OWASP's argon2id cost, 24-hour tokens, device tokens
    /// under a secret of its own that lasts as long as the value.
    public init(
        rules: AuthRules = AuthRules(), throttle: ThrottlePolicy = ThrottlePolicy(),
        cost: Argon2id.Cost = .owasp, tokenLifetime: Duration = .seconds(24 * 60 * 60),
        deviceTokens: DeviceTokens = .ephemeral()
    ) {
        self.rules = rules
        self.throttle = throttle
        self.cost = cost
        self.tokenLifetime = tokenLifetime
        self.deviceTokens = deviceTokens
    }
}

/// The auth service's logic, behind the remote-streams methods of docs/services/auth.md.
///
/// Every method answers a `Single`; the work that blocks runs elsewhere: argon2id on the
/// ``PasswordHashingPool``'s threads, SQLite on the store's threads. Nothing here blocks the server's
/// socket loop. Login never tells an unknown user from a wrong password: both get the same answer
/// after the same work (an unknown user is verified against a dummy hash of the same cost), and the
/// same throttling, the account's shared budget included (``ThrottleState``). A successful login
/// answers a device token (``DeviceTokens``) that later logins of that client present to keep an
/// allowance of their own.
public final class AuthService: Sendable {
    /// Counters for `sys.stats`.
    public struct Counters: Sendable, Hashable, Codable {
        /// Accounts registered.
        public var registered = 0
        /// Registrations refused because the name was taken.
        public var registrationsTaken = 0
        /// Successful logins.
        public var logins = 0
        /// Failed logins (wrong password or unknown user).
        public var failedLogins = 0
        /// Logins refused by throttling (including those below).
        public var throttledLogins = 0
        /// Logins refused because the account's shared budget was spent.
        public var budgetSpent = 0
        /// Logins that presented a valid device token for their account.
        public var deviceLogins = 0
        /// Client locks started.
        public var locks = 0
        /// `auth.exists` answered.
        public var existsAnswered = 0
        /// `auth.exists` refused by the rate limit.
        public var existsRateLimited = 0
        /// Tokens verified valid.
        public var verified = 0
        /// Tokens refused.
        public var unauthenticated = 0
        /// Sessions revoked.
        public var logouts = 0
        /// Requests refused as `bad_request`.
        public var badRequests = 0
        /// Requests refused as `overloaded` (hashing pool or store full).
        public var overloaded = 0

        enum CodingKeys: String, CodingKey {
            case registered, registrationsTaken = "registrations_taken", logins, failedLogins =
                "failed_logins"
            case throttledLogins = "throttled_logins", budgetSpent = "budget_spent"
            case deviceLogins = "device_logins", locks, existsAnswered = "exists_answered"
            case existsRateLimited = "exists_rate_limited", verified, unauthenticated, logouts
            case badRequests = "bad_requests", overloaded
        }
    }

    private let store: any AccountStore
    private let hashing: PasswordHashingPool
    private let configuration: AuthConfiguration
    private let clock: AuthClock
    private let throttle: Mutex<ThrottleState>
    private let counters_ = Mutex(Counters())
    private let events_ = PublishSubject<AccountEvent>()
    /// Held while an event is delivered: calls finish on many threads at once (hashing workers,
    /// the store's threads, tasks), and an observer must never be entered by two threads at once.
    private let emitting = Mutex(())

    /// A service over `store`, hashing on `hashing`.
    public init(
        store: any AccountStore, hashing: PasswordHashingPool,
        configuration: AuthConfiguration = AuthConfiguration(),
        clock: AuthClock = .system
    ) {
        self.store = store
        self.hashing = hashing
        self.configuration = configuration
        self.clock = clock
        self.throttle = Mutex(ThrottleState(policy: configuration.throttle))
    }

    /// The counters so far.
    public var counters: Counters { counters_.withLock { $0 } }

    /// Account events as they happen (hot: no replay), for `auth.events`.
    public var events: Observable<AccountEvent> { events_.asObservable() }

    /// Registers the `auth.*` methods.
    public func register(into handlers: inout RemoteHandlers) {
        handlers.handle(Methods.Auth.register) { [self] (request: RegisterRequest, call: CallContext) in
            register(request, client: request.client ?? call.peer)
        }
        handlers.handle(Methods.Auth.login) { [self] (request: LoginRequest, call: CallContext) in
            login(request, client: request.client ?? call.peer)
        }
        handlers.handle(Methods.Auth.exists) { [self] (request: ExistsRequest, call: CallContext) in
            exists(request, client: request.client ?? call.peer)
        }
        handlers.handle(Methods.Auth.verify) { [self] (request: VerifyRequest) in verify(request) }
        handlers.handle(Methods.Auth.logout) { [self] (request: LogoutRequest) in logout(request) }
        handlers.handle(Methods.Auth.events) { [self] (_: NoParameters) in events }
    }

    // MARK: Methods

    /// `auth.register`: checks the rules, hashes, stores; answers after the commit.
    public func register(_ request: RegisterRequest, client: String) -> Single<RegisterResponse> {
        let rules = configuration.rules
        let username: String
        switch rules.checkUsername(request.username) {
        case .failure(let violation): return refuse(violation)
        case .success(let normalized): username = normalized
        }
        if let violation = rules.checkPassword(request.password) { return refuse(violation) }
        let password = Array(AuthRules.normalizePassword(request.password).utf8)
        let cost = configuration.cost
        return asyncSingle { [self] in
            let hash = try await hashing.hash(password: password, cost: cost)
            let outcome = try await store.createAccount(
                username: username, passwordHash: hash, createdAt: clock.wallSeconds()
            ).value
            switch outcome {
            case .created:
                count { $0.registered += 1 }
                emit(.registered, username, client)
                return RegisterResponse(statusCode: 201, message: .registerOK, username: username)
            case .taken:
                count { $0.registrationsTaken += 1 }
                return RegisterResponse(statusCode: 409, message: .usernameExists, username: username)
            }
        }
    }

    /// `auth.login`: throttling first, then the same work for every name (see the type's doc). The
    /// attempt is admitted when the answer is subscribed to, so a single never subscribed to
    /// holds nothing in the throttle.
    public func login(_ request: LoginRequest, client: String) -> Single<LoginResponse> {
        Single.deferred { [self] in attemptLogin(request, client: client) }
    }

    private func attemptLogin(_ request: LoginRequest, client: String) -> Single<LoginResponse> {
        // A name too long to be an account's (megabytes, say) is throttled and reported as its first
        // 64 scalars and an ellipsis, not kept whole; it is not looked up, only verified against the
        // dummy hash like any unknown name.
        let loginName = configuration.rules.loginName(request.username)
        let username =
            loginName ?? String(String.UnicodeScalarView(request.username.unicodeScalars.prefix(64))) + "…"
        // A valid device token for this name makes the attempt the device's own, outside the
        // account's shared budget; any other token (garbled, forged, another account's) is as none.
        let device = configuration.deviceTokens.verify(request.deviceToken, account: username)
        let origin = device.map { LoginOrigin.device($0.id) } ?? .client(client)
        let admission = throttle.withLock {
            $0.admitLogin(account: username, from: origin, now: clock.now())
        }
        switch admission {
        case .allowed:
            if device != nil { count { $0.deviceLogins += 1 } }
        case .throttled(let retryAfter, _), .budgetSpent(let retryAfter):
            count {
                $0.throttledLogins += 1
                if case .budgetSpent = admission { $0.budgetSpent += 1 }
            }
            return .just(
                LoginResponse(
                    statusCode: 429, message: .loginThrottled, retryAfter: Self.wholeSeconds(retryAfter)))
        }
        // A password over the limit cannot be right: verify an empty one against the dummy hash so
        // that it costs the same, without hashing megabytes.
        let plausible = configuration.rules.isPlausibleLogin(password: request.password)
        let password = plausible ? Array(AuthRules.normalizePassword(request.password).utf8) : []
        let cost = configuration.cost
        let lifetime = Int64(configuration.tokenLifetime.components.seconds)
        let deviceTokens = configuration.deviceTokens
        return asyncSingle { [self] in
            let verified: StoredAccount?
            do {
                let account = loginName == nil ? nil : try await store.account(named: username).value
                if let account, plausible,
                    try await hashing.verify(password: password, against: account.passwordHash)
                {
                    verified = account
                } else {
                    if account == nil || !plausible {
                        try await hashing.verifyDummy(password: password, cost: cost)
                    }
                    verified = nil
                }
            } catch {
                // No verdict (overload, storage, cancelled): the attempt counts neither way.
                throttle.withLock { $0.recordAbandoned(account: username, from: origin) }
                throw error
            }
            guard let account = verified else {
                let locked = throttle.withLock {
                    $0.recordFailure(account: username, from: origin, now: clock.now())
                }
                count {
                    $0.failedLogins += 1
                    if locked { $0.locks += 1 }
                }
                emit(.failed, username, client)
                if locked { emit(.locked, username, client) }
                return LoginResponse(statusCode: 401, message: .loginWrongPassword)
            }
            throttle.withLock { $0.recordSuccess(account: username, from: origin) }
            let token = Token.generate()
            try await store.addSession(
                digest: token.digest, accountID: account.id, expiresAt: clock.wallSeconds() + lifetime
            ).value
            count { $0.logins += 1 }
            emit(.loggedIn, username, client)
            // The same device keeps its token; a first login from this client gets a new device.
            let issued = deviceTokens.issue(account: username, device: device)
            return LoginResponse(
                statusCode: 200, message: .loginOK,
                user: .init(name: account.username, userToken: token.text, deviceToken: issued.token))
        }
    }

    /// `auth.exists`: rate-limited per client.
    public func exists(_ request: ExistsRequest, client: String) -> Single<ExistsResponse> {
        if let wait = throttle.withLock({ $0.admitExists(client: client, now: clock.now()) }) {
            count { $0.existsRateLimited += 1 }
            return .error(
                RemoteError(
                    code: .rateLimited,
                    message: "too many username checks; retry after \(Self.wholeMilliseconds(wait)) ms"))
        }
        let username = AuthRules.normalize(request.username)
        return store.exists(username: username).map { [self] exists in
            count { $0.existsAnswered += 1 }
            return ExistsResponse(exists: exists)
        }
    }

    /// `auth.verify`: the token's user, or `unauthenticated`.
    public func verify(_ request: VerifyRequest) -> Single<VerifyResponse> {
        guard let digest = try? Token.digest(of: request.token) else { return unauthenticated() }
        return store.session(digest: digest, now: clock.wallSeconds()).flatMap { [self] session in
            guard let session else { return unauthenticated() }
            count { $0.verified += 1 }
            return .just(VerifyResponse(name: session.username, expiresAt: session.expiresAt))
        }
    }

    /// `auth.logout`: revokes the token; answers after the commit.
    public func logout(_ request: LogoutRequest) -> Single<LogoutResponse> {
        guard let digest = try? Token.digest(of: request.token) else {
            return .just(LogoutResponse(revoked: false))
        }
        return store.session(digest: digest, now: clock.wallSeconds()).flatMap { [self] session in
            store.revokeSession(digest: digest, now: clock.wallSeconds()).map { [self] revoked in
                if revoked, let session {
                    count { $0.logouts += 1 }
                    emit(.loggedOut, session.username, nil)
                }
                return LogoutResponse(revoked: revoked)
            }
        }
    }

    /// Deletes expired sessions (the service calls this periodically).
    public func removeExpiredSessions() -> Single<Int> {
        store.removeExpiredSessions(now: clock.wallSeconds())
    }

    // MARK: Helpers

    private func refuse<T>(_ violation: AuthRules.Violation) -> Single<T> {
        count { $0.badRequests += 1 }
        return .error(RemoteError(code: .badRequest, message: violation.description))
    }

    private func unauthenticated<T>() -> Single<T> {
        count { $0.unauthenticated += 1 }
        return .error(RemoteError(code: .unauthenticated, message: "invalid or expired token"))
    }

    private func count(_ update: (inout Counters) -> Void) {
        counters_.withLock { update(&$0) }
    }

    private func emit(_ kind: AccountEvent.Kind, _ username: String, _ client: String?) {
        let milliseconds = Int64(Date().timeIntervalSince1970 * 1_000)
        let event = AccountEvent(kind: kind, username: username, client: client, at: milliseconds)
        emitting.withLock { _ in events_.onNext(event) }
    }

    /// Runs `body` in a task; disposing cancels the task (a queued hash is then dropped).
    /// Pool and store errors become the protocol's codes.
    private func asyncSingle<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) -> Single<T> {
        Single.create { [self] done in
            let task = Task {
                do {
                    done(.success(try await body()))
                } catch let error as HashingPoolError {
                    done(.failure(translate(error)))
                } catch let error as RemoteError {
                    if error.code == .overloaded { count { $0.overloaded += 1 } }
                    done(.failure(error))
                } catch {
                    done(.failure(RemoteError(code: .internal, message: "auth failed: \(error)")))
                }
            }
            return Disposables.create { task.cancel() }
        }
    }

    private func translate(_ error: HashingPoolError) -> RemoteError {
        switch error {
        case .overloaded:
            count { $0.overloaded += 1 }
            return RemoteError(
                code: .overloaded, message: "too many password checks in progress; retry later")
        case .shutDown: return RemoteError(code: .unavailable, message: "the service is stopping")
        case .cancelled: return RemoteError(code: .internal, message: "cancelled")
        case .hashingFailed: return RemoteError(code: .internal, message: "password hashing failed")
        }
    }

    private static func wholeSeconds(_ duration: Duration) -> Int {
        max(
            1,
            Int(
                (Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
                    .rounded(.up)))
    }

    private static func wholeMilliseconds(_ duration: Duration) -> Int {
        max(
            1,
            Int(duration.components.seconds) * 1_000
                + Int(duration.components.attoseconds / 1_000_000_000_000_000))
    }
}
