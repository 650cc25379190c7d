/// A failure of a PostgreSQL call: the connection, the server's refusal of a statement (with its
/// SQLSTATE), a wait that timed out, or a misuse of this module.
public struct PostgresError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure it is.
    public enum Kind: String, Sendable, Hashable {
        /// The connection could not be made or was lost. The outcome of a statement in flight is
        /// unknown (a commit may have happened); the connection is unusable from now on.
        case connection
        /// The server refused the statement; ``PostgresError/sqlState`` says why. The connection
        /// stays usable.
        case server
        /// The statement was not run because an earlier statement of the same pipeline failed.
        case aborted
        /// The server did not answer within the deadline; the connection is unusable from now on.
        case timeout
        /// The module was used wrongly (a closed connection, a parameter count that does not match).
        case misuse
    }

    /// The kind.
    public let kind: Kind
    /// The server's SQLSTATE, when the server sent one.
    public let sqlState: SQLState?
    /// The server's or libpq's message (never a parameter's value).
    public let message: String
    /// The libpq function that failed, e.g. `PQconnectdbParams`, `PQgetResult`.
    public let function: String

    /// An error.
    public init(_ kind: Kind, sqlState: SQLState? = nil, message: String, function: String) {
        self.kind = kind
        self.sqlState = sqlState
        self.message = message
        self.function = function
    }

    /// True when the connection is gone or the server cannot serve it (shutting down, in recovery,
    /// read-only after a failover): the caller should reconnect rather than retry on this
    /// connection, and a write in flight may or may not have been committed.
    public var isConnectionFailure: Bool {
        switch kind {
        case .connection, .timeout: return true
        case .aborted, .misuse: return false
        case .server:
            guard let sqlState else { return false }
            return sqlState.errorClass == "08" || sqlState == .adminShutdown || sqlState == .crashShutdown
                || sqlState == .cannotConnectNow || sqlState == .readOnlySQLTransaction
        }
    }

    public var description: String {
        let state = sqlState.map { " [\($0.rawValue)]" } ?? ""
        return "\(function): \(kind.rawValue)\(state): \(message)"
    }
}

/// A five-character SQLSTATE code, with the names PostgreSQL's documentation gives them (Appendix A).
public struct SQLState: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    /// The first two characters: the class (`23` integrity constraint violation, `08` connection
    /// exception, ...).
    public var errorClass: Substring { rawValue.prefix(2) }

    public var description: String { rawValue }

    public static let uniqueViolation = SQLState(rawValue: "23505")
    public static let foreignKeyViolation = SQLState(rawValue: "23503")
    public static let notNullViolation = SQLState(rawValue: "23502")
    public static let checkViolation = SQLState(rawValue: "23514")
    public static let serializationFailure = SQLState(rawValue: "40001")
    public static let deadlockDetected = SQLState(rawValue: "40P01")
    public static let readOnlySQLTransaction = SQLState(rawValue: "25006")
    public static let inFailedSQLTransaction = SQLState(rawValue: "25P02")
    public static let syntaxError = SQLState(rawValue: "42601")
    public static let undefinedTable = SQLState(rawValue: "42P01")
    public static let adminShutdown = SQLState(rawValue: "57P01")
    public static let crashShutdown = SQLState(rawValue: "57P02")
    public static let cannotConnectNow = SQLState(rawValue: "57P03")
    public static let queryCanceled = SQLState(rawValue: "57014")
}
