internal import CSQLite

/// The connection handle, shared by a ``Database`` and its statements so that a statement can tell
/// whether the database was closed. Confined to the database's isolation domain like them.
final class Connection {
    /// The `sqlite3*` handle; nil once the database is closed.
    private(set) var handle: OpaquePointer?

    init(_ handle: OpaquePointer) { self.handle = handle }

    /// The live handle, or ``SQLiteError/Code/misuse`` once closed.
    func open(_ function: StaticString, sql: String? = nil) throws(SQLiteError) -> OpaquePointer {
        guard let handle else {
            throw .detected(.misuse, "the database is closed", function: function, sql: sql)
        }
        return handle
    }

    /// Closes with `sqlite3_close_v2`: if statements are still alive, SQLite keeps the connection
    /// as a "zombie" and frees it when the last of them is finalized (they refuse to step meanwhile).
    func close() {
        guard let handle else { return }
        self.handle = nil
        // sqlite3_close_v2 fails only for a handle that is not a live connection (SQLITE_MISUSE),
        // which `handle` always is here: nothing can be reported.
        _ = sqlite3_close_v2(handle)
    }
}

/// One prepared SQL statement of a ``Database``.
///
/// Bind parameters (1-based indexes, or names such as `:name`), ``step()`` through the rows reading
/// columns (0-based indexes), then ``reset()`` to run it again. The statement is finalized when it is
/// deinitialized. Like its database, it is used from one isolation domain at a time.
///
/// ```swift
/// let statement = try database.prepare("SELECT id, username FROM account WHERE id > :after")
/// try statement.bind(Int64(10), named: ":after")
/// while try statement.step() == .row {
///     let id: Int64 = try statement.get(at: 0)
///     let name: String = try statement.get(at: 1)
/// }
/// ```
public final class Statement {
    /// What one ``Statement/step()`` produced.
    public enum StepResult: Sendable, Hashable {
        /// A row is available through the column getters.
        case row
        /// The statement has run to completion; ``Statement/reset()`` before stepping again.
        case done
    }

    /// The SQL text of the statement.
    public let sql: String
    /// The column names of the result, in order (empty for statements that return no rows).
    public let columnNames: [String]
    /// The number of parameters (the largest parameter index).
    public let parameterCount: Int

    private let connection: Connection
    private let handle: OpaquePointer

    /// Prepares the first statement of `sql`; throws when there is a second (use
    /// ``Database/execute(_:)`` for scripts) or none.
    init(_ sql: String, on connection: Connection) throws(SQLiteError) {
        let database = try connection.open("sqlite3_prepare_v2", sql: sql)
        var statement: OpaquePointer?
        var rest = ""
        _ = try sql.utf8CString.withUnsafeBufferPointer { (text) throws(SQLiteError) -> Int32 in
            guard let length = Int32(exactly: text.count) else {
                throw .detected(.toobig, "SQL text longer than 2 GiB", function: "sqlite3_prepare_v2")
            }
            var tail: UnsafePointer<CChar>?
            let result = try checkedCall("sqlite3_prepare_v2", database, sql: sql) {
                sqlite3_prepare_v2(database, text.baseAddress, length, &statement, &tail)
            }
            // The tail points into `text`, NUL-terminated: what follows the first statement.
            rest = tail.map { String(cString: $0) } ?? ""
            return result
        }
        guard let statement else {
            throw .detected(.misuse, "no SQL statement in the text", function: "sqlite3_prepare_v2", sql: sql)
        }
        self.sql = sql
        self.connection = connection
        self.handle = statement
        self.parameterCount = Int(sqlite3_bind_parameter_count(statement))
        self.columnNames = (0..<sqlite3_column_count(statement)).map {
            sqlite3_column_name(statement, $0).map { String(cString: $0) } ?? ""
        }
        if try Self.holdsStatement(rest, database) {
            throw .detected(
                .misuse, "more than one SQL statement in the text; use execute(_:) for scripts",
                function: "sqlite3_prepare_v2", sql: sql)
        }
    }

