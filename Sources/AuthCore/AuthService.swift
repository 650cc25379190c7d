public import Contracts
import Foundation
public import Reactive
import RemoteProtocol
public import RemoteStreams
public import Sodium
import Synchronization
public import ZeroMQ

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

/// The actor auth-service's mutable state lives in: the login throttle and the account events'
/// subject. Its executor is an event loop of the process (shard 0's), so a request of that shard is
/// admitted, and its verdict recorded and published, without a lock and without leaving that
/// thread; the blocking work in between (SQLite, argon2id) runs on the store's and the hashing
/// pool's threads, and its outcomes come back in one drain per turn of the loop.
///
/// There is one per process, whatever the number of shards: the throttle and the events must see
/// every login (N shards must not give an attacker N times the guesses, and an `auth.events`
/// subscriber must see every event). The ``AuthService`` of another shard schedules its throttle
/// and event steps onto this actor (one hop per drain) and answers on its own loop.
public actor AuthGraphs {
    /// The loop whose executor this actor runs on.
    public nonisolated let loop: SocketLoop
    /// Throttling and rate limits (docs/security/throttling.md): the logins' unless they are
    /// ``shared``, and `auth.exists`'s always.
    var throttle: ThrottleState
    /// Where logins are throttled when the state is shared by several processes (PostgreSQL), else
    /// nil: ``throttle``.
    nonisolated let shared: (any SharedLoginThrottle)?
    /// Account events, sent only from the actor (so an observer is never entered twice at once).
    nonisolated let events = PublishSubject<AccountEvent>()

    /// An actor on `loop`'s executor, throttling logins by `policy` in the process, or through
    /// `shared` when the state is shared by several processes (PostgreSQL).
    public init(on loop: SocketLoop, policy: ThrottlePolicy, shared: (any SharedLoginThrottle)? = nil) {
        self.loop = loop
        throttle = ThrottleState(policy: policy)
        self.shared = shared
    }

    public nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor.asUnownedSerialExecutor() }

    /// Where an admission stands once asked for.
    enum AdmissionStep {
        /// Decided here, at once.
        case decided(ThrottleState.Admission)
        /// Asked of the shared throttle: its answer goes to ``finishAdmission(_:_:)``.
        case asking(Single<ThrottleState.Admission>)
        /// The attempt was disposed first: nothing was taken.
        case gone
    }

    /// Admits `attempt` (here, or by asking the shared throttle) unless it was disposed first.
    func admit(_ attempt: LoginAttempt, now: ContinuousClock.Instant) -> AdmissionStep {
        guard attempt.phase == .pending else { return .gone }
        if let shared {
            attempt.phase = .admitting
            return .asking(shared.admit(account: attempt.account, from: attempt.origin))
        }
        let admission = throttle.admitLogin(account: attempt.account, from: attempt.origin, now: now)
        attempt.phase = admission == .allowed ? .inFlight : .settled
        return .decided(admission)
    }

    /// The shared throttle's answer to an attempt's admission: nil when the attempt was disposed
    /// meanwhile (an admission it got is then given back at once).
    func finishAdmission(_ attempt: LoginAttempt, _ answer: SingleEvent<ThrottleState.Admission>)
        -> SingleEvent<ThrottleState.Admission>?
    {
        switch attempt.phase {
        case .admitting:
            if case .success(.allowed) = answer {
                attempt.phase = .inFlight
            } else {
                attempt.phase = .settled
            }
            return answer
        case .leftWhileAdmitting:
            attempt.phase = .settled
            if case .success(.allowed) = answer, let shared {
                Self.send(shared.recordAbandoned(account: attempt.account, from: attempt.origin))
            }
            return nil
        case .pending, .inFlight, .settled:
            return nil
        }
    }

    /// What recording a verdict did.
    enum Settlement {
        /// Recorded: whether a failure locked its origin out.
        case recorded(locked: Bool)
        /// Being recorded by the shared throttle: it answers whether a failure locked the origin out
        /// (false when it could not be recorded: the attempt's in-flight mark then lapses instead).
        case recording(Single<Bool>)
    }

    /// Records the verdict of an attempt in flight.
    func settle(_ attempt: LoginAttempt, succeeded: Bool, now: ContinuousClock.Instant) -> Settlement {
        guard attempt.phase == .inFlight else { return .recorded(locked: false) }
        attempt.phase = .settled
        if let shared {
            if succeeded {
                // Waited for, like a failure: a client that has its answer finds its attempt no longer
                // in flight and its tokens back, on every replica.
                return .recording(
                    shared.recordSuccess(account: attempt.account, from: attempt.origin).map { false }
                        .catch { _ in .just(false) })
            }
            return .recording(
                shared.recordFailure(account: attempt.account, from: attempt.origin).catch { _ in .just(false)
                })
        }
        if succeeded {
            throttle.recordSuccess(account: attempt.account, from: attempt.origin)
            return .recorded(locked: false)
        }
        return .recorded(
            locked: throttle.recordFailure(account: attempt.account, from: attempt.origin, now: now))
    }

    /// An attempt that ends without a verdict (an error, or its caller went away): it is no longer
    /// in flight and gives its tokens back; one not admitted yet never will be.
    func abandon(_ attempt: LoginAttempt) {
        switch attempt.phase {
        case .pending: attempt.phase = .settled
        case .admitting: attempt.phase = .leftWhileAdmitting
        case .inFlight:
            attempt.phase = .settled
            if let shared {
                Self.send(shared.recordAbandoned(account: attempt.account, from: attempt.origin))
            } else {
                throttle.recordAbandoned(account: attempt.account, from: attempt.origin)
            }
        case .leftWhileAdmitting, .settled: break
        }
    }

    /// Runs a record of the shared throttle whose answer nobody waits for (it gives tokens back or
    /// clears a pair; if it fails, the attempt's in-flight mark lapses instead).
    private static func send(_ record: Single<Void>) {
        _ = record.subscribe { _ in }
    }

    /// Sends an account event.
    func emit(_ kind: AccountEvent.Kind, _ username: String, _ client: String?) {
        let milliseconds = Int64(Date().timeIntervalSince1970 * 1_000)
        events.onNext(AccountEvent(kind: kind, username: username, client: client, at: milliseconds))
    }
}

