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
    /// `auth.exists` requests one client may make per second, on average.
    public var existsPerSecond: Int
    /// `auth.exists` requests one client may make in a burst.
    public var existsBurst: Int
    /// The most clients and account/client pairs remembered; past it, the oldest are forgotten.
    public var maximumTracked: Int

    /// The defaults.
    public init(
        freeFailures: Int = 3, baseDelay: Duration = .seconds(1), maximumDelay: Duration = .seconds(60),
        lockAfter: Int = 10, lockDuration: Duration = .seconds(15 * 60),
        failureMemory: Duration = .seconds(60 * 60), clientFailuresPerMinute: Int = 30,
        existsPerSecond: Int = 50, existsBurst: Int = 100, maximumTracked: Int = 100_000
    ) {
        self.freeFailures = freeFailures
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.lockAfter = lockAfter
        self.lockDuration = lockDuration
        self.failureMemory = failureMemory
        self.clientFailuresPerMinute = clientFailuresPerMinute
        self.existsPerSecond = existsPerSecond
        self.existsBurst = existsBurst
        self.maximumTracked = maximumTracked
    }
}

/// The throttling state of the auth service: a pure state machine over an injected clock, so every
/// rule is unit-tested without waiting.
///
/// - **Per account, per client.** A client's failed logins on one account are free up to
///   ``ThrottlePolicy/freeFailures``; after that each attempt must wait a delay that doubles from
///   ``ThrottlePolicy/baseDelay`` to ``ThrottlePolicy/maximumDelay`` after the last failure, and
///   after ``ThrottlePolicy/lockAfter`` failures the client is locked out of that account for
///   ``ThrottlePolicy/lockDuration``. Success clears the pair.
///
///   An admitted attempt is *in flight* until it is recorded as a failure, a success or abandoned,
///   and counts as a failure until then: a client that sends many attempts at once gets the free
///   ones and is delayed for the rest, as if it had sent them one after another.
///
///   Keying by the pair is what keeps the lock from being a weapon: an attacker locks *their own*
///   client out of the account, never the real user, who comes from another client. (Through the
///   gateway, the client is the gateway's end client, which it names in the request.)
/// - **Per client, over all accounts.** At most ``ThrottlePolicy/clientFailuresPerMinute`` failed
///   logins a minute (a token bucket), which stops one client spraying a password over many
///   accounts. Admission takes the token; a success or an abandoned attempt gives it back.
/// - **`auth.exists`, per client.** A token bucket of ``ThrottlePolicy/existsBurst`` refilled at
///   ``ThrottlePolicy/existsPerSecond``.
///
/// Memory is bounded: past ``ThrottlePolicy/maximumTracked`` entries, entries back at rest are
/// dropped first, then the least recently seen.
public struct ThrottleState: Sendable {
    /// Whether a login attempt may go ahead.
    public enum Admission: Sendable, Hashable {
        /// Go ahead: look the account up and verify.
        case allowed
        /// Refused without verifying: retry after the duration; `locked` when the client is locked
        /// out of the account rather than delayed.
        case throttled(retryAfter: Duration, locked: Bool)
    }

    struct Pair: Hashable, Sendable {
        let account: String
        let client: String
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
    private(set) var clientFailures: [String: Bucket] = [:]
    private(set) var existsRequests: [String: Bucket] = [:]

    /// A state with nothing remembered.
    public init(policy: ThrottlePolicy = ThrottlePolicy()) {
        self.policy = policy
    }

    private var failureRate: Double { Double(policy.clientFailuresPerMinute) / 60 }

