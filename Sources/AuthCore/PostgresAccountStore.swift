public import Metrics
import Foundation
import Postgres
public import Reactive
import RemoteProtocol
import Synchronization

/// The auth service's ``AccountStore`` in PostgreSQL, shared by any number of auth-service
/// replicas (docs/storage/postgresql.md).
///
/// - One writer thread with its own connection commits writes in **groups**: it takes every write
///   queued while the previous commit was in flight and sends them as one pipeline,
///   `BEGIN; write…; COMMIT` with one sync: one round trip and one commit for the whole group. A
///   write the server refuses fails alone: the group is rolled back and sent again without it.
///   Every write is answered after the commit.
/// - One reader thread with its own connection answers lookups, every lookup queued at once in one
///   pipeline.
/// - One throttle thread with its own connection runs the login throttle's statements
///   (``PostgresLoginThrottle``): every statement queued at once in one pipeline, each in a
///   transaction of its own.
/// - All three reconnect by themselves with backoff. While one is down, calls answer `unavailable` at
///   once and ``isReachable`` is false; a write whose connection broke before its commit was
///   confirmed answers `unavailable` too (it may or may not have been committed: a registration
///   retried with the same registration key then answers its original success).
/// - The schema is migrated on start under `pg_advisory_lock(migrationLock)`, so replicas starting
///   at once migrate exactly once; ``removeExpiredSessions(now:)`` deletes only while it holds
///   `pg_try_advisory_xact_lock(sweepLock)`, so one replica sweeps at a time (the others answer 0).
///
/// **Time.** Expiry is checked by the database's clock (`now()`), never the caller's: every replica
/// agrees whether a token is live. The `now` arguments of ``session(digest:now:)``,
/// ``revokeSession(digest:now:)`` and ``removeExpiredSessions(now:)`` are ignored; the `expiresAt`
/// of ``addSession(digest:accountID:expiresAt:)`` is stored as given (the logging-in replica's
/// clock plus the token lifetime).
public final class PostgresAccountStore: AccountStore {
    /// How the store connects.
    public struct Configuration: Sendable {
        /// A `postgresql://` URI or a libpq `key=value` connection string.
        public var url: String
        /// Writes queued at most (past it, `overloaded`).
        public var writeQueueCapacity: Int
        /// Reads queued at most (past it, `overloaded`).
        public var readQueueCapacity: Int
        /// Writes committed in one transaction at most.
        public var maximumGroup: Int
        /// How long one pipeline may wait for the server before the connection counts as lost.
        public var timeout: Duration
        /// The first and the longest wait between reconnection attempts.
        public var backoff: ClosedRange<Duration>

        /// A configuration with the defaults.
        public init(
            url: String, writeQueueCapacity: Int = 4_096, readQueueCapacity: Int = 4_096,
            maximumGroup: Int = 256,
            timeout: Duration = .seconds(10),
            backoff: ClosedRange<Duration> = .milliseconds(50)...(.seconds(2))
        ) {
            self.url = url
            self.writeQueueCapacity = writeQueueCapacity
            self.readQueueCapacity = readQueueCapacity
            self.maximumGroup = maximumGroup
            self.timeout = timeout
            self.backoff = backoff
        }
    }

    /// Counters.
    public struct Counters: Sendable, Hashable {
        /// Transactions committed.
        public var commits = 0
        /// Writes committed.
        public var writes = 0
        /// The largest group committed at once.
        public var largestGroup = 0
        /// Calls that failed on a storage error (a statement the server refused).
        public var failures = 0
        /// Calls answered `unavailable` (the database unreachable).
        public var unavailable = 0
        /// Connections lost.
        public var disconnects = 0
        /// How long each committed transaction took, from sending `BEGIN` to `COMMIT`'s answer.
        public var commitDuration = DurationHistogram()
    }

