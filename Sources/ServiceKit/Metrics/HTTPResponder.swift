public import ProcessSupport
import Synchronization
import ZeroMQ

#if canImport(Glibc)
    import Glibc
#endif

/// A small HTTP/1.1 server on a thread of its own: the socket shell around ``HTTPRequestParser``
/// for the metrics and health endpoints (docs/operations.md, "HTTP endpoints").
///
/// One thread polls the listening socket, every connection and a wake-up pipe; it never runs on
/// the cooperative pool or on a ZeroMQ loop, so nothing a client of it does delays the service's
/// traffic. Each connection carries one request: the head is read (a body is not), the handler
/// answers, the response is written with `Connection: close`, and the connection is closed after
/// the client's end is drained (so a response is not lost to a reset). Bounds:
///
/// - at most ``Limits/maximumConnections`` at once; one past it is answered 503 and closed;
/// - the head must arrive within ``Limits/readTimeout`` of the accept (else 408 and closed), and
///   be at most ``Limits/maximumHeadBytes`` (else 431 and closed); a malformed one is 400;
/// - the answer must be written within ``Limits/writeTimeout`` (else the connection is closed).
///
/// ```swift
/// let responder = try HTTPResponder(listen: ListenAddress("127.0.0.1:0")!) { head, respond in
///     respond(.text(.ok, "hello"))
/// }
/// print(responder.address)   // 127.0.0.1:41234
/// await responder.stop()
/// ```
public final class HTTPResponder: Sendable {
    /// The bounds on clients.
    public struct Limits: Sendable, Hashable {
        /// Connections open at once.
        public var maximumConnections: Int
        /// How long a client has, from its accept, to send its request head.
        public var readTimeout: Duration
        /// How long the answer may take to be made and written.
        public var writeTimeout: Duration
        /// The longest request head read.
        public var maximumHeadBytes: Int

        /// Limits for a metrics endpoint: 16 connections, 5 s to send a head, 10 s to answer, 8 KiB.
        public init(
            maximumConnections: Int = 16, readTimeout: Duration = .seconds(5),
            writeTimeout: Duration = .seconds(10),
            maximumHeadBytes: Int = HTTPRequestParser.defaultMaximumHeadBytes
        ) {
            self.maximumConnections = max(1, maximumConnections)
            self.readTimeout = readTimeout
            self.writeTimeout = writeTimeout
            self.maximumHeadBytes = max(64, maximumHeadBytes)
        }
    }

    /// What the responder has seen since it started.
    public struct Statistics: Sendable, Hashable {
        /// Connections accepted and served.
        public var accepted = 0
        /// Connections refused with 503 over the connection bound.
        public var refused = 0
        /// Requests answered 400, 431 or 505 (unreadable).
        public var malformed = 0
        /// Connections closed with 408 (no complete head in time) or whose answer was not written in time.
        public var timedOut = 0
    }

    /// Answers one request: calls `respond` once, at once or later, from any thread.
    public typealias Handler =
        @Sendable (_ head: HTTPRequestHead, _ respond: @escaping @Sendable (HTTPResponse) -> Void) -> Void

    /// Where the responder listens, with the port the system picked for port 0.
    public let address: ListenAddress

    private let shared: Shared
    private let wake: (read: Int32, write: Int32)

    /// Binds `listen` and starts the responder's thread (named `name`). Throws when the address
    /// cannot be resolved or bound (it is in use, or not this host's).
    public init(
        listen: ListenAddress, limits: Limits = Limits(), name: String = "metrics-http",
        handler: @escaping Handler
    ) throws(StateError) {
        let (listener, bound) = try Self.bind(listen)
        let wake: (read: Int32, write: Int32)
        do {
            wake = try Posix.nonBlockingPipe()
        } catch {
            Posix.close(listener)
            throw StateError(code: .metricsListener, path: listen.description, message: "\(error)")
        }
        self.wake = wake
        address = bound
        let shared = Shared()
        self.shared = shared
        let loop = ResponderLoop(
            listener: listener, wake: wake.read, limits: limits, handler: handler, shared: shared,
            wakeWrite: wake.write)
        OwnedThread.spawn(name: name) { loop.run() }
    }

