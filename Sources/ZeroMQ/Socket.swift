internal import CZeroMQ
import Glibc

/// A ZeroMQ socket: an owned handle, used from one thread at a time.
///
/// A socket is not thread-safe, so `Socket` is a non-`Sendable` final class: the compiler keeps it in
/// one isolation region. Hand it to another thread with `sending` (for example to
/// ``OwnedThread/spawn(name:_:)`` or ``SocketLoop``). Blocking calls (``receive()``, blocking
/// ``send(_:)``) belong on a thread you own, never on an actor or Swift's cooperative pool.
///
/// Linger is set explicitly when the socket is created (``init(_:_:linger:)``, 0 by default), so
/// closing the context never hangs; ``close(linger:)`` closes deterministically and `deinit`
/// closes with linger 0 if the owner did not.
public final class Socket {
    /// The context this socket belongs to; kept alive until the socket is closed.
    public let context: Context
    /// The socket type.
    public let type: SocketType
    /// The `void *` handle, nil once closed.
    private var handle: UnsafeMutableRawPointer?
    /// One `zmq_msg_t` for receiving, allocated once and never moved (it must not be copied).
    private let receiveMessage: UnsafeMutablePointer<zmq_msg_t>
    /// One `zmq_msg_t` for sending, allocated once and never moved.
    private let sendMessage: UnsafeMutablePointer<zmq_msg_t>
    /// The events a ``SocketMonitor`` observes, nil when none does: closing stops the monitor first.
    var monitored: MonitorEvents?
    /// Whether a ``SocketMonitor`` observes the socket.
    var isMonitored: Bool { monitored != nil }

    /// Creates a socket of `type` in `context` and sets its linger (ms; `0` drops unsent messages
    /// on close, `-1` waits forever, which can hang context termination).
    public init(_ context: Context, _ type: SocketType, linger: Int32 = 0) throws(ZMQError) {
        assert(
            MemoryLayout<zmq_msg_t>.size == Int(CZMQ_MSG_SIZE)
                && MemoryLayout<zmq_msg_t>.alignment >= MemoryLayout<UnsafeRawPointer>.alignment,
            "Swift's layout of zmq_msg_t differs from C's")
        let handle = try context.makeSocket(type.rawValue)
        self.context = context
        self.type = type
        self.handle = handle
        receiveMessage = .allocate(capacity: 1)
        sendMessage = .allocate(capacity: 1)
        do {
            try Int32.set(linger, option: ZMQ_LINGER, on: handle)
        } catch {
            zmq_close(handle)
            self.handle = nil
            throw error
        }
    }

    deinit {
        if let handle {
            var zero: Int32 = 0
            zmq_setsockopt(handle, ZMQ_LINGER, &zero, MemoryLayout<Int32>.size)
            stopMonitorBeforeClosing(handle)
            zmq_close(handle)
        }
        receiveMessage.deallocate()
        sendMessage.deallocate()
    }

    /// True once ``close(linger:)`` ran.
    public var isClosed: Bool { handle == nil }

    /// The live handle, or `ENOTSOCK` when closed.
    func liveHandle(_ function: StaticString) throws(ZMQError) -> UnsafeMutableRawPointer {
        guard let handle else { throw ZMQError(code: .ENOTSOCK, function: "\(function)") }
        return handle
    }

    /// Sets linger (ms) and closes the socket. Later calls do nothing; every other call then fails
    /// with `ENOTSOCK`.
    ///
    /// A monitored socket stops its monitor first (``SocketMonitor``): libzmq tears a closed
    /// socket's connections down later, on the context's I/O thread, and reports what happens
    /// meanwhile (a peer that goes away) to the monitor with a blocking send, which would never
    /// return once the monitor's PAIR is closed, stalling every connection of the context.
    public func close(linger: Int32 = 0) {
        guard let handle else { return }
        self.handle = nil
        var linger = linger
        zmq_setsockopt(handle, ZMQ_LINGER, &linger, MemoryLayout<Int32>.size)
        stopMonitorBeforeClosing(handle)
        zmq_close(handle)
    }

