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
    private struct Peer: Sendable {
        let name: String
        let endpoint: String
        let client: RemoteClient
        let liveness: UpstreamLiveness
    }

    /// How long a `validate.fields` channel to validation-service may stay open: a screen's lifetime.
    /// An outage ends it sooner (the lost connection, or the probe for a service that hangs), and the
    /// flow opens another, which goes out as soon as the service is back.
    static let validationChannelDeadline = Duration.seconds(24 * 3_600)

    let health: HealthState
    private let context: Context
    private let loop: SocketLoop
    private let server: RemoteServer
    private let upstreams: [Peer]
    private let service: GatewayService
    private let logger: Logger
    /// Reloads the CURVE allow-list (nil without one).
    private let allowListReload: AllowListReloader?
    private let stopped = StopLatch()
    private let probe: Task<Void, Never>

    init(configuration: Configuration, state: StateDirectory, logger: Logger) async throws {
        typealias O = GatewayOptions
        self.logger = logger
        health = HealthState(service: "gateway", version: O.interface.version)
        context = try Context()
        // The process's one event loop: the server's ROUTER, the DEALERs to the three services, the
        // flows' actor and every timer run on its thread.
        loop = try SocketLoop(name: "gateway")
        let deadline = configuration[O.deadline]
        let wiring: [(String, Option<Endpoint>, Option<CurveSetting>, Option<String?>, String)] = [
            ("auth-service", O.authEndpoint, O.authCurve, O.authPublicKey, "auth.pub"),
            (
                "validation-service", O.validationEndpoint, O.validationCurve, O.validationPublicKey,
                "validation.pub"
            ),
            ("hero-catalog-service", O.heroesEndpoint, O.heroesCurve, O.heroesPublicKey, "heroes.pub"),
        ]
        var upstreams: [Peer] = []
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
                context: context, loop: loop,
                configuration: .init(
                    endpoints: Array(repeating: endpoint, count: connections), deadline: deadline, name: name,
                    curve: curve))
            upstreams.append(
                Peer(name: name, endpoint: endpoint, client: client, liveness: UpstreamLiveness()))
        }
        self.upstreams = upstreams
        let (auth, validation, heroes) = (upstreams[0], upstreams[1], upstreams[2])
        service = GatewayService(
            auth: RemoteAuthServiceClient(client: auth.client, deadline: deadline),
            validation: RemoteValidationServiceClient(
                client: validation.client, channelDeadline: Self.validationChannelDeadline,
                liveness: validation.liveness),
            heroes: RemoteHeroCatalogClient(client: heroes.client, deadline: deadline), loop: loop)

        let curve =
            configuration[O.curve] == .on
            ? try state.serverCurve(allowAnyClient: configuration[O.clients] == .any) : nil
        allowListReload = AllowListReloader.forServer(curve, state: state, logger: logger)
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
            context: context, loop: loop,
            configuration: .init(
                endpoints: [configuration[O.endpoint].description],
                maxStreamsPerClient: configuration[O.maximumChannelsPerClient],
                maxStreamsTotal: configuration[O.maximumChannels], name: "gateway-server", curve: curve,
                peerQueue: O.standard.clientQueue(from: configuration)),
            handlers: handlers)
        reference.bind(self.server)
        health.set(.ready)
        probe = UpstreamProbe.start(
            upstreams.map { upstream in
                Upstream(
                    name: upstream.name, endpoint: upstream.endpoint, client: upstream.client,
                    observe: { upstream.liveness.set(reachable: $0) })
            },
            deadline: deadline, interval: configuration[O.probeInterval], health: health, logger: logger)
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

    /// SIGHUP: the CURVE allow-list is all this service reloads.
    func reload() {
        _ = allowListReload?.reload()
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
        await loop.stop()
        context.terminate()
        logger.notice("stopped")
        stopped.release()
    }
}
