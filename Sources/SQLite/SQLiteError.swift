internal import CSQLite

/// An error reported by SQLite: the primary and extended result code, SQLite's message and, when a
/// statement was involved, its SQL text (never the values bound to it).
///
/// Result codes grow with SQLite, so this is a struct with an extensible ``Code`` rather than a
/// closed enum. The constants keep the C names. Compare the primary code for a family of errors and
/// the extended code for one precise cause:
///
/// ```swift
/// do {
///     try database.run("INSERT INTO account (username) VALUES (?)", [.text(name)])
/// } catch where error.extendedCode == .constraintUnique {
///     return .taken
/// } catch {
///     throw error
/// }
/// ```
///
/// Keep the final `catch { throw error }` when the enclosing function has untyped `throws`: Swift
/// 6.3.1 can crash (signal 11 in `MandatoryAllocBoxToStack`) compiling a non-exhaustive catch of a
/// typed error there.
public struct SQLiteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A SQLite result code (`SQLITE_*`), primary or extended, with the C names as constants.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The C result code.
        public let rawValue: Int32

        /// Wraps a C result code.
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// The primary code of this code: its low eight bits (`SQLITE_CONSTRAINT` for
        /// `SQLITE_CONSTRAINT_UNIQUE`). A primary code is its own primary code.
        public var primary: Code { Code(rawValue: rawValue & 0xff) }

        /// SQLite's English text for this code (`sqlite3_errstr`).
        public var description: String { String(cString: sqlite3_errstr(rawValue)) }

        /// An extended code: a primary code with a sub-code in bits 8 and up.
        private static func extended(_ primary: Int32, _ subcode: Int32) -> Code {
            Code(rawValue: primary | (subcode << 8))
        }

        /// `SQLITE_ERROR`: a generic error, such as an SQL syntax error or a missing table.
        public static let error = Code(rawValue: SQLITE_ERROR)
        /// `SQLITE_INTERNAL`: an internal malfunction of SQLite.
        public static let `internal` = Code(rawValue: SQLITE_INTERNAL)
        /// `SQLITE_PERM`: the requested access mode cannot be provided.
        public static let perm = Code(rawValue: SQLITE_PERM)
        /// `SQLITE_ABORT`: an operation was aborted, for example by a rollback.
        public static let abort = Code(rawValue: SQLITE_ABORT)
        /// `SQLITE_BUSY`: another connection holds a conflicting lock past the busy timeout.
        public static let busy = Code(rawValue: SQLITE_BUSY)
        /// `SQLITE_LOCKED`: a conflict inside this connection (or a shared cache).
        public static let locked = Code(rawValue: SQLITE_LOCKED)
        /// `SQLITE_NOMEM`: out of memory.
        public static let nomem = Code(rawValue: SQLITE_NOMEM)
        /// `SQLITE_READONLY`: a write to a database opened read-only.
        public static let readonly = Code(rawValue: SQLITE_READONLY)
        /// `SQLITE_INTERRUPT`: the operation was interrupted.
        public static let interrupt = Code(rawValue: SQLITE_INTERRUPT)
        /// `SQLITE_IOERR`: the operating system reported an I/O error.
        public static let ioerr = Code(rawValue: SQLITE_IOERR)
        /// `SQLITE_CORRUPT`: the database file is malformed.
        public static let corrupt = Code(rawValue: SQLITE_CORRUPT)
        /// `SQLITE_FULL`: the disk is full.
        public static let full = Code(rawValue: SQLITE_FULL)
        /// `SQLITE_CANTOPEN`: the database file could not be opened.
        public static let cantopen = Code(rawValue: SQLITE_CANTOPEN)
        /// `SQLITE_PROTOCOL`: a locking protocol problem (WAL).
        public static let `protocol` = Code(rawValue: SQLITE_PROTOCOL)
        /// `SQLITE_SCHEMA`: the schema changed under a statement.
        public static let schema = Code(rawValue: SQLITE_SCHEMA)
        /// `SQLITE_TOOBIG`: a string or blob is larger than SQLite's limit.
        public static let toobig = Code(rawValue: SQLITE_TOOBIG)
        /// `SQLITE_CONSTRAINT`: a constraint was violated (see the extended codes).
        public static let constraint = Code(rawValue: SQLITE_CONSTRAINT)
        /// `SQLITE_MISMATCH`: a datatype mismatch; also a column read as the wrong Swift type.
        public static let mismatch = Code(rawValue: SQLITE_MISMATCH)
        /// `SQLITE_MISUSE`: the API was used wrongly; also any use of a closed ``Database``.
        public static let misuse = Code(rawValue: SQLITE_MISUSE)
        /// `SQLITE_AUTH`: an authorizer denied the operation.
        public static let auth = Code(rawValue: SQLITE_AUTH)
        /// `SQLITE_RANGE`: a parameter index or name, or a column index or name, that does not exist.
        public static let range = Code(rawValue: SQLITE_RANGE)
        /// `SQLITE_NOTADB`: the file is not a database.
        public static let notadb = Code(rawValue: SQLITE_NOTADB)

        /// `SQLITE_BUSY_SNAPSHOT`: a WAL read transaction cannot be upgraded to a write because
        /// another connection wrote since it began.
        public static let busySnapshot = extended(SQLITE_BUSY, 2)
        /// `SQLITE_BUSY_TIMEOUT`: a blocking lock timed out.
        public static let busyTimeout = extended(SQLITE_BUSY, 3)
        /// `SQLITE_IOERR_FSYNC`: `fsync` failed: a commit may not be durable.
        public static let ioerrFsync = extended(SQLITE_IOERR, 4)
        /// `SQLITE_CANTOPEN_ISDIR`: the path names a directory.
        public static let cantopenIsdir = extended(SQLITE_CANTOPEN, 2)
        /// `SQLITE_READONLY_DBMOVED`: the database file was moved or deleted while open.
        public static let readonlyDbmoved = extended(SQLITE_READONLY, 4)
        /// `SQLITE_CONSTRAINT_CHECK`: a `CHECK` constraint failed.
        public static let constraintCheck = extended(SQLITE_CONSTRAINT, 1)
        /// `SQLITE_CONSTRAINT_FOREIGNKEY`: a foreign key constraint failed.
        public static let constraintForeignkey = extended(SQLITE_CONSTRAINT, 3)
        /// `SQLITE_CONSTRAINT_NOTNULL`: a `NOT NULL` constraint failed.
        public static let constraintNotnull = extended(SQLITE_CONSTRAINT, 5)
        /// `SQLITE_CONSTRAINT_PRIMARYKEY`: a `PRIMARY KEY` constraint failed.
        public static let constraintPrimarykey = extended(SQLITE_CONSTRAINT, 6)
        /// `SQLITE_CONSTRAINT_UNIQUE`: a `UNIQUE` constraint (or unique index) failed.
        public static let constraintUnique = extended(SQLITE_CONSTRAINT, 8)
        /// `SQLITE_CONSTRAINT_ROWID`: a rowid is not unique.
        public static let constraintRowid = extended(SQLITE_CONSTRAINT, 10)
    }

    /// The extended result code, the most precise cause (for example ``Code/constraintUnique``).
    /// It equals ``code`` when SQLite gave no sub-code.
    public let extendedCode: Code
    /// The C function or wrapper operation that failed, for example `sqlite3_step`.
    public let function: String
    /// SQLite's message (`sqlite3_errmsg`), or this module's for errors it detects itself.
    public let message: String
    /// The SQL text of the statement involved, when there was one. Bound values are never included.
    public let sql: String?

    /// Creates an error from a result code, a message, the failing function and the SQL involved.
    public init(extendedCode: Code, message: String, function: String, sql: String? = nil) {
        self.extendedCode = extendedCode
        self.message = message
        self.function = function
        self.sql = sql
    }

    /// The primary result code (for example ``Code/constraint`` or ``Code/busy``).
    public var code: Code { extendedCode.primary }

    /// `function: message (code N)`, then the SQL in brackets when there is one.
    public var description: String {
        let base = "\(function): \(message) (code \(extendedCode.rawValue))"
        guard let sql else { return base }
        return "\(base) [\(sql)]"
    }
}

