/// How hard the auth service pushes back on guessing (docs/services/auth.md, "Throttling").
public struct ThrottlePolicy: Sendable, Hashable {
    /// Failed logins one client may make on one account before delays start.
    public var freeFailures: Int
    /// The first delay; each further failure doubles it.
    public var baseDelay: Duration
    /// The longest delay.
    public var maximumDelay: Duration
    /// Failed logins of one client on one account that lock that client out of it.
    public var lockAfter: Int
    /// How long such a lock lasts.
    public var lockDuration: Duration
    /// A client's failures on an account are forgotten after this long without a new one.
    public var failureMemory: Duration
    /// Failed logins one client may make per minute, over all accounts (password spraying).
    public var clientFailuresPerMinute: Int
    /// Attempts one account takes from clients without a device token for it, over all of them,
    /// before its budget runs dry: the burst of the account's token bucket.
    public var accountFreeFailures: Int
    /// How fast an account's budget grows back once spent, in attempts per minute.
    public var accountFailuresPerMinute: Int
    /// `auth.exists` requests one client may make per second, on average.
    public var existsPerSecond: Int
    /// `auth.exists` requests one client may make in a burst.
    public var existsBurst: Int
    /// The most clients and account/client pairs remembered; past it, the oldest are forgotten.
    public var maximumTracked: Int
    /// How long an admitted attempt counts as in flight at most, where throttle state is shared by
    /// several processes (``PostgresLoginThrottle``): a process that dies mid-attempt never records
    /// it, so its mark lapses this long after the pair's latest admission. ``ThrottleState`` (one
    /// process, which records every attempt it admitted) keeps marks until they are recorded.
    public var inFlightExpiry: Duration

    /// The defaults.
    public init(
        freeFailures: Int = 3, baseDelay: Duration = .seconds(1), maximumDelay: Duration = .seconds(60),
        lockAfter: Int = 10, lockDuration: Duration = .seconds(15 * 60),
        failureMemory: Duration = .seconds(60 * 60), clientFailuresPerMinute: Int = 30,
        accountFreeFailures: Int = 10, accountFailuresPerMinute: Int = 3,
        existsPerSecond: Int = 50, existsBurst: Int = 100, maximumTracked: Int = 100_000,
        inFlightExpiry: Duration = .seconds(60)
    ) {
        self.freeFailures = freeFailures
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.lockAfter = lockAfter
        self.lockDuration = lockDuration
        self.failureMemory = failureMemory
        self.clientFailuresPerMinute = clientFailuresPerMinute
        self.accountFreeFailures = accountFreeFailures
        self.accountFailuresPerMinute = accountFailuresPerMinute
        self.existsPerSecond = existsPerSecond
        self.existsBurst = existsBurst
        self.maximumTracked = maximumTracked
        self.inFlightExpiry = inFlightExpiry
    }
}

/// Who a login attempt comes from, as the throttle sees it.
public enum LoginOrigin: Sendable, Hashable {
    /// A client with no proof of an earlier login to the account: its identity (the end client the
    /// gateway names, else the connection's routing id). Its attempts are charged to the account's
    /// shared budget.
    case client(String)
    /// A device that proved an earlier login to the account with a valid device token
    /// (``DeviceTokens``), by its id: never charged to nor refused by the account's shared budget,
    /// only by its own per-client limits.
    case device(String)

    /// Whether the origin's attempts are charged to the account's shared budget.
    var sharesAccountBudget: Bool {
        if case .client = self { return true }
        return false
    }
}

