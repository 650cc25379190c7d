import SQLite
import Testing

/// An error a migration throws on purpose.
private struct Broken: Error {}

@Suite("Migrator: versioned schema", .timeLimit(.minutes(1)))
struct MigratorTests {
    /// The schema of these tests: a table, then an index, then a column.
    private static let migrations = [
        Migration(version: 1, sql: "CREATE TABLE account (id INTEGER PRIMARY KEY, username TEXT NOT NULL)"),
        Migration(version: 2, sql: "CREATE UNIQUE INDEX account_username ON account (username)"),
        Migration(version: 3) { database in
            try database.execute("ALTER TABLE account ADD COLUMN created_at INTEGER NOT NULL DEFAULT 0")
            try database.run("UPDATE account SET created_at = 1")
        },
    ]

    @Test("a fresh database gets every migration; reopening applies none")
    func freshThenReopen() async throws {
        try await withDatabasePath { path in
            let migrator = Migrator(Self.migrations)
            #expect(migrator.latestVersion == 3)
            do {
                let database = try Database(.file(path))
                #expect(try Migrator.version(of: database) == 0)
                #expect(try migrator.migrate(database) == [1, 2, 3])
                #expect(try Migrator.version(of: database) == 3)
                try database.run("INSERT INTO account (username) VALUES ('alice')")
            }
            let reopened = try Database(.file(path))
            #expect(try migrator.migrate(reopened) == [])
            #expect(try reopened.query("SELECT username FROM account").count == 1)
            let duplicate = #expect(throws: SQLiteError.self) {
                try reopened.run("INSERT INTO account (username) VALUES ('alice')")
            }
            #expect(duplicate?.extendedCode == .constraintUnique)
        }
    }

    @Test("an older database gets only the newer migrations")
    func upgrade() throws {
        let database = try Database(.inMemory)
        #expect(try Migrator(Array(Self.migrations.prefix(1))).migrate(database) == [1])
        try database.run("INSERT INTO account (username) VALUES ('bob')")
        #expect(try Migrator(Self.migrations).migrate(database) == [2, 3])
        #expect(try database.query("SELECT created_at FROM account").first?.get(0) == 1)
    }

    @Test("a database newer than the program is refused, untouched")
    func newerRefused() throws {
        let database = try Database(.inMemory)
        try Migrator(Self.migrations).migrate(database)
        let older = Migrator(Array(Self.migrations.prefix(2)))
        #expect {
            try older.migrate(database)
        } throws: { error in
            guard case MigrationError.databaseIsNewer(let found, let known) = error else { return false }
            return found == 3 && known == 2
        }
        #expect(try Migrator.version(of: database) == 3)
    }

    @Test("a failing migration is rolled back; the ones before it stay")
    func failingRollsBack() throws {
        let database = try Database(.inMemory)
        let failing = Migrator([
            Self.migrations[0],
            Migration(version: 2) { database in
                try database.execute("CREATE TABLE half_done (x)")
                try database.run("INSERT INTO account (username) VALUES ('ghost')")
                throw Broken()
            },
        ])
        #expect {
            try failing.migrate(database)
        } throws: { error in
            guard case MigrationError.failed(let version, let underlying) = error else { return false }
            return version == 2 && underlying is Broken
        }
        #expect(try Migrator.version(of: database) == 1)
        #expect(try database.query("SELECT name FROM sqlite_master WHERE name = 'half_done'").isEmpty)
        #expect(try database.query("SELECT * FROM account").isEmpty)
        #expect(!database.isInTransaction)

        let badSQL = Migrator([
            Self.migrations[0], Migration(version: 2, sql: "CREATE TABLE ok (x); NONSENSE"),
        ])
        #expect {
            try badSQL.migrate(database)
        } throws: { error in
            guard case MigrationError.failed(2, let underlying as SQLiteError) = error else { return false }
            return underlying.code == .error
        }
        #expect(try database.query("SELECT name FROM sqlite_master WHERE name = 'ok'").isEmpty)
        #expect(try Migrator(Self.migrations).migrate(database) == [2, 3])
    }
}