    /// The counts so far.
    public var statistics: Statistics { shared.state.withLock { $0.statistics } }

    /// Stops the thread: the listening socket and every connection are closed. Returns once the
    /// thread has ended.
    public func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = shared.state.withLock { state -> Bool in
                if state.ended { return true }
                state.stopping = true
                state.stopWaiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
            Posix.wake(wake.write)
        }
    }

    deinit {
        Posix.close(wake.write)
    }

    /// What the thread shares with the others: answers made elsewhere, the stop request, the counts.
    final class Shared: Sendable {
        struct State {
            var answers: [(connection: Int, response: HTTPResponse)] = []
            var stopping = false
            var ended = false
            var stopWaiters: [CheckedContinuation<Void, Never>] = []
            var statistics = Statistics()
        }

        let state = Mutex(State())
    }

    /// Resolves and binds `address`, and listens; returns the socket and the address bound.
    private static func bind(_ address: ListenAddress) throws(StateError) -> (Int32, ListenAddress) {
        func failure(_ message: String, _ number: Int32? = nil) -> StateError {
            StateError(
                code: .metricsListener, path: address.description, message: message, errorNumber: number)
        }
        func systemFailure(_ function: String) -> StateError {
            let number = errno
            return failure(
                "\(function) failed: \(String(cString: strerror(number))) (errno \(number))", number)
        }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(address.host, String(address.port), &hints, &list)
        guard code == 0, let first = list else {
            throw failure("cannot resolve \(address.host): \(String(cString: gai_strerror(code)))")
        }
        defer { freeaddrinfo(list) }
        let info = first.pointee
        let descriptor = socket(
            info.ai_family,
            Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
            0)
        guard descriptor >= 0 else { throw systemFailure("socket") }
        var on: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        guard Glibc.bind(descriptor, info.ai_addr, info.ai_addrlen) == 0 else {
            let error = systemFailure("bind")
            Posix.close(descriptor)
            throw error
        }
        guard listen(descriptor, 64) == 0 else {
            let error = systemFailure("listen")
            Posix.close(descriptor)
            throw error
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        var port = address.port
        if named == 0 {
            switch Int32(storage.ss_family) {
            case AF_INET:
                port = withUnsafePointer(to: &storage) {
                    $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                        UInt16(bigEndian: $0.pointee.sin_port)
                    }
                }
            case AF_INET6:
                port = withUnsafePointer(to: &storage) {
                    $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                        UInt16(bigEndian: $0.pointee.sin6_port)
                    }
                }
            default: break
            }
        }
        return (descriptor, ListenAddress(host: address.host, port: port))
    }
}

extension StateError.Code {
    /// The metrics listener could not be opened (`--metrics-listen`).
    public static let metricsListener = StateError.Code(rawValue: "metrics_listener")
}

/// The responder's thread: its sockets and connections, touched by no other thread.
private final class ResponderLoop: @unchecked Sendable {
    // @unchecked: made on the caller's thread, then used only by the responder's thread, which
    // OwnedThread starts after the last write here (Thread.start orders it).

    /// Where one connection is.
    enum Phase {
        /// Reading the request head.
        case reading
        /// The handler is making the answer.
        case answering
        /// Writing the answer (from `offset`).
        case writing(bytes: [UInt8], offset: Int)
        /// The answer is written and our end shut: reading what the client still sends until it
        /// closes, so that closing does not reset the connection before the answer is read.
        case lingering
    }

    struct Connection {
        let descriptor: Int32
        var received: [UInt8] = []
        var phase = Phase.reading
        var deadline: ContinuousClock.Instant
        var isHead = false
    }

