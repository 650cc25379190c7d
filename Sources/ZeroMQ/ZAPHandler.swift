import Synchronization

/// A set of CURVE client public keys allowed through a ``ZAPHandler``; thread-safe, so keys can be
/// added and revoked while the handler runs.
public final class CurveAllowList: Sendable {
    private let keys: Mutex<Set<[UInt8]>>

    /// An allow-list holding `keys` (32-byte public keys).
    public init(_ keys: Set<[UInt8]> = []) { self.keys = Mutex(keys) }

    /// Allows a client public key.
    public func insert(_ key: [UInt8]) { _ = keys.withLock { $0.insert(key) } }

    /// Revokes a client public key (connections already authenticated stay up).
    public func remove(_ key: [UInt8]) { _ = keys.withLock { $0.remove(key) } }

    /// Whether `key` is allowed.
    public func contains(_ key: [UInt8]) -> Bool { keys.withLock { $0.contains(key) } }

    /// The number of keys allowed.
    public var count: Int { keys.withLock { $0.count } }

    /// Replaces every key at once (a reload): handshakes from now on see `newKeys`; connections
    /// already authenticated stay up. Returns how many keys were added and how many removed.
    @discardableResult
    public func replace(with newKeys: Set<[UInt8]>) -> (added: Int, removed: Int) {
        keys.withLock { keys in
            defer { keys = newKeys }
            return (newKeys.subtracting(keys).count, keys.subtracting(newKeys).count)
        }
    }
}

/// A ZAP (ZeroMQ Authentication Protocol, RFC 27) handler for a context: decides, for every
/// handshake of a CURVE server socket of that context, whether the client may connect.
///
/// Without a ZAP handler a CURVE server accepts any client key. Start the handler before the CURVE
/// server socket accepts connections; a context has at most one (it binds ``endpoint``, a second
/// bind fails with `EADDRINUSE`, and libzmq frees the endpoint asynchronously after a stop, so a
/// replacement started at once may briefly get `EADDRINUSE` too). It runs on a ``SocketLoop`` of
/// its own; ``stop()`` it before terminating the context. Denied clients see
/// ``MonitorEvent/Kind/handshakeFailedAuth(statusCode:)`` with status 400 and never reach the
/// server socket.
public final class ZAPHandler: Sendable {
    /// The fixed `inproc://` endpoint libzmq sends ZAP requests to.
    public static let endpoint = "inproc://zeromq.zap.01"

    /// One authentication request (RFC 27).
    public struct Request: Sendable, Hashable {
        /// The ZAP domain of the server socket (`ZMQ_ZAP_DOMAIN`, often empty).
        public let domain: String
        /// The client's address (for TCP, its IP address).
        public let address: String
        /// The client's routing id, if it set one.
        public let routingID: [UInt8]
        /// The security mechanism: `"NULL"`, `"PLAIN"` or `"CURVE"`.
        public let mechanism: String
        /// The mechanism's credentials (CURVE: one frame, the client's 32-byte public key).
        public let credentials: [[UInt8]]

        /// The client's CURVE public key, for a CURVE request.
        public var curvePublicKey: [UInt8]? {
            mechanism == "CURVE" && credentials.count == 1 ? credentials[0] : nil
        }
    }

    /// What the handler answers.
    public enum Decision: Sendable, Hashable {
        /// Let the client in; `userID` is attached to its messages as the `User-Id` property.
        case allow(userID: String)
        /// Refuse the client (ZAP status 400) with a reason.
        case deny(reason: String)
    }

    /// Counters, read with ``statistics``.
    public struct Statistics: Sendable, Hashable {
        /// Requests allowed.
        public var allowed = 0
        /// Requests denied.
        public var denied = 0
        /// Requests that were not valid ZAP requests (dropped or answered with status 500).
        public var malformed = 0
    }

    private let loop: SocketLoop
    private let counters: Counters

    /// The mutable counters, shared with the loop's handler.
    private final class Counters: Sendable {
        let value = Mutex(Statistics())
    }

    /// Starts a handler that asks `authorize` about every request (on the handler's thread; it must
    /// not block).
    public init(
        context: Context, authorize: @escaping @Sendable (Request) -> Decision
    ) throws(ZMQError) {
        let socket = try Socket(context, .router, linger: 0)
        try socket.bind(Self.endpoint)
        let counters = Counters()
        self.counters = counters
        loop = try SocketLoop(
            context: context, sockets: [socket], configuration: .init(name: "zeromq-zap")
        ) { batch, loop in
            for received in batch {
                guard let reply = Self.reply(to: received.parts, authorize: authorize, counters: counters)
                else { continue }
                loop.send(reply, to: received.socket)
            }
        }
    }

    /// Starts a handler that lets in exactly the CURVE clients whose public key is in `allowList`
    /// (user id: the key in Z85), and refuses every other request.
    public convenience init(context: Context, allowList: CurveAllowList) throws(ZMQError) {
        try self.init(context: context) { request in
            guard let key = request.curvePublicKey else {
                return .deny(reason: "CURVE required")
            }
            guard allowList.contains(key) else { return .deny(reason: "unknown client key") }
            return .allow(userID: (try? Z85.encode(key)) ?? "")
        }
    }

    /// The counters so far.
    public var statistics: Statistics { counters.value.withLock { $0 } }

    /// Stops the handler and joins its thread (blocking; see ``SocketLoop/stop()``).
    public func stop() { loop.stop() }

    /// Stops the handler and suspends until its thread has ended.
    public func stop() async { await loop.stop() }

    /// The reply to one request as it arrives on the ROUTER:
    /// `[peer, "", "1.0", request id, domain, address, routing id, mechanism, credentials...]`,
    /// answered with `[peer, "", "1.0", request id, status code, status text, user id, metadata]`.
    private static func reply(
        to parts: [Message], authorize: @Sendable (Request) -> Decision, counters: Counters
    ) -> [Message]? {
        guard parts.count >= 4, parts[1].count == 0 else {
            counters.value.withLock { $0.malformed += 1 }
            return nil
        }
        let header = [parts[0], .empty, Message("1.0"), parts[3]]
        guard parts.count >= 8, parts[2] == "1.0" else {
            counters.value.withLock { $0.malformed += 1 }
            return header + [Message("500"), Message("malformed ZAP request"), .empty, .empty]
        }
        let request = Request(
            domain: parts[4].string, address: parts[5].string, routingID: parts[6].bytes,
            mechanism: parts[7].string, credentials: parts[8...].map(\.bytes))
        switch authorize(request) {
        case .allow(let userID):
            counters.value.withLock { $0.allowed += 1 }
            return header + [Message("200"), Message("OK"), Message(userID), .empty]
        case .deny(let reason):
            counters.value.withLock { $0.denied += 1 }
            return header + [Message("400"), Message(reason), .empty, .empty]
        }
    }
}