    /// Whether `client` may try to log in to `account` at `now`. An allowed attempt is in flight
    /// (it counts as a failure and holds one of the client's failure tokens) until it is recorded
    /// with ``recordFailure(account:client:now:)``, ``recordSuccess(account:client:)`` or
    /// ``recordAbandoned(account:client:)``; every allowed attempt must be recorded once.
    public mutating func admitLogin(account: String, client: String, now: ContinuousClock.Instant)
        -> Admission
    {
        let key = Pair(account: account, client: client)
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
        let capacity = Double(policy.clientFailuresPerMinute)
        var bucket = clientFailures[client] ?? Bucket(tokens: capacity, updated: now)
        let admitted = bucket.take(at: now, rate: failureRate, capacity: capacity)
        clientFailures[client] = bucket
        guard admitted else { return .throttled(retryAfter: bucket.wait(rate: failureRate), locked: false) }
        pairs[key, default: PairState(lastFailure: now)].inFlight += 1
        bound(now: now)
        return .allowed
    }

    /// Records a failed login (its client's failure token was taken when it was admitted); returns
    /// true when it locked the client out of the account.
    @discardableResult
    public mutating func recordFailure(account: String, client: String, now: ContinuousClock.Instant) -> Bool
    {
        let key = Pair(account: account, client: client)
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

    /// Records a successful login: the client's failures on the account are cleared, and its
    /// failure token is given back.
    public mutating func recordSuccess(account: String, client: String) {
        pairs[Pair(account: account, client: client)] = nil
        giveBackToken(client)
    }

    /// Records an admitted attempt that ended without an answer (overload, a storage error, the
    /// caller went away): it is no longer in flight, and its failure token is given back.
    public mutating func recordAbandoned(account: String, client: String) {
        let key = Pair(account: account, client: client)
        if var state = pairs[key] {
            state.inFlight = max(0, state.inFlight - 1)
            pairs[key] = state.failures == 0 && state.inFlight == 0 ? nil : state
        }
        giveBackToken(client)
    }

    private mutating func giveBackToken(_ client: String) {
        guard var bucket = clientFailures[client] else { return }
        bucket.tokens = min(Double(policy.clientFailuresPerMinute), bucket.tokens + 1)
        clientFailures[client] = bucket
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

    /// The number of entries remembered (pairs, failure buckets, exists buckets).
    public var trackedCount: Int { pairs.count + clientFailures.count + existsRequests.count }

    /// Keeps memory bounded: entries at rest go first, then the least recently seen.
    private mutating func bound(now: ContinuousClock.Instant) {
        guard trackedCount > policy.maximumTracked else { return }
        let failureCapacity = Double(policy.clientFailuresPerMinute)
        let existsCapacity = Double(policy.existsBurst)
        let failureRate = self.failureRate
        let existsRate = Double(policy.existsPerSecond)
        pairs = pairs.filter { _, state in
            if state.inFlight > 0 { return true }
            if let until = state.lockedUntil { return now < until }
            return now - state.lastFailure < policy.failureMemory
        }
        clientFailures = clientFailures.filter { _, bucket in
            var bucket = bucket
            bucket.refill(at: now, rate: failureRate, capacity: failureCapacity)
            return bucket.tokens < failureCapacity
        }
        existsRequests = existsRequests.filter { _, bucket in
            var bucket = bucket
            bucket.refill(at: now, rate: existsRate, capacity: existsCapacity)
            return bucket.tokens < existsCapacity
        }
        guard trackedCount > policy.maximumTracked else { return }
        // Still too many live entries (a flood of distinct names): keep the most recent half.
        let keep = policy.maximumTracked / 2
        pairs = Dictionary(
            uniqueKeysWithValues: pairs.sorted { $0.value.lastFailure > $1.value.lastFailure }.prefix(
                keep / 2
            )
            .map { ($0.key, $0.value) })
        clientFailures = Dictionary(
            uniqueKeysWithValues: clientFailures.sorted { $0.value.updated > $1.value.updated }.prefix(
                keep / 4
            )
            .map { ($0.key, $0.value) })
        existsRequests = Dictionary(
            uniqueKeysWithValues: existsRequests.sorted { $0.value.updated > $1.value.updated }.prefix(
                keep / 4
            )
            .map { ($0.key, $0.value) })
    }
}