/// The throttling state of the auth service: a pure state machine over an injected clock, so every
/// rule is unit-tested without waiting. The origin of an attempt (``LoginOrigin``) is a client, or
/// a device that proved an earlier login to the account.
///
/// - **Per account, per origin.** An origin's failed logins on one account are free up to
///   ``ThrottlePolicy/freeFailures``; after that each attempt must wait a delay that doubles from
///   ``ThrottlePolicy/baseDelay`` to ``ThrottlePolicy/maximumDelay`` after the last failure, and
///   after ``ThrottlePolicy/lockAfter`` failures the origin is locked out of that account for
///   ``ThrottlePolicy/lockDuration``. Success clears the pair.
///
///   An admitted attempt is *in flight* until it is recorded as a failure, a success or abandoned,
///   and counts as a failure until then: a client that sends many attempts at once gets the free
///   ones and is delayed for the rest, as if it had sent them one after another.
///
///   Keying by the pair is what keeps the lock from being a weapon: an attacker locks *their own*
///   client out of the account, never the real user, who comes from another client. (Through the
///   gateway, the client is the gateway's end client, which it names in the request.)
/// - **Per account, over every client: the shared budget.** A client's identity is cheap (a new
///   connection is a new one), so the pairs alone would give each reconnect fresh free failures.
///   Every attempt of a ``LoginOrigin/client(_:)`` takes a token from the account's bucket of
///   ``ThrottlePolicy/accountFreeFailures``, refilled at ``ThrottlePolicy/accountFailuresPerMinute``;
///   when it is empty the attempt is ``Admission/budgetSpent(retryAfter:)``, whoever sends it. A
///   ``LoginOrigin/device(_:)`` is neither charged nor refused by it, so the owner's devices log in
///   while an attacker has spent the budget. The bucket is kept for every name tried, existing or
///   not, so it behaves the same for unknown users.
/// - **Per origin, over all accounts.** At most ``ThrottlePolicy/clientFailuresPerMinute`` failed
///   logins a minute (a token bucket), which stops one client spraying a password over many
///   accounts.
///
///   Admission takes the origin's token and, for a client, the account's; a success or an
///   abandoned attempt gives them back.
/// - **`auth.exists`, per client.** A token bucket of ``ThrottlePolicy/existsBurst`` refilled at
///   ``ThrottlePolicy/existsPerSecond``.
///
/// Memory is bounded: past ``ThrottlePolicy/maximumTracked`` entries, entries back at rest are
/// dropped first, then the least recently seen (for the accounts' budgets: the least spent).
public struct ThrottleState: Sendable {
    /// Whether a login attempt may go ahead.
    public enum Admission: Sendable, Hashable {
        /// Go ahead: look the account up and verify.
        case allowed
        /// Refused without verifying: retry after the duration; `locked` when the origin is locked
        /// out of the account rather than delayed.
        case throttled(retryAfter: Duration, locked: Bool)
        /// Refused without verifying: the account's shared budget is spent for clients without a
        /// device token for it; one more attempt grows back after the duration.
        case budgetSpent(retryAfter: Duration)
    }

    struct Pair: Hashable, Sendable {
        let account: String
        let origin: LoginOrigin
    }

    struct PairState: Sendable {
        var failures = 0
        var lastFailure: ContinuousClock.Instant
        var lockedUntil: ContinuousClock.Instant?
        /// Admitted attempts not yet recorded (failure, success or abandoned).
        var inFlight = 0
    }

    struct Bucket: Sendable {
        var tokens: Double
        var updated: ContinuousClock.Instant

        /// Refills at `rate` tokens per second up to `capacity`, then takes one if there is one.
        mutating func take(at now: ContinuousClock.Instant, rate: Double, capacity: Double) -> Bool {
            refill(at: now, rate: rate, capacity: capacity)
            guard tokens >= 1 else { return false }
            tokens -= 1
            return true
        }

        mutating func refill(at now: ContinuousClock.Instant, rate: Double, capacity: Double) {
            let elapsed = Self.seconds(now - updated)
            tokens = min(capacity, tokens + max(0, elapsed) * rate)
            updated = now
        }

        /// The tokens there would be at `now`.
        func refilled(at now: ContinuousClock.Instant, rate: Double, capacity: Double) -> Double {
            var bucket = self
            bucket.refill(at: now, rate: rate, capacity: capacity)
            return bucket.tokens
        }

        /// Seconds until one token is back.
        func wait(rate: Double) -> Duration {
            guard tokens < 1, rate > 0 else { return .zero }
            return .milliseconds(Int(((1 - tokens) / rate * 1_000).rounded(.up)))
        }

        static func seconds(_ duration: Duration) -> Double {
            let (seconds, attoseconds) = duration.components
            return Double(seconds) + Double(attoseconds) / 1e18
        }
    }

    /// The policy.
    public let policy: ThrottlePolicy
    private(set) var pairs: [Pair: PairState] = [:]
    private(set) var clientFailures: [LoginOrigin: Bucket] = [:]
    /// The accounts' shared budgets, by (normalized) name tried.
    private(set) var accounts: [String: Bucket] = [:]
    private(set) var existsRequests: [String: Bucket] = [:]

    /// A state with nothing remembered.
    public init(policy: ThrottlePolicy = ThrottlePolicy()) {
        self.policy = policy
    }

    private var failureRate: Double { Double(policy.clientFailuresPerMinute) / 60 }
    private var accountRate: Double { Double(policy.accountFailuresPerMinute) / 60 }
    private var accountCapacity: Double { Double(policy.accountFreeFailures) }

