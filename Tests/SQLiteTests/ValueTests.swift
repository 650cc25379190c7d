import Foundation
import SQLite
import Testing

@Suite("Statements: binding and reading every type", .timeLimit(.minutes(1)))
struct ValueTests {
    /// An in-memory database with a table `t (v)` of untyped values.
    private func database() throws -> Database {
        let database = try Database(.inMemory)
        try database.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v)")
        return database
    }

    /// Stores `value` through a statement bound by index and reads it back.
    private func roundTrip<T: SQLiteValueConvertible>(_ value: T, in database: Database) throws -> T {
        let insert = try database.prepare("INSERT INTO t (v) VALUES (?)")
        try insert.bind(value, at: 1)
        #expect(try insert.step() == .done)
        let select = try database.prepare("SELECT v FROM t WHERE id = ?")
        try select.bind(database.lastInsertRowID, at: 1)
        #expect(try select.step() == .row)
        let read: T = try select.get(at: 0)
        #expect(try select.step() == .done)
        return read
    }

    @Test("integers, doubles, text, bytes, Data and NULL come back as they went in")
    func roundTrips() throws {
        let database = try database()
        #expect(try roundTrip(Int64.min, in: database) == Int64.min)
        #expect(try roundTrip(Int64.max, in: database) == Int64.max)
        #expect(try roundTrip(-42, in: database) == -42)
        #expect(try roundTrip(3.25, in: database) == 3.25)
        #expect(try roundTrip(-0.0, in: database).sign == .minus)
        #expect(try roundTrip("plain", in: database) == "plain")
        #expect(try roundTrip("", in: database) == "")
        #expect(try roundTrip("用户名 Ünïcødé 🦊", in: database) == "用户名 Ünïcødé 🦊")
        #expect(try roundTrip("nul\u{0}inside", in: database) == "nul\u{0}inside")
        #expect(try roundTrip([UInt8](), in: database) == [])
        #expect(try roundTrip([0, 0, 255, 0, 1] as [UInt8], in: database) == [0, 0, 255, 0, 1])
        #expect(try roundTrip(Data([0, 1, 0, 2]), in: database) == Data([0, 1, 0, 2]))
        #expect(try roundTrip(String?.none, in: database) == nil)
        #expect(try roundTrip(Int64?.some(7), in: database) == 7)
        #expect(try roundTrip(SQLiteValue.null, in: database) == .null)
        #expect(try roundTrip(SQLiteValue.blob([0]), in: database) == .blob([0]))
    }

    @Test("empty text, an empty blob and NULL stay distinct")
    func emptiesAreNotNull() throws {
        let database = try database()
        try database.run("INSERT INTO t (v) VALUES (?), (?), (?)", ["", .blob([]), nil])
        let types = try database.query("SELECT typeof(v) AS type FROM t ORDER BY id").map {
            try $0.get("type", as: String.self)
        }
        #expect(types == ["text", "blob", "null"])
    }

    @Test("named parameters bind with or without their prefix, positional ones by count")
    func namedParameters() throws {
        let database = try database()
        try database.run("INSERT INTO t (id, v) VALUES (:id, :value)", [":id": 5, "value": "named"])
        let statement = try database.prepare("SELECT v FROM t WHERE id = @id")
        #expect(statement.parameterCount == 1)
        try statement.bind(5, named: "@id")
        #expect(try statement.rows().first?.get(0) == "named")
        let unknown = #expect(throws: SQLiteError.self) { try statement.bind(1, named: ":nope") }
        #expect(unknown?.code == .range)
        let wrongCount = #expect(throws: SQLiteError.self) { try database.query("SELECT ?, ?", [1]) }
        #expect(wrongCount?.code == .range)
        let badIndex = #expect(throws: SQLiteError.self) { try statement.bind(1, at: 2) }
        #expect(badIndex?.code == .range)
    }

    @Test("typed getters refuse another storage class and NULL, except through Optional")
    func typedGetters() throws {
        let database = try database()
        let row = try #require(try database.query("SELECT 1 AS i, 2.5 AS r, 'x' AS s, NULL AS n").first)
        #expect(row.columnNames == ["i", "r", "s", "n"])
        #expect(try row.get("i", as: Double.self) == 1)
        #expect(try row.get("n", as: Int?.self) == nil)
        #expect(row["s"] == .text("x"))
        #expect(row["missing"] == nil)
        let mismatch = #expect(throws: SQLiteError.self) { try row.get("s", as: Int64.self) }
        #expect(mismatch?.code == .mismatch)
        #expect(throws: SQLiteError.self) { try row.get("n", as: String.self) }
        #expect(throws: SQLiteError.self) { try row.get("r", as: Int.self) }
        let missing = #expect(throws: SQLiteError.self) { try row.get("missing", as: Int.self) }
        #expect(missing?.code == .range)
        #expect(throws: SQLiteError.self) { try row.get(9, as: Int.self) }
    }

    @Test("a statement is reset and re-run with new bindings; run() reports the changes")
    func resetAndRerun() throws {
        let database = try database()
        let insert = try database.prepare("INSERT INTO t (v) VALUES (?)")
        for value in 1...3 {
            try insert.bind(value, at: 1)
            #expect(try insert.run() == 1)
        }
        #expect(database.lastInsertRowID == 3)
        #expect(try database.run("UPDATE t SET v = v * 10 WHERE v > ?", [1]) == 2)
        #expect(database.changes == 2)
        let select = try database.prepare("SELECT v FROM t ORDER BY v")
        #expect(try select.step() == .row)
        select.reset()
        #expect(try select.rows().map { try $0.get(0, as: Int.self) } == [1, 20, 30])
    }
}
