import Reactive
import Metrics
import RemoteStreams
import ServiceKit
import ValidationCore

/// validation-service's own part of the process, one per shard (the shards share nothing): the
/// client to auth-service (spreading its calls over auth-service's shards) and the field graphs,
/// both on the shard's loop, and the probe of auth-service's health.
struct ValidationDescription: HostedService {
    let configuration: Configuration

    func start(on host: HostResources, shared: NothingShared, handlers: inout RemoteHandlers) async throws
        -> Running
    {
        typealias O = ValidationOptions
        let authEndpoints = configuration[O.authEndpoint].map(\.description)
        let authEndpoint = authEndpoints.joined(separator: ",")
        let authCurve =
            configuration[O.authCurve].isOn
            ? try host.clientCurve(
                serverKeyFile: configuration[O.authPublicKey] ?? host.state.file("auth.pub"))
            : nil
        let deadline = configuration[O.authDeadline]
        let auth = try RemoteClient(
            context: host.context, loop: host.loop,
            configuration: .init(
                endpoints: authEndpoints, deadline: deadline, name: "auth-client", curve: authCurve,
                discoversShards: true))
        let rules = ValidationRules(
            minimumUsernameLength: configuration[O.minimumUsername],
            maximumUsernameLength: configuration[O.maximumUsername],
            minimumLoginPasswordLength: configuration[O.minimumLoginPassword],
            minimumRegisterPasswordLength: configuration[O.minimumPassword],
            minimumPhoneDigits: configuration[O.minimumPhoneDigits],
            maximumPhoneDigits: configuration[O.maximumPhoneDigits])
        // The client's own deadline fires first and says why (timeout or unavailable); the graph's
        // timeout, a little later, only guards against a lookup that never ends.
        let lookupTimeout = RxTimeInterval.milliseconds(Int(deadline / .milliseconds(1)) + 500)
        let service = ValidationService(
            rules: rules, directory: RemoteUsernameDirectory(client: auth, deadline: deadline),
            lookupTimeout: lookupTimeout, loop: host.loop)
        service.register(into: &handlers)
        return Running(
            service: service, auth: auth,
            probe: {
                // Degraded (still serving; usernames then answer network.error) while auth-service
                // does not answer.
                await UpstreamProbe.run(
                    [Upstream(name: "auth-service", endpoint: authEndpoint, client: auth)],
                    deadline: deadline,
                    interval: configuration[O.authProbeInterval], health: host.health, logger: host.logger)
            },
            listening: [
                "auth_endpoint": .string(authEndpoint),
                "auth_curve": .string(configuration[O.authCurve].rawValue),
            ])
    }

    struct Running: RunningService {
        let service: ValidationService
        let auth: RemoteClient
        let probe: @Sendable () async -> Void
        let listening: [String: LogValue]

        func stats() async -> [String: [String: Int]] {
            [
                "validation": service.counters.statsGroup, "username_checks": service.checks.statsGroup,
                "auth_client": auth.counters.statsGroup,
            ]
        }

        func metrics() async -> [MetricFamily] {
            let counters = service.counters
            let checks = service.checks
            return [
                HostMetrics.counter("validation_requests_total", "Request/response validations answered.", counters.requests),
                HostMetrics.gauge("validation_channels_open", "validate.fields channels open now.", Double(counters.channelsOpen)),
                HostMetrics.counter(
                    "validation_edits_total", "Field edits received on validate.fields channels.", counters.edits),
                HostMetrics.counter(
                    "validation_username_checks_total",
                    "Live username checks against auth-service, by result (answered, cancelled, failed, throttled).",
                    by: "result",
                    [
                        ("answered", checks.answered), ("cancelled", checks.cancelled), ("failed", checks.failed),
                        ("throttled", checks.throttled),
                    ]),
            ] + HostMetrics.upstream("auth", auth.counters)
        }

        func serve() async { await probe() }

        func stop() async { await auth.stop() }
    }
}