    /// One statement and what to do with its result.
    struct Job: Sendable {
        let statement: PipelineStatement
        let complete: @Sendable (Result<ResultSet, PostgresError>) -> Void
    }

    /// The key of the advisory lock migrations run under.
    public static let migrationLock: Int64 = 0x524C_6F67_696E_0001
    /// The key of the advisory lock the expired-session sweep runs under.
    public static let sweepLock: Int64 = 0x524C_6F67_696E_0002

    /// The schema's migrations, by version: each runs once, in a transaction with its row in
    /// `schema_migrations`.
    public static let migrations: [(version: Int, sql: String)] = [
        (
            1,
            """
            CREATE TABLE accounts (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                username text NOT NULL UNIQUE,
                password_hash text NOT NULL,
                created_at bigint NOT NULL,
                registration_key text
            );
            CREATE TABLE sessions (
                digest bytea PRIMARY KEY,
                account_id bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                expires_at bigint NOT NULL
            );
            CREATE INDEX sessions_by_expiry ON sessions (expires_at);
            CREATE INDEX sessions_by_account ON sessions (account_id);
            """
        ),
        (2, PostgresLoginThrottle.schema),
        (3, PostgresLoginThrottle.policySchema),
    ]

    static let createAccount = PreparedStatement(
        "auth_create_account",
        """
        WITH inserted AS (
            INSERT INTO accounts (username, password_hash, created_at, registration_key)
            VALUES ($1, $2, $3, $4) ON CONFLICT (username) DO NOTHING RETURNING id)
        SELECT id, true FROM inserted
        UNION ALL
        SELECT id, false FROM accounts
        WHERE username = $1 AND registration_key = $4 AND NOT EXISTS (SELECT 1 FROM inserted)
        """)
    static let registered = PreparedStatement(
        "auth_registered", "SELECT id FROM accounts WHERE username = $1 AND registration_key = $2")
    static let account = PreparedStatement(
        "auth_account", "SELECT id, password_hash FROM accounts WHERE username = $1")
    static let exists = PreparedStatement(
        "auth_exists", "SELECT EXISTS (SELECT 1 FROM accounts WHERE username = $1)")
    static let addSession = PreparedStatement(
        "auth_add_session",
        """
        INSERT INTO sessions (digest, account_id, expires_at) VALUES ($1, $2, $3)
        ON CONFLICT (digest) DO UPDATE SET account_id = excluded.account_id, expires_at = excluded.expires_at
        """)
    static let session = PreparedStatement(
        "auth_session",
        """
        SELECT accounts.username, sessions.expires_at FROM sessions
        JOIN accounts ON accounts.id = sessions.account_id
        WHERE sessions.digest = $1 AND sessions.expires_at > extract(epoch FROM now())
        """)
    static let revokeSession = PreparedStatement(
        "auth_revoke_session",
        """
        WITH removed AS (DELETE FROM sessions WHERE digest = $1 RETURNING expires_at)
        SELECT coalesce(bool_or(expires_at > extract(epoch FROM now())), false) FROM removed
        """)
    static let removeExpired = PreparedStatement(
        "auth_remove_expired",
        """
        WITH sweeper AS (SELECT pg_try_advisory_xact_lock(\(sweepLock)) AS held),
        removed AS (
            DELETE FROM sessions
            WHERE expires_at <= extract(epoch FROM now()) AND (SELECT held FROM sweeper)
            RETURNING 1)
        SELECT count(*) FROM removed
        """)

    static let storageError = RemoteError(code: .internal, message: "storage error")
    static let overloaded = RemoteError(code: .overloaded, message: "the account store is busy; retry later")
    static let unavailable = RemoteError(
        code: .unavailable, message: "the account database is unreachable; retry later")

    /// The writer thread (internal so tests can see what is queued).
    let writer: DatabaseThread<Job>
    /// The reader thread.
    let reader: DatabaseThread<Job>
    /// The thread of the login throttle's statements (``PostgresLoginThrottle``): each statement
    /// its own transaction, a batch in one pipeline.
    let throttler: DatabaseThread<Job>
    private let counters_: Box<Mutex<Counters>>
    private let report: @Sendable (String) -> Void

