import Dispatch
import Foundation
import Metrics
public import ProcessSupport
import RemoteStreams
import Synchronization
public import Tracing
public import ZeroMQ

#if canImport(Glibc)
    import Glibc
#endif

/// Runs one service process: everything a service executable shares, around the service's own part
/// (a ``HostedService``).
///
/// Nothing starts in `init`. ``run()`` takes the pid file, watches SIGTERM, SIGINT and SIGHUP
/// (one ``ProcessSignals``), makes the process's ZeroMQ `Context` and one `SocketLoop` per shard
/// (``Settings/loops``), opens the service's shared part and starts each shard's part, sets up
/// CURVE (server keys, one ZAP handler for the allow-list, its reload), binds each shard's
/// `RemoteServer` (shard 0 on the endpoint, the others on ``Endpoint/forShard(_:)``) with the
/// service's handlers and `sys.health`/`sys.stats`/`sys.endpoints`, sets health `ready`, logs
/// `listening`, and serves until a shutdown signal. Then it drains every shard: health `draining`,
/// new calls refused, requests in flight answered, all within the drain timeout; when the deadline
/// passes the remaining work is cancelled (the servers stop, their streams are disposed) and `run()`
/// throws ``ServiceHostError/drainTimedOut(signal:)``. Either way it then stops the servers, the
/// service's parts, the loops and the context, releases the pid file and returns (or throws).
///
/// With ``Settings/metricsListen``, an ``HTTPResponder`` serves `/metrics`, `/healthz` and
/// `/readyz` from just after the pid file is taken (so a probe sees `starting`) until everything
/// else has stopped (docs/operations.md). The servers then count their calls by method; a scrape
/// takes one snapshot of every shard's counters (a post to each loop), on a child task of `run()`,
/// never on a request's path.
///
/// Signals: the first SIGTERM/SIGINT drains (one that comes while starting drains as soon as the
/// start is done); any later one exits the process at once with `128 + signal`. SIGHUP reloads the
/// allow-list, then the service's ``RunningService/reload()``, one reload at a time on the host's
/// reload queue; a hang-up while starting or stopping is ignored. Cancelling `run()`'s task skips
/// the drain and cancels at once (it then throws `CancellationError`).
///
/// ```swift
/// let host = ServiceHost(
///     AuthDescription(configuration: configuration), settings: settings, state: state, logger: logger)
/// try await host.run()
/// ```
public struct ServiceHost<Service: HostedService>: Sendable {
    /// What the host needs besides the service.
    public struct Settings: Sendable {
        /// The service's name: its pid file, health, loop (`auth`), server (`auth-server`).
        public var name: String
        /// Its version, for `sys.health` and `sys.stats`.
        public var version: String
        /// Where the server listens.
        public var endpoint: Endpoint
        /// CURVE on the server, with the state directory's keys.
        public var curve: CurveSetting
        /// With CURVE on, admit any client that knows the server's key (no allow-list).
        public var allowAnyClient: Bool
        /// Calls in flight at once over all clients.
        public var maxStreamsTotal: Int
        /// Calls one connection may have in flight at once.
        public var maxStreamsPerClient: Int
        /// The bound on what one client that does not read may have waiting.
        public var peerQueue: SocketLoop.PeerQueueLimit
        /// How long the drain may take.
        public var drainTimeout: Duration
        /// How many shards (a loop and a server each) the process runs.
        public var loops: Int
        /// Where the metrics and health listener binds (nil: none, and no call counting).
        public var metricsListen: ListenAddress?
        /// The bounds on the metrics listener's clients.
        public var metricsLimits: HTTPResponder.Limits
        /// The process's tracer (``Tracing/install(_:)`` while the host runs; its exporter is
        /// stopped, after writing what it holds, when the host stops); nil: no tracing.
        public var tracer: Tracer?

