internal import CZeroMQ

/// Which events a poller waits for, or which it found.
public struct PollEvents: OptionSet, Sendable, Hashable {
    /// The C bits (`ZMQ_POLLIN`, `ZMQ_POLLOUT`, `ZMQ_POLLERR`).
    public let rawValue: Int16

    /// Wraps the C bits.
    public init(rawValue: Int16) { self.rawValue = rawValue }

    /// At least one message can be received without blocking.
    public static let readable = PollEvents(rawValue: Int16(ZMQ_POLLIN))
    /// At least one message can be sent without blocking.
    public static let writable = PollEvents(rawValue: Int16(ZMQ_POLLOUT))
    /// An error condition (only for plain file descriptors; ZeroMQ sockets never report it).
    public static let error = PollEvents(rawValue: Int16(ZMQ_POLLERR))
}

/// Waits for events on several sockets at once, over `zmq_poll` (Debian's libzmq has no draft
/// `zmq_poller`).
///
/// A poller holds its sockets, so it is owned by the same thread as they are (it is not `Sendable`).
/// ``poll(timeout:)`` blocks: call it on a thread you own.
///
/// ```swift
/// let poller = Poller()
/// let a = poller.add(socketA, events: .readable)
/// let b = poller.add(socketB, events: [.readable, .writable])
/// for ready in try poller.poll(timeout: 1000) where ready.index == a {
///     // ready.events contains .readable
/// }
/// ```
public final class Poller {
    /// One socket's result from a poll.
    public struct Ready: Sendable, Hashable {
        /// The index ``Poller/add(_:events:)`` returned for the socket.
        public let index: Int
        /// The events found (a subset of those asked for).
        public let events: PollEvents

        /// A result for the socket at `index`.
        public init(index: Int, events: PollEvents) {
            self.index = index
            self.events = events
        }
    }

    /// The sockets, or nil for a plain file descriptor (see ``add(fileDescriptor:events:)``).
    private var sockets: [Socket?] = []
    private var items: [zmq_pollitem_t] = []

    /// An empty poller.
    public init() {}

    /// The number of sockets.
    public var count: Int { sockets.count }

    /// Adds a socket with the events to wait for; returns its index.
    @discardableResult
    public func add(_ socket: Socket, events: PollEvents) -> Int {
        sockets.append(socket)
        items.append(zmq_pollitem_t(socket: socket.rawHandle, fd: -1, events: events.rawValue, revents: 0))
        return sockets.count - 1
    }

    /// Adds a plain file descriptor (for example the read end of a wake-up pipe) with the events to
    /// wait for; returns its index. `zmq_poll` watches it with `poll(2)`; ``socket(at:)`` has no
    /// socket for it.
    @discardableResult
    func add(fileDescriptor: Int32, events: PollEvents) -> Int {
        sockets.append(nil)
        items.append(zmq_pollitem_t(socket: nil, fd: fileDescriptor, events: events.rawValue, revents: 0))
        return sockets.count - 1
    }

    /// Changes the events waited for on the socket at `index` (an empty set skips it).
    public func setEvents(_ events: PollEvents, at index: Int) {
        items[index].events = events.rawValue
    }

    /// The socket at `index`.
    public func socket(at index: Int) -> Socket {
        guard let socket = sockets[index] else { preconditionFailure("item \(index) is a file descriptor") }
        return socket
    }

    /// Waits up to `timeout` ms (`-1` forever, `0` just checks) and returns the sockets with events;
    /// empty when the time ran out. Throws `ETERM` when the context was terminated, and `ENOTSOCK`
    /// when one of the sockets was closed.
    public func poll(timeout: Int) throws(ZMQError) -> [Ready] {
        for index in items.indices {
            guard let socket = sockets[index] else { continue }  // a plain file descriptor
            guard let handle = socket.rawHandle else {
                throw ZMQError(code: .ENOTSOCK, function: "zmq_poll")
            }
            items[index].socket = handle
            items[index].revents = 0
        }
        let count = Int32(items.count)
        let outcome = try items.withUnsafeMutableBufferPointer { (buffer) throws(ZMQError) in
            try checkedCall("zmq_poll") { zmq_poll(buffer.baseAddress, count, timeout) }
        }
        switch outcome {
        case .success(0), .wouldBlock: return []
        case .success: break
        case .terminated: throw ZMQError(code: .ETERM, function: "zmq_poll")
        }
        var ready: [Ready] = []
        for index in items.indices where items[index].revents != 0 {
            ready.append(Ready(index: index, events: PollEvents(rawValue: items[index].revents)))
        }
        return ready
    }
}