/// One login attempt as the throttle sees it. Its phase is read and written only on the
/// ``AuthGraphs`` actor.
final class LoginAttempt: Sendable {
    /// Where the attempt is in its life.
    enum Phase: Sendable {
        /// Not admitted yet.
        case pending
        /// Asked of the shared throttle, no answer yet.
        case admitting
        /// Disposed while the shared throttle was asked: an admission that comes back is given
        /// back at once.
        case leftWhileAdmitting
        /// Admitted: it counts as a failure until it is settled or abandoned.
        case inFlight
        /// Refused, recorded or abandoned: nothing more to do.
        case settled
    }

    let account: String
    let origin: LoginOrigin
    private let phase_ = Mutex(Phase.pending)

    init(account: String, origin: LoginOrigin) {
        self.account = account
        self.origin = origin
    }

    /// The phase (uncontended: only the actor touches it).
    var phase: Phase {
        get { phase_.withLock { $0 } }
        set { phase_.withLock { $0 = newValue } }
    }
}

/// The auth service's logic, behind the remote-streams methods of docs/services/auth.md.
///
/// Every method answers a `Single`, built as a graph: the state it reads and writes (throttling,
/// events) is the ``AuthGraphs`` actor's, on the service's event loop; the work that blocks runs
/// elsewhere: argon2id on the ``PasswordHashingPool``'s threads, SQLite on the store's threads. No
/// task and no cooperative thread is on a request's path, and nothing here blocks the loop. Login
/// never tells an unknown user from a wrong password: both get the same answer after the same work
/// (an unknown user is verified against a dummy hash of the same cost), and the same throttling,
/// the account's shared budget included (``ThrottleState``). A successful login answers a device
/// token (``DeviceTokens``) that later logins of that client present to keep an allowance of their
/// own.
public final class AuthService: Sendable {
    /// Counters for `sys.stats`.
    public struct Counters: Sendable, Hashable, Codable {
        /// Accounts registered.
        public var registered = 0
        /// Registrations refused because the name was taken.
        public var registrationsTaken = 0
        /// Registrations answered as the repeat of an earlier one with the same request id.
        public var registrationsRepeated = 0
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
            case registrationsRepeated = "registrations_repeated"
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
    private let graphs: AuthGraphs
    private let scheduler: LoopBound<AuthGraphs>
    /// The shard's loop, where answers continue after a step on the graphs' actor, when that actor
    /// runs on another loop (nil: the same one, no hop).
    private let home: SocketLoop?
    /// Written on the actor, read by `sys.stats` from anywhere; no observer is called under it.
    private let counters_ = Mutex(Counters())

