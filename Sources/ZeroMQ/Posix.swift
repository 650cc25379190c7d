import Glibc

/// The POSIX calls the project makes outside libzmq, each checked in one place: interrupted calls
/// (`EINTR`) are retried, short writes are continued, and failures become a ``PosixError`` that
/// names the call and the errno.
public enum Posix {
    /// A failed POSIX call.
    public struct PosixError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The call that failed (`write`, `fsync`, …).
        public let function: String
        /// Its errno.
        public let code: Int32

        public var description: String { "\(function): \(String(cString: strerror(code))) (errno \(code))" }
    }

    /// Runs `call` until it returns something other than -1 with `EINTR`; -1 with another errno
    /// throws it.
    @discardableResult
    public static func retrying<T: FixedWidthInteger>(_ function: String, _ call: () -> T) throws(PosixError) -> T {
        while true {
            let result = call()
            if result != -1 { return result }
            if errno == EINTR { continue }
            throw PosixError(function: function, code: errno)
        }
    }

    /// Writes all of `bytes` to `descriptor` (continuing after short writes and `EINTR`).
    public static func write(_ descriptor: Int32, _ bytes: some Collection<UInt8>) throws(PosixError) {
        let buffer = Array(bytes)
        var written = 0
        while written < buffer.count {
            let offset = written
            let result = buffer.withUnsafeBytes { raw in
                Result { () throws(PosixError) in
                    try retrying("write") { Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset) }
                }
            }
            written += try result.get()
        }
    }

    /// Flushes `descriptor`'s data to the device.
    public static func fsync(_ descriptor: Int32) throws(PosixError) {
        try retrying("fsync") { Glibc.fsync(descriptor) }
    }

    /// A pipe whose two ends are non-blocking and close-on-exec.
    public static func nonBlockingPipe() throws(ZMQError) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        guard Glibc.pipe(&ends) == 0 else {
            throw ZMQError(code: ZMQError.Code(rawValue: errno), function: "pipe")
        }
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
            let count = withUnsafeMutableBytes(of: &buffer) { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 { continue }
            if count == -1 && errno == EINTR { continue }
            return
        }
    }
}
