internal import CZeroMQ

/// A value a socket option can hold, with how it crosses `zmq_setsockopt`/`zmq_getsockopt`.
public protocol SocketOptionValue: Sendable {
    /// Sets the option on a raw socket handle.
    static func set(_ value: Self, option: Int32, on handle: UnsafeMutableRawPointer) throws(ZMQError)
    /// Reads the option from a raw socket handle.
    static func get(option: Int32, from handle: UnsafeMutableRawPointer) throws(ZMQError) -> Self
}

extension Int32: SocketOptionValue {
    /// Sets a C `int` option.
    public static func set(_ value: Int32, option: Int32, on handle: UnsafeMutableRawPointer) throws(ZMQError)
    {
        var value = value
        _ = try checkedCallOrThrow("zmq_setsockopt") {
            zmq_setsockopt(handle, option, &value, MemoryLayout<Int32>.size)
        }
    }

    /// Reads a C `int` option.
    public static func get(option: Int32, from handle: UnsafeMutableRawPointer) throws(ZMQError) -> Int32 {
        var value: Int32 = 0
        var size = MemoryLayout<Int32>.size
        _ = try checkedCallOrThrow("zmq_getsockopt") { zmq_getsockopt(handle, option, &value, &size) }
        return value
    }
}

extension Int64: SocketOptionValue {
    /// Sets a C `int64_t` option.
    public static func set(_ value: Int64, option: Int32, on handle: UnsafeMutableRawPointer) throws(ZMQError)
    {
        var value = value
        _ = try checkedCallOrThrow("zmq_setsockopt") {
            zmq_setsockopt(handle, option, &value, MemoryLayout<Int64>.size)
        }
    }

    /// Reads a C `int64_t` option.
    public static func get(option: Int32, from handle: UnsafeMutableRawPointer) throws(ZMQError) -> Int64 {
        var value: Int64 = 0
        var size = MemoryLayout<Int64>.size
        _ = try checkedCallOrThrow("zmq_getsockopt") { zmq_getsockopt(handle, option, &value, &size) }
        return value
    }
}

extension Bool: SocketOptionValue {
    /// Sets a C `int` option used as a flag (0 or 1).
    public static func set(_ value: Bool, option: Int32, on handle: UnsafeMutableRawPointer) throws(ZMQError)
    {
        try Int32.set(value ? 1 : 0, option: option, on: handle)
    }

    /// Reads a C `int` option used as a flag.
    public static func get(option: Int32, from handle: UnsafeMutableRawPointer) throws(ZMQError) -> Bool {
        try Int32.get(option: option, from: handle) != 0
    }
}

extension Array: SocketOptionValue where Element == UInt8 {
    /// Sets a binary option (routing id, subscription prefix, 32-byte CURVE key).
    public static func set(_ value: [UInt8], option: Int32, on handle: UnsafeMutableRawPointer)
        throws(ZMQError)
    {
        let result = value.withUnsafeBytes { bytes in
            Result { () throws(ZMQError) in
                try checkedCallOrThrow("zmq_setsockopt") {
                    zmq_setsockopt(handle, option, bytes.baseAddress, bytes.count)
                }
            }
        }
        _ = try result.get()
    }

    /// Reads a binary option: a 32-byte CURVE key (libzmq insists on the exact size), or up to 255
    /// bytes (the largest routing id).
    public static func get(option: Int32, from handle: UnsafeMutableRawPointer) throws(ZMQError) -> [UInt8] {
        let isCurveKey = [ZMQ_CURVE_PUBLICKEY, ZMQ_CURVE_SECRETKEY, ZMQ_CURVE_SERVERKEY].contains(option)
        var buffer = [UInt8](repeating: 0, count: isCurveKey ? 32 : 256)
        var size = buffer.count
        let result = buffer.withUnsafeMutableBytes { bytes in
            Result { () throws(ZMQError) in
                try checkedCallOrThrow("zmq_getsockopt") {
                    zmq_getsockopt(handle, option, bytes.baseAddress, &size)
                }
            }
        }
        _ = try result.get()
        buffer.removeSubrange(size...)
        return buffer
    }
}