    /// Whether `origin` may try to log in to `account` at `now`. An allowed attempt is in flight (it
    /// counts as a failure and holds one of the origin's failure tokens, and for a client one of the
    /// account's) until it is recorded with ``recordFailure(account:from:now:)``,
    /// ``recordSuccess(account:from:)`` or ``recordAbandoned(account:from:)``; every allowed
    /// attempt must be recorded once.
    public mutating func admitLogin(account: String, from origin: LoginOrigin, now: ContinuousClock.Instant)
        -> Admission
    {
        let key = Pair(account: account, origin: origin)
        if let state = pairs[key] {
            if let until = state.lockedUntil, now < until {
                return .throttled(retryAfter: until - now, locked: true)
            }
            if let delay = delay(after: state.failures), state.lastFailure + delay > now,
                now - state.lastFailure < policy.failureMemory
            {
                return .throttled(retryAfter: state.lastFailure + delay - now, locked: false)
            }
            // Attempts in flight may all fail: past the free ones, wait for them to be recorded.
            if state.inFlight > 0, let delay = delay(after: liveFailures(state, now: now) + state.inFlight) {
                return .throttled(retryAfter: delay, locked: false)
            }
        }
        // The account's budget is looked at before the origin's token is taken, and taken after.
        var budget: Bucket?
        if origin.sharesAccountBudget {
            var bucket = accounts[account] ?? Bucket(tokens: accountCapacity, updated: now)
            bucket.refill(at: now, rate: accountRate, capacity: accountCapacity)
            guard bucket.tokens >= 1 else {
                accounts[account] = bucket
                return .budgetSpent(retryAfter: max(bucket.wait(rate: accountRate), .milliseconds(1)))
            }
            budget = bucket
        }
        let capacity = Double(policy.clientFailuresPerMinute)
        var bucket = clientFailures[origin] ?? Bucket(tokens: capacity, updated: now)
        let admitted = bucket.take(at: now, rate: failureRate, capacity: capacity)
        clientFailures[origin] = bucket
        guard admitted else { return .throttled(retryAfter: bucket.wait(rate: failureRate), locked: false) }
        if var budget {
            budget.tokens -= 1
            accounts[account] = budget
        }
        pairs[key, default: PairState(lastFailure: now)].inFlight += 1
        bound(now: now)
        return .allowed
    }

    /// ``admitLogin(account:from:now:)`` for a client without a device token.
    public mutating func admitLogin(account: String, client: String, now: ContinuousClock.Instant)
        -> Admission
    {
        admitLogin(account: account, from: .client(client), now: now)
    }

    /// Records a failed login (its tokens were taken when it was admitted); returns true when it
    /// locked the origin out of the account.
    @discardableResult
    public mutating func recordFailure(
        account: String, from origin: LoginOrigin, now: ContinuousClock.Instant
    )
        -> Bool
    {
        let key = Pair(account: account, origin: origin)
        var state = pairs[key] ?? PairState(lastFailure: now)
        let inFlight = max(0, state.inFlight - 1)
        if liveFailures(state, now: now) == 0 {
            state = PairState(lastFailure: now)  // forgotten, or a lock served: start again
        }
        state.inFlight = inFlight
        state.failures += 1
        state.lastFailure = now
        var lockedNow = false
        if state.failures >= policy.lockAfter {
            state.lockedUntil = now + policy.lockDuration
            lockedNow = true
        }
        pairs[key] = state
        bound(now: now)
        return lockedNow
    }

    /// ``recordFailure(account:from:now:)`` for a client without a device token.
    @discardableResult
    public mutating func recordFailure(account: String, client: String, now: ContinuousClock.Instant) -> Bool
    {
        recordFailure(account: account, from: .client(client), now: now)
    }

    /// Records a successful login: the origin's failures on the account are cleared, and its
    /// tokens are given back.
    public mutating func recordSuccess(account: String, from origin: LoginOrigin) {
        pairs[Pair(account: account, origin: origin)] = nil
        giveBackTokens(account: account, origin: origin)
    }

    /// ``recordSuccess(account:from:)`` for a client without a device token.
    public mutating func recordSuccess(account: String, client: String) {
        recordSuccess(account: account, from: .client(client))
    }

    /// Records an admitted attempt that ended without an answer (overload, a storage error, the
    /// caller went away): it is no longer in flight, and its tokens are given back.
    public mutating func recordAbandoned(account: String, from origin: LoginOrigin) {
        let key = Pair(account: account, origin: origin)
        if var state = pairs[key] {
            state.inFlight = max(0, state.inFlight - 1)
            pairs[key] = state.failures == 0 && state.inFlight == 0 ? nil : state
        }
        giveBackTokens(account: account, origin: origin)
    }