    /// Connects, migrates the schema (under the migration lock) and starts the store's threads.
    /// Throws when the database cannot be reached or migrated. `reachability` hears every change
    /// of ``isReachable`` afterwards, with the reason when it turns false (from a store thread).
    public init(
        configuration: Configuration, report: @escaping @Sendable (String) -> Void = { _ in },
        reachability: @escaping @Sendable (_ reachable: Bool, _ reason: String?) -> Void = { _, _ in }
    ) async throws {
        self.report = report
        let counters = Box(Mutex(Counters()))
        counters_ = counters
        let url = configuration.url
        let timeout = configuration.timeout
        let maximumGroup = configuration.maximumGroup
        let links = Links(reachability)
        let count: @Sendable ((inout Counters) -> Void) -> Void = { update in
            counters.value.withLock { update(&$0) }
        }
        // The store's threads, each on a connection of its own (the writer's migrates the schema
        // when first opened). When one is lost, the jobs queued on it are refused, and the loss is
        // counted and changes the store's reachability.
        let backoff = configuration.backoff
        func thread(
            _ name: String, capacity: Int, migrate: Bool = false,
            process: @escaping @Sendable ([Job], Connection) -> PostgresError?,
            changed: @escaping @Sendable (Bool, String?) -> Void
        ) async throws -> DatabaseThread<Job> {
            try await DatabaseThread<Job>(
                name: name, capacity: capacity,
                open: { first in
                    let connection = try Connection(url)
                    if migrate, first { _ = try Self.migrate(connection) }
                    return connection
                },
                process: process,
                recovery: .init(
                    backoff: backoff, refuse: { jobs in Self.refuse(jobs) },
                    changed: { connected, reason in
                        if !connected { count { $0.disconnects += 1 } }
                        changed(connected, reason)
                    }))
        }
        let writer = try await thread(
            "auth-db-writer", capacity: configuration.writeQueueCapacity, migrate: true,
            process: { jobs, connection in
                var start = 0
                while start < jobs.count {
                    let end = min(start + maximumGroup, jobs.count)
                    if let lost = Self.commit(
                        jobs[start..<end], on: connection, timeout: timeout, count: count)
                    {
                        for job in jobs[end...] { job.complete(.failure(lost)) }
                        return lost
                    }
                    start = end
                }
                return nil
            },
            changed: { connected, reason in links.changed(writer: connected, reason: reason) })
        self.writer = writer
        do {
            reader = try await thread(
                "auth-db-reader", capacity: configuration.readQueueCapacity,
                process: { jobs, connection in Self.read(jobs, on: connection, timeout: timeout) },
                changed: { connected, reason in links.changed(reader: connected, reason: reason) })
        } catch {
            await writer.stop()
            throw error
        }
        do {
            throttler = try await thread(
                "auth-db-throttle", capacity: configuration.writeQueueCapacity,
                process: { jobs, connection in Self.runSeparately(jobs, on: connection, timeout: timeout) },
                changed: { connected, reason in links.changed(throttler: connected, reason: reason) })
        } catch {
            await writer.stop()
            await reader.stop()
            throw error
        }
    }

    /// Stops the threads after the queued work (the writes are committed first).
    public func close() async {
        await writer.stop()
        await reader.stop()
        await throttler.stop()
    }

    /// The counters so far.
    public var counters: Counters { counters_.value.withLock { $0 } }

    /// True while every connection is up.
    public var isReachable: Bool { writer.isConnected && reader.isConnected && throttler.isConnected }

    // MARK: Threads' work

