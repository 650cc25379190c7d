internal import CZeroMQ

#if canImport(Glibc)
    internal import Glibc
#endif

/// An error reported by libzmq: the C error number, its text and the function that failed.
///
/// Errors grow with libzmq, so this is a struct with an extensible ``Code`` rather than a closed
/// enum. Compare `error.code` against the constants, which keep the C names:
///
/// ```swift
/// do { try socket.connect("bogus://x") } catch where error.code == .EPROTONOSUPPORT { ... }
/// ```
public struct ZMQError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A C error number as libzmq reports it (`zmq_errno()`), with the C names as constants.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The C error number.
        public let rawValue: Int32

        /// Wraps a C error number.
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// Interrupted by a signal. The checked-call helper retries it, so callers never see it.
        public static let EINTR = Code(rawValue: Glibc.EINTR)
        /// Would block: the helper returns this as a value (``ZMQResult/wouldBlock``), not an error.
        public static let EAGAIN = Code(rawValue: Glibc.EAGAIN)
        /// Invalid argument (a bad option value, a malformed endpoint).
        public static let EINVAL = Code(rawValue: Glibc.EINVAL)
        /// Bad address.
        public static let EFAULT = Code(rawValue: Glibc.EFAULT)
        /// No such endpoint (unbind or disconnect of an endpoint that is not bound or connected).
        public static let ENOENT = Code(rawValue: Glibc.ENOENT)
        /// Out of memory.
        public static let ENOMEM = Code(rawValue: Glibc.ENOMEM)
        /// Too many open files.
        public static let EMFILE = Code(rawValue: Glibc.EMFILE)
        /// No such device (for example a bad network interface name).
        public static let ENODEV = Code(rawValue: Glibc.ENODEV)
        /// The context was terminated; a socket of that context can only be closed now.
        public static let ETERM = Code(rawValue: CZMQ_ETERM)
        /// The operation is not valid in the socket's current state (REQ/REP order).
        public static let EFSM = Code(rawValue: CZMQ_EFSM)
        /// No route to the peer: a ROUTER with router-mandatory sent to an unknown routing id.
        public static let EHOSTUNREACH = Code(rawValue: CZMQ_EHOSTUNREACH)
        /// The endpoint's transport is not supported.
        public static let EPROTONOSUPPORT = Code(rawValue: CZMQ_EPROTONOSUPPORT)
        /// The operation is not supported by this socket type.
        public static let ENOTSUP = Code(rawValue: CZMQ_ENOTSUP)
        /// The address is already in use.
        public static let EADDRINUSE = Code(rawValue: CZMQ_EADDRINUSE)
        /// The address is not available on this machine.
        public static let EADDRNOTAVAIL = Code(rawValue: CZMQ_EADDRNOTAVAIL)
        /// The handle is not a (live) socket.
        public static let ENOTSOCK = Code(rawValue: CZMQ_ENOTSOCK)
        /// The context has no I/O thread left.
        public static let EMTHREAD = Code(rawValue: CZMQ_EMTHREAD)
        /// The protocol is incompatible with the socket type.
        public static let ENOCOMPATPROTO = Code(rawValue: CZMQ_ENOCOMPATPROTO)

        /// libzmq's text for this error number (`zmq_strerror`).
        public var description: String { String(cString: zmq_strerror(rawValue)) }
    }

    /// The C error number.
    public let code: Code
    /// The C function (or wrapper operation) that failed, for example `zmq_bind`.
    public let function: String

    /// Creates an error for a C error number and the function that reported it.
    public init(code: Code, function: String) {
        self.code = code
        self.function = function
    }

    /// libzmq's text for the error number (`zmq_strerror`).
    public var message: String { code.description }

    /// True when the context was terminated (`ETERM`): the socket must be closed.
    public var isContextTerminated: Bool { code == .ETERM }

    /// `function: message (errno N)`.
    public var description: String { "\(function): \(message) (errno \(code.rawValue))" }
}

/// The outcome of a checked libzmq call that did not fail: it completed, or it would have blocked.
public enum ZMQResult<Value> {
    /// The call completed with this value.
    case done(Value)
    /// The call would have blocked (`EAGAIN` on a non-blocking call or after a timeout).
    case wouldBlock

    /// The value, or nil when the call would have blocked.
    public var value: Value? {
        if case .done(let value) = self { return value }
        return nil
    }
}

extension ZMQResult: Sendable where Value: Sendable {}
extension ZMQResult: Equatable where Value: Equatable {}

/// What the one checked-call helper makes of a C call's return value and `zmq_errno()`.
enum CallOutcome: Equatable {
    /// The call succeeded and returned this (non-negative) value.
    case success(Int32)
    /// `EAGAIN`: the call would have blocked.
    case wouldBlock
    /// `ETERM`: the context was terminated.
    case terminated
}

/// The one checked-call helper used for every libzmq call that reports errors through `errno`.
///
/// - Retries the call while it fails with `EINTR`.
/// - Returns `EAGAIN` as ``CallOutcome/wouldBlock`` and `ETERM` as ``CallOutcome/terminated``.
/// - Throws a ``ZMQError`` with the error number and `function` for every other failure.
@inline(__always)
func checkedCall(_ function: StaticString, _ body: () -> Int32) throws(ZMQError) -> CallOutcome {
    while true {
        let result = body()
        if result >= 0 { return .success(result) }
        let errorNumber = zmq_errno()
        switch errorNumber {
        case Glibc.EINTR: continue
        case Glibc.EAGAIN: return .wouldBlock
        case CZMQ_ETERM: return .terminated
        default: throw ZMQError(code: ZMQError.Code(rawValue: errorNumber), function: "\(function)")
        }
    }
}

/// The checked-call helper for calls where "would block" and "terminated" are failures too:
/// returns the result or throws (`EAGAIN` and `ETERM` become thrown ``ZMQError``s).
@inline(__always)
func checkedCallOrThrow(_ function: StaticString, _ body: () -> Int32) throws(ZMQError) -> Int32 {
    switch try checkedCall(function, body) {
    case .success(let value): return value
    case .wouldBlock: throw ZMQError(code: .EAGAIN, function: "\(function)")
    case .terminated: throw ZMQError(code: .ETERM, function: "\(function)")
    }
}