extension SQLiteError {
    /// An error detected by this module rather than reported by SQLite.
    static func detected(
        _ code: Code, _ message: String, function: StaticString, sql: String? = nil
    ) -> SQLiteError {
        SQLiteError(extendedCode: code, message: message, function: "\(function)", sql: sql)
    }
}

/// The one checked-call helper used for every SQLite call that returns a result code.
///
/// Returns the code when it reports success (`SQLITE_OK`, or `SQLITE_ROW` and `SQLITE_DONE` from a
/// step); throws a ``SQLiteError`` for anything else, with the connection's extended code and
/// message (`sqlite3_extended_errcode`, `sqlite3_errmsg`) when they describe this failure, SQLite's
/// generic text for the code otherwise (no connection, or one whose last error is another).
@inline(__always)
func checkedCall(
    _ function: StaticString, _ connection: OpaquePointer?, sql: String? = nil, _ body: () -> Int32
) throws(SQLiteError) -> Int32 {
    let result = body()
    switch result {
    case SQLITE_OK, SQLITE_ROW, SQLITE_DONE:
        return result
    default:
        var code = SQLiteError.Code(rawValue: result)
        var message = code.description
        if let connection, sqlite3_errcode(connection) & 0xff == result & 0xff {
            code = SQLiteError.Code(rawValue: sqlite3_extended_errcode(connection))
            message = String(cString: sqlite3_errmsg(connection))
        }
        throw SQLiteError(extendedCode: code, message: message, function: "\(function)", sql: sql)
    }
}
