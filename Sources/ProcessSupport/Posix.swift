import Glibc

/// The POSIX calls the project makes outside libzmq, each checked in one place: interrupted calls
/// (`EINTR`) are retried, short writes are continued, and failures become a ``PosixError`` that
/// names the call, the errno and, for calls on a path, the path. Every module that can depend on
/// this one makes its file, pipe and descriptor calls here.
public enum Posix {
    /// A failed POSIX call.
    public struct PosixError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The call that failed (`write`, `fsync`, …).
        public let function: String
        /// Its errno.
        public let code: Int32
        /// The path it was called on, if any.
        public let path: String?

        /// `function` failed with errno `code` (on `path`).
        public init(function: String, code: Int32, path: String? = nil) {
            self.function = function
            self.code = code
            self.path = path
        }

        public var description: String {
            "\(function)\(path.map { " \($0)" } ?? ""): \(String(cString: strerror(code))) (errno \(code))"
        }
    }

    /// Runs `call` until it returns something other than -1 with `EINTR`; -1 with another errno
    /// throws it (naming `path`, if given).
    @discardableResult
    public static func retrying<T: FixedWidthInteger>(
        _ function: String, path: String? = nil, _ call: () -> T
    ) throws(PosixError) -> T {
        while true {
            let result = call()
            if result != -1 { return result }
            if errno == EINTR { continue }
            throw PosixError(function: function, code: errno, path: path)
        }
    }

    /// Opens `path` with `flags` (and `mode`, for a file it creates); returns the descriptor.
    public static func open(_ path: String, _ flags: Int32, mode: UInt32 = 0) throws(PosixError) -> Int32 {
        try retrying("open", path: path) { Glibc.open(path, flags, mode) }
    }

    /// Closes `descriptor`. Never retried: on Linux the descriptor is released even when the call
    /// is interrupted, and another thread may already have been given its number.
    public static func close(_ descriptor: Int32) {
        _ = Glibc.close(descriptor)
    }

    /// Reads what is available into `buffer` (up to its size); 0 at the end of the file.
    public static func read(_ descriptor: Int32, into buffer: inout [UInt8]) throws(PosixError) -> Int {
        let result = buffer.withUnsafeMutableBytes { raw in
            Result { () throws(PosixError) in
                try retrying("read") { Glibc.read(descriptor, raw.baseAddress, raw.count) }
            }
        }
        return try result.get()
    }

    /// Reads `descriptor` to the end of the file.
    public static func readAll(_ descriptor: Int32) throws(PosixError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = try read(descriptor, into: &chunk)
            if count == 0 { return bytes }
            bytes += chunk[..<count]
        }
    }

    /// Writes all of `bytes` to `descriptor` (continuing after short writes and `EINTR`).
    public static func write(_ descriptor: Int32, _ bytes: some Collection<UInt8>) throws(PosixError) {
        try write(bytes) { Glibc.write(descriptor, $0, $1) }
    }

    /// Writes all of `bytes` with `call` (a `write(2)` on a given descriptor: a pointer and a count
    /// in, the count written or -1 and errno out), continuing after short writes and `EINTR`.
    static func write(
        _ bytes: some Collection<UInt8>, with call: (UnsafeRawPointer, Int) -> Int
    ) throws(PosixError) {
        let buffer = Array(bytes)
        var written = 0
        while written < buffer.count {
            let offset = written
            let result = buffer.withUnsafeBytes { raw in
                Result { () throws(PosixError) in
                    // A non-empty array's base address is never nil.
                    guard let base = raw.baseAddress else { return 0 }
                    return try retrying("write") { call(base + offset, raw.count - offset) }
                }
            }
            written += try result.get()
        }
    }

    /// Flushes `descriptor`'s data to the device.
    public static func fsync(_ descriptor: Int32) throws(PosixError) {
        try retrying("fsync") { Glibc.fsync(descriptor) }
    }

    /// Sets the permissions of `descriptor`'s file.
    public static func fchmod(_ descriptor: Int32, _ mode: UInt32) throws(PosixError) {
        try retrying("fchmod") { Glibc.fchmod(descriptor, mode) }
    }

    /// Sets the permissions of `path`.
    public static func chmod(_ path: String, _ mode: UInt32) throws(PosixError) {
        try retrying("chmod", path: path) { Glibc.chmod(path, mode) }
    }

    /// Makes the directory `path`; false when it already exists.
    @discardableResult
    public static func mkdir(_ path: String, _ mode: UInt32) throws(PosixError) -> Bool {
        do throws(PosixError) {
            try retrying("mkdir", path: path) { Glibc.mkdir(path, mode) }
            return true
        } catch  where error.code == EEXIST {
            return false
        }
    }

    /// Renames `source` to `destination`, replacing it.
    public static func rename(_ source: String, _ destination: String) throws(PosixError) {
        try retrying("rename", path: destination) { Glibc.rename(source, destination) }
    }

    /// Removes the file `path`; false when there was none.
    @discardableResult
    public static func unlink(_ path: String) throws(PosixError) -> Bool {
        do throws(PosixError) {
            try retrying("unlink", path: path) { Glibc.unlink(path) }
            return true
        } catch  where error.code == ENOENT {
            return false
        }
    }

    /// Replaces the file `path` with `bytes`, so that a crash leaves either the old file or the new
    /// one: writes them to a temporary file beside it (`<path>.tmp.<pid>`, with `mode`), syncs it
    /// and renames it over `path`. On failure the temporary file is removed; the error names the
    /// temporary file when it could not be created, `path` otherwise.
    public static func replaceFile(_ path: String, with bytes: [UInt8], mode: UInt32) throws(PosixError) {
        let temporary = "\(path).tmp.\(getpid())"
        let descriptor = try open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode: mode)
        do throws(PosixError) {
            defer { close(descriptor) }
            try fchmod(descriptor, mode)
            try write(descriptor, bytes)
            try fsync(descriptor)
        } catch {
            _ = try? unlink(temporary)
            throw PosixError(function: error.function, code: error.code, path: path)
        }
        do throws(PosixError) {
            try rename(temporary, path)
        } catch {
            _ = try? unlink(temporary)
            throw error
        }
    }

    /// Writes one byte to a non-blocking wake-up pipe; a full pipe is left as it is (it already
    /// wakes its reader).
    public static func wake(_ descriptor: Int32) {
        var byte: UInt8 = 0
        _ = try? retrying("write") { Glibc.write(descriptor, &byte, 1) }
    }

    /// A pipe whose two ends are non-blocking and close-on-exec.
    public static func nonBlockingPipe() throws(PosixError) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        try retrying("pipe") { Glibc.pipe(&ends) }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        return (ends[0], ends[1])
    }

    /// Reads a non-blocking descriptor until it would block (a wake-up pipe's bytes).
    public static func drain(_ descriptor: Int32) {
        var buffer = (UInt64(0), UInt64(0))
        while true {
            let count = withUnsafeMutableBytes(of: &buffer) {
                Glibc.read(descriptor, $0.baseAddress, $0.count)
            }
            if count > 0 { continue }
            if count == -1 && errno == EINTR { continue }
            return
        }
    }
}