/// A typed socket option: the C option number and the Swift type of its value.
///
/// ```swift
/// try socket.set(.linger, 0)
/// try socket.set(.routingID, Array("client-1".utf8))
/// let hwm = try socket.get(.sendHighWaterMark)
/// ```
///
/// Times are C `int` milliseconds as libzmq takes them; `-1` means "infinite" where libzmq allows it.
/// Write-only options (``subscribe``, ``unsubscribe``) fail with `EINVAL` when read.
public struct SocketOption<Value: SocketOptionValue>: Sendable, Hashable {
    /// The C option number (`ZMQ_LINGER`, ...).
    public let rawValue: Int32
    /// The C name, for messages.
    public let name: String

    /// An option by its C number; prefer the named constants.
    public init(rawValue: Int32, name: String) {
        self.rawValue = rawValue
        self.name = name
    }
}

extension SocketOption where Value == Int32 {
    /// `ZMQ_LINGER`: how long, in ms, unsent messages are kept after close (`-1` forever, `0` drop).
    public static var linger: Self { Self(rawValue: ZMQ_LINGER, name: "ZMQ_LINGER") }
    /// `ZMQ_SNDHWM`: the outgoing queue limit in messages per peer (0 is unlimited).
    public static var sendHighWaterMark: Self { Self(rawValue: ZMQ_SNDHWM, name: "ZMQ_SNDHWM") }
    /// `ZMQ_RCVHWM`: the incoming queue limit in messages per peer (0 is unlimited).
    public static var receiveHighWaterMark: Self { Self(rawValue: ZMQ_RCVHWM, name: "ZMQ_RCVHWM") }
    /// `ZMQ_HEARTBEAT_IVL`: ms between ZMTP PING heartbeats (0 disables them).
    public static var heartbeatInterval: Self { Self(rawValue: ZMQ_HEARTBEAT_IVL, name: "ZMQ_HEARTBEAT_IVL") }
    /// `ZMQ_HEARTBEAT_TTL`: the time-to-live, in ms, the peer is told to apply to this side.
    public static var heartbeatTTL: Self { Self(rawValue: ZMQ_HEARTBEAT_TTL, name: "ZMQ_HEARTBEAT_TTL") }
    /// `ZMQ_HEARTBEAT_TIMEOUT`: ms without traffic after a PING before the connection is dropped.
    public static var heartbeatTimeout: Self {
        Self(rawValue: ZMQ_HEARTBEAT_TIMEOUT, name: "ZMQ_HEARTBEAT_TIMEOUT")
    }
    /// `ZMQ_RECONNECT_IVL`: ms before reconnecting after a connection is lost (`-1` never).
    public static var reconnectInterval: Self { Self(rawValue: ZMQ_RECONNECT_IVL, name: "ZMQ_RECONNECT_IVL") }
    /// `ZMQ_RECONNECT_IVL_MAX`: the upper bound, in ms, of the exponential reconnect back-off.
    public static var reconnectIntervalMax: Self {
        Self(rawValue: ZMQ_RECONNECT_IVL_MAX, name: "ZMQ_RECONNECT_IVL_MAX")
    }
    /// `ZMQ_HANDSHAKE_IVL`: ms allowed for the ZMTP handshake (0 is unlimited).
    public static var handshakeInterval: Self { Self(rawValue: ZMQ_HANDSHAKE_IVL, name: "ZMQ_HANDSHAKE_IVL") }
    /// `ZMQ_RCVTIMEO`: ms a blocking receive waits before returning "would block" (`-1` forever).
    public static var receiveTimeout: Self { Self(rawValue: ZMQ_RCVTIMEO, name: "ZMQ_RCVTIMEO") }
    /// `ZMQ_SNDTIMEO`: ms a blocking send waits before returning "would block" (`-1` forever).
    public static var sendTimeout: Self { Self(rawValue: ZMQ_SNDTIMEO, name: "ZMQ_SNDTIMEO") }
    /// `ZMQ_RCVBUF`: the kernel's receive buffer (`SO_RCVBUF`) for new connections, in bytes
    /// (`-1`: the system's default).
    public static var receiveBuffer: Self { Self(rawValue: ZMQ_RCVBUF, name: "ZMQ_RCVBUF") }
    /// `ZMQ_SNDBUF`: the kernel's send buffer (`SO_SNDBUF`) for new connections, in bytes (`-1`: the
    /// system's default).
    public static var sendBuffer: Self { Self(rawValue: ZMQ_SNDBUF, name: "ZMQ_SNDBUF") }
}

