internal import CZeroMQ
import Synchronization

/// Which socket events a monitor reports (the `ZMQ_EVENT_*` bits).
public struct MonitorEvents: OptionSet, Sendable, Hashable {
    /// The C bits.
    public let rawValue: Int32

    /// Wraps the C bits.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// `ZMQ_EVENT_CONNECTED`.
    public static let connected = MonitorEvents(rawValue: ZMQ_EVENT_CONNECTED)
    /// `ZMQ_EVENT_CONNECT_DELAYED`.
    public static let connectDelayed = MonitorEvents(rawValue: ZMQ_EVENT_CONNECT_DELAYED)
    /// `ZMQ_EVENT_CONNECT_RETRIED`.
    public static let connectRetried = MonitorEvents(rawValue: ZMQ_EVENT_CONNECT_RETRIED)
    /// `ZMQ_EVENT_LISTENING`.
    public static let listening = MonitorEvents(rawValue: ZMQ_EVENT_LISTENING)
    /// `ZMQ_EVENT_BIND_FAILED`.
    public static let bindFailed = MonitorEvents(rawValue: ZMQ_EVENT_BIND_FAILED)
    /// `ZMQ_EVENT_ACCEPTED`.
    public static let accepted = MonitorEvents(rawValue: ZMQ_EVENT_ACCEPTED)
    /// `ZMQ_EVENT_ACCEPT_FAILED`.
    public static let acceptFailed = MonitorEvents(rawValue: ZMQ_EVENT_ACCEPT_FAILED)
    /// `ZMQ_EVENT_CLOSED`.
    public static let closed = MonitorEvents(rawValue: ZMQ_EVENT_CLOSED)
    /// `ZMQ_EVENT_CLOSE_FAILED`.
    public static let closeFailed = MonitorEvents(rawValue: ZMQ_EVENT_CLOSE_FAILED)
    /// `ZMQ_EVENT_DISCONNECTED`.
    public static let disconnected = MonitorEvents(rawValue: ZMQ_EVENT_DISCONNECTED)
    /// `ZMQ_EVENT_MONITOR_STOPPED`.
    public static let monitorStopped = MonitorEvents(rawValue: ZMQ_EVENT_MONITOR_STOPPED)
    /// `ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL`.
    public static let handshakeFailedNoDetail = MonitorEvents(rawValue: ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL)
    /// `ZMQ_EVENT_HANDSHAKE_SUCCEEDED`.
    public static let handshakeSucceeded = MonitorEvents(rawValue: ZMQ_EVENT_HANDSHAKE_SUCCEEDED)
    /// `ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL`.
    public static let handshakeFailedProtocol = MonitorEvents(rawValue: ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL)
    /// `ZMQ_EVENT_HANDSHAKE_FAILED_AUTH`.
    public static let handshakeFailedAuth = MonitorEvents(rawValue: ZMQ_EVENT_HANDSHAKE_FAILED_AUTH)
    /// `ZMQ_EVENT_ALL`: every event above.
    public static let all = MonitorEvents(rawValue: ZMQ_EVENT_ALL)
}

/// One event a socket monitor reported, parsed from libzmq's two-frame monitor message
/// (a 16-bit event id and a 32-bit value in native byte order, then the endpoint).
public struct MonitorEvent: Sendable, Hashable, CustomStringConvertible {
    /// What happened, with the event's value where it means something.
    public enum Kind: Sendable, Hashable {
        /// A connection to a peer was made (value: the file descriptor).
        case connected(fileDescriptor: Int32)
        /// A connect call found the peer unavailable; it will be retried.
        case connectDelayed
        /// A reconnection attempt was scheduled (value: the interval in ms).
        case connectRetried(intervalMilliseconds: Int32)
        /// The socket listens on the endpoint (value: the file descriptor).
        case listening(fileDescriptor: Int32)
        /// Binding failed (value: the error number).
        case bindFailed(ZMQError.Code)
        /// A connection from a peer was accepted (value: the file descriptor).
        case accepted(fileDescriptor: Int32)
        /// Accepting a connection failed (value: the error number).
        case acceptFailed(ZMQError.Code)
        /// A connection's descriptor was closed.
        case closed(fileDescriptor: Int32)
        /// Closing a descriptor failed (value: the error number).
        case closeFailed(ZMQError.Code)
        /// The peer disconnected, or the connection broke (value: the file descriptor).
        case disconnected(fileDescriptor: Int32)
        /// The monitor stopped (the socket was closed or monitoring turned off).
        case monitorStopped
        /// The ZMTP handshake failed for a reason libzmq does not detail (value: the error number).
        case handshakeFailedNoDetail(ZMQError.Code)
        /// The ZMTP handshake (including CURVE, when used) succeeded.
        case handshakeSucceeded
        /// The peer broke the ZMTP protocol (value: libzmq's `ZMQ_PROTOCOL_ERROR_*` code).
        case handshakeFailedProtocol(code: Int32)
        /// Authentication failed (value: the ZAP status code, such as 400).
        case handshakeFailedAuth(statusCode: Int32)
        /// An event this module does not know (newer libzmq).
        case unknown(event: UInt16, value: Int32)
    }

    /// What happened.
    public let kind: Kind
    /// The endpoint concerned (`tcp://127.0.0.1:5555`).
    public let endpoint: String

    /// Creates an event.
    public init(kind: Kind, endpoint: String) {
        self.kind = kind
        self.endpoint = endpoint
    }