    /// Stops the socket's monitor, unless it asked for ``MonitorEvents/monitorStopped``: stopping
    /// sends that event, which waits for the monitor's PAIR, so such a monitor gets it from libzmq
    /// when the socket goes, and its PAIR must outlive the socket.
    private func stopMonitorBeforeClosing(_ handle: UnsafeMutableRawPointer) {
        guard let monitored, !monitored.contains(.monitorStopped) else { return }
        zmq_socket_monitor(handle, nil, 0)
    }

    // MARK: Options

    /// Sets a typed option.
    public func set<Value>(_ option: SocketOption<Value>, _ value: Value) throws(ZMQError) {
        try Value.set(value, option: option.rawValue, on: liveHandle("zmq_setsockopt"))
    }

    /// Reads a typed option.
    public func get<Value>(_ option: SocketOption<Value>) throws(ZMQError) -> Value {
        try Value.get(option: option.rawValue, from: liveHandle("zmq_getsockopt"))
    }

    // MARK: Endpoints

    /// Binds to an endpoint (`tcp://127.0.0.1:*`, `ipc:///path`, `inproc://name`).
    public func bind(_ endpoint: String) throws(ZMQError) {
        let handle = try liveHandle("zmq_bind")
        _ = try checkedCallOrThrow("zmq_bind") { zmq_bind(handle, endpoint) }
    }

    /// Connects to an endpoint (asynchronously: the connection is made, and remade, in the background).
    public func connect(_ endpoint: String) throws(ZMQError) {
        let handle = try liveHandle("zmq_connect")
        _ = try checkedCallOrThrow("zmq_connect") { zmq_connect(handle, endpoint) }
    }

    /// Stops listening on a bound endpoint (use the resolved endpoint for wildcard binds).
    public func unbind(_ endpoint: String) throws(ZMQError) {
        let handle = try liveHandle("zmq_unbind")
        _ = try checkedCallOrThrow("zmq_unbind") { zmq_unbind(handle, endpoint) }
    }

    /// Disconnects from a connected endpoint.
    public func disconnect(_ endpoint: String) throws(ZMQError) {
        let handle = try liveHandle("zmq_disconnect")
        _ = try checkedCallOrThrow("zmq_disconnect") { zmq_disconnect(handle, endpoint) }
    }

    /// The endpoint last bound, resolved (`ZMQ_LAST_ENDPOINT`): after binding `tcp://127.0.0.1:*`
    /// it holds the port the system picked.
    public var lastEndpoint: String {
        get throws(ZMQError) {
            let handle = try liveHandle("zmq_getsockopt")
            var buffer = [CChar](repeating: 0, count: 1024)
            var size = buffer.count
            _ = try checkedCallOrThrow("zmq_getsockopt") {
                zmq_getsockopt(handle, ZMQ_LAST_ENDPOINT, &buffer, &size)
            }
            return String(nulTerminated: buffer)
        }
    }

    // MARK: Sending

    /// Sends one part; `more` marks that further parts of the same message follow.
    /// Returns ``ZMQResult/wouldBlock`` when `dontWait` is set (or a send timeout expired) and the
    /// message could not be queued.
    @discardableResult
    public func send(
        bytes: UnsafeRawBufferPointer, more: Bool = false, dontWait: Bool = false
    ) throws(ZMQError) -> ZMQResult<Void> {
        let handle = try liveHandle("zmq_msg_send")
        let flags = (more ? ZMQ_SNDMORE : 0) | (dontWait ? ZMQ_DONTWAIT : 0)
        let message = sendMessage
        _ = try checkedCallOrThrow("zmq_msg_init_size") { zmq_msg_init_size(message, bytes.count) }
        if bytes.count > 0, let source = bytes.baseAddress {
            zmq_msg_data(message).copyMemory(from: source, byteCount: bytes.count)
        }
        let outcome: CallOutcome
        do {
            outcome = try checkedCall("zmq_msg_send") { zmq_msg_send(message, handle, flags) }
        } catch {
            zmq_msg_close(message)
            throw error
        }
        switch outcome {
        case .success: return .done(())  // libzmq owns the data now; the struct is free for reuse.
        case .wouldBlock:
            zmq_msg_close(message)
            return .wouldBlock
        case .terminated:
            zmq_msg_close(message)
            throw ZMQError(code: .ETERM, function: "zmq_msg_send")
        }
    }