extension SocketOption where Value == Int64 {
    /// `ZMQ_MAXMSGSIZE`: the largest inbound message in bytes; a peer sending more is disconnected
    /// (`-1` is unlimited).
    public static var maxMessageSize: Self { Self(rawValue: ZMQ_MAXMSGSIZE, name: "ZMQ_MAXMSGSIZE") }
}

extension SocketOption where Value == Bool {
    /// `ZMQ_ROUTER_MANDATORY`: a ROUTER fails with `EHOSTUNREACH` (instead of dropping silently)
    /// when the routing id is unknown, and with `EAGAIN` when the peer is at its high-water mark.
    public static var routerMandatory: Self {
        Self(rawValue: ZMQ_ROUTER_MANDATORY, name: "ZMQ_ROUTER_MANDATORY")
    }
    /// `ZMQ_IMMEDIATE`: queue messages only to completed connections.
    public static var immediate: Self { Self(rawValue: ZMQ_IMMEDIATE, name: "ZMQ_IMMEDIATE") }
    /// `ZMQ_IPV6`: IPv6 as well as IPv4: needed to bind or connect a `tcp://[…]` address.
    public static var ipv6: Self { Self(rawValue: ZMQ_IPV6, name: "ZMQ_IPV6") }
    /// `ZMQ_CURVE_SERVER`: act as a CURVE server (needs ``curveSecretKey``).
    public static var curveServer: Self { Self(rawValue: ZMQ_CURVE_SERVER, name: "ZMQ_CURVE_SERVER") }
}

extension SocketOption where Value == [UInt8] {
    /// `ZMQ_ROUTING_ID`: this socket's identity as seen by a ROUTER peer (1–255 bytes, not
    /// starting with a zero byte). Set it before connecting.
    public static var routingID: Self { Self(rawValue: ZMQ_ROUTING_ID, name: "ZMQ_ROUTING_ID") }
    /// `ZMQ_SUBSCRIBE` (write-only): a SUB socket receives messages starting with this prefix.
    public static var subscribe: Self { Self(rawValue: ZMQ_SUBSCRIBE, name: "ZMQ_SUBSCRIBE") }
    /// `ZMQ_UNSUBSCRIBE` (write-only): removes one matching ``subscribe``.
    public static var unsubscribe: Self { Self(rawValue: ZMQ_UNSUBSCRIBE, name: "ZMQ_UNSUBSCRIBE") }
    /// `ZMQ_CURVE_PUBLICKEY`: this socket's long-term public key (32 bytes).
    public static var curvePublicKey: Self {
        Self(rawValue: ZMQ_CURVE_PUBLICKEY, name: "ZMQ_CURVE_PUBLICKEY")
    }
    /// `ZMQ_CURVE_SECRETKEY`: this socket's long-term secret key (32 bytes).
    public static var curveSecretKey: Self {
        Self(rawValue: ZMQ_CURVE_SECRETKEY, name: "ZMQ_CURVE_SECRETKEY")
    }
    /// `ZMQ_CURVE_SERVERKEY`: a CURVE client's view of the server's public key (32 bytes).
    public static var curveServerKey: Self {
        Self(rawValue: ZMQ_CURVE_SERVERKEY, name: "ZMQ_CURVE_SERVERKEY")
    }
}
