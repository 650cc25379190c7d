import Contracts
import ServiceKit

/// `--clients`: who may connect to the gateway when CURVE is on.
enum ClientPolicy: String, CaseIterable, Sendable {
    /// Any client that knows the gateway's public key (connections are still encrypted).
    case any
    /// Only the keys listed in `allowed_clients` in the state directory.
    case allowList = "allow-list"
}

/// Every option of `gateway`, with its variable and default.
enum GatewayOptions {
    static let standard = StandardOptions(environmentPrefix: "GATEWAY")

    static let endpoint = Option(
        "endpoint", environment: "GATEWAY_ENDPOINT", default: Endpoint(tcpHost: "127.0.0.1", port: 5560),
        parser: .endpoint,
        help: "Where the gateway listens for screens and scripts (tcp://host:port or ipc://path).")
    static let curve = Option(
        "curve", environment: "GATEWAY_CURVE", default: CurveSetting.on, parser: .choice(),
        help: "Require CURVE: clients must know the gateway's key (curve.pub in the state directory).")
    static let clients = Option(
        "clients", environment: "GATEWAY_CLIENTS", default: ClientPolicy.any, parser: .choice(),
        help: "With --curve on, who gets in: any client that knows the key, or only the keys in the state "
            + "directory's allowed_clients (allow-list).")
    static let authEndpoint = Option(
        "auth-endpoint", environment: "GATEWAY_AUTH_ENDPOINT",
        default: [Endpoint(tcpHost: "127.0.0.1", port: 5562)],
        parser: .endpoints,
        help: "Where auth-service listens (logins and registrations); several replicas' endpoints "
            + "separated by commas, and calls are spread over them.")
    static let validationEndpoint = Option(
        "validation-endpoint", environment: "GATEWAY_VALIDATION_ENDPOINT",
        default: [Endpoint(tcpHost: "127.0.0.1", port: 5561)], parser: .endpoints,
        help: "Where validation-service listens (the screens' live field checks); several replicas' "
            + "endpoints separated by commas.")
    static let heroesEndpoint = Option(
        "heroes-endpoint", environment: "GATEWAY_HEROES_ENDPOINT",
        default: [Endpoint(tcpHost: "127.0.0.1", port: 5563)], parser: .endpoints,
        help: "Where hero-catalog-service listens (hero searches); several replicas' endpoints "
            + "separated by commas.")
    static let authCurve = upstreamCurve("auth", "auth-service")
    static let validationCurve = upstreamCurve("validation", "validation-service")
    static let heroesCurve = upstreamCurve("heroes", "hero-catalog-service")
    static let authPublicKey = upstreamKey("auth", "auth-service")
    static let validationPublicKey = upstreamKey("validation", "validation-service")
    static let heroesPublicKey = upstreamKey("heroes", "hero-catalog-service")
    static let deadline = Option(
        "deadline", environment: "GATEWAY_DEADLINE", default: Duration.seconds(2), parser: .duration,
        help: "How long a call to a service may take (logins, registrations, searches, health probes); past "
            + "it the screen shows network.error.")
    static let probeInterval = Option(
        "probe-interval", environment: "GATEWAY_PROBE_INTERVAL", default: Duration.seconds(5),
        parser: .duration,
        help:
            "How often each service's health is asked (and at once when a connection to one comes back): "
            + "sys.health is degraded while one does not answer, and open validation channels are failed "
            + "(then reopened) when validation-service stops answering without dropping its connections.")
    static let maximumChannels = Option(
        "max-channels", environment: "GATEWAY_MAX_CHANNELS", default: 16_384,
        parser: .integer(in: 1...1_000_000),
        help: "Channels and commands open at once over all clients; past it, `overloaded` at once.")
    static let maximumChannelsPerClient = Option(
        "max-channels-per-client", environment: "GATEWAY_MAX_CHANNELS_PER_CLIENT", default: 1_024,
        parser: .integer(in: 1...1_000_000),
        help: "Channels and commands one connection may have open at once.")
    static let validationConnections = Option(
        "validation-connections", environment: "GATEWAY_VALIDATION_CONNECTIONS", default: 8,
        parser: .integer(in: 1...64),
        help: "Connections to validation-service. Each login, register and sign-in screen holds a channel "
            + "there, and validation-service takes at most --max-streams-per-client (1,024) per connection: "
            + "8 connections carry 8,192 screens (validation-service's --max-streams).")
    static let check = Option(
        "check", environment: nil, default: false, parser: .boolean,
        help: "Ask the running instance at --endpoint for its health and exit: 0 ready (or degraded), "
            + "1 not ready, 2 not answering.")

    private static func upstreamCurve(_ name: String, _ service: String) -> Option<CurveSetting> {
        Option(
            "\(name)-curve", environment: "GATEWAY_\(name.uppercased())_CURVE", default: CurveSetting.on,
            parser: .choice(),
            help: "Talk CURVE to \(service), as the client key client.pub of the state directory (add it to "
                + "\(service)'s allowed_clients).")
    }

    private static func upstreamKey(_ name: String, _ service: String) -> Option<String?> {
        Option(
            "\(name)-public-key", environment: "GATEWAY_\(name.uppercased())_PUBLIC_KEY",
            default: String?.none,
            parser: .optional(.string), help: "\(service)'s public key file (its curve.pub).",
            defaultDescription: "\(name).pub in the state directory")
    }

    static let all: [any AnyOption] =
        [
            endpoint, curve, clients, authEndpoint, validationEndpoint, heroesEndpoint, authCurve,
            validationCurve, heroesCurve, authPublicKey, validationPublicKey, heroesPublicKey, deadline,
            probeInterval, maximumChannels, maximumChannelsPerClient, validationConnections, check,
        ] + standard.all

    static let server = ServerOptions(
        endpoint: endpoint, curve: curve, maximumStreams: maximumChannels,
        maximumStreamsPerClient: maximumChannelsPerClient, check: check, standard: standard)

    static let interface = CommandLineInterface(
        executable: "gateway", version: ProjectVersion.current,
        summary:
            "The screens of the reactive login system as ZeroMQ channels and commands, over auth-service, "
            + "validation-service and hero-catalog-service (docs/gateway/protocol.md).",
        options: all)
}
