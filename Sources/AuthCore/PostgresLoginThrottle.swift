import Postgres
public import Reactive

/// Login throttling whose state lives outside the process, shared by every auth-service replica
/// that uses it: ``ThrottleState``'s login rules, one call per transition. Each call answers once,
/// on a thread of the store's; ``AuthService`` brings the answers back to its event loop.
public protocol SharedLoginThrottle: Sendable {
    /// ``ThrottleState/admitLogin(account:from:now:)``.
    func admit(account: String, from origin: LoginOrigin) -> Single<ThrottleState.Admission>
    /// ``ThrottleState/recordFailure(account:from:now:)``: true when it locked the origin out.
    func recordFailure(account: String, from origin: LoginOrigin) -> Single<Bool>
    /// ``ThrottleState/recordSuccess(account:from:)``.
    func recordSuccess(account: String, from origin: LoginOrigin) -> Single<Void>
    /// ``ThrottleState/recordAbandoned(account:from:)``.
    func recordAbandoned(account: String, from origin: LoginOrigin) -> Single<Void>
    /// Deletes the entries back at rest (those that no longer change an answer); answers how many.
    func removeResting() -> Single<Int>
}

/// ``ThrottleState``'s login rules in PostgreSQL, so that N auth-service replicas on one database
/// give an attacker no more guesses than one (docs/security/throttling.md, "Several replicas").
///
/// - **One statement per transition.** Admission, failure, success and abandonment are each one
///   call of a PL/pgSQL function (schema version 2 of ``PostgresAccountStore``), run in a
///   transaction of its own: it locks the rows it reads (the account's budget, the origin's
///   failure bucket, then the pair, always in that order, creating them first when missing),
///   decides, writes and commits, so two replicas admitting attempts on one account are serialised
///   by the database and never both read the last token. Statements queued together travel in one
///   pipeline on the store's throttle thread (one round trip), each with its own sync.
/// - **The same arithmetic as ``ThrottleState``.** Instants are microseconds, token buckets double
///   precision with the same formulas, so on the same clock the answers are the same to the
///   microsecond (the differential test `PostgresLoginThrottleTests` runs both side by side).
/// - **Time** is the database's clock (`clock_timestamp()`), which every replica shares; `now`
///   replaces it in tests.
/// - **Attempts in flight expire.** An admitted attempt counts as a failure until it is recorded,
///   as in ``ThrottleState``; a replica that dies never records it, so the pair's marks lapse
///   ``ThrottlePolicy/inFlightExpiry`` after its latest admission.
/// - **Memory** is bounded by ``removeResting()`` (run periodically by auth-service under an
///   advisory lock, one replica at a time) instead of ``ThrottlePolicy/maximumTracked``.
/// - **The policy** travels with every call, from each replica's own flags. The one the replicas
///   should agree on is the one row of `throttle_policy` (schema version 3), which
///   ``ThrottlePolicyCheck`` writes at start and compares with this replica's.
public final class PostgresLoginThrottle: SharedLoginThrottle {
    private let store: PostgresAccountStore
    /// The policy this replica passes with every statement.
    let policy: ThrottlePolicy
    private let now: (@Sendable () -> Int64)?

    /// The key of the advisory lock the throttle's sweep runs under.
    public static let sweepLock: Int64 = 0x524C_6F67_696E_0003

    /// A throttle on `store`'s database with `policy` (replicas should run the same:
    /// ``ThrottlePolicyCheck`` tells when they do not). `now`, in microseconds, replaces the
    /// database's clock (for tests).
    public init(store: PostgresAccountStore, policy: ThrottlePolicy, now: (@Sendable () -> Int64)? = nil) {
        self.store = store
        self.policy = policy
        self.now = now
    }

    public func admit(account: String, from origin: LoginOrigin) -> Single<ThrottleState.Admission> {
        store.throttle(
            Self.admit,
            [
                .text(account), .text(Self.key(origin)), .boolean(origin.sharesAccountBudget), clock(),
                .integer(Int64(policy.freeFailures)), .integer(Self.microseconds(policy.baseDelay)),
                .integer(Self.microseconds(policy.maximumDelay)),
                .integer(Self.microseconds(policy.failureMemory)),
                .integer(Int64(policy.clientFailuresPerMinute)), .integer(Int64(policy.accountFreeFailures)),
                .integer(Int64(policy.accountFailuresPerMinute)),
                .integer(Self.microseconds(policy.inFlightExpiry)),
            ]
        ) { result in
            let retryAfter = Duration.microseconds(try result.integer(0, 1))
            switch try result.integer(0, 0) {
            case 0: return .allowed
            case 1: return .throttled(retryAfter: retryAfter, locked: try result.boolean(0, 2))
            default: return .budgetSpent(retryAfter: retryAfter)
            }
        }
    }

