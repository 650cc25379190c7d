import Contracts
import ServiceKit

/// Every option of `hero-catalog-service`, with its variable and default.
enum HeroOptions {
    static let standard = StandardOptions(environmentPrefix: "HEROES")

    static let endpoint = Option(
        "endpoint", environment: "HEROES_ENDPOINT", default: Endpoint(tcpHost: "127.0.0.1", port: 5563),
        parser: .endpoint, help: "Where the service listens (tcp://host:port or ipc://path).")
    static let curve = Option(
        "curve", environment: "HEROES_CURVE", default: CurveSetting.on, parser: .choice(),
        help: "Require CURVE: clients must know the service's key (curve.pub in the state directory) and be "
            + "listed in its allowed_clients file.")
    static let catalog = Option(
        "catalog", environment: "HEROES_CATALOG", default: String?.none, parser: .optional(.string),
        help: "A catalog file to serve instead of the built-in one: .json (docs/services/hero-catalog.md) or "
            + ".plist (an array of {name, intro, icon}). SIGHUP reloads it.",
        defaultDescription: "the built-in catalog")
    static let authEndpoint = Option(
        "auth-endpoint", environment: "HEROES_AUTH_ENDPOINT",
        default: [Endpoint(tcpHost: "127.0.0.1", port: 5562)],
        parser: .endpoints,
        help: "auth-service, which verifies session tokens (auth.verify); several replicas' endpoints "
            + "separated by commas, and calls are spread over them.")
    static let authCurve = Option(
        "auth-curve", environment: "HEROES_AUTH_CURVE", default: CurveSetting.on, parser: .choice(),
        help: "Reach auth-service over CURVE, as the client key client.pub in this service's state directory "
            + "(add it to auth's allowed_clients).")
    static let authPublicKey = Option(
        "auth-public-key", environment: "HEROES_AUTH_PUBLIC_KEY", default: String?.none,
        parser: .optional(.string), help: "auth-service's public key file (its curve.pub), with --auth-curve on.",
        defaultDescription: "auth.pub in the state directory")
    /// The old name of ``authPublicKey``, still read when the new one is not given.
    static let authServerKey = Option(
        "auth-server-key", environment: "HEROES_AUTH_SERVER_KEY", default: String?.none,
        parser: .optional(.string), help: "Deprecated: the old name of --auth-public-key.",
        defaultDescription: "none")
    static let authDeadline = Option(
        "auth-deadline", environment: "HEROES_AUTH_DEADLINE", default: Duration.seconds(2), parser: .duration,
        help: "How long a token check may take before the call fails with `unavailable`.")
    static let authProbeInterval = Option(
        "auth-probe-interval", environment: "HEROES_AUTH_PROBE_INTERVAL", default: Duration.seconds(5),
        parser: .duration,
        help: "How often auth-service's health is asked (sys.health is degraded while it does not answer: "
            + "token checks then fail with `unavailable`).")
    static let tokenCache = Option(
        "token-cache", environment: "HEROES_TOKEN_CACHE", default: Duration.seconds(5), parser: .duration,
        help: "How long a valid token is trusted without asking auth-service again: a revoked token stops "
            + "working within this time (0s: ask every time).")
    static let maximumStreams = Option(
        "max-streams", environment: "HEROES_MAX_STREAMS", default: 8_192, parser: .integer(in: 1...1_000_000),
        help: "Calls and watches open at once over all clients; past it, `overloaded` at once.")
    static let maximumStreamsPerClient = Option(
        "max-streams-per-client", environment: "HEROES_MAX_STREAMS_PER_CLIENT", default: 1_024,
        parser: .integer(in: 1...1_000_000), help: "Calls and watches one connection may have open at once.")
    static let check = Option(
        "check", environment: nil, default: false, parser: .boolean,
        help: "Ask the running instance at --endpoint for its health and exit: 0 ready, 1 not ready, "
            + "2 not answering.")

    static let all: [any AnyOption] =
        [
            endpoint, curve, catalog, authEndpoint, authCurve, authPublicKey, authDeadline, authProbeInterval,
            tokenCache, authServerKey,
            maximumStreams, maximumStreamsPerClient, check,
        ] + standard.all

    static let server = ServerOptions(
        endpoint: endpoint, curve: curve, maximumStreams: maximumStreams,
        maximumStreamsPerClient: maximumStreamsPerClient, check: check, standard: standard)

    static let interface = CommandLineInterface(
        executable: "hero-catalog-service", version: ProjectVersion.current,
        summary: "The hero catalog of the reactive login system: search, get and watch, for holders of a "
            + "session token (docs/services/hero-catalog.md).",
        options: all)
}