    /// Applies the pending `migrations` (``migrations`` unless given) under the migration lock;
    /// returns the versions applied.
    static func migrate(
        _ connection: Connection, _ migrations: [(version: Int, sql: String)] = migrations
    ) throws -> [Int] {
        try connection.query("SELECT pg_advisory_lock($1)", [.integer(migrationLock)])
        defer { _ = try? connection.query("SELECT pg_advisory_unlock($1)", [.integer(migrationLock)]) }
        try connection.execute(
            """
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version integer PRIMARY KEY,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """)
        let present = try connection.query("SELECT version FROM schema_migrations")
        var applied = Set<Int>()
        for row in 0..<present.rows.count { applied.insert(Int(try present.integer(row, 0))) }
        let latest = migrations.map(\.version).max() ?? 0
        if let newest = applied.max(), newest > latest {
            throw PostgresError(
                .misuse,
                message: "the database's schema (version \(newest)) is newer than this program's (\(latest))",
                function: "migrate")
        }
        var done: [Int] = []
        for migration in migrations where !applied.contains(migration.version) {
            do {
                try connection.execute(
                    "BEGIN;\n\(migration.sql);\nINSERT INTO schema_migrations (version) VALUES (\(migration.version));\nCOMMIT;"
                )
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
            done.append(migration.version)
        }
        return done
    }

    /// Commits `jobs` in one transaction, in one pipeline; a statement the server refuses is
    /// answered alone and the rest sent again. Returns the connection failure that ended it, if any
    /// (then every job not yet answered has been answered with it).
    private static func commit(
        _ jobs: ArraySlice<Job>, on connection: Connection, timeout: Duration,
        count: @Sendable ((inout Counters) -> Void) -> Void
    ) -> PostgresError? {
        var group = Array(jobs)
        while !group.isEmpty {
            let outcomes: [Result<ResultSet, PostgresError>]
            let started = ContinuousClock.now
            do {
                outcomes = try connection.pipeline(
                    [.sql("BEGIN")] + group.map(\.statement) + [.sql("COMMIT")], timeout: timeout)
            } catch {
                for job in group { job.complete(.failure(error)) }
                return error
            }
            guard let failed = outcomes.firstIndex(where: { if case .failure = $0 { true } else { false } })
            else {
                let elapsed = ContinuousClock.now - started
                count { counters in
                    counters.commits += 1
                    counters.commitDuration.record(elapsed)
                    counters.writes += group.count
                    counters.largestGroup = max(counters.largestGroup, group.count)
                }
                for (job, outcome) in zip(group, outcomes[1...]) { job.complete(outcome) }
                return nil
            }
            guard case .failure(let error) = outcomes[failed] else { return nil }
            // The transaction is aborted: end it before anything else runs on the connection.
            do {
                _ = try connection.pipeline([.sql("ROLLBACK")], timeout: timeout)
            } catch {
                for job in group { job.complete(.failure(error)) }
                return error
            }
            if error.isConnectionFailure || !connection.isUsable {
                for job in group { job.complete(.failure(error)) }
                return error
            }
            if failed == 0 || failed == outcomes.count - 1 {
                // BEGIN or COMMIT itself failed: nothing of the group was committed.
                for job in group { job.complete(.failure(error)) }
                return nil
            }
            group.remove(at: failed - 1).complete(.failure(error))
        }
        return nil
    }

    /// Runs `jobs` as one pipeline outside a transaction; a statement after a failed one is sent
    /// again in the next pipeline.
    private static func read(_ jobs: [Job], on connection: Connection, timeout: Duration) -> PostgresError? {
        var pending = jobs[...]
        while !pending.isEmpty {
            let outcomes: [Result<ResultSet, PostgresError>]
            do {
                outcomes = try connection.pipeline(pending.map(\.statement), timeout: timeout)
            } catch {
                for job in pending { job.complete(.failure(error)) }
                return error
            }
            var next = pending.endIndex
            for (index, outcome) in zip(pending.indices, outcomes) {
                if case .failure(let error) = outcome, error.kind == .aborted {
                    next = index
                    break
                }
                pending[index].complete(outcome)
            }
            pending = pending[next...]
        }
        return nil
    }

    /// Runs `jobs` as one pipeline with a sync after each statement: each is its own transaction,
    /// so a statement holds its row locks only while it runs (statements of several replicas
    /// cannot deadlock across a batch) and one that fails fails alone.
    private static func runSeparately(_ jobs: [Job], on connection: Connection, timeout: Duration)
        -> PostgresError?
    {
        do {
            let outcomes = try connection.pipelineSeparately(jobs.map(\.statement), timeout: timeout)
            for (job, outcome) in zip(jobs, outcomes) { job.complete(outcome) }
            return nil
        } catch {
            for job in jobs { job.complete(.failure(error)) }
            return error
        }
    }

    private static func refuse(_ jobs: [Job]) {
        let error = PostgresError(.connection, message: "the connection was lost", function: "DatabaseThread")
        for job in jobs { job.complete(.failure(error)) }
    }

    // MARK: Calls

    private func run<T: Sendable>(
        on thread: DatabaseThread<Job>, _ statement: PipelineStatement,
        _ decode: @escaping @Sendable (ResultSet) throws -> T
    ) -> Single<T> {
        Single.create { [self] done in
            let job = Job(statement: statement) { [self] outcome in
                switch outcome {
                case .success(let result):
                    do {
                        done(.success(try decode(result)))
                    } catch {
                        fail(done, error)
                    }
                case .failure(let error):
                    fail(done, error)
                }
            }
            switch thread.submit(job) {
            case .queued: break
            case .full: done(.failure(Self.overloaded))
            case .unreachable:
                counters_.value.withLock { $0.unavailable += 1 }
                done(.failure(Self.unavailable))
            }
            return Disposables.create()
        }
    }

    private func fail<T>(_ done: (SingleEvent<T>) -> Void, _ error: any Error) {
        if let error = error as? PostgresError, error.isConnectionFailure {
            counters_.value.withLock { $0.unavailable += 1 }
            done(.failure(Self.unavailable))
            return
        }
        report("statement failed: \(error)")
        counters_.value.withLock { $0.failures += 1 }
        done(.failure(Self.storageError))
    }

    private func write<T: Sendable>(
        _ statement: PreparedStatement, _ parameters: [PostgresValue],
        _ decode: @escaping @Sendable (ResultSet) throws -> T
    ) -> Single<T> {
        run(on: writer, .prepared(statement, parameters), decode)
    }

    private func read<T: Sendable>(
        _ statement: PreparedStatement, _ parameters: [PostgresValue],
        _ decode: @escaping @Sendable (ResultSet) throws -> T
    ) -> Single<T> {
        run(on: reader, .prepared(statement, parameters), decode)
    }

    /// Runs one record of the login throttle that must not be lost to an outage: while the database
    /// is unreachable it waits for the connection (within the queue's capacity), and one that met a
    /// broken connection is sent again once it is back, up to `attempts` times. Answers once it ran.
    func throttleRecord(_ statement: PreparedStatement, _ parameters: [PostgresValue], attempts: Int = 3)
        -> Single<Void>
    {
        Single.create { [self] done in
            submitRecord(.prepared(statement, parameters), attempts: attempts, done)
            return Disposables.create()
        }
    }

    private func submitRecord(
        _ statement: PipelineStatement, attempts: Int, _ done: @escaping @Sendable (SingleEvent<Void>) -> Void
    ) {
        let job = Job(statement: statement) { [self] outcome in
            switch outcome {
            case .success: done(.success(()))
            case .failure(let error) where error.isConnectionFailure && attempts > 1:
                submitRecord(statement, attempts: attempts - 1, done)
            case .failure(let error): fail(done, error)
            }
        }
        if case .full = throttler.submitDeferrable(job) { done(.failure(Self.overloaded)) }
    }

    /// Runs one statement of the login throttle on its thread.
    func throttle<T: Sendable>(
        _ statement: PreparedStatement, _ parameters: [PostgresValue],
        _ decode: @escaping @Sendable (ResultSet) throws -> T
    ) -> Single<T> {
        run(on: throttler, .prepared(statement, parameters), decode)
    }

    public func createAccount(
        username: String, passwordHash: String, createdAt: Int64, registrationKey: String?
    )
        -> Single<AccountCreation>
    {
        let key: PostgresValue = registrationKey.map { .text($0) } ?? .null
        let created = write(
            Self.createAccount, [.text(username), .text(passwordHash), .integer(createdAt), key]
        ) {
            result -> AccountCreation in
            guard !result.rows.isEmpty else { return .taken }
            let id = try result.integer(0, 0)
            return try result.boolean(0, 1) ? .created(id: id) : .repeated(id: id)
        }
        guard let registrationKey else { return created }
        // Taken, with a key: the name may have been committed by this very registration on another
        // replica (or by a first attempt whose answer was lost) while this statement waited for it;
        // look again now that both have committed.
        return created.flatMap { [self] creation in
            guard creation == .taken else { return .just(creation) }
            return read(Self.registered, [.text(username), .text(registrationKey)]) { result in
                result.rows.isEmpty ? .taken : .repeated(id: try result.integer(0, 0))
            }
        }
    }

    public func account(named username: String) -> Single<StoredAccount?> {
        read(Self.account, [.text(username)]) { result in
            guard !result.rows.isEmpty else { return nil }
            return StoredAccount(
                id: try result.integer(0, 0), username: username, passwordHash: try result.text(0, 1) ?? "")
        }
    }

    public func exists(username: String) -> Single<Bool> {
        read(Self.exists, [.text(username)]) { result in try result.boolean(0, 0) }
    }

    public func addSession(digest: [UInt8], accountID: Int64, expiresAt: Int64) -> Single<Void> {
        write(Self.addSession, [.bytes(digest), .integer(accountID), .integer(expiresAt)]) { _ in () }
    }

    public func session(digest: [UInt8], now: Int64) -> Single<StoredSession?> {
        read(Self.session, [.bytes(digest)]) { result in
            guard !result.rows.isEmpty else { return nil }
            return StoredSession(username: try result.text(0, 0) ?? "", expiresAt: try result.integer(0, 1))
        }
    }

    public func revokeSession(digest: [UInt8], now: Int64) -> Single<Bool> {
        write(Self.revokeSession, [.bytes(digest)]) { result in try result.boolean(0, 0) }
    }

    public func removeExpiredSessions(now: Int64) -> Single<Int> {
        write(Self.removeExpired, []) { result in Int(try result.integer(0, 0)) }
    }
}

/// A PostgreSQL connection is lost with its server or its network; its thread then reconnects.
extension Connection: OwnedConnection {}

/// A value shared with the closures a store's threads run.
private final class Box<Value: ~Copyable & Sendable>: Sendable {
    let value: Value
    init(_ value: consuming Value) { self.value = value }
}

/// The threads' connection states, turned into changes of the store's reachability.
private final class Links: Sendable {
    private let state = Mutex((writer: true, reader: true, throttler: true))
    private let notify: @Sendable (Bool, String?) -> Void

    init(_ notify: @escaping @Sendable (Bool, String?) -> Void) { self.notify = notify }

    func changed(writer: Bool? = nil, reader: Bool? = nil, throttler: Bool? = nil, reason: String?) {
        let (before, after) = state.withLock { state in
            let before = state.writer && state.reader && state.throttler
            if let writer { state.writer = writer }
            if let reader { state.reader = reader }
            if let throttler { state.throttler = throttler }
            return (before, state.writer && state.reader && state.throttler)
        }
        if before != after { notify(after, reason) }
    }
}
