/// An error reported by the `Argon2` module: what kind of failure and a message that says what was
/// wrong with which input.
///
/// A struct with an extensible ``Code`` rather than a closed enum, so codes can be added:
///
/// ```swift
/// do { _ = try PHCString(parsing: stored) } catch where error.code == .malformedString { ... }
/// ```
public struct Argon2Error: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's stable name.
        public let rawValue: String

        /// Wraps a code name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Text that is not an `$argon2id$v=19$m=…,t=…,p=…$salt$hash` string libsodium would accept.
        public static let malformedString = Code(rawValue: "malformed_string")
        /// Parameters outside Argon2's limits (RFC 9106, 3.1) or libsodium's (salt, tag length).
        public static let invalidParameters = Code(rawValue: "invalid_parameters")
        /// The parameters need more memory than the workspace holds.
        public static let insufficientMemory = Code(rawValue: "insufficient_memory")
        /// The workspace's memory could not be mapped.
        public static let outOfMemory = Code(rawValue: "out_of_memory")
        /// A kernel this CPU (or this build) cannot run was asked for.
        public static let unsupportedKernel = Code(rawValue: "unsupported_kernel")

        /// The code's name.
        public var description: String { rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// What went wrong, in words.
    public let message: String

    /// Creates an error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// `message (code)`.
    public var description: String { "\(message) (\(code))" }
}