    /// A service over `store`, hashing on `hashing`, whose state lives in an ``AuthGraphs`` actor on
    /// `loop`'s executor: the process's event loop, which its caller owns and stops.
    ///
    /// Logins are throttled in the process (``ThrottleState``) unless `sharedThrottle` is given
    /// (the PostgreSQL store's ``PostgresLoginThrottle``, shared by every replica on the database);
    /// `auth.exists` is rate-limited in the process either way.
    public init(
        store: any AccountStore, hashing: PasswordHashingPool,
        configuration: AuthConfiguration = AuthConfiguration(),
        clock: AuthClock = .system, loop: SocketLoop,
        sharedThrottle: (any SharedLoginThrottle)? = nil
    ) {
        self.store = store
        self.hashing = hashing
        self.configuration = configuration
        self.clock = clock
        graphs = AuthGraphs(on: loop, policy: configuration.throttle, shared: sharedThrottle)
        scheduler = LoopBound(graphs, on: loop)
        home = nil
    }

    /// One shard's service over the process's `store` and `hashing` pool, whose throttle and account
    /// events are `state`'s (shared by every shard; its policy wins over `configuration.throttle`):
    /// the throttle and event steps are scheduled onto `state`'s loop, and the rest of each answer
    /// continues on `loop`, the shard's.
    public init(
        store: any AccountStore, hashing: PasswordHashingPool,
        configuration: AuthConfiguration = AuthConfiguration(),
        clock: AuthClock = .system, state: AuthGraphs, loop: SocketLoop
    ) {
        self.store = store
        self.hashing = hashing
        self.configuration = configuration
        self.clock = clock
        graphs = state
        scheduler = LoopBound(state, on: state.loop)
        home = state.loop === loop ? nil : loop
    }

    /// The counters so far.
    public var counters: Counters { counters_.withLock { $0 } }

    /// Account events as they happen (hot: no replay), for `auth.events`. They are delivered on the
    /// service's event loop.
    public var events: Observable<AccountEvent> { graphs.events.asObservable() }

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

    /// The longest `request_id` of `auth.register`, in UTF-8 bytes.
    public static let maximumRequestIDBytes = 128

    /// `auth.register`: checks the rules, hashes, stores; answers after the commit.
    public func register(_ request: RegisterRequest, client: String) -> Single<RegisterResponse> {
        let rules = configuration.rules
        let username: String
        switch rules.checkUsername(request.username) {
        case .failure(let violation): return refuse(violation)
        case .success(let normalized): username = normalized
        }
        if let violation = rules.checkPassword(request.password) { return refuse(violation) }
        let requestID = request.requestID
        if let requestID, requestID.utf8.count > Self.maximumRequestIDBytes {
            count { $0.badRequests += 1 }
            return .error(
                RemoteError(
                    code: .badRequest,
                    message: "request_id is longer than \(Self.maximumRequestIDBytes) bytes"))
        }
        let password = Array(AuthRules.normalizePassword(request.password).utf8)
        let trace = TraceParent.current
        return hashing.hashing(password: password, cost: configuration.cost)
            .traced("argon2id hash", under: trace)
            .flatMap { [self] hash in
                store.createAccount(
                    username: username, passwordHash: hash, createdAt: clock.wallSeconds(),
                    registrationKey: requestID
                )
                .traced("store commit", under: trace)
            }
            .flatMap { [self] outcome in
                onGraphs { graphs in
                    switch outcome {
                    case .created:
                        self.count { $0.registered += 1 }
                        graphs.emit(.registered, username, client)
                        return RegisterResponse(statusCode: 201, message: .registerOK, username: username)
                    case .repeated:
                        // The account this very registration created: answered as it was then.
                        self.count { $0.registrationsRepeated += 1 }
                        return RegisterResponse(statusCode: 201, message: .registerOK, username: username)
                    case .taken:
                        self.count { $0.registrationsTaken += 1 }
                        return RegisterResponse(statusCode: 409, message: .usernameExists, username: username)
                    }
                }
            }
            .catch { [self] error in .error(translate(error)) }
    }

