import GatewayCore
import Metrics
import RemoteStreams
import ServiceKit
import Tracing

/// The gateway's own part of the process, one per shard (the shards share nothing): the clients to
/// the three services and the flows, all on the shard's loop, and the probes of the services'
/// health. The clients spread their calls over the services' shards (`sys.endpoints`).
struct GatewayDescription: HostedService {
    /// One service the gateway calls, with what its probe reports.
    struct Peer: Sendable {
        let name: String
        let endpoint: String
        let client: RemoteClient
        let liveness: UpstreamLiveness
    }

    /// How long a `validate.fields` channel to validation-service may stay open: a screen's lifetime.
    /// An outage ends it sooner (the lost connection, or the probe for a service that hangs), and the
    /// flow opens another, which goes out as soon as the service is back.
    static let validationChannelDeadline = Duration.seconds(24 * 3_600)

    let configuration: Configuration

    /// Every keystroke and tap on a flow channel is a trace of its own (docs/operations.md, Traces).
    var tracesChannelInputs: Bool { true }

    /// A flow input that asked for its trace gets one more output when it is done: its trace id and
    /// hops (docs/gateway/protocol.md, "Traces").
    @Sendable func inputTraceReport(traceID: String, hops: [Hop]) -> [UInt8]? {
        Array(
            ("{\"output\":\"trace\",\"trace\":" + TraceSummary.object(traceID: traceID, hops: hops) + "}")
                .utf8)
    }

    func start(on host: HostResources, shared: NothingShared, handlers: inout RemoteHandlers) async throws
        -> Running
    {
        typealias O = GatewayOptions
        let deadline = configuration[O.deadline]
        let wiring: [(String, Option<[Endpoint]>, Option<CurveSetting>, Option<String?>, String)] = [
            ("auth-service", O.authEndpoint, O.authCurve, O.authPublicKey, "auth.pub"),
            (
                "validation-service", O.validationEndpoint, O.validationCurve, O.validationPublicKey,
                "validation.pub"
            ),
            ("hero-catalog-service", O.heroesEndpoint, O.heroesCurve, O.heroesPublicKey, "heroes.pub"),
        ]
        var upstreams: [Peer] = []
        do {
            for (name, endpointOption, curveOption, keyOption, keyFile) in wiring {
                let endpoints = configuration[endpointOption].map(\.description)
                let endpoint = endpoints.joined(separator: ",")
                let curve =
                    configuration[curveOption].isOn
                    ? try host.clientCurve(
                        serverKeyFile: configuration[keyOption] ?? host.state.file(keyFile)) : nil
                // One connection per replica, but several to each validation-service replica: it
                // counts the channels it holds per connection, and every screen of every end client
                // holds one there. RemoteClient spreads its calls over its connections in turn.
                let connections = name == "validation-service" ? configuration[O.validationConnections] : 1
                let client = try RemoteClient(
                    context: host.context, loop: host.loop,
                    configuration: .init(
                        endpoints: Array(repeating: endpoints, count: connections).flatMap { $0 },
                        deadline: deadline,
                        name: name,
                        curve: curve, discoversShards: true))
                upstreams.append(
                    Peer(name: name, endpoint: endpoint, client: client, liveness: UpstreamLiveness()))
            }
        } catch {
            for upstream in upstreams { await upstream.client.stop() }
            throw error
        }
        let (auth, validation, heroes) = (upstreams[0], upstreams[1], upstreams[2])
        let service = GatewayService(
            auth: RemoteAuthServiceClient(client: auth.client, deadline: deadline),
            validation: RemoteValidationServiceClient(
                client: validation.client, channelDeadline: Self.validationChannelDeadline,
                liveness: validation.liveness),
            heroes: RemoteHeroCatalogClient(client: heroes.client, deadline: deadline), loop: host.loop)
        service.register(into: &handlers)
        let probed = upstreams.map { upstream in
            Upstream(
                name: upstream.name, endpoint: upstream.endpoint, client: upstream.client,
                observe: { upstream.liveness.set(reachable: $0) })
        }
        return Running(
            service: service, upstreams: upstreams,
            probe: {
                await UpstreamProbe.run(
                    probed, deadline: deadline, interval: configuration[O.probeInterval], health: host.health,
                    logger: host.logger)
            },
            listening: [
                "clients": .string(configuration[O.clients].rawValue),
                "auth_endpoint": .string(auth.endpoint),
                "validation_endpoint": .string(validation.endpoint),
                "heroes_endpoint": .string(heroes.endpoint),
            ])
    }

    struct Running: RunningService {
        let service: GatewayService
        let upstreams: [Peer]
        let probe: @Sendable () async -> Void
        let listening: [String: LogValue]

        func stats() async -> [String: [String: Int]] {
            var groups = service.counters.statsGroups
            groups["auth_client"] = upstreams[0].client.counters.statsGroup
            groups["validation_client"] = upstreams[1].client.counters.statsGroup
            groups["heroes_client"] = upstreams[2].client.counters.statsGroup
            return groups
        }

        func metrics() async -> [MetricFamily] {
            let counters = service.counters
            return [
                HostMetrics.gauge(
                    "gateway_channels_open", "Flow channels open now, by flow.", by: "flow",
                    counters.channelsOpen.sorted { $0.key < $1.key }),
                HostMetrics.counter(
                    "gateway_channels_opened_total", "Flow channels opened, by flow.", by: "flow",
                    counters.channelsOpened.sorted { $0.key < $1.key }),
                HostMetrics.counter(
                    "gateway_commands_total", "Commands answered (refusals included), by command.",
                    by: "command",
                    counters.commands.sorted { $0.key < $1.key }),
                HostMetrics.counter(
                    "gateway_inputs_total", "Input events received on flow channels.", counters.inputs),
                HostMetrics.counter(
                    "gateway_outputs_total", "Output events sent on flow channels.", counters.outputs),
            ]
                + zip(["auth", "validation", "heroes"], upstreams).flatMap { name, upstream in
                    HostMetrics.upstream(name, upstream.client.counters)
                }
        }

        func serve() async { await probe() }

        func stop() async {
            for upstream in upstreams { await upstream.client.stop() }
        }
    }
}
