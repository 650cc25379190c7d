public import Metrics
import Foundation
public import Reactive
import RemoteProtocol
public import SQLite
import Synchronization

/// The auth service's ``AccountStore`` in SQLite (docs/services/auth.md, "Storage").
///
/// - One writer thread with its own connection commits writes in **groups**: it takes every write
///   queued while the previous commit was on disk and runs them in one transaction, each in its own
///   savepoint (a duplicate username fails that write alone). Every write is answered after the
///   commit, so with `synchronous=FULL` (the default) an acknowledged registration survives a crash
///   or a power cut. One fsync for many registrations is what keeps durable registration fast.
/// - One reader thread with its own connection answers lookups (WAL lets it read while the writer
///   commits).
/// - Both queues are bounded; a full one fails the call with `overloaded` at once.
///
/// Schema (migrations in ``migrator``): `accounts(id, username UNIQUE, password_hash, created_at,
/// registration_key)`
/// and `sessions(digest PRIMARY KEY, account_id, expires_at)`, both `STRICT`.
public final class SQLiteAccountStore: AccountStore {
    /// How the store opens its database.
    public struct Configuration: Sendable {
        /// The database file.
        public var path: String
        /// The durability of commits.
        public var synchronous: Database.Synchronous
        /// Writes queued at most (past it, `overloaded`).
        public var writeQueueCapacity: Int
        /// Reads queued at most (past it, `overloaded`).
        public var readQueueCapacity: Int
        /// Writes committed in one transaction at most.
        public var maximumGroup: Int

        /// A configuration with the defaults.
        public init(
            path: String, synchronous: Database.Synchronous = .full, writeQueueCapacity: Int = 4_096,
            readQueueCapacity: Int = 4_096, maximumGroup: Int = 256
        ) {
            self.path = path
            self.synchronous = synchronous
            self.writeQueueCapacity = writeQueueCapacity
            self.readQueueCapacity = readQueueCapacity
            self.maximumGroup = maximumGroup
        }
    }

    /// A write: run inside the group's transaction (in its own savepoint); what it returns is
    /// called once the transaction has committed.
    struct Write: Sendable {
        let apply: @Sendable (Database) throws -> @Sendable () -> Void
        let fail: @Sendable (RemoteError) -> Void
    }

    /// A read.
    typealias Read = @Sendable (Database) -> Void

    /// Counters.
    public struct Counters: Sendable, Hashable {
        /// Transactions committed.
        public var commits = 0
        /// Writes committed.
        public var writes = 0
        /// The largest group committed at once.
        public var largestGroup = 0
        /// Calls that failed on a storage error.
        public var failures = 0
        /// How long each committed transaction took, from `BEGIN` to the end of `COMMIT`.
        public var commitDuration = DurationHistogram()
    }

    /// The schema's migrations.
    public static let migrator = Migrator([
        Migration(
            version: 1,
            sql: """
                CREATE TABLE accounts (
                    id INTEGER PRIMARY KEY,
                    username TEXT NOT NULL UNIQUE,
                    password_hash TEXT NOT NULL,
                    created_at INTEGER NOT NULL
                ) STRICT;
                CREATE TABLE sessions (
                    digest BLOB PRIMARY KEY,
                    account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    expires_at INTEGER NOT NULL
                ) STRICT, WITHOUT ROWID;
                CREATE INDEX sessions_by_expiry ON sessions(expires_at);
                """),
        // The key a client sent with the registration that created the account, so that a repeat
        // of that registration answers its success rather than `taken`.
        Migration(version: 2, sql: "ALTER TABLE accounts ADD COLUMN registration_key TEXT"),
    ])

    /// The writer thread (internal so tests can see what is queued).
    let writer: DatabaseThread<Write>
    /// The reader thread.
    let reader: DatabaseThread<Read>
    private let counters_ = CounterBox()
    /// Where storage errors are reported (the message is logged, never sent to clients).
    private let report: @Sendable (String) -> Void

    /// Opens (creating and migrating) the database and starts the store's threads.
    public init(
        configuration: Configuration, report: @escaping @Sendable (String) -> Void = { _ in }
    ) async throws {
        self.report = report
        let path = configuration.path
        let options = Database.Options(journalMode: .wal, synchronous: configuration.synchronous)
        let counters = counters_
        let maximumGroup = configuration.maximumGroup
        let writer = try await DatabaseThread<Write>(
            name: "auth-db-writer", capacity: configuration.writeQueueCapacity,
            open: { _ in
                let database = try Database(.file(path), options: options)
                _ = try Self.migrator.migrate(database)
                return database
            },
            process: { writes, database in
                var start = 0
                while start < writes.count {
                    let end = min(start + maximumGroup, writes.count)
                    Self.commit(writes[start..<end], in: database, counters: counters, report: report)
                    start = end
                }
                return nil
            })
        self.writer = writer
        do {
            reader = try await DatabaseThread(
                name: "auth-db-reader", capacity: configuration.readQueueCapacity,
                open: { _ in try Database(.file(path), options: options) },
                process: { reads, database in
                    for read in reads { read(database) }
                    return nil
                })
        } catch {
            await writer.stop()  // else its thread and connection would outlive the failed init
            throw error
        }
    }

    /// Stops the threads after the queued work (the writes are committed first).
    public func close() async {
        await writer.stop()
        await reader.stop()
    }

    /// The counters so far.
    public var counters: Counters { counters_.value.withLock { $0 } }