    /// `auth.login`: throttling first, then the same work for every name (see the type's doc). The
    /// attempt is admitted when the answer is subscribed to, so a single never subscribed to
    /// holds nothing in the throttle; one disposed before its verdict gives back what it took.
    public func login(_ request: LoginRequest, client: String) -> Single<LoginResponse> {
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
        let trace = TraceParent.current
        // A password over the limit cannot be right: verify an empty one against the dummy hash so
        // that it costs the same, without hashing megabytes.
        let plausible = configuration.rules.isPlausibleLogin(password: request.password)
        let password = plausible ? Array(AuthRules.normalizePassword(request.password).utf8) : []
        let verification = verifiedAccount(
            loginName == nil ? nil : username, password: password, plausible: plausible)
        let scheduler = self.scheduler
        return Single.create { [self] answered in
            let done = onHome(answered)
            let attempt = LoginAttempt(account: username, origin: origin)
            let steps = LoginTask()
            // Admitted on the actor, in order with every other step scheduled there (a disposal's
            // abandonment included); the rest runs as one task on the graphs' loop: each blocking
            // step (the shared throttle, the store, argon2id) runs on its own threads and the task
            // re-enters the loop once when it ends. Disposing cancels the step under way and
            // abandons the attempt.
            scheduler.schedule(isolated: { graphs in
                let admission = graphs.admit(attempt, now: self.clock.now())
                if case .gone = admission { return }
                steps.start(on: graphs.loop.executor) {
                    let outcome = await self.login(
                        attempt, admission, graphs: graphs, verification: verification, client: client,
                        device: device, trace: trace)
                    if let outcome { done(outcome) }
                }
            })
            return Disposables.create {
                steps.cancel()
                scheduler.schedule(isolated: { graphs in graphs.abandon(attempt) })
            }
        }
    }

