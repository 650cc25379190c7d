/// One result row, copied out of a statement: column names and values, in the query's order.
///
/// ```swift
/// for row in try database.query("SELECT id, username, email FROM account") {
///     let id: Int64 = try row.get("id")
///     let email = try row.get("email", as: String?.self)   // nil for NULL
/// }
/// ```
public struct Row: Sendable, Hashable {
    /// The column names, as SQLite reports them (`AS` aliases included).
    public let columnNames: [String]
    /// The values, one per column.
    public let values: [SQLiteValue]
    /// The SQL the row came from, for error messages.
    let sql: String?

    /// Creates a row; `columnNames` and `values` must have the same count.
    public init(columnNames: [String], values: [SQLiteValue]) {
        precondition(columnNames.count == values.count, "a row needs one name per value")
        self.init(columnNames: columnNames, values: values, sql: nil)
    }

    init(columnNames: [String], values: [SQLiteValue], sql: String?) {
        self.columnNames = columnNames
        self.values = values
        self.sql = sql
    }

    /// The value at a 0-based column index (the index must exist).
    public subscript(index: Int) -> SQLiteValue { values[index] }

    /// The value of the first column with this name, or nil when there is none.
    public subscript(name: String) -> SQLiteValue? {
        columnNames.firstIndex(of: name).map { values[$0] }
    }

    /// The value at a 0-based column index as `T`.
    ///
    /// - Throws: ``SQLiteError/Code/range`` for an index out of range, ``SQLiteError/Code/mismatch``
    ///   when the value does not convert (see ``SQLiteValueConvertible``).
    public func get<T: SQLiteValueConvertible>(_ index: Int, as type: T.Type = T.self) throws(SQLiteError)
        -> T
    {
        guard values.indices.contains(index) else {
            throw .detected(
                .range, "no column \(index) in a row of \(values.count)", function: "column", sql: sql)
        }
        return try convert(values[index], to: type, column: columnNames[index], sql: sql)
    }

    /// The value of the first column with this name as `T`.
    ///
    /// - Throws: ``SQLiteError/Code/range`` when there is no such column, ``SQLiteError/Code/mismatch``
    ///   when the value does not convert (see ``SQLiteValueConvertible``).
    public func get<T: SQLiteValueConvertible>(_ name: String, as type: T.Type = T.self) throws(SQLiteError)
        -> T
    {
        guard let index = columnNames.firstIndex(of: name) else {
            throw .detected(.range, "no column named \(name)", function: "column", sql: sql)
        }
        return try convert(values[index], to: type, column: name, sql: sql)
    }

    /// Rows are equal when their column names and values are (the SQL they came from is ignored).
    public static func == (lhs: Row, rhs: Row) -> Bool {
        lhs.columnNames == rhs.columnNames && lhs.values == rhs.values
    }

    /// Hashes the column names and values.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(columnNames)
        hasher.combine(values)
    }
}
