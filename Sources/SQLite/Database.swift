internal import CSQLite

/// One SQLite connection, owned by this object and closed by ``close()`` or when it is deinitialized.
///
/// **Threading.** A `Database` is not `Sendable`: it is used from one isolation domain at a time,
/// normally a thread the owner starts for it (every call blocks on disk I/O, and on other
/// connections' locks up to the busy timeout, so it must never run on Swift's cooperative pool or
/// on an actor's executor). The compiler enforces the rule; move a database to its thread with
/// `sending`. The connection is opened with `SQLITE_OPEN_NOMUTEX`, as one owner needs no lock.
///
/// ```swift
/// let database = try Database(.file(path))               // WAL, synchronous=FULL, foreign keys on
/// try database.execute("CREATE TABLE IF NOT EXISTS note (id INTEGER PRIMARY KEY, body TEXT)")
/// try database.run("INSERT INTO note (body) VALUES (?)", ["hello"])
/// let id = database.lastInsertRowID
/// let rows = try database.query("SELECT id, body FROM note WHERE id = ?", [.integer(id)])
/// ```
public final class Database {
    /// Where the database lives.
    public enum Location: Sendable, Hashable {
        /// A file at this path, created if missing (unless the database is opened read-only).
        case file(String)
        /// A private, temporary database in memory, gone when the connection closes.
        case inMemory
    }

    /// The journal mode (`PRAGMA journal_mode`) of a file database.
    public enum JournalMode: String, Sendable, Hashable, CaseIterable {
        /// Write-ahead log: readers do not block the writer nor the writer readers; one fsync per
        /// commit with ``Synchronous/full``.
        case wal
        /// SQLite's classic rollback journal, deleted at the end of each transaction.
        case delete
    }

    /// How often SQLite waits for the disk (`PRAGMA synchronous`), trading speed for durability.
    public enum Synchronous: Int, Sendable, Hashable, CaseIterable {
        /// Never waits: a power loss or OS crash may lose commits or corrupt the file.
        case off = 0
        /// In WAL mode, waits only at checkpoints: an OS crash or power loss may lose the last
        /// commits (never corrupts); a process crash loses nothing.
        case normal = 1
        /// Waits for the disk at every commit: once a commit returns, it survives a power loss.
        case full = 2
        /// Like ``full``, and also syncs the directory after unlinking a rollback journal.
        case extra = 3
    }

    /// The kind of lock a transaction takes at `BEGIN`.
    public enum TransactionKind: String, Sendable, Hashable, CaseIterable {
        /// No lock until the first read; a write lock at the first write (which may then be busy).
        case deferred = "DEFERRED"
        /// The write lock at once: a transaction that will write never fails half way for a lock.
        case immediate = "IMMEDIATE"
        /// Like ``immediate`` in WAL mode; in rollback mode it also keeps readers out.
        case exclusive = "EXCLUSIVE"
    }

    /// Settings applied when the connection opens.
    public struct Options: Sendable, Hashable {
        /// The journal mode of a file database (default ``JournalMode/wal``); ignored in memory.
        public var journalMode: JournalMode
        /// Durability against OS crashes and power loss (default ``Synchronous/full``).
        public var synchronous: Synchronous
        /// How long a statement waits for another connection's lock before failing with
        /// ``SQLiteError/Code/busy`` (default 5 s; zero fails at once).
        public var busyTimeout: Duration
        /// Whether foreign key constraints are enforced (default true).
        public var foreignKeys: Bool
        /// Opens the file read-only, never creating it (default false); the journal mode is then
        /// left as the file has it.
        public var readOnly: Bool
        /// How many prepared statements `query` and `run` keep for reuse, keyed by SQL text, the least
        /// recently used evicted first (default 32; zero turns the cache off).
        public var statementCacheCapacity: Int

        /// Creates options; every default is the durable, strict choice.
        public init(
            journalMode: JournalMode = .wal, synchronous: Synchronous = .full,
            busyTimeout: Duration = .seconds(5), foreignKeys: Bool = true, readOnly: Bool = false,
            statementCacheCapacity: Int = 32
        ) {
            self.journalMode = journalMode
            self.synchronous = synchronous
            self.busyTimeout = busyTimeout
            self.foreignKeys = foreignKeys
            self.readOnly = readOnly
            self.statementCacheCapacity = statementCacheCapacity
        }
    }

