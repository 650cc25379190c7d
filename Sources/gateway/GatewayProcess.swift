import Contracts
import GatewayCore
import Reactive
import RemoteStreams
import ServiceKit
import ZeroMQ

/// The running gateway: the clients to the three services, the flow host and the server, started in
/// order and stopped in reverse (drain, then close) on SIGTERM.
final class GatewayProcess: Service {
    /// One service the gateway calls, with what its probe reports.
    private struct Upstream: Sendable {
        let name: String
        let endpoint: String
        let client: RemoteClient
        let liveness: UpstreamLiveness
    }

    /// How long a `validate.fields` channel to validation-service may stay open: a screen's lifetime.
    /// An outage ends it sooner (the probe), and the flow opens another.
    static let validationChannelDeadline = Duration.seconds(24 * 3_600)

    let health: HealthState
    private let context: Context
    private let server: RemoteServer
    private let upstreams: [Upstream]
    private let service: GatewayService
    private let logger: Logger
    private let stopped = StopLatch()
    private let probe: Task<Void, Never>

    init(configuration: Configuration, state: StateDirectory, logger: Logger) async throws {
        typealias O = GatewayOptions
        self.logger = logger
        health = HealthState(service: "gateway", version: O.interface.version)
        context = try Context()
        let deadline = configuration[O.deadline]
        let wiring: [(String, Option<Endpoint>, Option<CurveSetting>, Option<String?>, String)] = [
            ("auth-service", O.authEndpoint, O.authCurve, O.authPublicKey, "auth.pub"),
            (
                "validation-service", O.validationEndpoint, O.validationCurve, O.validationPublicKey,
                "validation.pub"
            ),
            ("hero-catalog-service", O.heroesEndpoint, O.heroesCurve, O.heroesPublicKey, "heroes.pub"),
        ]
        var upstreams: [Upstream] = []
        for (name, endpointOption, curveOption, keyOption, keyFile) in wiring {
            let endpoint = configuration[endpointOption].description
            var curve: RemoteClient.Curve?
            if configuration[curveOption] == .on {
                let keyPath = configuration[keyOption] ?? state.file(keyFile)
                curve = RemoteClient.Curve(
                    serverKey: try CurveKeyFiles.publicKey(at: keyPath),
                    keys: try CurveKeyFiles.clientKeys(in: state))
            }
            // One connection per service, but several to validation-service: it counts the channels
            // it holds per connection, and every screen of every end client holds one there.
            // RemoteClient spreads its calls over its connections in turn.
            let connections = name == "validation-service" ? configuration[O.validationConnections] : 1
            let client = try RemoteClient(
                context: context,
                configuration: .init(
                    endpoints: Array(repeating: endpoint, count: connections), deadline: deadline, name: name,
                    curve: curve))
            upstreams.append(
                Upstream(name: name, endpoint: endpoint, client: client, liveness: UpstreamLiveness()))
        }
        self.upstreams = upstreams
        let (auth, validation, heroes) = (upstreams[0], upstreams[1], upstreams[2])
        service = GatewayService(
            auth: RemoteAuthServiceClient(client: auth.client, deadline: deadline),
            validation: RemoteValidationServiceClient(
                client: validation.client, channelDeadline: Self.validationChannelDeadline,
                liveness: validation.liveness),
            heroes: RemoteHeroCatalogClient(client: heroes.client, deadline: deadline))

        var curve: RemoteServer.Curve?
        if configuration[O.curve] == .on {
            let keys = try CurveKeyFiles.serverKeys(in: state)
            var allowList: CurveAllowList?
            if configuration[O.clients] == .allowList {
                let allowed = try AllowList.loadOrCreate(in: state)
                // The gateway's own client key (what --check uses) is always allowed.
                let own = try CurveKeyFiles.clientKeys(in: state)
                allowList = CurveAllowList(allowed.keys.union([own.publicKey]))
            }
            curve = RemoteServer.Curve(keys: keys, allowList: allowList)
        }
        var handlers = RemoteHandlers()
        service.register(into: &handlers)
        let health = self.health
        let reference = ServerReference()
        let service = self.service
        handlers.addSystemMethods(health: health, server: reference) {
            var groups = service.counters.statsGroups
            groups["auth_client"] = auth.client.counters.statsGroup
            groups["validation_client"] = validation.client.counters.statsGroup
            groups["heroes_client"] = heroes.client.counters.statsGroup
            return groups
        }
        self.server = try RemoteServer(
            context: context,
            configuration: .init(
                endpoints: [configuration[O.endpoint].description],
                maxStreamsPerClient: configuration[O.maximumChannelsPerClient],
                maxStreamsTotal: configuration[O.maximumChannels], name: "gateway-server", curve: curve),
            handlers: handlers)
        reference.bind(self.server)
        health.set(.ready)
        probe = Self.startProbe(
            upstreams: upstreams, deadline: deadline, interval: configuration[O.probeInterval],
            health: health,
            logger: logger)
        logger.notice(
            "listening",
            [
                "endpoint": .string(self.server.endpoints.joined(separator: ",")),
                "curve": .string(configuration[O.curve].rawValue),
                "clients": .string(configuration[O.clients].rawValue),
                "auth_endpoint": .string(auth.endpoint), "validation_endpoint": .string(validation.endpoint),
                "heroes_endpoint": .string(heroes.endpoint),
            ])
    }

