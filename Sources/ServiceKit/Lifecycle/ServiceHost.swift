import Dispatch
import RemoteStreams
import Synchronization
public import ZeroMQ

#if canImport(Glibc)
    import Glibc
#endif

/// Runs one service process: everything a service executable shares, around the service's own part
/// (a ``HostedService``).
///
/// Nothing starts in `init`. ``run()`` takes the pid file, watches SIGTERM, SIGINT and SIGHUP
/// (one ``ProcessSignals``), makes the process's ZeroMQ `Context` and its one `SocketLoop`, starts
/// the service on them, sets up CURVE (server keys, allow-list and its reload), binds the
/// `RemoteServer` with the service's handlers and `sys.health`/`sys.stats`, sets health `ready`,
/// logs `listening`, and serves until a shutdown signal. Then it drains: health `draining`, new
/// calls refused, requests in flight answered, all within the drain timeout; when the deadline
/// passes the remaining work is cancelled (the server stops, its streams are disposed) and `run()`
/// throws ``ServiceHostError/drainTimedOut(signal:)``. Either way it then stops the server, the
/// service, the loop and the context, releases the pid file and returns (or throws).
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

        /// Settings with every value given.
        public init(
            name: String, version: String, endpoint: Endpoint, curve: CurveSetting,
            allowAnyClient: Bool = false,
            maxStreamsTotal: Int, maxStreamsPerClient: Int,
            peerQueue: SocketLoop.PeerQueueLimit = SocketLoop.PeerQueueLimit(), drainTimeout: Duration
        ) {
            self.name = name
            self.version = version
            self.endpoint = endpoint
            self.curve = curve
            self.allowAnyClient = allowAnyClient
            self.maxStreamsTotal = maxStreamsTotal
            self.maxStreamsPerClient = maxStreamsPerClient
            self.peerQueue = peerQueue
            self.drainTimeout = drainTimeout
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
        let lifecycle = LockedLifecycle()
        let reloads = DispatchQueue(label: "ServiceKit.reload")
        signals.watch([SIGTERM, SIGINT, SIGHUP])
        defer { signals.finish() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await handleSignals(lifecycle, reloads: reloads) }
            defer { group.cancelAll() }
            try await serve(lifecycle, reloads: reloads)
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

    /// The process's life: start, serve, drain, stop.
    private func serve(_ lifecycle: LockedLifecycle, reloads: DispatchQueue) async throws {
        let pidFile: PidFile
        do {
            pidFile = try PidFile.acquire(in: state, service: settings.name)
        } catch {
            logger.error("cannot start", ["error": .string("\(error)")])
            throw error
        }
        defer { pidFile.release() }
        let health = HealthState(service: settings.name, version: settings.version)
        let (context, loop, server, running) = try await start(health: health)

        let allowList = AllowListReloader.forServer(server.curve, state: state, logger: logger)
        lifecycle.withLock { lifecycle in
            lifecycle.started {
                _ = allowList?.reload()
                running.reload()
            }
        }
        health.set(.ready)
        var listening: [String: LogValue] = [
            "endpoint": .string(server.endpoints.joined(separator: ",")),
            "curve": .string(settings.curve.rawValue),
        ]
        listening.merge(running.listening) { _, service in service }
        logger.notice("listening", listening)

        let signal = await withTaskGroup(of: Void.self) { group in
            group.addTask { await running.serve() }
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
            timedOut = await drainAndStop(server.server, health: health, lifecycle: lifecycle)
        } else {
            // Cancelled: no drain, the server stops at once.
            timedOut = true
            await server.server.stop()
        }
        // The reloads in progress finish before what they reload is closed.
        await withCheckedContinuation { continuation in reloads.async { continuation.resume() } }
        await running.stop()
        await loop.stop()
        context.terminate()
        logger.notice("stopped")
        guard timedOut else { return }
        guard let signal else { throw CancellationError() }
        throw ServiceHostError.drainTimedOut(signal: signal)
    }

    /// The server as the host made it, with its CURVE settings.
    private struct Server: Sendable {
        let server: RemoteServer
        let curve: RemoteServer.Curve?
        var endpoints: [String] { server.endpoints }
    }

    /// Makes the context and the loop, starts the service on them and binds the server; on failure
    /// logs `cannot start`, closes what was opened and throws.
    private func start(health: HealthState) async throws -> (Context, SocketLoop, Server, Service.Running) {
        var opened: (context: Context?, loop: SocketLoop?, running: Service.Running?) = (nil, nil, nil)
        do {
            let context = try Context()
            opened.context = context
            let loop = try SocketLoop(name: settings.name)
            opened.loop = loop
            var handlers = RemoteHandlers()
            let resources = HostResources(
                context: context, loop: loop, state: state, logger: logger, health: health)
            let running = try await service.start(on: resources, handlers: &handlers)
            opened.running = running
            let curve =
                settings.curve.isOn ? try state.serverCurve(allowAnyClient: settings.allowAnyClient) : nil
            let reference = ServerReference()
            handlers.addSystemMethods(health: health, server: reference) { await running.stats() }
            let server = try RemoteServer(
                context: context, loop: loop,
                configuration: .init(
                    endpoints: [settings.endpoint.description],
                    maxStreamsPerClient: settings.maxStreamsPerClient,
                    maxStreamsTotal: settings.maxStreamsTotal, name: "\(settings.name)-server", curve: curve,
                    peerQueue: settings.peerQueue),
                handlers: handlers)
            reference.bind(server)
            return (context, loop, Server(server: server, curve: curve), running)
        } catch {
            logger.error("cannot start", ["error": .string("\(error)")])
            await opened.running?.stop()
            await opened.loop?.stop()
            opened.context?.terminate()
            throw error
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

    /// Drains the server within the drain timeout, then stops it; true when the deadline passed first
    /// (stopping the server then cancels the remaining work: its streams are disposed).
    private func drainAndStop(_ server: RemoteServer, health: HealthState, lifecycle: LockedLifecycle) async
        -> Bool
    {
        health.set(.draining)
        logger.notice("draining")
        let timeout = settings.drainTimeout
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await server.drain()
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
            await server.stop()
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