    /// ``recordAbandoned(account:from:)`` for a client without a device token.
    public mutating func recordAbandoned(account: String, client: String) {
        recordAbandoned(account: account, from: .client(client))
    }

    private mutating func giveBackTokens(account: String, origin: LoginOrigin) {
        if var bucket = clientFailures[origin] {
            bucket.tokens = min(Double(policy.clientFailuresPerMinute), bucket.tokens + 1)
            clientFailures[origin] = bucket
        }
        if origin.sharesAccountBudget, var budget = accounts[account] {
            budget.tokens = min(accountCapacity, budget.tokens + 1)
            accounts[account] = budget
        }
    }

    /// The failures of `state` that still count at `now`: none once forgotten or once a lock is served.
    private func liveFailures(_ state: PairState, now: ContinuousClock.Instant) -> Int {
        let forgotten = now - state.lastFailure >= policy.failureMemory
        let served = state.lockedUntil.map { now >= $0 } == true
        return forgotten || served ? 0 : state.failures
    }

    /// Whether `client` may make one more `auth.exists` request at `now` (and counts it); nil when
    /// allowed, else how long to wait.
    public mutating func admitExists(client: String, now: ContinuousClock.Instant) -> Duration? {
        let rate = Double(policy.existsPerSecond)
        var bucket = existsRequests[client] ?? Bucket(tokens: Double(policy.existsBurst), updated: now)
        let allowed = bucket.take(at: now, rate: rate, capacity: Double(policy.existsBurst))
        existsRequests[client] = bucket
        bound(now: now)
        return allowed ? nil : max(bucket.wait(rate: rate), .milliseconds(1))
    }

    /// The delay after `failures` failures, or nil while they are free.
    func delay(after failures: Int) -> Duration? {
        guard failures >= policy.freeFailures else { return nil }
        let doublings = min(failures - policy.freeFailures, 30)
        let delay = policy.baseDelay * (1 << doublings)
        return min(delay, policy.maximumDelay)
    }

    /// The number of entries remembered (pairs, failure buckets, account budgets, exists buckets).
    public var trackedCount: Int {
        pairs.count + clientFailures.count + accounts.count + existsRequests.count
    }

    /// Keeps memory bounded: entries at rest go first, then the least recently seen; of the
    /// accounts' budgets, the least spent (so that a flood of names tried once cannot push out the
    /// budget of an account under attack).
    private mutating func bound(now: ContinuousClock.Instant) {
        guard trackedCount > policy.maximumTracked else { return }
        let failureCapacity = Double(policy.clientFailuresPerMinute)
        let existsCapacity = Double(policy.existsBurst)
        let failureRate = self.failureRate
        let accountCapacity = self.accountCapacity
        let accountRate = self.accountRate
        let existsRate = Double(policy.existsPerSecond)
        pairs = pairs.filter { _, state in
            if state.inFlight > 0 { return true }
            if let until = state.lockedUntil { return now < until }
            return now - state.lastFailure < policy.failureMemory
        }
        clientFailures = clientFailures.filter { _, bucket in
            bucket.refilled(at: now, rate: failureRate, capacity: failureCapacity) < failureCapacity
        }
        accounts = accounts.filter { _, bucket in
            bucket.refilled(at: now, rate: accountRate, capacity: accountCapacity) < accountCapacity
        }
        existsRequests = existsRequests.filter { _, bucket in
            bucket.refilled(at: now, rate: existsRate, capacity: existsCapacity) < existsCapacity
        }
        guard trackedCount > policy.maximumTracked else { return }
        // Still too many live entries (a flood of distinct names): keep half, a quarter of it each.
        let quarter = policy.maximumTracked / 8
        pairs = Dictionary(
            uniqueKeysWithValues: pairs.sorted { $0.value.lastFailure > $1.value.lastFailure }.prefix(quarter)
                .map { ($0.key, $0.value) })
        clientFailures = Dictionary(
            uniqueKeysWithValues: clientFailures.sorted { $0.value.updated > $1.value.updated }.prefix(
                quarter
            )
            .map { ($0.key, $0.value) })
        accounts = Dictionary(
            uniqueKeysWithValues: accounts.map {
                (
                    key: $0.key, value: $0.value,
                    left: $0.value.refilled(at: now, rate: accountRate, capacity: accountCapacity)
                )
            }
            .sorted { $0.left < $1.left }.prefix(quarter)
            .map { ($0.key, $0.value) })
        existsRequests = Dictionary(
            uniqueKeysWithValues: existsRequests.sorted { $0.value.updated > $1.value.updated }.prefix(
                quarter
            )
            .map { ($0.key, $0.value) })
    }
}