    /// Asks every upstream's health each `interval`: sys.health is degraded (still serving; the
    /// affected outputs show network.error) while one does not answer, and each upstream's liveness
    /// follows its answers.
    private static func startProbe(
        upstreams: [Upstream], deadline: Duration, interval: Duration, health: HealthState, logger: Logger
    ) -> Task<Void, Never> {
        Task {
            var wasReachable: [String: Bool] = [:]
            repeat {
                // The three are asked at once: one that does not answer delays nobody's verdict.
                let answers = await withTaskGroup(of: (Int, String?).self) { group in
                    for (index, upstream) in upstreams.enumerated() {
                        group.addTask { (index, await Self.ask(upstream, deadline: deadline)) }
                    }
                    var answers = [String?](repeating: nil, count: upstreams.count)
                    for await (index, reason) in group { answers[index] = reason }
                    return answers
                }
                if Task.isCancelled { return }
                var reasons: [String] = []
                for (upstream, reason) in zip(upstreams, answers) {
                    upstream.liveness.set(reachable: reason == nil)
                    if let reason { reasons.append(reason) }
                    if wasReachable[upstream.name] != (reason == nil) {
                        if let reason {
                            logger.warning("\(upstream.name) unreachable", ["reason": .string(reason)])
                        } else {
                            logger.notice(
                                "\(upstream.name) reachable", ["endpoint": .string(upstream.endpoint)])
                        }
                        wasReachable[upstream.name] = reason == nil
                    }
                }
                if reasons.isEmpty {
                    health.set(.ready)
                } else {
                    health.set(.degraded, reasons: reasons)
                }
            } while (try? await Task.sleep(for: interval)) != nil
        }
    }

    /// Why `upstream` is not ready, or nil when it is.
    private static func ask(_ upstream: Upstream, deadline: Duration) async -> String? {
        do {
            let report = try await upstream.client.request(
                SystemMethod.health, NoParameters(), as: HealthReport.self, deadline: deadline
            ).value
            return report.ready
                ? nil : "\(upstream.name) at \(upstream.endpoint) is \(report.status.rawValue)"
        } catch {
            return "\(upstream.name) at \(upstream.endpoint) does not answer (\(error))"
        }
    }

    func run() async throws {
        await stopped.wait()
    }

    /// Drains: new calls are refused, calls and channels in flight finish, then everything closes.
    func stop() async {
        probe.cancel()
        _ = await probe.value
        health.set(.draining)
        logger.notice("draining")
        await server.drain()
        await server.stop()
        for upstream in upstreams { await upstream.client.stop() }
        context.terminate()
        logger.notice("stopped")
        stopped.release()
    }
}