    /// Where this database lives.
    public let location: Location
    /// The options it was opened with.
    public let options: Options

    private let connection: Connection
    private var cache: StatementCache

    /// Opens (and for a writable file, creates) the database and applies `options`.
    ///
    /// - Throws: ``SQLiteError`` when the file cannot be opened (``SQLiteError/Code/cantopen``), is
    ///   not a database (``SQLiteError/Code/notadb``), or a setting cannot be applied (for example WAL
    ///   on a file system without shared memory).
    public init(_ location: Location, options: Options = Options()) throws(SQLiteError) {
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        flags |= options.readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        let path: String
        switch location {
        case .file(let file): path = file
        case .inMemory: path = ":memory:"
        }
        var handle: OpaquePointer?
        let result = sqlite3_open_v2(path, &handle, flags, nil)
        do {
            // On failure the handle (when SQLite could allocate one) holds the code and message.
            _ = try checkedCall("sqlite3_open_v2", handle) { result }
        } catch {
            // Freeing the failed handle cannot report anything more useful than `error`.
            _ = sqlite3_close_v2(handle)
            throw error
        }
        guard let handle else { throw .detected(.nomem, "no connection handle", function: "sqlite3_open_v2") }
        self.location = location
        self.options = options
        self.connection = Connection(handle)
        self.cache = StatementCache(capacity: options.statementCacheCapacity)
        do {
            try configure(inMemory: location == .inMemory)
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// Applies the options, the busy timeout first (switching to WAL needs a lock).
    private func configure(inMemory: Bool) throws(SQLiteError) {
        let database = try connection.open("sqlite3_busy_timeout")
        let (seconds, attoseconds) = options.busyTimeout.components
        // Clamped before multiplying: any timeout past Int32.max milliseconds means "that long".
        let clampedSeconds = min(max(seconds, 0), Int64(Int32.max))
        let milliseconds = Int32(
            clamping: max(0, clampedSeconds * 1000 + attoseconds / 1_000_000_000_000_000))
        _ = try checkedCall("sqlite3_busy_timeout", database) { sqlite3_busy_timeout(database, milliseconds) }
        if !inMemory && !options.readOnly {
            let mode = try query("PRAGMA journal_mode = \(options.journalMode.rawValue)").first?[0]
            guard mode == .text(options.journalMode.rawValue) else {
                throw .detected(
                    .error,
                    "journal mode \(options.journalMode.rawValue) refused (it stayed \(mode ?? .null))",
                    function: "PRAGMA journal_mode")
            }
        }
        try execute("PRAGMA synchronous = \(options.synchronous.rawValue)")
        try execute("PRAGMA foreign_keys = \(options.foreignKeys ? "ON" : "OFF")")
    }

    /// True until ``close()``.
    public var isOpen: Bool { connection.handle != nil }

    /// Closes the connection now (idempotent); every later call throws ``SQLiteError/Code/misuse``.
    ///
    /// Statements still alive keep SQLite's side of the connection until they are deinitialized,
    /// but refuse to step. An open transaction is rolled back. The last connection to a WAL database
    /// checkpoints it and removes the `-wal` and `-shm` files.
    public func close() {
        cache.removeAll()
        connection.close()
    }

    // MARK: Running SQL

    /// Runs a script: zero or more statements separated by semicolons, without parameters, rows
    /// discarded (`sqlite3_exec`). Statements before a failing one stay applied unless the script
    /// is inside a transaction.
    public func execute(_ sql: String) throws(SQLiteError) {
        let database = try connection.open("sqlite3_exec", sql: sql)
        _ = try checkedCall("sqlite3_exec", database, sql: sql) { sqlite3_exec(database, sql, nil, nil, nil) }
    }

    /// Compiles one statement. Throws for a syntax error, an unknown table or column, and for text
    /// holding more than one statement (use ``execute(_:)`` for scripts).
    public func prepare(_ sql: String) throws(SQLiteError) -> Statement {
        try Statement(sql, on: connection)
    }

    /// Runs one statement with positional bindings and returns its rows.
    public func query(_ sql: String, _ bindings: [SQLiteValue] = []) throws(SQLiteError) -> [Row] {
        try withCachedStatement(sql) { (statement) throws(SQLiteError) in
            try statement.bind(bindings)
            return try statement.rows()
        }
    }

    /// Runs one statement with named bindings (`[":name": "alice"]`) and returns its rows.
    public func query(_ sql: String, _ bindings: [String: SQLiteValue]) throws(SQLiteError) -> [Row] {
        try withCachedStatement(sql) { (statement) throws(SQLiteError) in
            try statement.bind(bindings)
            return try statement.rows()
        }
    }

    /// Runs one statement with positional bindings, ignoring rows, and returns the number of rows
    /// it inserted, updated or deleted.
    @discardableResult
    public func run(_ sql: String, _ bindings: [SQLiteValue] = []) throws(SQLiteError) -> Int {
        try withCachedStatement(sql) { (statement) throws(SQLiteError) in
            try statement.bind(bindings)
            return try statement.run()
        }
    }

    /// Runs one statement with named bindings, ignoring rows, and returns the number of rows it
    /// inserted, updated or deleted.
    @discardableResult
    public func run(_ sql: String, _ bindings: [String: SQLiteValue]) throws(SQLiteError) -> Int {
        try withCachedStatement(sql) { (statement) throws(SQLiteError) in
            try statement.bind(bindings)
            return try statement.run()
        }
    }

    /// Runs `body` with the cached statement for `sql` (prepared on first use), then resets it and
    /// clears its bindings so no bound value stays in memory longer than needed.
    private func withCachedStatement<T>(
        _ sql: String, _ body: (Statement) throws(SQLiteError) -> T
    ) throws(SQLiteError) -> T {
        let statement: Statement
        if let cached = cache.take(sql) {
            statement = cached
        } else {
            statement = try prepare(sql)
        }
        defer {
            statement.reset()
            statement.clearBindings()
            cache.put(statement)
        }
        return try body(statement)
    }

    /// The rowid of the last successful `INSERT` on this connection (0 if none, or once closed).
    public var lastInsertRowID: Int64 {
        connection.handle.map { sqlite3_last_insert_rowid($0) } ?? 0
    }

    /// The number of rows the last `INSERT`, `UPDATE` or `DELETE` on this connection changed (0 once
    /// closed).
    public var changes: Int {
        connection.handle.map { Int(sqlite3_changes64($0)) } ?? 0
    }

    /// True while a transaction is open on this connection.
    public var isInTransaction: Bool {
        connection.handle.map { sqlite3_get_autocommit($0) == 0 } ?? false
    }

    // MARK: Transactions

    /// Runs `body` in a transaction: commits when it returns, rolls back when it (or the commit)
    /// throws, and rethrows. Returns what `body` returned, once the commit has succeeded, so with
    /// ``Synchronous/full`` the changes are on disk when this returns.
    ///
    /// Transactions do not nest: calling this inside another throws ``SQLiteError/Code/error``.
    /// Use ``TransactionKind/immediate`` for a transaction that writes, so it fails (after the busy
    /// timeout) at `BEGIN` rather than half way.
    @discardableResult
    public func transaction<T>(_ kind: TransactionKind = .deferred, _ body: () throws -> T) throws -> T {
        try run("BEGIN \(kind.rawValue)")
        let result: T
        do {
            result = try body()
            try run("COMMIT")
        } catch {
            rollbackIfOpen()
            throw error
        }
        return result
    }

    /// Rolls back the open transaction, if SQLite has not already (some errors end it themselves).
    private func rollbackIfOpen() {
        guard isInTransaction else { return }
        // The error that led here is the one to report; a failing rollback adds nothing to it.
        _ = try? run("ROLLBACK")
    }
}

/// Prepared statements kept for reuse, keyed by SQL text, least recently used evicted first.
private struct StatementCache {
    let capacity: Int
    /// Statements, least recently used first (a linear scan: the cache is small).
    private var statements: [Statement] = []

    init(capacity: Int) { self.capacity = max(0, capacity) }

    /// Removes and returns the statement for `sql`, if cached; ``put(_:)`` returns it after use, so
    /// a statement is never handed out twice at once.
    mutating func take(_ sql: String) -> Statement? {
        guard let index = statements.firstIndex(where: { $0.sql == sql }) else { return nil }
        return statements.remove(at: index)
    }

    /// Keeps `statement` as the most recently used, evicting the least recently used when full.
    mutating func put(_ statement: Statement) {
        guard capacity > 0 else { return }
        if statements.count >= capacity { statements.removeFirst() }
        statements.append(statement)
    }

    /// Drops every statement (finalizing those nobody else holds).
    mutating func removeAll() { statements.removeAll() }
}
