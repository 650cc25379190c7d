public import RemoteProtocol
public import ZeroMQ

extension RemoteClient {
    /// How a client runs.
    public struct Configuration: Sendable {
        /// The server's endpoints, one per replica.
        public var endpoints: [String]
        /// The deadline of calls that do not give their own.
        public var deadline: Duration
        /// How often replicas with open streams are pinged.
        public var pingInterval: Duration
        /// Body limits for decoding answers.
        public var limits: ProtocolLimits
        /// The threads' names.
        public var name: String
        /// CURVE security, or nil for plain connections.
        public var curve: Curve?
        /// The most messages the client reads from one replica per turn of its loop before it
        /// delivers them and sends what their observers queued (calls made from an answer's
        /// callback go out after each turn, not after the whole backlog).
        public var maxMessagesPerTurn: Int
        /// How long a call made while its replica has no connection waits for one before it fails
        /// with `unavailable`; nil: as long as the call's deadline. A command-line client sets a
        /// few seconds, so that a server that is down is reported soon; a service calling another
        /// leaves it nil, so that a call made during an outage goes out when the server returns.
        public var connectTimeout: Duration?
        /// How soon ZeroMQ tries again after a connection attempt failed or a connection was lost
        /// (`ZMQ_RECONNECT_IVL`).
        public var reconnectInterval: Duration
        /// The longest interval between attempts: each failed attempt doubles the interval up to this
        /// (`ZMQ_RECONNECT_IVL_MAX`), so a server that returns is reached within about this long.
        public var reconnectIntervalMax: Duration
        /// Whether the client asks each configured endpoint for its server's shards (`sys.endpoints`)
        /// when its connection comes up, and spreads its calls over them too. Services calling
        /// services turn it on; a command-line client keeps its one connection.
        public var discoversShards: Bool
        /// Resolves the host names of `tcp://` endpoints into addresses, one replica each; nil:
        /// names are dialled as they are (libzmq connects to the first address of a name).
        public var resolver: NameResolver?
        /// How often names are resolved again.
        public var resolveInterval: Duration

        /// A configuration.
        public init(
            endpoints: [String], deadline: Duration = .seconds(5), pingInterval: Duration = .seconds(2),
            limits: ProtocolLimits = ProtocolLimits(), name: String = "remote-client",
            curve: Curve? = nil, maxMessagesPerTurn: Int = 16, connectTimeout: Duration? = nil,
            reconnectInterval: Duration = .milliseconds(100),
            reconnectIntervalMax: Duration = .milliseconds(250), discoversShards: Bool = false,
            resolver: NameResolver? = .system, resolveInterval: Duration = .seconds(5)
        ) {
            self.discoversShards = discoversShards
            self.resolver = resolver
            self.resolveInterval = resolveInterval
            self.curve = curve
            self.maxMessagesPerTurn = maxMessagesPerTurn
            self.connectTimeout = connectTimeout
            self.reconnectInterval = reconnectInterval
            self.reconnectIntervalMax = reconnectIntervalMax
            self.endpoints = endpoints
            self.deadline = deadline
            self.pingInterval = pingInterval
            self.limits = limits
            self.name = name
        }
    }

    /// CURVE settings of a client.
    public struct Curve: Sendable {
        /// The server's public key.
        public var serverKey: [UInt8]
        /// This client's key pair (its public key must be on the server's allow-list, if any).
        public var keys: CurveKeyPair

        /// CURVE towards a server whose public key is `serverKey`, as `keys`.
        public init(serverKey: [UInt8], keys: CurveKeyPair) {
            self.serverKey = serverKey
            self.keys = keys
        }
    }

    /// Turns a host name into its addresses (`10.0.0.5`, `::1`), for endpoints `tcp://name:port`.
    public struct NameResolver: Sendable {
        /// The addresses of a name, or nil when it could not be resolved (the client then keeps
        /// the replicas it has). Called on the client's resolver thread: it may block.
        public let resolve: @Sendable (_ host: String) -> [String]?

        /// A resolver that calls `resolve`.
        public init(_ resolve: @escaping @Sendable (_ host: String) -> [String]?) {
            self.resolve = resolve
        }

        /// The system's resolver (`getaddrinfo`): IPv4 and IPv6 addresses, in its order, without
        /// repeats.
        public static var system: NameResolver { NameResolver(systemAddresses(of:)) }
    }

    /// A replica's connection came up or was lost.
    public struct ConnectionChange: Sendable, Hashable, CustomStringConvertible {
        /// The replica: its index in ``Configuration/endpoints``, then (past them) in the order the
        /// replicas were added: discovered shards, and addresses of resolved names.
        public let replica: Int
        /// Its endpoint.
        public let endpoint: String
        /// True: the handshake succeeded (calls go out now); false: the connection was lost (its
        /// calls failed with `unavailable`; ZeroMQ is reconnecting).
        public let isUp: Bool

        /// A change of `replica`'s connection.
        public init(replica: Int, endpoint: String, isUp: Bool) {
            self.replica = replica
            self.endpoint = endpoint
            self.isUp = isUp
        }

        /// E.g. `tcp://127.0.0.1:5561 (replica 0) up`.
        public var description: String { "\(endpoint) (replica \(replica)) \(isUp ? "up" : "down")" }
    }
}
