import Foundation
public import Metrics
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