    /// Commits a group of writes in one transaction, each in its own savepoint.
    private static func commit(
        _ writes: ArraySlice<Write>, in database: Database, counters: CounterBox,
        report: @Sendable (String) -> Void
    ) {
        var outcomes: [Result<@Sendable () -> Void, RemoteError>] = []
        outcomes.reserveCapacity(writes.count)
        let started = ContinuousClock.now
        do {
            try database.execute("BEGIN IMMEDIATE")
            for write in writes {
                try database.execute("SAVEPOINT write")
                do {
                    outcomes.append(.success(try write.apply(database)))
                    try database.execute("RELEASE write")
                } catch let error as RemoteError {
                    try database.execute("ROLLBACK TO write; RELEASE write")
                    outcomes.append(.failure(error))
                } catch {
                    try database.execute("ROLLBACK TO write; RELEASE write")
                    report("write failed: \(error)")
                    outcomes.append(.failure(Self.storageError))
                }
            }
            try database.execute("COMMIT")
        } catch {
            if database.isInTransaction { try? database.execute("ROLLBACK") }
            report("commit failed: \(error)")
            counters.value.withLock { $0.failures += writes.count }
            for write in writes { write.fail(Self.storageError) }
            return
        }
        let elapsed = ContinuousClock.now - started
        counters.value.withLock { counters in
            counters.commits += 1
            counters.commitDuration.record(elapsed)
            counters.writes += writes.count
            counters.largestGroup = max(counters.largestGroup, writes.count)
        }
        for (write, outcome) in zip(writes, outcomes) {
            switch outcome {
            case .success(let acknowledge): acknowledge()
            case .failure(let error): write.fail(error)
            }
        }
    }

    /// The counters, shared with the store's threads.
    final class CounterBox: Sendable {
        let value = Mutex(Counters())
    }

    static let storageError = RemoteError(code: .internal, message: "storage error")
    static let overloaded = RemoteError(code: .overloaded, message: "the account store is busy; retry later")

    /// A write answered after its commit.
    private func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) -> Single<T> {
        Single.create { [writer] done in
            let submission = writer.submit(
                Write(
                    apply: { database in
                        let value = try body(database)
                        return { done(.success(value)) }
                    },
                    fail: { error in done(.failure(error)) }))
            if submission != .queued { done(.failure(Self.overloaded)) }
            return Disposables.create()
        }
    }

    /// A read on the reader's connection.
    private func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) -> Single<T> {
        Single.create { [reader, report, counters_] done in
            let submission = reader.submit { database in
                do {
                    done(.success(try body(database)))
                } catch {
                    report("read failed: \(error)")
                    counters_.value.withLock { $0.failures += 1 }
                    done(.failure(Self.storageError))
                }
            }
            if submission != .queued { done(.failure(Self.overloaded)) }
            return Disposables.create()
        }
    }

    public func createAccount(
        username: String, passwordHash: String, createdAt: Int64, registrationKey: String?
    )
        -> Single<AccountCreation>
    {
        let key: SQLiteValue = registrationKey.map { .text($0) } ?? .null
        return write { database in
            do {
                try database.run(
                    "INSERT INTO accounts (username, password_hash, created_at, registration_key) VALUES (?, ?, ?, ?)",
                    [.text(username), .text(passwordHash), .integer(createdAt), key])
                return .created(id: database.lastInsertRowID)
            } catch let error as SQLiteError where error.extendedCode == .constraintUnique {
                guard registrationKey != nil else { return .taken }
                let rows = try database.query(
                    "SELECT id FROM accounts WHERE username = ? AND registration_key = ?",
                    [.text(username), key])
                guard let row = rows.first else { return .taken }
                return .repeated(id: try row.get(0, as: Int64.self))
            } catch {
                throw error
            }
        }
    }

    public func account(named username: String) -> Single<StoredAccount?> {
        read { database in
            let rows = try database.query(
                "SELECT id, password_hash FROM accounts WHERE username = ?", [.text(username)])
            guard let row = rows.first else { return nil }
            return StoredAccount(
                id: try row.get(0, as: Int64.self), username: username,
                passwordHash: try row.get(1, as: String.self))
        }
    }

    public func exists(username: String) -> Single<Bool> {
        read { database in
            !(try database.query("SELECT 1 FROM accounts WHERE username = ?", [.text(username)])).isEmpty
        }
    }

    public func addSession(digest: [UInt8], accountID: Int64, expiresAt: Int64) -> Single<Void> {
        write { database in
            try database.run(
                "INSERT OR REPLACE INTO sessions (digest, account_id, expires_at) VALUES (?, ?, ?)",
                [.blob(digest), .integer(accountID), .integer(expiresAt)])
        }
    }

    public func session(digest: [UInt8], now: Int64) -> Single<StoredSession?> {
        read { database in
            let rows = try database.query(
                """
                SELECT accounts.username, sessions.expires_at FROM sessions
                JOIN accounts ON accounts.id = sessions.account_id
                WHERE sessions.digest = ? AND sessions.expires_at > ?
                """, [.blob(digest), .integer(now)])
            guard let row = rows.first else { return nil }
            return StoredSession(
                username: try row.get(0, as: String.self), expiresAt: try row.get(1, as: Int64.self))
        }
    }

    public func revokeSession(digest: [UInt8], now: Int64) -> Single<Bool> {
        write { database in
            let live = try database.query(
                "SELECT 1 FROM sessions WHERE digest = ? AND expires_at > ?", [.blob(digest), .integer(now)])
            try database.run("DELETE FROM sessions WHERE digest = ?", [.blob(digest)])
            return !live.isEmpty
        }
    }

    public func removeExpiredSessions(now: Int64) -> Single<Int> {
        write { database in
            try database.run("DELETE FROM sessions WHERE expires_at <= ?", [.integer(now)])
        }
    }
}

/// An SQLite connection is a file kept open: an error fails its statement, never the connection.
extension Database: OwnedConnection {
    var isUsable: Bool { true }
}