    public func recordFailure(account: String, from origin: LoginOrigin) -> Single<Bool> {
        store.throttle(
            Self.failure,
            [
                .text(account), .text(Self.key(origin)), clock(), .integer(Int64(policy.lockAfter)),
                .integer(Self.microseconds(policy.lockDuration)),
                .integer(Self.microseconds(policy.failureMemory)),
            ]
        ) { result in try result.boolean(0, 0) }
    }

    public func recordSuccess(account: String, from origin: LoginOrigin) -> Single<Void> {
        store.throttleRecord(
            Self.success,
            [
                .text(account), .text(Self.key(origin)), .boolean(origin.sharesAccountBudget),
                .integer(Int64(policy.clientFailuresPerMinute)), .integer(Int64(policy.accountFreeFailures)),
            ])
    }

    public func recordAbandoned(account: String, from origin: LoginOrigin) -> Single<Void> {
        store.throttleRecord(
            Self.abandoned,
            [
                .text(account), .text(Self.key(origin)), .boolean(origin.sharesAccountBudget), clock(),
                .integer(Int64(policy.clientFailuresPerMinute)), .integer(Int64(policy.accountFreeFailures)),
            ])
    }

    public func removeResting() -> Single<Int> {
        store.throttle(
            Self.sweep,
            [
                clock(), .integer(Self.microseconds(policy.failureMemory)),
                .integer(Int64(policy.clientFailuresPerMinute)), .integer(Int64(policy.accountFreeFailures)),
                .integer(Int64(policy.accountFailuresPerMinute)),
            ]
        ) { result in Int(try result.integer(0, 0)) }
    }

    /// Writes this throttle's policy (``ThrottlePolicy/sharedText``) as the one the database's
    /// replicas should agree on, by `replica` and now by the database's clock; answers the record it
    /// replaced, if any.
    func recordPolicy(replica: String) -> Single<RecordedThrottlePolicy?> {
        store.throttle(Self.writePolicy, [.text(policy.sharedText), .text(replica)]) {
            try Self.policyRecord($0)
        }
    }

    /// The policy the database records, if any.
    func recordedPolicy() -> Single<RecordedThrottlePolicy?> {
        store.throttle(Self.readPolicy, []) { try Self.policyRecord($0) }
    }

    private static func policyRecord(_ result: ResultSet) throws -> RecordedThrottlePolicy? {
        guard !result.rows.isEmpty else { return nil }
        return RecordedThrottlePolicy(
            policy: try result.text(0, 0) ?? "", replica: try result.text(0, 1) ?? "",
            writtenAt: try result.text(0, 2) ?? "")
    }

    /// The injected clock, or NULL for the database's.
    private func clock() -> PostgresValue { now.map { .integer($0()) } ?? .null }

    /// An origin as the tables key it: `c:` and a client's identity, or `d:` and a device's id.
    static func key(_ origin: LoginOrigin) -> String {
        switch origin {
        case .client(let client): "c:" + client
        case .device(let device): "d:" + device
        }
    }