    private let listener: Int32
    private let wake: Int32
    private let wakeWrite: Int32
    private let limits: HTTPResponder.Limits
    private let handler: HTTPResponder.Handler
    private let shared: HTTPResponder.Shared
    private var connections: [Int: Connection] = [:]
    private var nextID = 0
    /// How long a written answer's connection is drained before it is closed anyway.
    private let lingerTime = Duration.seconds(1)

    init(
        listener: Int32, wake: Int32, limits: HTTPResponder.Limits, handler: @escaping HTTPResponder.Handler,
        shared: HTTPResponder.Shared, wakeWrite: Int32
    ) {
        self.listener = listener
        self.wake = wake
        self.wakeWrite = wakeWrite
        self.limits = limits
        self.handler = handler
        self.shared = shared
    }

    func run() {
        var descriptors: [pollfd] = []
        var ids: [Int] = []
        while true {
            descriptors.removeAll(keepingCapacity: true)
            ids.removeAll(keepingCapacity: true)
            descriptors.append(pollfd(fd: wake, events: Int16(POLLIN), revents: 0))
            descriptors.append(pollfd(fd: listener, events: Int16(POLLIN), revents: 0))
            for (id, connection) in connections {
                let events: Int32
                switch connection.phase {
                case .reading, .lingering: events = POLLIN
                case .answering: events = 0
                case .writing: events = POLLOUT
                }
                descriptors.append(pollfd(fd: connection.descriptor, events: Int16(events), revents: 0))
                ids.append(id)
            }
            let ready = poll(&descriptors, nfds_t(descriptors.count), pollTimeout())
            if ready < 0, errno != EINTR { break }
            if descriptors[0].revents != 0 { Posix.drain(wake) }
            let (answers, stopping) = shared.state.withLock { state in
                defer { state.answers = [] }
                return (state.answers, state.stopping)
            }
            if stopping { break }
            for (id, response) in answers { answered(id, response) }
            for (index, id) in ids.enumerated() {
                let revents = Int32(descriptors[index + 2].revents)
                guard revents != 0, connections[id] != nil else { continue }
                service(id, revents: revents)
            }
            if descriptors[1].revents != 0 { acceptPending() }
            expire()
        }
        for connection in connections.values { Posix.close(connection.descriptor) }
        connections = [:]
        Posix.close(listener)
        Posix.close(wake)
        let waiters = shared.state.withLock { state in
            state.ended = true
            defer { state.stopWaiters = [] }
            return state.stopWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Milliseconds until the earliest deadline (at most one second), for poll.
    private func pollTimeout() -> Int32 {
        guard let earliest = connections.values.map(\.deadline).min() else { return 1_000 }
        let left = earliest - .now
        guard left > .zero else { return 0 }
        return Int32(min(1_000, left / .milliseconds(1) + 1))
    }

    /// Accepts what waits, at most a backlog's worth per turn.
    private func acceptPending() {
        for _ in 0..<64 {
            let descriptor = accept(listener, nil, nil)
            guard descriptor >= 0 else { return }  // EAGAIN, or a connection that went away
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            guard connections.count < limits.maximumConnections else {
                let response = HTTPResponse.text(.serviceUnavailable, "too many connections; retry later")
                _ = response.bytes().withUnsafeBytes {
                    send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                Posix.close(descriptor)
                shared.state.withLock { $0.statistics.refused += 1 }
                continue
            }
            shared.state.withLock { $0.statistics.accepted += 1 }
            connections[nextID] = Connection(descriptor: descriptor, deadline: .now + limits.readTimeout)
            nextID += 1
        }
    }

    /// Reads or writes what `id`'s socket is ready for.
    private func service(_ id: Int, revents: Int32) {
        guard var connection = connections[id] else { return }
        switch connection.phase {
        case .reading:
            switch receive(&connection, upTo: limits.maximumHeadBytes + 1 - connection.received.count) {
            case .read: connections[id] = connection
            case .wouldBlock: return
            case .ended, .failed: return close(id)  // the client closed before its head was done
            }
            switch HTTPRequestParser.parse(connection.received, maximumHeadBytes: limits.maximumHeadBytes) {
            case .incomplete:
                if revents & (POLLHUP | POLLERR) != 0 { close(id) }
            case .invalid(let status, let reason):
                shared.state.withLock { $0.statistics.malformed += 1 }
                respond(id, .text(status, "\(status.reason): \(reason)"))
            case .complete(let head, _):
                connection.phase = .answering
                connection.isHead = head.method == "HEAD"
                connection.deadline = .now + limits.writeTimeout
                connections[id] = connection
                let shared = self.shared
                let wake = wakeWrite
                handler(head) { response in
                    shared.state.withLock { $0.answers.append((id, response)) }
                    Posix.wake(wake)
                }
            }
        case .writing(let bytes, var offset):
            let written = bytes[offset...].withUnsafeBytes {
                send(connection.descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard written >= 0 || errno == EAGAIN || errno == EINTR else { return close(id) }
            offset += max(0, written)
            guard offset >= bytes.count else {
                connection.phase = .writing(bytes: bytes, offset: offset)
                connections[id] = connection
                return
            }
            shutdown(connection.descriptor, Int32(SHUT_WR))
            connection.phase = .lingering
            connection.deadline = .now + lingerTime
            connections[id] = connection
        case .lingering:
            switch receive(&connection, upTo: 4_096) {
            case .read, .wouldBlock:
                connection.received = []
                connections[id] = connection
            case .ended, .failed:
                close(id)
            }
        case .answering:
            if revents & (POLLHUP | POLLERR) != 0 { close(id) }
        }
    }

    /// What a read got.
    enum ReadResult {
        case read, wouldBlock, ended, failed
    }

    /// Reads at most `limit` bytes into the connection's buffer.
    private func receive(_ connection: inout Connection, upTo limit: Int) -> ReadResult {
        var chunk = [UInt8](repeating: 0, count: max(1, min(limit, 4_096)))
        let count = chunk.withUnsafeMutableBytes { recv(connection.descriptor, $0.baseAddress, $0.count, 0) }
        if count < 0 { return errno == EAGAIN || errno == EINTR ? .wouldBlock : .failed }
        if count == 0 { return .ended }
        connection.received += chunk[..<count]
        return .read
    }

    /// The handler's answer for `id` (if it is still waiting for one).
    private func answered(_ id: Int, _ response: HTTPResponse) {
        guard let connection = connections[id], case .answering = connection.phase else { return }
        respond(id, response)
    }

    /// Starts writing `response` on `id`, and the write deadline.
    private func respond(_ id: Int, _ response: HTTPResponse) {
        guard var connection = connections[id] else { return }
        connection.phase = .writing(bytes: response.bytes(includingBody: !connection.isHead), offset: 0)
        connection.deadline = .now + limits.writeTimeout
        connections[id] = connection
        service(id, revents: POLLOUT)  // most answers fit the socket's buffer at once
    }

    /// Ends the connections whose deadline passed: 408 to one still sending its head.
    private func expire() {
        let now = ContinuousClock.now
        for (id, connection) in connections where connection.deadline <= now {
            switch connection.phase {
            case .reading:
                shared.state.withLock { $0.statistics.timedOut += 1 }
                let response = HTTPResponse.text(.requestTimeout, "the request head did not arrive in time")
                _ = response.bytes().withUnsafeBytes {
                    send(connection.descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                close(id)
            case .answering, .writing:
                shared.state.withLock { $0.statistics.timedOut += 1 }
                close(id)
            case .lingering:
                close(id)
            }
        }
    }

    private func close(_ id: Int) {
        guard let connection = connections.removeValue(forKey: id) else { return }
        Posix.close(connection.descriptor)
    }
}
