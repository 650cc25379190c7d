import SQLite
import Testing

/// An error a transaction body throws on purpose.
private struct Abandon: Error {}

@Suite("Constraints and transactions", .timeLimit(.minutes(1)))
struct TransactionTests {
    /// An in-memory database with a table of unique, non-null usernames.
    private func database() throws -> Database {
        let database = try Database(.inMemory)
        try database.execute("CREATE TABLE account (id INTEGER PRIMARY KEY, username TEXT NOT NULL UNIQUE)")
        return database
    }

    @Test("a duplicate username is constraintUnique, told apart from other constraint failures")
    func uniqueConstraint() throws {
        let database = try database()
        try database.run("INSERT INTO account (username) VALUES (?)", ["alice"])
        let duplicate = #expect(throws: SQLiteError.self) {
            try database.run("INSERT INTO account (username) VALUES (?)", ["alice"])
        }
        #expect(duplicate?.code == .constraint)
        #expect(duplicate?.extendedCode == .constraintUnique)
        #expect(duplicate?.message == "UNIQUE constraint failed: account.username")
        let missing = #expect(throws: SQLiteError.self) {
            try database.run("INSERT INTO account (username) VALUES (?)", [nil])
        }
        #expect(missing?.code == .constraint)
        #expect(missing?.extendedCode == .constraintNotnull)
        #expect(SQLiteError.Code.constraintUnique.primary == .constraint)
        // The cached statement is usable again after the failure.
        try database.run("INSERT INTO account (username) VALUES (?)", ["bob"])
        #expect(try database.query("SELECT count(*) FROM account").first?.get(0) == 2)
    }

    /// Registers `name` the way the guide shows: false when the name is taken.
    private func register(_ name: String, in database: Database) throws -> Bool {
        for row in try database.query("SELECT username FROM account") { _ = row }
        do {
            try database.transaction(.immediate) {
                try database.run("INSERT INTO account (username) VALUES (?)", [.text(name)])
            }
        } catch let error as SQLiteError where error.extendedCode == .constraintUnique {
            return false
        } catch {
            throw error
        }
        return true
    }

    @Test("the guide's pattern tells a taken username apart from success")
    func registrationPattern() throws {
        let database = try database()
        #expect(try register("grace", in: database))
        #expect(try !register("grace", in: database))
        database.close()
        #expect(throws: SQLiteError.self) { try register("henry", in: database) }
    }

    @Test("a transaction commits what its body did and returns its result")
    func commit() throws {
        let database = try database()
        let id = try database.transaction(.immediate) { () throws -> Int64 in
            try database.run("INSERT INTO account (username) VALUES ('carol')")
            #expect(database.isInTransaction)
            return database.lastInsertRowID
        }
        #expect(!database.isInTransaction)
        #expect(
            try database.query("SELECT username FROM account WHERE id = ?", [.integer(id)]).first?.get(0)
                == "carol")
    }

    @Test(
        "a transaction whose body throws is rolled back and the error rethrown",
        arguments: Database.TransactionKind.allCases)
    func rollback(kind: Database.TransactionKind) throws {
        let database = try database()
        #expect(throws: Abandon.self) {
            try database.transaction(kind) {
                try database.run("INSERT INTO account (username) VALUES ('dave')")
                throw Abandon()
            }
        }
        #expect(!database.isInTransaction)
        #expect(try database.query("SELECT count(*) FROM account").first?.get(0) == 0)
    }

    @Test("a failing statement inside a transaction rolls all of it back; transactions do not nest")
    func failingStatementAndNesting() throws {
        let database = try database()
        try database.run("INSERT INTO account (username) VALUES ('erin')")
        let error = #expect(throws: SQLiteError.self) {
            try database.transaction(.immediate) {
                try database.run("INSERT INTO account (username) VALUES ('frank')")
                try database.run("INSERT INTO account (username) VALUES ('erin')")
            }
        }
        #expect(error?.extendedCode == .constraintUnique)
        #expect(
            try database.query("SELECT username FROM account").map { try $0.get(0, as: String.self) } == [
                "erin"
            ])
        #expect(throws: SQLiteError.self) {
            try database.transaction { try database.transaction { () } }
        }
        #expect(!database.isInTransaction)
    }
}