    /// A login from its admission's step to its answer, on the graphs' actor: the admission's
    /// answer, then the verification, then the verdict recorded, then (for the right password) the session
    /// committed, then the answer. Nil when the attempt was disposed first (nobody waits for an
    /// answer); whatever the attempt took is given back by ``AuthGraphs/abandon(_:)`` then.
    private func login(
        _ attempt: LoginAttempt, _ step: AuthGraphs.AdmissionStep, graphs: isolated AuthGraphs,
        verification: Single<StoredAccount?>, client: String, device: DeviceTokens.Device?, trace: TraceParent
    ) async -> SingleEvent<LoginResponse>? {
        let admission: ThrottleState.Admission
        switch step {
        case .gone: return nil
        case .decided(let decided): admission = decided
        case .asking(let asked):
            // Awaited whatever happens to the attempt meanwhile: an admission it got must be
            // given back (``AuthGraphs/finishAdmission(_:_:)``).
            switch graphs.finishAdmission(attempt, await Self.outcome(of: asked)) {
            case nil: return nil
            case .success(let answer): admission = answer
            case .failure(let error): return .failure(translate(error))
            }
        }
        switch admission {
        case .allowed: break
        case .throttled(let retryAfter, _), .budgetSpent(let retryAfter):
            count {
                $0.throttledLogins += 1
                if case .budgetSpent = admission { $0.budgetSpent += 1 }
            }
            return .success(
                LoginResponse(
                    statusCode: 429, message: .loginThrottled, retryAfter: Self.wholeSeconds(retryAfter)))
        }
        if device != nil { count { $0.deviceLogins += 1 } }
        let account: StoredAccount?
        do {
            account = try await verification.value
        } catch is CancellationError {
            return nil
        } catch {
            guard attempt.phase == .inFlight else { return nil }
            graphs.abandon(attempt)
            return .failure(translate(error))
        }
        guard attempt.phase == .inFlight else { return nil }
        let username = attempt.account
        guard let account else {
            let locked: Bool
            switch graphs.settle(attempt, succeeded: false, now: clock.now()) {
            case .recorded(let recorded): locked = recorded
            case .recording(let recording):
                guard let recorded = try? await recording.value, !Task.isCancelled else {
                    return Task.isCancelled
                        ? nil : .success(wrongPassword(graphs, username, client, locked: false))
                }
                locked = recorded
            }
            return .success(wrongPassword(graphs, username, client, locked: locked))
        }
        let recording: Single<Bool>? =
            switch graphs.settle(attempt, succeeded: true, now: clock.now()) {
            case .recorded: nil
            case .recording(let recording): recording
            }
        let token = Token.generate()
        let lifetime = Int64(configuration.tokenLifetime.components.seconds)
        // The same device keeps its token; a first login from this client gets a new device.
        let issued = configuration.deviceTokens.issue(account: username, device: device)
        let answer = LoginResponse(
            statusCode: 200, message: .loginOK,
            user: .init(name: account.username, userToken: token.text, deviceToken: issued.token))
        let expiresAt = clock.wallSeconds() + lifetime
        do {
            // The success is recorded first: a session that fails to commit still gave the tokens back.
            if let recording { _ = try await recording.value }
            try await store.addSession(digest: token.digest, accountID: account.id, expiresAt: expiresAt)
                .traced("store commit", under: trace).value
        } catch is CancellationError {
            return nil
        } catch {
            return .failure(translate(error))
        }
        count { $0.logins += 1 }
        graphs.emit(.loggedIn, username, client)
        return .success(answer)
    }

    /// A wrong password's answer, counted and published.
    private func wrongPassword(
        _ graphs: isolated AuthGraphs, _ username: String, _ client: String, locked: Bool
    )
        -> LoginResponse
    {
        count {
            $0.failedLogins += 1
            if locked { $0.locks += 1 }
        }
        graphs.emit(.failed, username, client)
        if locked { graphs.emit(.locked, username, client) }
        return LoginResponse(statusCode: 401, message: .loginWrongPassword)
    }

    /// `single`'s outcome, awaited without being cancelled with the awaiting task.
    private static func outcome<T: Sendable>(of single: Single<T>) async -> SingleEvent<T> {
        await withCheckedContinuation { continuation in
            _ = single.subscribe { event in continuation.resume(returning: event) }
        }
    }

    /// The account `username` names if `password` is its password, else nil, after one verification
    /// either way (against the dummy hash when there is no such account, no name, or no plausible
    /// password). Runs on the store's and the hashing pool's threads.
    private func verifiedAccount(_ username: String?, password: [UInt8], plausible: Bool) -> Single<
        StoredAccount?
    > {
        let hashing = self.hashing
        let cost = configuration.cost
        let trace = TraceParent.current
        let account: Single<StoredAccount?> = username.map { store.account(named: $0) } ?? .just(nil)
        return account.traced("store lookup", under: trace).flatMap { account in
            guard let account, plausible else {
                return hashing.verifyingDummy(password: password, cost: cost).map { _ in nil }
                    .traced("argon2id verify", under: trace)
            }
            return hashing.verifying(password: password, against: account.passwordHash).map {
                $0 ? account : nil
            }
            .traced("argon2id verify", under: trace)
        }
    }

    /// `auth.exists`: rate-limited per client.
    public func exists(_ request: ExistsRequest, client: String) -> Single<ExistsResponse> {
        let username = AuthRules.normalize(request.username)
        let now = clock.now()
        let admit: @Sendable (isolated AuthGraphs) -> Duration? = { graphs in
            graphs.throttle.admitExists(client: client, now: now)
        }
        // On the graphs' own loop (a request's handler of the shard that holds them) the rate limit
        // is read in place; from another shard, or off the loop, on the actor.
        if home == nil, let admitted = scheduler.runNow(isolated: admit) {
            return answerExists(username, wait: admitted)
        }
        return onGraphs(admit).flatMap { [self] wait in answerExists(username, wait: wait) }
    }

