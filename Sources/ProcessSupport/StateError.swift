#if canImport(Glibc)
    import Glibc
#endif

/// A failure preparing a service's state: its directory, pid file, keys or allow-list.
///
/// A struct with an extensible ``Code`` (the set grows with the kit), the file it concerns, a
/// message a person can act on and the C error number when a system call failed.
public struct StateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's name.
        public let rawValue: String
        /// Wraps a name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The state directory could not be created or is not a directory.
        public static let stateDirectory = Code(rawValue: "state_directory")
        /// Another instance is running: the pid file names a live process.
        public static let alreadyRunning = Code(rawValue: "already_running")
        /// The pid file could not be read or written.
        public static let pidFile = Code(rawValue: "pid_file")
        /// A key file is missing, unreadable, malformed or too widely readable.
        public static let keyFile = Code(rawValue: "key_file")
        /// The allow-list has malformed lines.
        public static let allowList = Code(rawValue: "allow_list")

        /// The code's name.
        public var description: String { rawValue }
    }

    /// What kind of failure.
    public let code: Code
    /// The file or directory concerned.
    public let path: String
    /// What went wrong and, where possible, what to do.
    public let message: String
    /// The C error number of a failed system call, if any.
    public let errorNumber: Int32?

    /// Makes an error.
    public init(code: Code, path: String, message: String, errorNumber: Int32? = nil) {
        self.code = code
        self.path = path
        self.message = message
        self.errorNumber = errorNumber
    }

    /// An error for the system call `function` that failed on `path` with errno `number`.
    public static func system(_ code: Code, _ function: String, path: String, errno number: Int32)
        -> StateError
    {
        StateError(
            code: code, path: path,
            message: "\(function) failed: \(String(cString: strerror(number))) (errno \(number))",
            errorNumber: number)
    }

    /// `path: message`.
    public var description: String { "\(path): \(message)" }
}
