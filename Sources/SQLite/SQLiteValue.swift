public import Foundation

/// One SQLite value, in one of SQLite's five storage classes.
///
/// Literals build values directly, so bindings read naturally:
///
/// ```swift
/// let bindings: [SQLiteValue] = ["alice", 42, 1.5, nil, .blob([0, 1, 2]), SQLiteValue(data)]
/// ```
public enum SQLiteValue: Sendable, Hashable {
    /// SQL `NULL`.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// A 64-bit IEEE floating point number. SQLite stores a NaN as `NULL`.
    case real(Double)
    /// UTF-8 text; it may contain NUL characters.
    case text(String)
    /// Bytes, stored as they are.
    case blob([UInt8])

    /// The value of any convertible Swift value (`SQLiteValue(data)`, `SQLiteValue(optionalName)`).
    public init(_ value: some SQLiteValueConvertible) { self = value.sqliteValue }

    /// True for SQL `NULL`.
    public var isNull: Bool { self == .null }
}

extension SQLiteValue: ExpressibleByNilLiteral {
    /// `nil` is SQL `NULL`.
    public init(nilLiteral: ()) { self = .null }
}

extension SQLiteValue: ExpressibleByIntegerLiteral {
    /// An integer literal is an ``integer(_:)``.
    public init(integerLiteral value: Int64) { self = .integer(value) }
}

extension SQLiteValue: ExpressibleByFloatLiteral {
    /// A floating point literal is a ``real(_:)``.
    public init(floatLiteral value: Double) { self = .real(value) }
}

extension SQLiteValue: ExpressibleByStringLiteral {
    /// A string literal is ``text(_:)``.
    public init(stringLiteral value: String) { self = .text(value) }
}

/// A Swift type that converts to and from a ``SQLiteValue``: what can be bound to a parameter and
/// read from a column.
///
/// Conversions are strict: a value of another storage class does not convert (no text to number
/// parsing), except that an integer reads as a `Double`. `NULL` converts only to an `Optional` (to
/// `nil`) and to ``SQLiteValue`` itself.
public protocol SQLiteValueConvertible {
    /// The value to store.
    var sqliteValue: SQLiteValue { get }

    /// Converts a stored value, or returns nil when it has another storage class.
    init?(sqliteValue: SQLiteValue)
}

extension SQLiteValue: SQLiteValueConvertible {
    /// The value itself.
    public var sqliteValue: SQLiteValue { self }

    /// The value itself; never fails.
    public init?(sqliteValue: SQLiteValue) { self = sqliteValue }
}

extension Int64: SQLiteValueConvertible {
    /// ``SQLiteValue/integer(_:)``.
    public var sqliteValue: SQLiteValue { .integer(self) }

    /// Converts an ``SQLiteValue/integer(_:)``.
    public init?(sqliteValue: SQLiteValue) {
        guard case .integer(let value) = sqliteValue else { return nil }
        self = value
    }
}

extension Int: SQLiteValueConvertible {
    /// ``SQLiteValue/integer(_:)``.
    public var sqliteValue: SQLiteValue { .integer(Int64(self)) }

    /// Converts an ``SQLiteValue/integer(_:)`` that fits in an `Int`.
    public init?(sqliteValue: SQLiteValue) {
        guard case .integer(let value) = sqliteValue, let exact = Int(exactly: value) else { return nil }
        self = exact
    }
}

extension Double: SQLiteValueConvertible {
    /// ``SQLiteValue/real(_:)``.
    public var sqliteValue: SQLiteValue { .real(self) }

    /// Converts an ``SQLiteValue/real(_:)`` or an ``SQLiteValue/integer(_:)``.
    public init?(sqliteValue: SQLiteValue) {
        switch sqliteValue {
        case .real(let value): self = value
        case .integer(let value): self = Double(value)
        default: return nil
        }
    }
}

extension String: SQLiteValueConvertible {
    /// ``SQLiteValue/text(_:)``.
    public var sqliteValue: SQLiteValue { .text(self) }

    /// Converts ``SQLiteValue/text(_:)``.
    public init?(sqliteValue: SQLiteValue) {
        guard case .text(let value) = sqliteValue else { return nil }
        self = value
    }
}

extension [UInt8]: SQLiteValueConvertible {
    /// ``SQLiteValue/blob(_:)``.
    public var sqliteValue: SQLiteValue { .blob(self) }

    /// Converts a ``SQLiteValue/blob(_:)``.
    public init?(sqliteValue: SQLiteValue) {
        guard case .blob(let value) = sqliteValue else { return nil }
        self = value
    }
}

extension Data: SQLiteValueConvertible {
    /// ``SQLiteValue/blob(_:)``.
    public var sqliteValue: SQLiteValue { .blob([UInt8](self)) }

    /// Converts a ``SQLiteValue/blob(_:)``.
    public init?(sqliteValue: SQLiteValue) {
        guard case .blob(let value) = sqliteValue else { return nil }
        self = Data(value)
    }
}

extension Optional: SQLiteValueConvertible where Wrapped: SQLiteValueConvertible {
    /// `NULL` for `nil`, the wrapped value's otherwise.
    public var sqliteValue: SQLiteValue { self?.sqliteValue ?? .null }

    /// `nil` for `NULL`, the wrapped type's conversion otherwise.
    public init?(sqliteValue: SQLiteValue) {
        if sqliteValue == .null {
            self = .none
            return
        }
        guard let value = Wrapped(sqliteValue: sqliteValue) else { return nil }
        self = .some(value)
    }
}

/// Converts `value`, read from `column`, to `T`, or throws ``SQLiteError/Code/mismatch``.
func convert<T: SQLiteValueConvertible>(
    _ value: SQLiteValue, to type: T.Type, column: String, sql: String?
) throws(SQLiteError) -> T {
    guard let converted = T(sqliteValue: value) else {
        throw .detected(
            .mismatch, "column \(column) holds \(value.storageClass), not \(T.self)",
            function: "column", sql: sql)
    }
    return converted
}

extension SQLiteValue {
    /// The storage class's SQL name, for error messages (never the value itself: it may be secret).
    var storageClass: String {
        switch self {
        case .null: "NULL"
        case .integer: "INTEGER"
        case .real: "REAL"
        case .text: "TEXT"
        case .blob: "BLOB"
        }
    }
}