    /// Sends one part from a byte array.
    @discardableResult
    public func send(
        _ bytes: [UInt8], more: Bool = false, dontWait: Bool = false
    ) throws(ZMQError) -> ZMQResult<Void> {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(ZMQError) in try send(bytes: buffer, more: more, dontWait: dontWait) }
        }
        return try result.get()
    }

    /// Sends a multipart message (at least one part), blocking until it is queued (or a send
    /// timeout expires, which returns ``ZMQResult/wouldBlock``).
    ///
    /// ZeroMQ delivers the parts atomically: when the first part is accepted the rest are too, so a
    /// non-blocking send (`dontWait`) either queues the whole message or nothing.
    @discardableResult
    public func send(_ parts: [Message], dontWait: Bool = false) throws(ZMQError) -> ZMQResult<Void> {
        precondition(!parts.isEmpty, "a ZeroMQ message has at least one part")
        let last = parts.count - 1
        for index in parts.indices {
            let result = try send(parts[index].bytes, more: index < last, dontWait: dontWait)
            if case .wouldBlock = result { return .wouldBlock }
        }
        return .done(())
    }

    /// Sends a multipart message given as byte arrays.
    @discardableResult
    public func send(parts: [[UInt8]], dontWait: Bool = false) throws(ZMQError) -> ZMQResult<Void> {
        precondition(!parts.isEmpty, "a ZeroMQ message has at least one part")
        let last = parts.count - 1
        for index in parts.indices {
            let result = try send(parts[index], more: index < last, dontWait: dontWait)
            if case .wouldBlock = result { return .wouldBlock }
        }
        return .done(())
    }

    // MARK: Receiving

    /// One received part: its bytes and whether more parts of the same message follow.
    public typealias Part = (bytes: [UInt8], more: Bool)

    /// Receives one part straight into a Swift array, and whether more parts follow.
    /// Returns ``ZMQResult/wouldBlock`` when `dontWait` is set (or a receive timeout expired) and
    /// nothing was there.
    public func receivePart(dontWait: Bool = false) throws(ZMQError) -> ZMQResult<Part> {
        var source: Int32 = -1
        return try receivePart(dontWait: dontWait, source: &source, wantSource: false)
    }

    /// Receives one part and, with `wantSource`, sets `source` to the descriptor of the connection
    /// it came from when libzmq knows it (`ZMQ_SRCFD`; a ROUTER's routing-id part, made by the
    /// socket itself, has none and leaves `source` as it was). Asking costs a metadata lookup by
    /// name and a `strtol` in libzmq 4.3, so it is asked only when wanted.
    private func receivePart(
        dontWait: Bool, source: inout Int32, wantSource: Bool
    ) throws(ZMQError) -> ZMQResult<Part> {
        let handle = try liveHandle("zmq_msg_recv")
        let message = receiveMessage
        let flags = dontWait ? ZMQ_DONTWAIT : 0
        zmq_msg_init(message)
        defer { zmq_msg_close(message) }
        switch try checkedCall("zmq_msg_recv", { zmq_msg_recv(message, handle, flags) }) {
        case .success(let size):
            // `Array(UnsafeRawBufferPointer)` copies through the standard library's specialised
            // path; `[UInt8](unsafeUninitializedCapacity:)` looks up the array's generic metadata at
            // run time on every call and costs about twice as much per part.
            let bytes = [UInt8](UnsafeRawBufferPointer(start: zmq_msg_data(message), count: Int(size)))
            if wantSource {
                let descriptor = zmq_msg_get(message, ZMQ_SRCFD)
                if descriptor >= 0 { source = descriptor }
            }
            return .done((bytes, zmq_msg_more(message) != 0))
        case .wouldBlock: return .wouldBlock
        case .terminated: throw ZMQError(code: .ETERM, function: "zmq_msg_recv")
        }
    }

    /// Receives every part of one message, wrapping each with `wrap`, and with `wantSource` sets
    /// `source` to the descriptor of the connection it came from (if libzmq knows it: asked of each
    /// part until one has it). Only the first part can "would block": ZeroMQ delivers the rest of a
    /// message with it.
    private func receiveAll<Wrapped>(
        dontWait: Bool, source: inout Int32, wantSource: Bool = false, _ wrap: ([UInt8]) -> Wrapped
    ) throws(ZMQError) -> ZMQResult<[Wrapped]> {
        guard
            case .done(let first) = try receivePart(dontWait: dontWait, source: &source, wantSource: wantSource)
        else {
            return .wouldBlock
        }
        // Room for a routing id, a delimiter and a few frames up front: growing from one element
        // would reallocate on the second part of every multipart message.
        var parts: [Wrapped] = []
        parts.reserveCapacity(first.more ? 4 : 1)
        parts.append(wrap(first.bytes))
        var more = first.more
        while more {
            guard
                case .done(let next) = try receivePart(
                    dontWait: false, source: &source, wantSource: wantSource && source < 0)
            else { break }
            parts.append(wrap(next.bytes))
            more = next.more
        }
        return .done(parts)
    }

    private func receiveAll<Wrapped>(
        dontWait: Bool, _ wrap: ([UInt8]) -> Wrapped
    ) throws(ZMQError) -> ZMQResult<[Wrapped]> {
        var source: Int32 = -1
        return try receiveAll(dontWait: dontWait, source: &source, wrap)
    }

    /// Receives a whole multipart message as byte arrays, blocking unless `dontWait` is set (up to
    /// the receive timeout, if one is set: then it returns ``ZMQResult/wouldBlock``).
    public func receiveParts(dontWait: Bool = false) throws(ZMQError) -> ZMQResult<[[UInt8]]> {
        try receiveAll(dontWait: dontWait) { $0 }
    }

    /// Receives a whole multipart message, blocking unless `dontWait` is set (up to the receive
    /// timeout, if one is set: then it returns ``ZMQResult/wouldBlock``).
    public func receive(dontWait: Bool = false) throws(ZMQError) -> ZMQResult<[Message]> {
        try receiveAll(dontWait: dontWait, Message.init)
    }

    /// Receives a whole multipart message and the file descriptor of the connection it came from
    /// (`ZMQ_SRCFD`), or -1 when there is none (`inproc://`). On a ROUTER, a descriptor names one
    /// live connection: a different routing id arriving on the same descriptor means the previous
    /// connection has closed.
    public func receiveWithSource(
        dontWait: Bool = false
    ) throws(ZMQError) -> ZMQResult<(parts: [Message], sourceFD: Int32)> {
        var source: Int32 = -1
        switch try receiveAll(dontWait: dontWait, source: &source, wantSource: true, Message.init) {
        case .done(let parts): return .done((parts, source))
        case .wouldBlock: return .wouldBlock
        }
    }

    /// Receives a whole multipart message without blocking: nil when nothing is queued.
    public func tryReceive() throws(ZMQError) -> [Message]? {
        try receive(dontWait: true).value
    }

    // MARK: State

    /// The pending events (`ZMQ_EVENTS`): whether a receive or a send would succeed now.
    public var events: PollEvents {
        get throws(ZMQError) {
            let bits = try Int32.get(option: ZMQ_EVENTS, from: liveHandle("zmq_getsockopt"))
            return PollEvents(rawValue: Int16(truncatingIfNeeded: bits))
        }
    }

    /// The socket's signalling descriptor (`ZMQ_FD`): it becomes readable when the socket's state
    /// may have changed, edge-style: after it fires, and after any other operation on the socket,
    /// ``events`` says what is possible now.
    var fileDescriptor: Int32 {
        get throws(ZMQError) { try Int32.get(option: ZMQ_FD, from: liveHandle("zmq_getsockopt")) }
    }

    /// The raw handle for other types of this module (poller, monitor, proxy).
    var rawHandle: UnsafeMutableRawPointer? { handle }
}