        /// Settings with every value given.
        public init(
            name: String, version: String, endpoint: Endpoint, curve: CurveSetting,
            allowAnyClient: Bool = false,
            maxStreamsTotal: Int, maxStreamsPerClient: Int,
            peerQueue: SocketLoop.PeerQueueLimit = SocketLoop.PeerQueueLimit(), drainTimeout: Duration,
            loops: Int = 1, metricsListen: ListenAddress? = nil,
            metricsLimits: HTTPResponder.Limits = HTTPResponder.Limits(), tracer: Tracer? = nil
        ) {
            self.tracer = tracer
            self.metricsListen = metricsListen
            self.metricsLimits = metricsLimits
            self.name = name
            self.version = version
            self.endpoint = endpoint
            self.curve = curve
            self.allowAnyClient = allowAnyClient
            self.maxStreamsTotal = maxStreamsTotal
            self.maxStreamsPerClient = maxStreamsPerClient
            self.peerQueue = peerQueue
            self.drainTimeout = drainTimeout
            self.loops = max(1, loops)
        }
    }

    private let service: Service
    private let settings: Settings
    private let state: StateDirectory
    private let logger: Logger
    private let signals: ProcessSignals
    private let exitProcess: @Sendable (Int32) -> Void

    /// A host of `service`. `signals` delivers SIGTERM, SIGINT and SIGHUP (the process's own by
    /// default; tests deliver their own); `exit` ends the process on a second shutdown signal
    /// (`_exit` by default).
    public init(
        _ service: Service, settings: Settings, state: StateDirectory, logger: Logger,
        signals: ProcessSignals = ProcessSignals(), exit: (@Sendable (Int32) -> Void)? = nil
    ) {
        self.service = service
        self.settings = settings
        self.state = state
        self.logger = logger
        self.signals = signals
        self.exitProcess = exit ?? { code in _exit(code) }
    }

    /// Runs the process's service until a shutdown signal drains it (returns), the drain deadline
    /// passes (throws ``ServiceHostError/drainTimedOut(signal:)``), the start fails (throws its error,
    /// logged as `cannot start`) or the task is cancelled (throws `CancellationError`).
    public func run() async throws {
        if let tracer = settings.tracer { Tracing.install(tracer) }
        do {
            try await runInstalled()
        } catch {
            await stopExporter()
            throw error
        }
        await stopExporter()
    }

