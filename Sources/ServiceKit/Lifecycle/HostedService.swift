public import Metrics
public import ProcessSupport
public import RemoteStreams
public import Tracing
public import ZeroMQ

/// A service's own part of its process, as ``ServiceHost`` runs it: everything else (the state
/// directory, pid file, signals, CURVE, the loops, the servers and their system methods, the drain)
/// is the host's.
///
/// The host runs the service on `--loops` shards (docs/ARCHITECTURE.md §3): each is an event loop
/// with a server on it. ``open(on:)`` runs once per process, before any shard, and opens what the
/// shards share (a store, a hashing pool, a read-only catalog); ``start(on:shared:handlers:)`` runs
/// once per shard and builds that shard's part on its loop: its clients of other services, its
/// logic, its handlers registered into `handlers`. A service that shares nothing keeps the default
/// ``open(on:)``, which opens ``NothingShared``.
public protocol HostedService: Sendable {
    /// The part every shard shares, running from before the first shard starts until after the last
    /// one stopped: its `stats()` groups are reported once, its `reload()` runs before the shards'
    /// and its `stop()` after theirs.
    associatedtype Shared: RunningService = NothingShared
    /// The running part of one shard.
    associatedtype Running: RunningService

    /// Opens what the shards share. A thrown error ends the start (`cannot start`).
    func open(on process: ProcessResources) async throws -> Shared

    /// Builds the service on `shard`'s loop and registers its handlers. A thrown error ends the
    /// start (`cannot start`): the host closes what it opened (the shards already started and the
    /// shared part included); anything the service opened before failing is the service's to close.
    func start(on shard: HostResources, shared: Shared, handlers: inout RemoteHandlers) async throws
        -> Running

    /// Whether each channel input element that comes without a `traceparent` starts a trace of its
    /// own at the sample ratio (the gateway: every keystroke and tap), rather than running in its
    /// channel's.
    var tracesChannelInputs: Bool { get }

    /// The body of the `NEXT` a channel sends when an input that asked for its trace (a sampled
    /// `traceparent`) is done, from the input's trace id and hops (the input's own handling first,
    /// at depth 0, then the calls made for it and theirs); nil sends none.
    @Sendable func inputTraceReport(traceID: String, hops: [Hop]) -> [UInt8]?
}

extension HostedService {
    /// Channel inputs run in their channel's trace.
    public var tracesChannelInputs: Bool { false }

    /// The standard report, an element whose only member is `trace`: a ``RemoteClient`` that sent
    /// the input records its hops in the sender's span and does not deliver it.
    @Sendable public func inputTraceReport(traceID: String, hops: [Hop]) -> [UInt8]? {
        TraceSummary.report(traceID: traceID, hops: hops)
    }
}

extension HostedService where Shared == NothingShared {
    /// Nothing to share.
    public func open(on process: ProcessResources) async throws -> NothingShared { NothingShared() }
}

/// The shared part of a service whose shards share nothing.
public struct NothingShared: RunningService {
    /// Nothing.
    public init() {}
}

/// A started part of a service (one shard's, or the part the shards share), from when its servers
/// listen until the host stops it.
public protocol RunningService: Sendable {
    /// Metadata of the `listening` line, after the host's `endpoint` and `curve` (the shared part's
    /// and shard 0's).
    var listening: [String: LogValue] { get }

    /// `sys.stats`' counter groups, by component (the host adds `transport`). The groups of the
    /// shards are summed, counter by counter; the shared part's are reported as they are.
    func stats() async -> [String: [String: Int]]

    /// The part's metric families for `--metrics-listen` (docs/operations.md, "Metrics"), read once
    /// per scrape: the families of the shards are merged, samples with the same labels summed (the
    /// host adds the calls, transport, process and health families).
    func metrics() async -> [MetricFamily]

    /// Work that runs while the service serves (health probes of upstreams, periodic clean-ups): a
    /// child task of the host from just after health turns `ready` until the drain begins, when it is
    /// cancelled and awaited. It must return once cancelled.
    func serve() async

    /// SIGHUP: rereads everything the service can change in place (the host has already reloaded the
    /// allow-list). Runs on the host's reload queue, one reload at a time, never on the cooperative
    /// pool; a part that fails to load is logged and the current one kept.
    func reload()

    /// After the servers have stopped: closes what the part owns (its clients, a store, a pool).
    func stop() async
}

extension RunningService {
    public var listening: [String: LogValue] { [:] }
    public func stats() async -> [String: [String: Int]] { [:] }
    public func metrics() async -> [MetricFamily] { [] }
    public func serve() async {}
    public func reload() {}
    public func stop() async {}
}

/// What the host lends a service's shared part to open on.
public struct ProcessResources: Sendable {
    /// The process's ZeroMQ context (thread-safe: every shard uses it).
    public let context: Context
    /// Every shard's event loop, shard 0 first (one per `--loops`).
    public let loops: [SocketLoop]
    /// The state directory (keys, allow-list, data).
    public let state: StateDirectory
    /// The service's logger.
    public let logger: Logger
    /// The process's health, `starting` until the host sets it `ready`.
    public let health: HealthState
    /// The process's metrics: a part with counters of its own beyond ``RunningService/metrics()``
    /// (an exporter thread, say) registers a collector here.
    public let metrics: MetricsRegistry
}

/// What the host lends one shard of a service to start on.
public struct HostResources: Sendable {
    /// The process's ZeroMQ context.
    public let context: Context
    /// The shard's event loop: its server's ROUTER, every client DEALER it makes and every timer run
    /// on its thread.
    public let loop: SocketLoop
    /// The shard's index: 0 binds the configured endpoint.
    public let shard: Int
    /// How many shards the process runs.
    public let shards: Int
    /// The state directory (keys, allow-list, data).
    public let state: StateDirectory
    /// The service's logger (with a `shard` field when the process runs several).
    public let logger: Logger
    /// The shard's health, for its upstream probes: the process's `sys.health` is `degraded` while
    /// any shard's is.
    public let health: HealthState
    /// The process's metrics (see ``ProcessResources/metrics``).
    public let metrics: MetricsRegistry

    /// The CURVE settings of a client of another service: that service's public key (its
    /// `curve.pub`, read from `serverKeyFile`) and this service's client key pair (`client.key`,
    /// created on first start).
    public func clientCurve(serverKeyFile: String) throws(StateError) -> RemoteClient.Curve {
        RemoteClient.Curve(
            serverKey: try CurveKeyFiles.publicKey(at: serverKeyFile),
            keys: try CurveKeyFiles.clientKeys(in: state))
    }
}
