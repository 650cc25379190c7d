/// A statement parameter. Text, integers and booleans are sent in PostgreSQL's text format; bytes
/// in binary format (as `bytea`), so they arrive exactly as given.
public enum PostgresValue: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByNilLiteral
{
    /// SQL `NULL`.
    case null
    /// Text (UTF-8).
    case text(String)
    /// A 64-bit integer.
    case integer(Int64)
    /// A boolean.
    case boolean(Bool)
    /// Bytes, for a `bytea` parameter.
    case bytes([UInt8])

    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(nilLiteral: ()) { self = .null }
}

/// The rows of one statement's result, copied out of libpq in text format, and the number of rows
/// it changed.
public struct ResultSet: Sendable, Hashable {
    /// The column names.
    public let columns: [String]
    /// The values by row, then column (nil for `NULL`), as PostgreSQL's text output.
    public let rows: [[String?]]
    /// Rows inserted, updated or deleted (0 for other statements).
    public let affectedRows: Int

    /// A result.
    public init(columns: [String] = [], rows: [[String?]] = [], affectedRows: Int = 0) {
        self.columns = columns
        self.rows = rows
        self.affectedRows = affectedRows
    }

    /// The text of `column` in `row`; nil for `NULL`.
    public func text(_ row: Int, _ column: Int) throws(PostgresError) -> String? {
        guard rows.indices.contains(row), rows[row].indices.contains(column) else {
            throw PostgresError(
                .misuse, message: "no value at row \(row), column \(column) (\(rows.count) rows)",
                function: "ResultSet.text")
        }
        return rows[row][column]
    }

    /// `column` in `row` as an integer (`int2`, `int4`, `int8`, or a numeric without fraction).
    public func integer(_ row: Int, _ column: Int) throws(PostgresError) -> Int64 {
        guard let text = try text(row, column), let value = Int64(text) else {
            throw PostgresError(
                .misuse, message: "row \(row), column \(column) is not an integer",
                function: "ResultSet.integer")
        }
        return value
    }

    /// `column` in `row` as a boolean (`t` or `f`).
    public func boolean(_ row: Int, _ column: Int) throws(PostgresError) -> Bool {
        switch try text(row, column) {
        case "t": return true
        case "f": return false
        default:
            throw PostgresError(
                .misuse, message: "row \(row), column \(column) is not a boolean",
                function: "ResultSet.boolean")
        }
    }
}

/// A statement prepared once per connection under `name`, the first time a connection runs it.
public struct PreparedStatement: Sendable, Hashable {
    /// The server-side name.
    public let name: String
    /// The SQL, with `$1`, `$2`, ... for parameters.
    public let sql: String

    /// A statement.
    public init(_ name: String, _ sql: String) {
        self.name = name
        self.sql = sql
    }
}

/// One statement of a pipeline: a prepared statement or plain SQL, with its parameters.
public struct PipelineStatement: Sendable, Hashable {
    enum Form: Sendable, Hashable {
        case prepared(PreparedStatement)
        case sql(String)
    }

    let form: Form
    let parameters: [PostgresValue]

    /// Runs `statement` (prepared on this connection first if it is not yet) with `parameters`.
    public static func prepared(_ statement: PreparedStatement, _ parameters: [PostgresValue] = []) -> Self {
        Self(form: .prepared(statement), parameters: parameters)
    }

    /// Runs one SQL statement with `parameters` (unnamed, parsed every time).
    public static func sql(_ sql: String, _ parameters: [PostgresValue] = []) -> Self {
        Self(form: .sql(sql), parameters: parameters)
    }
}