    /// Parses libzmq's monitor message: `[6 bytes: UInt16 event, UInt32 value][endpoint]`.
    /// Returns nil when the frames do not have that shape.
    public init?(parts: [[UInt8]]) {
        guard parts.count == 2, parts[0].count == 6 else { return nil }
        let header = parts[0]
        let event = header.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 0, as: UInt16.self) }
        let raw = header.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 2, as: UInt32.self) }
        let value = Int32(bitPattern: raw)
        let code = ZMQError.Code(rawValue: value)
        let kind: Kind
        switch Int32(event) {
        case ZMQ_EVENT_CONNECTED: kind = .connected(fileDescriptor: value)
        case ZMQ_EVENT_CONNECT_DELAYED: kind = .connectDelayed
        case ZMQ_EVENT_CONNECT_RETRIED: kind = .connectRetried(intervalMilliseconds: value)
        case ZMQ_EVENT_LISTENING: kind = .listening(fileDescriptor: value)
        case ZMQ_EVENT_BIND_FAILED: kind = .bindFailed(code)
        case ZMQ_EVENT_ACCEPTED: kind = .accepted(fileDescriptor: value)
        case ZMQ_EVENT_ACCEPT_FAILED: kind = .acceptFailed(code)
        case ZMQ_EVENT_CLOSED: kind = .closed(fileDescriptor: value)
        case ZMQ_EVENT_CLOSE_FAILED: kind = .closeFailed(code)
        case ZMQ_EVENT_DISCONNECTED: kind = .disconnected(fileDescriptor: value)
        case ZMQ_EVENT_MONITOR_STOPPED: kind = .monitorStopped
        case ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL: kind = .handshakeFailedNoDetail(code)
        case ZMQ_EVENT_HANDSHAKE_SUCCEEDED: kind = .handshakeSucceeded
        case ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL: kind = .handshakeFailedProtocol(code: value)
        case ZMQ_EVENT_HANDSHAKE_FAILED_AUTH: kind = .handshakeFailedAuth(statusCode: value)
        default: kind = .unknown(event: event, value: value)
        }
        self.init(kind: kind, endpoint: String(decoding: parts[1], as: UTF8.self))
    }

    /// `kind @ endpoint`.
    public var description: String { "\(kind) @ \(endpoint)" }
}

/// Receives a socket's monitor events through an `inproc://` PAIR socket.
///
/// Create it (``Socket/monitor(events:)``) before the observed socket binds or connects: libzmq
/// drops events while no PAIR is connected. Like a socket, a monitor is owned by one thread at a
/// time; ``next(timeout:)`` blocks.
///
/// Close the observed socket (which stops the monitor, ``Socket/close(linger:)``) or call
/// ``Socket/stopMonitoring()`` before closing the monitor: libzmq sends events with a blocking
/// send, on the context's I/O thread, and one sent after the PAIR is gone would never return.
/// A monitor that asks for ``MonitorEvents/monitorStopped`` gets it when the observed socket goes,
/// so its PAIR must outlive that socket.
public final class SocketMonitor {
    /// The PAIR socket that receives the events.
    public let socket: Socket
    /// The `inproc://` endpoint libzmq publishes the events on.
    public let endpoint: String

    /// A counter that makes every monitor endpoint unique within the process.
    private static let counter = Atomic<Int>(0)

    /// Starts monitoring `observed` for `events`.
    init(observing observed: Socket, events: MonitorEvents) throws(ZMQError) {
        let number = Self.counter.wrappingAdd(1, ordering: .relaxed).newValue
        let endpoint = "inproc://zeromq-swift-monitor-\(number)"
        let handle = try observed.liveHandle("zmq_socket_monitor")
        _ = try checkedCallOrThrow("zmq_socket_monitor") {
            zmq_socket_monitor(handle, endpoint, events.rawValue)
        }
        observed.monitored = events
        do {
            let socket = try Socket(observed.context, .pair, linger: 0)
            try socket.connect(endpoint)
            self.socket = socket
        } catch {
            // No one would read the events: libzmq's I/O thread would block on the first one.
            if !events.contains(.monitorStopped) { zmq_socket_monitor(handle, nil, 0) }
            observed.monitored = nil
            throw error
        }
        self.endpoint = endpoint
    }

    /// The next event, waiting up to `timeout` ms (`-1` forever, `0` only what is queued);
    /// nil when none came in time. Throws `ETERM` when the context was terminated.
    public func next(timeout: Int32) throws(ZMQError) -> MonitorEvent? {
        if timeout != 0 { try socket.set(.receiveTimeout, timeout) }
        while true {
            guard case .done(let parts) = try socket.receiveParts(dontWait: timeout == 0) else { return nil }
            if let event = MonitorEvent(parts: parts) { return event }
        }
    }

    /// Waits (up to `timeout` ms in all) for the first event matching `predicate`, skipping others;
    /// nil when none came in time.
    public func wait(timeout: Int32, for predicate: (MonitorEvent) -> Bool) throws(ZMQError) -> MonitorEvent?
    {
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(timeout))
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            let milliseconds = Int32(
                clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
            )
            if milliseconds <= 0 { return nil }
            guard let event = try next(timeout: milliseconds) else { return nil }
            if predicate(event) { return event }
        }
    }

    /// Closes the receiving PAIR socket (linger 0).
    public func close() { socket.close(linger: 0) }
}

extension Socket {
    /// Starts monitoring this socket's connection events; read them from the returned monitor.
    public func monitor(events: MonitorEvents = .all) throws(ZMQError) -> SocketMonitor {
        try SocketMonitor(observing: self, events: events)
    }

    /// Stops monitoring this socket (the monitor then receives ``MonitorEvent/Kind/monitorStopped``).
    public func stopMonitoring() throws(ZMQError) {
        let handle = try liveHandle("zmq_socket_monitor")
        _ = try checkedCallOrThrow("zmq_socket_monitor") { zmq_socket_monitor(handle, nil, 0) }
        monitored = nil
    }
}
