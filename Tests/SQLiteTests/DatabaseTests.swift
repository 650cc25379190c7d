import Foundation
import SQLite
import Testing

@Suite("Database: opening, settings, errors and connections", .timeLimit(.minutes(1)))
struct DatabaseTests {
    @Test("a file database opens in WAL mode with synchronous=FULL and foreign keys on, and closes")
    func defaults() async throws {
        try await withDatabasePath { path in
            let database = try Database(.file(path))
            #expect(database.isOpen)
            #expect(
                try database.query("PRAGMA journal_mode") == [
                    Row(columnNames: ["journal_mode"], values: ["wal"])
                ])
            #expect(try database.query("PRAGMA synchronous").first?.get(0) == 2)
            #expect(try database.query("PRAGMA foreign_keys").first?.get(0) == 1)
            #expect(try database.query("PRAGMA busy_timeout").first?.get(0) == 5000)
            database.close()
            database.close()
            #expect(!database.isOpen)
            #expect(FileManager.default.fileExists(atPath: path))
        }
    }

    @Test("every synchronous level is applied", arguments: Database.Synchronous.allCases)
    func synchronous(level: Database.Synchronous) async throws {
        try await withDatabasePath { path in
            let database = try Database(.file(path), options: .init(synchronous: level))
            #expect(try database.query("PRAGMA synchronous").first?.get(0) == level.rawValue)
        }
    }

    @Test("the rollback journal, foreign keys off and the busy timeout are applied when asked for")
    func otherOptions() async throws {
        try await withDatabasePath { path in
            let options = Database.Options(
                journalMode: .delete, busyTimeout: .milliseconds(250), foreignKeys: false)
            let database = try Database(.file(path), options: options)
            #expect(try database.query("PRAGMA journal_mode").first?.get(0) == "delete")
            #expect(try database.query("PRAGMA foreign_keys").first?.get(0) == 0)
            #expect(try database.query("PRAGMA busy_timeout").first?.get(0) == 250)
        }
    }

    @Test(
        "busy timeouts are clamped to what SQLite takes",
        arguments: [
            (Duration.zero, 0), (.milliseconds(-5), 0), (.microseconds(1500), 1),
            (.seconds(Int64.max), Int(Int32.max)),
        ])
    func busyTimeoutClamped(timeout: Duration, milliseconds: Int) throws {
        let database = try Database(.inMemory, options: .init(busyTimeout: timeout))
        #expect(try database.query("PRAGMA busy_timeout").first?.get(0) == milliseconds)
    }

    @Test("an in-memory database works and keeps its own journal mode")
    func inMemory() throws {
        let database = try Database(.inMemory)
        #expect(try database.query("PRAGMA journal_mode").first?.get(0) == "memory")
        try database.execute("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2);")
        #expect(try database.query("SELECT count(*) FROM t").first?.get(0) == 2)
    }

    @Test("bad SQL throws with SQLite's message, the SQL and the function")
    func badSQL() throws {
        let database = try Database(.inMemory)
        let syntax = #expect(throws: SQLiteError.self) { try database.run("SELEC 1") }
        #expect(syntax?.code == .error)
        #expect(syntax?.message.contains("syntax error") == true)
        #expect(syntax?.sql == "SELEC 1")
        #expect(syntax?.function == "sqlite3_prepare_v2")
        let missing = #expect(throws: SQLiteError.self) { try database.query("SELECT * FROM nowhere") }
        #expect(missing?.message == "no such table: nowhere")
        let script = #expect(throws: SQLiteError.self) { try database.execute("CREATE TABLE a (x); BOGUS;") }
        #expect(script?.function == "sqlite3_exec")
        #expect(script?.message.contains("BOGUS") == true)
        #expect(try database.query("SELECT name FROM sqlite_master").first?.get(0) == "a")
    }

    @Test("one statement only outside execute(_:), and a closed database refuses every call")
    func misuse() throws {
        let database = try Database(.inMemory)
        let two = #expect(throws: SQLiteError.self) { try database.run("SELECT 1; SELECT 2") }
        #expect(two?.code == .misuse)
        #expect(try database.query("SELECT 1; -- a comment\n").count == 1)
        let statement = try database.prepare("SELECT 1")
        database.close()
        #expect(throws: SQLiteError.self) { try database.run("SELECT 1") }
        let closed = #expect(throws: SQLiteError.self) { try statement.step() }
        #expect(closed?.code == .misuse)
        #expect(closed?.message == "the database is closed")
    }

    @Test("a statement may outlive its database; it is finalized when released")
    func statementOutlivesDatabase() throws {
        var database: Database? = try Database(.inMemory)
        let statement = try database?.prepare("SELECT 1")
        database = nil
        #expect(throws: SQLiteError.self) { try statement?.step() }
    }

    @Test("the statement cache evicts and re-prepares without changing results, and can be off")
    func statementCache() throws {
        for capacity in [0, 1, 2] {
            let database = try Database(.inMemory, options: .init(statementCacheCapacity: capacity))
            for round in 0..<3 {
                #expect(try database.query("SELECT ?", [.integer(Int64(round))]).first?.get(0) == round)
                #expect(
                    try database.query("SELECT ? + 1", [.integer(Int64(round))]).first?.get(0) == round + 1)
                #expect(
                    try database.query("SELECT :x * 2", [":x": .integer(Int64(round))]).first?.get(0) == round
                        * 2)
            }
        }
    }

    @Test("a file that is not a database, or a path that cannot be created, is refused at open")
    func notADatabase() async throws {
        try await withDatabasePath { path in
            try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
            let error = #expect(throws: SQLiteError.self) { _ = try Database(.file(path)) }
            #expect(error?.code == .notadb)
            let missing = #expect(throws: SQLiteError.self) { _ = try Database(.file(path + "-no/such.db")) }
            #expect(missing?.code == .cantopen)
            #expect(missing?.function == "sqlite3_open_v2")
            let readOnly = #expect(throws: SQLiteError.self) {
                _ = try Database(.file(path + "-absent"), options: .init(readOnly: true))
            }
            #expect(readOnly?.code == .cantopen)
            #expect(!FileManager.default.fileExists(atPath: path + "-absent"))
        }
    }

    @Test("foreign keys are enforced by default")
    func foreignKeys() throws {
        let database = try Database(.inMemory)
        try database.execute(
            """
            CREATE TABLE account (id INTEGER PRIMARY KEY);
            CREATE TABLE token (hash BLOB PRIMARY KEY, account_id INTEGER NOT NULL REFERENCES account (id));
            """)
        let error = #expect(throws: SQLiteError.self) {
            try database.run("INSERT INTO token (hash, account_id) VALUES (?, ?)", [.blob([1]), 99])
        }
        #expect(error?.extendedCode == .constraintForeignkey)
    }

    @Test("data survives closing and reopening")
    func survivesReopen() async throws {
        try await withDatabasePath { path in
            do {
                let database = try Database(.file(path))
                try database.execute("CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
                try database.transaction(.immediate) {
                    try database.run("INSERT INTO note (body) VALUES (?)", ["kept"])
                }
                database.close()
            }
            #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
            let reopened = try Database(.file(path))
            #expect(try reopened.query("SELECT body FROM note").first?.get("body") == "kept")
        }
    }

    @Test("two connections to one WAL file: the reader keeps its snapshot while the writer commits")
    func writerAndReader() async throws {
        try await withDatabasePath { path in
            let writer = try Database(.file(path))
            try writer.execute("CREATE TABLE event (id INTEGER PRIMARY KEY, name TEXT)")
            try writer.run("INSERT INTO event (name) VALUES ('first')")
            let reader = try Database(.file(path), options: .init(readOnly: true))
            #expect(throws: SQLiteError.self) { try reader.run("INSERT INTO event (name) VALUES ('x')") }

            let count = try reader.prepare("SELECT count(*) FROM event")
            try reader.transaction {
                #expect(try count.rows().first?.get(0) == 1)
                // The writer is not blocked by the open read transaction (WAL).
                try writer.transaction(.immediate) {
                    try writer.run("INSERT INTO event (name) VALUES ('second')")
                }
                #expect(try count.rows().first?.get(0) == 1)
            }
            #expect(try count.rows().first?.get(0) == 2)
        }
    }

    @Test("a second writer gets busy after the busy timeout, not an endless wait")
    func busyWriter() async throws {
        try await withDatabasePath { path in
            let first = try Database(.file(path))
            try first.execute("CREATE TABLE t (x)")
            let second = try Database(.file(path), options: .init(busyTimeout: .milliseconds(20)))
            try first.transaction(.immediate) {
                let error = #expect(throws: SQLiteError.self) {
                    try second.transaction(.immediate) { try second.run("INSERT INTO t VALUES (1)") }
                }
                #expect(error?.code == .busy)
                #expect(!second.isInTransaction)
            }
        }
    }
}