    /// Lets the exporter write what it holds and end its thread; waited for on a thread of its own,
    /// never a task's.
    private func stopExporter() async {
        guard let exporter = settings.tracer?.exporter else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread {
                exporter.stop()
                continuation.resume()
            }.start()
        }
    }

    private func runInstalled() async throws {
        let lifecycle = LockedLifecycle()
        let reloads = DispatchQueue(label: "ServiceKit.reload")
        let metrics = MetricsRegistry()
        let (scrapes, scrapeRequests) = AsyncStream.makeStream(
            of: Scrape.self, bufferingPolicy: .bufferingNewest(settings.metricsLimits.maximumConnections))
        signals.watch([SIGTERM, SIGINT, SIGHUP])
        defer { signals.finish() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await handleSignals(lifecycle, reloads: reloads) }
            group.addTask { await Self.answer(scrapes, from: metrics) }
            group.addTask { await HeapTrimming().run() }
            defer { group.cancelAll() }
            try await serve(lifecycle, reloads: reloads, metrics: metrics, scrapes: scrapeRequests)
        }
    }

    /// A scrape of `/metrics` waiting for its families.
    private typealias Scrape = @Sendable (HTTPResponse) -> Void

    /// Answers the scrapes one at a time, each with one collection, until cancelled.
    private static func answer(_ scrapes: AsyncStream<Scrape>, from metrics: MetricsRegistry) async {
        for await respond in scrapes {
            respond(MetricsEndpoints.metricsResponse(await metrics.collect()))
        }
    }

    /// Binds the metrics listener, if configured, and registers the families of the host that need
    /// no started process (health, build, process, the listener's own).
    private func startMetrics(
        health: HealthState, metrics: MetricsRegistry, scrapes: AsyncStream<Scrape>.Continuation
    ) throws -> HTTPResponder? {
        guard let address = settings.metricsListen else { return nil }
        let responder = try HTTPResponder(
            listen: address, limits: settings.metricsLimits, name: "\(settings.name)-metrics"
        ) { head, respond in
            switch MetricsEndpoints.answer(head, health: health.report) {
            case .now(let response): respond(response)
            case .metrics: scrapes.yield(respond)
            }
        }
        let name = settings.name
        let version = settings.version
        metrics.register(now: { HostMetrics.health(health.report, service: name, version: version) })
        metrics.register(now: { ProcessMetrics.families() })
        metrics.register(now: { [responder] in HostMetrics.listener(responder.statistics) })
        if let exporter = settings.tracer?.exporter {
            metrics.register(now: { HostMetrics.traces(exporter.counts, queued: exporter.queueLength) })
        }
        return responder
    }

    /// Registers the families of a started process: its servers' calls and transport, CURVE, and the
    /// service's parts'.
    private static func register(_ process: Process, in metrics: MetricsRegistry) {
        let servers = process.servers
        let authenticator = process.authenticator
        let shared = process.shared
        let running = process.running
        metrics.register {
            var shards: [RemoteCounters] = []
            for server in servers { shards.append(await server.counters) }
            return HostMetrics.transport(shards) + HostMetrics.curve(authenticator?.statistics)
        }
        metrics.register {
            var families = await shared.metrics()
            for part in running { families += await part.metrics() }
            return families
        }
    }

    /// Hands each signal to the state machine and runs what it asks for, until cancelled.
    private func handleSignals(_ lifecycle: LockedLifecycle, reloads: DispatchQueue) async {
        for await signal in signals.received {
            switch lifecycle.withLock({ $0.received(signal) }) {
            case .none:
                break
            case .resume(let waiter, let signal):
                waiter.resume(returning: signal)
            case .reload(let reload):
                reloads.async {
                    logger.notice("reload requested (SIGHUP)")
                    reload()
                }
            case .ignoreHangUp:
                logger.info("reload requested (SIGHUP) while not serving: ignored")
            case .exit(let code):
                logger.notice("second shutdown signal: exiting at once", ["signal": .integer(Int(signal))])
                exitProcess(code)
            }
        }
    }

    /// The process's life: start, serve, drain, stop; the metrics listener around it all.
    private func serve(
        _ lifecycle: LockedLifecycle, reloads: DispatchQueue, metrics: MetricsRegistry,
        scrapes: AsyncStream<Scrape>.Continuation
    ) async throws {
        let pidFile: PidFile
        let health = HealthState(service: settings.name, version: settings.version, shards: settings.loops)
        let responder: HTTPResponder?
        do {
            pidFile = try PidFile.acquire(in: state, service: settings.name)
            do {
                responder = try startMetrics(health: health, metrics: metrics, scrapes: scrapes)
            } catch {
                pidFile.release()
                throw error
            }
        } catch {
            logger.error("cannot start", ["error": .string("\(error)")])
            throw error
        }
        defer { pidFile.release() }
        do {
            try await serve(
                lifecycle, reloads: reloads, health: health, metrics: metrics, responder: responder)
        } catch {
            await responder?.stop()
            throw error
        }
        await responder?.stop()
    }

    /// Start, serve, drain, stop.
    private func serve(
        _ lifecycle: LockedLifecycle, reloads: DispatchQueue, health: HealthState, metrics: MetricsRegistry,
        responder: HTTPResponder?
    ) async throws {
        let process = try await start(health: health, metrics: metrics)
        if responder != nil { Self.register(process, in: metrics) }

        let allowList = AllowListReloader.forServer(process.curve, state: state, logger: logger)
        lifecycle.withLock { lifecycle in
            lifecycle.started {
                _ = allowList?.reload()
                process.shared.reload()
                for running in process.running { running.reload() }
            }
        }
        health.set(.ready)
        var listening: [String: LogValue] = [
            "endpoint": .string(process.servers.flatMap(\.endpoints).joined(separator: ",")),
            "curve": .string(settings.curve.rawValue),
            "loops": .integer(settings.loops),
        ]
        if let responder { listening["metrics"] = .string(responder.address.description) }
        listening.merge(process.shared.listening) { _, service in service }
        listening.merge(process.running[0].listening) { _, service in service }
        logger.notice("listening", listening)

        let signal = await withTaskGroup(of: Void.self) { group in
            group.addTask { await process.shared.serve() }
            for running in process.running { group.addTask { await running.serve() } }
            let signal = await shutdownRequested(lifecycle)
            if let signal {
                logger.notice(
                    "shutdown requested: draining",
                    [
                        "signal": .integer(Int(signal)),
                        "deadline": .string(DurationText.format(settings.drainTimeout)),
                    ])
            }
            group.cancelAll()
            return signal
        }
        let timedOut: Bool
        if signal != nil {
            timedOut = await drainAndStop(process.servers, health: health, lifecycle: lifecycle)
        } else {
            // Cancelled: no drain, the servers stop at once.
            timedOut = true
            await Self.stop(process.servers)
        }
        // The reloads in progress finish before what they reload is closed.
        await withCheckedContinuation { continuation in reloads.async { continuation.resume() } }
        await process.close()
        logger.notice("stopped")
        guard timedOut else { return }
        guard let signal else { throw CancellationError() }
        throw ServiceHostError.drainTimedOut(signal: signal)
    }

    /// What the host opened for the process: the context, the shards' loops and servers, the
    /// shared ZAP handler, the service's shared part and each shard's running part. Each list is
    /// filled as the start goes, so that a failed start closes exactly what was opened.
    private struct Process: Sendable {
        var context: Context
        var loops: [SocketLoop] = []
        var authenticator: ZAPHandler?
        var curve: RemoteServer.Curve?
        var sharedPart: Service.Shared?
        var running: [Service.Running] = []
        var servers: [RemoteServer] = []

        /// The shared part (set once the start got that far).
        var shared: Service.Shared {
            guard let sharedPart else { preconditionFailure("the shared part is not open") }
            return sharedPart
        }

        /// After the servers stopped: the shards' parts, then the shared one, the loops, the ZAP
        /// handler and the context.
        func close() async {
            for running in running { await running.stop() }
            await sharedPart?.stop()
            for loop in loops { await loop.stop() }
            await authenticator?.stop()
            context.terminate()
        }
    }

    /// Makes the context, the shards' loops, the service's shared part, and each shard (its part of
    /// the service, then its server); on failure logs `cannot start`, closes what was opened and
    /// throws.
    private func start(health: HealthState, metrics: MetricsRegistry) async throws -> Process {
        var process = Process(context: try Context())
        do {
            for shard in 0..<settings.loops {
                process.loops.append(
                    try SocketLoop(name: settings.loops == 1 ? settings.name : "\(settings.name)-\(shard)"))
            }
            process.sharedPart = try await service.open(
                on: ProcessResources(
                    context: process.context, loops: process.loops, state: state, logger: logger,
                    health: health,
                    metrics: metrics))
            let curve =
                settings.curve.isOn ? try state.serverCurve(allowAnyClient: settings.allowAnyClient) : nil
            process.curve = curve
            // libzmq takes one ZAP handler per context: every shard's server shares it.
            process.authenticator = try curve?.allowList.map {
                try ZAPHandler(context: process.context, allowList: $0)
            }
            let reference = ServerReference()
            let shared = process.shared
            let shards = ShardParts()
            for (shard, loop) in process.loops.enumerated() {
                var handlers = RemoteHandlers()
                let resources = HostResources(
                    context: process.context, loop: loop, shard: shard, shards: settings.loops, state: state,
                    logger: settings.loops == 1 ? logger : logger.with(["shard": .integer(shard)]),
                    health: health.shard(shard), metrics: metrics)
                process.running.append(
                    try await service.start(on: resources, shared: shared, handlers: &handlers))
                handlers.addSystemMethods(health: health, server: reference, shard: shard) {
                    await Self.stats(shared: shared, shards: shards.running)
                }
                let name =
                    settings.loops == 1 ? "\(settings.name)-server" : "\(settings.name)-server-\(shard)"
                process.servers.append(
                    try RemoteServer(
                        context: process.context, loop: loop,
                        configuration: .init(
                            endpoints: [settings.endpoint.forShard(shard).description],
                            maxStreamsPerClient: settings.maxStreamsPerClient,
                            maxStreamsTotal: settings.maxStreamsTotal, name: name, curve: curve,
                            peerQueue: settings.peerQueue, countsCalls: settings.metricsListen != nil,
                            shard: shard, tracesInputs: service.tracesChannelInputs,
                            inputTraceReport: service.inputTraceReport),
                        handlers: handlers, authenticator: process.authenticator))
            }
            reference.bind(process.servers)
            shards.bind(process.running)
            return process
        } catch {
            logger.error("cannot start", ["error": .string("\(error)")])
            await Self.stop(process.servers)
            await process.close()
            throw error
        }
    }

    /// Every shard's running part, known once all have started (for `sys.stats`).
    private final class ShardParts: Sendable {
        private let parts = Mutex<[Service.Running]>([])

        func bind(_ running: [Service.Running]) { parts.withLock { $0 = running } }

        var running: [Service.Running] { parts.withLock { $0 } }
    }

    /// `sys.stats`' groups: the shards' summed, and the shared part's.
    private static func stats(shared: Service.Shared, shards: [Service.Running]) async -> [String: [String:
        Int]]
    {
        var groups = await shared.stats()
        for running in shards {
            groups = StatsGroups.sum(groups, await running.stats())
        }
        return groups
    }

    /// Stops every server at once.
    private static func stop(_ servers: [RemoteServer]) async {
        await withTaskGroup(of: Void.self) { group in
            for server in servers { group.addTask { await server.stop() } }
        }
    }

    /// Suspends until the first shutdown signal (returned) or the task's cancellation (nil).
    private func shutdownRequested(_ lifecycle: LockedLifecycle) async -> Int32? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Int32?, Never>) in
                let action = lifecycle.withLock { $0.wait(waiter, cancelled: Task.isCancelled) }
                if case .resume(let waiter, let signal) = action { waiter.resume(returning: signal) }
            }
        } onCancel: {
            if case .resume(let waiter, let signal) = lifecycle.withLock({ $0.waitCancelled() }) {
                waiter.resume(returning: signal)
            }
        }
    }

    /// Drains every shard's server at once within the drain timeout, then stops them; true when the
    /// deadline passed first (stopping the servers then cancels the remaining work: their streams are
    /// disposed).
    private func drainAndStop(_ servers: [RemoteServer], health: HealthState, lifecycle: LockedLifecycle)
        async -> Bool
    {
        health.set(.draining)
        logger.notice("draining")
        let timeout = settings.drainTimeout
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await withTaskGroup(of: Void.self) { drains in
                    for server in servers { drains.addTask { await server.drain() } }
                }
                return false
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return true
            }
            let timedOut = await group.next() ?? true
            group.cancelAll()
            if timedOut {
                lifecycle.withLock { $0.deadlinePassed() }
                logger.error("drain deadline passed: exiting with work in flight")
            }
            // After the deadline this disposes what is still in flight, which also ends the drain.
            await Self.stop(servers)
            return timedOut
        }
    }
}

/// The state machine of one ``ServiceHost/run()``, shared by its tasks.
final class LockedLifecycle: Sendable {
    private let lifecycle = Mutex(HostLifecycle())

    func withLock<Result>(_ body: (inout HostLifecycle) -> Result) -> Result {
        lifecycle.withLock { body(&$0) }
    }
}

/// How ``ServiceHost/run()`` ends other than by a clean drain or a failed start.
public enum ServiceHostError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A shutdown signal came and the drain did not finish within the drain timeout: the remaining
    /// work was cancelled.
    case drainTimedOut(signal: Int32)

    public var description: String {
        switch self {
        case .drainTimedOut(let signal): "the drain after signal \(signal) did not finish in time"
        }
    }

    /// The exit code of a process whose ``ServiceHost/run()`` ended with `error` (nil: it returned):
    /// 0 after a drain, 2 when the drain deadline passed, 1 for anything else (a failed start).
    public static func exitCode(for error: (any Error)?) -> Int32 {
        switch error {
        case nil: 0
        case is ServiceHostError: 2
        default: 1
        }
    }
}