    /// `duration` in whole microseconds.
    static func microseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }

    static let admit = PreparedStatement(
        "auth_throttle_admit",
        """
        SELECT verdict, retry_after, locked FROM throttle_admit($1, $2, $3, $4, $5::integer, $6, $7, $8,
            $9::integer, $10::integer, $11::integer, $12)
        """)
    static let failure = PreparedStatement(
        "auth_throttle_failure", "SELECT throttle_failure($1, $2, $3, $4::integer, $5, $6)")
    static let success = PreparedStatement(
        "auth_throttle_success", "SELECT throttle_success($1, $2, $3, $4::integer, $5::integer)")
    static let abandoned = PreparedStatement(
        "auth_throttle_abandoned", "SELECT throttle_abandoned($1, $2, $3, $4, $5::integer, $6::integer)")
    /// Replaces the one row of `throttle_policy` (the write runs whatever the query reads) and
    /// answers the row it replaced.
    static let writePolicy = PreparedStatement(
        "auth_throttle_write_policy",
        """
        WITH previous AS (SELECT policy, replica, \(writtenAt) FROM throttle_policy),
        written AS (
            INSERT INTO throttle_policy (only_row, policy, replica, written_at)
            VALUES (true, $1, $2, clock_timestamp())
            ON CONFLICT (only_row) DO UPDATE
            SET policy = excluded.policy, replica = excluded.replica, written_at = excluded.written_at
            RETURNING 1)
        SELECT * FROM previous
        """)
    static let readPolicy = PreparedStatement(
        "auth_throttle_read_policy", "SELECT policy, replica, \(writtenAt) FROM throttle_policy")
    /// `written_at` in ISO 8601, UTC, to the millisecond.
    private static let writtenAt =
        #"to_char(written_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS written_at"#

    /// The table of the policy the replicas should agree on (``PostgresAccountStore``'s migration 3):
    /// one row at most, written by the latest replica to start.
    static let policySchema = """
        CREATE TABLE throttle_policy (
            only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
            policy text NOT NULL,
            replica text NOT NULL,
            written_at timestamptz NOT NULL
        );
        """

    /// Deletes the rows at rest, only while it holds ``sweepLock`` (one replica at a time), and
    /// skips rows a login holds.
    static let sweep = PreparedStatement(
        "auth_throttle_sweep",
        """
        WITH clock AS (SELECT throttle_now($1) AS now_us),
        sweeper AS (SELECT pg_try_advisory_xact_lock(\(sweepLock)) AS held),
        pairs AS (
            DELETE FROM throttle_pairs WHERE (SELECT held FROM sweeper) AND (account, origin) IN (
                SELECT account, origin FROM throttle_pairs, clock
                WHERE NOT (in_flight > 0 AND in_flight_until > now_us)
                  AND CASE WHEN locked_until IS NOT NULL THEN locked_until <= now_us
                      ELSE now_us - last_failure >= $2 END
                FOR UPDATE OF throttle_pairs SKIP LOCKED)
            RETURNING 1),
        buckets AS (
            DELETE FROM throttle_buckets WHERE (SELECT held FROM sweeper) AND key IN (
                SELECT key FROM throttle_buckets, clock,
                    LATERAL (SELECT CASE WHEN key LIKE 'a:%' THEN $4::integer ELSE $3::integer END
                        ::double precision AS capacity,
                        CASE WHEN key LIKE 'a:%' THEN $5::integer ELSE $3::integer END
                        ::double precision / 60 AS rate) AS shape
                WHERE throttle_refill(tokens, updated, now_us, shape.rate, shape.capacity) >= shape.capacity
                FOR UPDATE OF throttle_buckets SKIP LOCKED)
            RETURNING 1)
        SELECT (SELECT count(*) FROM pairs) + (SELECT count(*) FROM buckets)
        """)

    /// The tables and functions (``PostgresAccountStore``'s migration 2). Instants are
    /// microseconds since the Unix epoch by the database's clock, or the injected clock's.
    static let schema = """
CREATE TABLE throttle_pairs (
    account text NOT NULL,
    origin text NOT NULL,
    failures integer NOT NULL,
    last_failure bigint NOT NULL,
    locked_until bigint,
    in_flight integer NOT NULL,
    in_flight_until bigint NOT NULL,
    PRIMARY KEY (account, origin)
);
CREATE TABLE throttle_buckets (
    key text PRIMARY KEY,
    tokens double precision NOT NULL,
    updated bigint NOT NULL
);
CREATE FUNCTION throttle_now(p_now bigint) RETURNS bigint LANGUAGE sql VOLATILE AS $$
    SELECT coalesce(p_now, (extract(epoch FROM clock_timestamp()) * 1000000)::bigint)
$$;
CREATE FUNCTION throttle_seconds(p_us bigint) RETURNS double precision LANGUAGE sql IMMUTABLE AS $$
    SELECT (p_us / 1000000)::double precision + ((p_us % 1000000) * 1000000000000)::double precision / 1e18::double precision
$$;
CREATE FUNCTION throttle_delay(p_failures integer, p_free integer, p_base bigint, p_max bigint)
RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN p_failures < p_free THEN NULL
        ELSE least(p_base * (1::bigint << least(p_failures - p_free, 30)), p_max) END
$$;
CREATE FUNCTION throttle_wait(p_tokens double precision, p_rate double precision)
RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN p_tokens < 1 AND p_rate > 0
        THEN ceil((1 - p_tokens) / p_rate * 1000)::bigint * 1000 ELSE 0 END
$$;
CREATE FUNCTION throttle_bucket(p_key text, p_capacity double precision, p_now bigint,
    OUT tokens double precision, OUT updated bigint) LANGUAGE plpgsql AS $$
BEGIN
    LOOP
        SELECT b.tokens, b.updated INTO tokens, updated FROM throttle_buckets b WHERE b.key = p_key FOR UPDATE;
        IF FOUND THEN RETURN; END IF;
        INSERT INTO throttle_buckets (key, tokens, updated) VALUES (p_key, p_capacity, p_now)
            ON CONFLICT (key) DO NOTHING;
    END LOOP;
END
$$;
CREATE FUNCTION throttle_refill(p_tokens double precision, p_updated bigint, p_now bigint,
    p_rate double precision, p_capacity double precision) RETURNS double precision LANGUAGE sql IMMUTABLE AS $$
    SELECT least(p_capacity, p_tokens + greatest(0::double precision, throttle_seconds(p_now - p_updated)) * p_rate)
$$;
CREATE FUNCTION throttle_admit(
    p_account text, p_origin text, p_shares boolean, p_now bigint,
    p_free integer, p_base bigint, p_max bigint, p_memory bigint,
    p_origin_per_minute integer, p_account_capacity integer, p_account_per_minute integer, p_in_flight bigint,
    OUT verdict integer, OUT retry_after bigint, OUT locked boolean) LANGUAGE plpgsql AS $$
DECLARE
    now_us bigint := throttle_now(p_now);
    account_key text := 'a:' || p_account;
    origin_key text := 'o:' || p_origin;
    account_capacity double precision := p_account_capacity::double precision;
    account_rate double precision := p_account_per_minute::double precision / 60;
    origin_capacity double precision := p_origin_per_minute::double precision;
    origin_rate double precision := p_origin_per_minute::double precision / 60;
    budget double precision;
    budget_updated bigint;
    origin_tokens double precision;
    origin_updated bigint;
    pair throttle_pairs%ROWTYPE;
    delay bigint;
    live_failures integer;
    live_in_flight integer;
BEGIN
    verdict := 0; retry_after := 0; locked := false;
    -- Rows are locked in one order everywhere: the account's budget, the origin's bucket, the pair.
    IF p_shares THEN
        SELECT b.tokens, b.updated INTO budget, budget_updated FROM throttle_bucket(account_key, account_capacity, now_us) b;
    END IF;
    SELECT b.tokens, b.updated INTO origin_tokens, origin_updated FROM throttle_bucket(origin_key, origin_capacity, now_us) b;
    SELECT * INTO pair FROM throttle_pairs WHERE account = p_account AND origin = p_origin FOR UPDATE;
    IF FOUND THEN
        IF pair.locked_until IS NOT NULL AND now_us < pair.locked_until THEN
            verdict := 1; retry_after := pair.locked_until - now_us; locked := true; RETURN;
        END IF;
        delay := throttle_delay(pair.failures, p_free, p_base, p_max);
        IF delay IS NOT NULL AND pair.last_failure + delay > now_us AND now_us - pair.last_failure < p_memory THEN
            verdict := 1; retry_after := pair.last_failure + delay - now_us; RETURN;
        END IF;
        live_in_flight := CASE WHEN pair.in_flight_until > now_us THEN pair.in_flight ELSE 0 END;
        live_failures := CASE WHEN now_us - pair.last_failure >= p_memory
            OR (pair.locked_until IS NOT NULL AND now_us >= pair.locked_until) THEN 0 ELSE pair.failures END;
        IF live_in_flight > 0 THEN
            delay := throttle_delay(live_failures + live_in_flight, p_free, p_base, p_max);
            IF delay IS NOT NULL THEN
                verdict := 1; retry_after := delay; RETURN;
            END IF;
        END IF;
    END IF;
    IF p_shares THEN
        budget := throttle_refill(budget, budget_updated, now_us, account_rate, account_capacity);
        IF budget < 1 THEN
            UPDATE throttle_buckets SET tokens = budget, updated = now_us WHERE key = account_key;
            verdict := 2; retry_after := greatest(throttle_wait(budget, account_rate), 1000); RETURN;
        END IF;
    END IF;
    origin_tokens := throttle_refill(origin_tokens, origin_updated, now_us, origin_rate, origin_capacity);
    IF origin_tokens < 1 THEN
        UPDATE throttle_buckets SET tokens = origin_tokens, updated = now_us WHERE key = origin_key;
        verdict := 1; retry_after := throttle_wait(origin_tokens, origin_rate); RETURN;
    END IF;
    UPDATE throttle_buckets SET tokens = origin_tokens - 1, updated = now_us WHERE key = origin_key;
    IF p_shares THEN
        UPDATE throttle_buckets SET tokens = budget - 1, updated = now_us WHERE key = account_key;
    END IF;
    INSERT INTO throttle_pairs AS p (account, origin, failures, last_failure, locked_until, in_flight, in_flight_until)
    VALUES (p_account, p_origin, 0, now_us, NULL, 1, now_us + p_in_flight)
    ON CONFLICT (account, origin) DO UPDATE SET
        in_flight = CASE WHEN p.in_flight_until > now_us THEN p.in_flight ELSE 0 END + 1,
        in_flight_until = greatest(p.in_flight_until, now_us + p_in_flight);
END
$$;
CREATE FUNCTION throttle_failure(
    p_account text, p_origin text, p_now bigint, p_lock_after integer, p_lock bigint, p_memory bigint)
RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    now_us bigint := throttle_now(p_now);
    pair throttle_pairs%ROWTYPE;
    remaining integer;
BEGIN
    LOOP
        SELECT * INTO pair FROM throttle_pairs WHERE account = p_account AND origin = p_origin FOR UPDATE;
        EXIT WHEN FOUND;
        INSERT INTO throttle_pairs (account, origin, failures, last_failure, locked_until, in_flight, in_flight_until)
        VALUES (p_account, p_origin, 0, now_us, NULL, 0, now_us) ON CONFLICT DO NOTHING;
    END LOOP;
    remaining := greatest(0, CASE WHEN pair.in_flight_until > now_us THEN pair.in_flight ELSE 0 END - 1);
    IF now_us - pair.last_failure >= p_memory
        OR (pair.locked_until IS NOT NULL AND now_us >= pair.locked_until) OR pair.failures = 0 THEN
        pair.failures := 0; pair.locked_until := NULL;
    END IF;
    pair.failures := pair.failures + 1;
    pair.last_failure := now_us;
    IF pair.failures >= p_lock_after THEN pair.locked_until := now_us + p_lock; END IF;
    UPDATE throttle_pairs SET failures = pair.failures, last_failure = pair.last_failure,
        locked_until = pair.locked_until, in_flight = remaining
    WHERE account = p_account AND origin = p_origin;
    RETURN pair.failures >= p_lock_after;
END
$$;
CREATE FUNCTION throttle_give_back(p_account text, p_origin text, p_shares boolean,
    p_origin_per_minute integer, p_account_capacity integer) RETURNS void LANGUAGE sql AS $$
    UPDATE throttle_buckets SET tokens = least(p_account_capacity::double precision, tokens + 1)
    WHERE p_shares AND key = 'a:' || p_account;
    UPDATE throttle_buckets SET tokens = least(p_origin_per_minute::double precision, tokens + 1)
    WHERE key = 'o:' || p_origin;
$$;
CREATE FUNCTION throttle_success(p_account text, p_origin text, p_shares boolean,
    p_origin_per_minute integer, p_account_capacity integer) RETURNS void LANGUAGE sql AS $$
    SELECT throttle_give_back(p_account, p_origin, p_shares, p_origin_per_minute, p_account_capacity);
    DELETE FROM throttle_pairs WHERE account = p_account AND origin = p_origin;
$$;
CREATE FUNCTION throttle_abandoned(p_account text, p_origin text, p_shares boolean, p_now bigint,
    p_origin_per_minute integer, p_account_capacity integer) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    now_us bigint := throttle_now(p_now);
BEGIN
    PERFORM throttle_give_back(p_account, p_origin, p_shares, p_origin_per_minute, p_account_capacity);
    UPDATE throttle_pairs SET in_flight = greatest(0, CASE WHEN in_flight_until > now_us THEN in_flight ELSE 0 END - 1)
    WHERE account = p_account AND origin = p_origin;
    DELETE FROM throttle_pairs WHERE account = p_account AND origin = p_origin AND failures = 0 AND in_flight = 0;
END
$$;
"""
}