    deinit {
        // sqlite3_finalize only repeats the error of the last step, which was already thrown.
        _ = sqlite3_finalize(handle)
    }

    /// True when `text` compiles to a statement (not only white space and comments).
    private static func holdsStatement(_ text: String, _ database: OpaquePointer) throws(SQLiteError)
        -> Bool
    {
        guard text.contains(where: { !$0.isWhitespace }) else { return false }
        var statement: OpaquePointer?
        _ = try checkedCall("sqlite3_prepare_v2", database, sql: text) {
            sqlite3_prepare_v2(database, text, -1, &statement, nil)
        }
        guard let statement else { return false }
        _ = sqlite3_finalize(statement)
        return true
    }

    // MARK: Binding

    /// Binds `value` to the parameter at a 1-based index (`?`, `?NNN` or the position of a named one).
    ///
    /// Text and bytes are copied before the call returns. Throws ``SQLiteError/Code/range`` for an
    /// index that does not exist, ``SQLiteError/Code/toobig`` past SQLite's length limit.
    public func bind(_ value: some SQLiteValueConvertible, at index: Int) throws(SQLiteError) {
        let handle = self.handle
        let position = Int32(clamping: index)
        let database = try connection.open("sqlite3_bind", sql: sql)
        switch value.sqliteValue {
        case .null:
            _ = try checkedCall("sqlite3_bind_null", database, sql: sql) {
                sqlite3_bind_null(handle, position)
            }
        case .integer(let integer):
            _ = try checkedCall("sqlite3_bind_int64", database, sql: sql) {
                sqlite3_bind_int64(handle, position, integer)
            }
        case .real(let real):
            _ = try checkedCall("sqlite3_bind_double", database, sql: sql) {
                sqlite3_bind_double(handle, position, real)
            }
        case .text(var text):
            _ = try checkedCall("sqlite3_bind_text64", database, sql: sql) {
                text.withUTF8 { bytes in
                    // A nil pointer would bind NULL, so empty text is bound from a literal "".
                    guard let base = bytes.baseAddress, !bytes.isEmpty else {
                        return sqlite3_bind_text64(handle, position, "", 0, csqlite_transient(), textEncoding)
                    }
                    return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                        sqlite3_bind_text64(
                            handle, position, $0, UInt64(bytes.count), csqlite_transient(), textEncoding)
                    }
                }
            }
        case .blob(let bytes):
            _ = try checkedCall("sqlite3_bind_blob64", database, sql: sql) {
                bytes.withUnsafeBytes { raw in
                    // A nil pointer would bind NULL, so an empty blob is a zero-length zeroblob.
                    guard let base = raw.baseAddress else {
                        return sqlite3_bind_zeroblob(handle, position, 0)
                    }
                    return sqlite3_bind_blob64(handle, position, base, UInt64(raw.count), csqlite_transient())
                }
            }
        }
    }

    /// Binds `value` to the named parameter `name` (`:name`, `@name` or `$name`; a name given without
    /// its prefix character means `:name`). Throws ``SQLiteError/Code/range`` when there is none.
    public func bind(_ value: some SQLiteValueConvertible, named name: String) throws(SQLiteError) {
        try bind(value, at: parameterIndex(named: name))
    }

    /// Binds `values` to parameters 1, 2, ... in order. Throws ``SQLiteError/Code/range`` unless
    /// there is exactly one value per parameter.
    public func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        guard values.count == parameterCount else {
            throw .detected(
                .range, "\(values.count) values for \(parameterCount) parameters", function: "sqlite3_bind",
                sql: sql)
        }
        for (offset, value) in values.enumerated() { try bind(value, at: offset + 1) }
    }

    /// Binds each value to the parameter of its name (see ``bind(_:named:)``).
    public func bind(_ values: [String: SQLiteValue]) throws(SQLiteError) {
        for (name, value) in values { try bind(value, named: name) }
    }

    /// The 1-based index of a named parameter (a name without prefix character means `:name`).
    public func parameterIndex(named name: String) throws(SQLiteError) -> Int {
        let full = name.first.map { ":@$".contains($0) } == true ? name : ":" + name
        let index = sqlite3_bind_parameter_index(handle, full)
        guard index > 0 else {
            throw .detected(
                .range, "no parameter named \(full)", function: "sqlite3_bind_parameter_index", sql: sql)
        }
        return Int(index)
    }

    /// Sets every parameter back to `NULL`, releasing the copies of bound text and bytes.
    public func clearBindings() {
        // sqlite3_clear_bindings always returns SQLITE_OK.
        _ = sqlite3_clear_bindings(handle)
    }

    // MARK: Running

    /// Runs the statement to its next row (``StepResult/row``) or to completion (``StepResult/done``).
    ///
    /// Blocks the calling thread for disk I/O, and for up to the busy timeout while another
    /// connection holds a conflicting lock. On error the statement should be reset before reuse.
    public func step() throws(SQLiteError) -> StepResult {
        let handle = self.handle
        let database = try connection.open("sqlite3_step", sql: sql)
        let result = try checkedCall("sqlite3_step", database, sql: sql) { sqlite3_step(handle) }
        return result == SQLITE_ROW ? .row : .done
    }

    /// Makes the statement ready to run again from the start; bindings are kept.
    public func reset() {
        // sqlite3_reset only repeats the error of the last step, which step() already threw.
        _ = sqlite3_reset(handle)
    }

    /// Steps to completion and returns every row; the statement is reset afterwards, also on error.
    public func rows() throws(SQLiteError) -> [Row] {
        defer { reset() }
        var rows: [Row] = []
        while try step() == .row { rows.append(row) }
        return rows
    }

    /// Steps to completion, ignoring rows, and returns the number of rows changed (see
    /// ``Database/changes``); the statement is reset afterwards, also on error.
    @discardableResult
    public func run() throws(SQLiteError) -> Int {
        defer { reset() }
        while try step() == .row {}
        return Int(sqlite3_changes64(try connection.open("sqlite3_changes64", sql: sql)))
    }

    // MARK: Columns

    /// The value of a 0-based column of the current row (after ``step()`` returned ``StepResult/row``).
    /// The index must be below `columnNames.count`.
    public func value(at index: Int) -> SQLiteValue {
        precondition(columnNames.indices.contains(index), "column \(index) out of range")
        let column = Int32(index)
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT:
            // The pointer first, then the length (the documented order).
            let text = sqlite3_column_text(handle, column)
            let count = Int(sqlite3_column_bytes(handle, column))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let bytes = sqlite3_column_blob(handle, column)
            let count = Int(sqlite3_column_bytes(handle, column))
            guard let bytes else { return .blob([]) }
            return .blob([UInt8](UnsafeRawBufferPointer(start: bytes, count: count)))
        default:
            return .null
        }
    }

    /// The value of a 0-based column of the current row as `T`.
    ///
    /// - Throws: ``SQLiteError/Code/range`` for an index out of range, ``SQLiteError/Code/mismatch``
    ///   when the value does not convert (see ``SQLiteValueConvertible``).
    public func get<T: SQLiteValueConvertible>(at index: Int, as type: T.Type = T.self) throws(SQLiteError)
        -> T
    {
        guard columnNames.indices.contains(index) else {
            throw .detected(
                .range, "no column \(index) of \(columnNames.count)", function: "column", sql: sql)
        }
        return try convert(value(at: index), to: type, column: columnNames[index], sql: sql)
    }

    /// The current row, copied out.
    public var row: Row {
        Row(columnNames: columnNames, values: columnNames.indices.map { value(at: $0) }, sql: sql)
    }
}

/// The encoding of bound text: UTF-8, Swift's own.
private let textEncoding = UInt8(SQLITE_UTF8)