    /// `auth.exists` once the rate limit has answered: `rate_limited` with the wait, or the lookup.
    private func answerExists(_ username: String, wait: Duration?) -> Single<ExistsResponse> {
        if let wait {
            count { $0.existsRateLimited += 1 }
            return .error(
                RemoteError(
                    code: .rateLimited,
                    message: "too many username checks; retry after \(Self.wholeMilliseconds(wait)) ms"))
        }
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
            store.revokeSession(digest: digest, now: clock.wallSeconds()).flatMap { [self] revoked in
                onGraphs { graphs in
                    if revoked, let session {
                        self.count { $0.logouts += 1 }
                        graphs.emit(.loggedOut, session.username, nil)
                    }
                    return LogoutResponse(revoked: revoked)
                }
            }
        }
    }

    /// Deletes expired sessions (the service calls this periodically).
    public func removeExpiredSessions() -> Single<Int> {
        store.removeExpiredSessions(now: clock.wallSeconds())
    }

    // MARK: Helpers

    /// `body`'s result, computed on the actor: at once when the caller is already there, else in
    /// the loop's next drain (one for every outcome that arrived meanwhile).
    private func onGraphs<T: Sendable>(_ body: @escaping @Sendable (isolated AuthGraphs) -> T) -> Single<T> {
        let scheduler = self.scheduler
        // At once only when the answer may continue where it was computed (no other shard's home).
        if home == nil, let value = scheduler.runNow(isolated: body) { return .just(value) }
        return Single.create { [self] answered in
            let done = onHome(answered)
            scheduler.schedule(isolated: { graphs in done(.success(body(graphs))) })
            return Disposables.create()
        }
    }

    /// `done`, called on the shard's loop: the graphs' actor runs on another shard's loop, so what
    /// follows a step there (the store's call, the answer) goes back home first.
    private func onHome<T: Sendable>(
        _ done: @escaping @Sendable (SingleEvent<T>) -> Void
    ) -> @Sendable (SingleEvent<T>) -> Void {
        guard let home else { return done }
        return { event in
            if home.isLoopThread {
                done(event)
            } else if !home.execute({ done(event) }) {
                done(event)  // the loop has stopped: nobody waits on the answer's thread any more
            }
        }
    }

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

    /// Pool and store errors as the protocol's codes (overloads counted).
    private func translate(_ error: any Error) -> RemoteError {
        switch error {
        case let error as HashingPoolError:
            switch error {
            case .overloaded:
                count { $0.overloaded += 1 }
                return RemoteError(
                    code: .overloaded, message: "too many password checks in progress; retry later")
            case .shutDown: return RemoteError(code: .unavailable, message: "the service is stopping")
            case .cancelled: return RemoteError(code: .internal, message: "cancelled")
            case .hashingFailed: return RemoteError(code: .internal, message: "password hashing failed")
            }
        case let error as RemoteError:
            if error.code == .overloaded { count { $0.overloaded += 1 } }
            return error
        default:
            return RemoteError(code: .internal, message: "auth failed: \(error)")
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

/// The task that runs one login's steps after its admission, cancelled when the login is disposed
/// (also when that comes first: the task then starts cancelled).
private final class LoginTask: Sendable {
    private enum State {
        case waiting
        case running(Task<Void, Never>)
        case cancelled
    }

    private let state = Mutex(State.waiting)

    /// Starts `steps` on `executor` (the graphs' loop), cancelled at once if the login was disposed.
    func start(on executor: LoopExecutor, _ steps: sending @escaping @isolated(any) () async -> Void) {
        let task = Task(executorPreference: executor, operation: steps)
        let cancelled = state.withLock { state in
            guard case .waiting = state else { return true }
            state = .running(task)
            return false
        }
        if cancelled { task.cancel() }
    }

    /// Cancels the task, or the one still to start.
    func cancel() {
        let task = state.withLock { state -> Task<Void, Never>? in
            defer { state = .cancelled }
            if case .running(let task) = state { return task }
            return nil
        }
        task?.cancel()
    }
}
