public import RemoteStreams
public import ZeroMQ

/// A service's own part of its process, as ``ServiceHost`` runs it: everything else (the state
/// directory, pid file, signals, CURVE, the loop, the server and its system methods, the drain) is
/// the host's.
///
/// ``start(on:handlers:)`` builds the service on the host's loop: its clients of other services,
/// its logic, its handlers registered into `handlers`. What it returns is the running part.
public protocol HostedService: Sendable {
    /// The running part.
    associatedtype Running: RunningService

    /// Builds the service on `host`'s loop and registers its handlers. A thrown error ends the start
    /// (`cannot start`): the host closes what it opened; anything the service opened before failing
    /// is the service's to close.
    func start(on host: HostResources, handlers: inout RemoteHandlers) async throws -> Running
}

/// A started service, from when its server listens until the host stops it.
public protocol RunningService: Sendable {
    /// Metadata of the `listening` line, after the host's `endpoint` and `curve`.
    var listening: [String: LogValue] { get }

    /// `sys.stats`' counter groups, by component (the host adds `transport`).
    func stats() async -> [String: [String: Int]]

    /// Work that runs while the service serves (health probes of upstreams, periodic clean-ups): a
    /// child task of the host from just after health turns `ready` until the drain begins, when it is
    /// cancelled and awaited. It must return once cancelled.
    func serve() async

    /// SIGHUP: rereads everything the service can change in place (the host has already reloaded the
    /// allow-list). Runs on the host's reload queue, one reload at a time, never on the cooperative
    /// pool; a part that fails to load is logged and the current one kept.
    func reload()

    /// After the server has stopped: closes what the service owns (its clients, a store, a pool).
    func stop() async
}

extension RunningService {
    public var listening: [String: LogValue] { [:] }
    public func stats() async -> [String: [String: Int]] { [:] }
    public func serve() async {}
    public func reload() {}
    public func stop() async {}
}

/// What the host lends a service to start on.
public struct HostResources: Sendable {
    /// The process's ZeroMQ context.
    public let context: Context
    /// The process's one event loop: the server's ROUTER, every client DEALER and every timer run on
    /// its thread.
    public let loop: SocketLoop
    /// The state directory (keys, allow-list, data).
    public let state: StateDirectory
    /// The service's logger.
    public let logger: Logger
    /// The service's health, `starting` until the host sets it `ready` (probes then keep it).
    public let health: HealthState

    /// The CURVE settings of a client of another service: that service's public key (its
    /// `curve.pub`, read from `serverKeyFile`) and this service's client key pair (`client.key`,
    /// created on first start).
    public func clientCurve(serverKeyFile: String) throws(ServiceKitError) -> RemoteClient.Curve {
        RemoteClient.Curve(
            serverKey: try CurveKeyFiles.publicKey(at: serverKeyFile),
            keys: try CurveKeyFiles.clientKeys(in: state))
    }
}
