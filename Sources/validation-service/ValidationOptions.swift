import Contracts
import ServiceKit
import ValidationCore

/// Every option of `validation-service`, with its variable and default.
enum ValidationOptions {
    static let standard = StandardOptions(environmentPrefix: "VALIDATION")
    static let rules = ValidationRules()

    static let endpoint = Option(
        "endpoint", environment: "VALIDATION_ENDPOINT", default: Endpoint(tcpHost: "127.0.0.1", port: 5561),
        parser: .endpoint, help: "Where the service listens (tcp://host:port or ipc://path).")
    static let curve = Option(
        "curve", environment: "VALIDATION_CURVE", default: CurveSetting.on, parser: .choice(),
        help: "Require CURVE: clients must know the service's key (curve.pub in the state directory) and be "
            + "listed in its allowed_clients file.")
    static let authEndpoint = Option(
        "auth-endpoint", environment: "VALIDATION_AUTH_ENDPOINT",
        default: [Endpoint(tcpHost: "127.0.0.1", port: 5562)], parser: .endpoints,
        help: "Where auth-service listens (usernames are looked up there with auth.exists); several "
            + "replicas' endpoints separated by commas, and calls are spread over them.")
    static let authCurve = Option(
        "auth-curve", environment: "VALIDATION_AUTH_CURVE", default: CurveSetting.on, parser: .choice(),
        help: "Talk CURVE to auth-service, as the client key client.pub of the state directory (add it to "
            + "auth's allowed_clients).")
    static let authPublicKey = Option(
        "auth-public-key", environment: "VALIDATION_AUTH_PUBLIC_KEY", default: String?.none,
        parser: .optional(.string), help: "auth-service's public key file (its curve.pub).",
        defaultDescription: "auth.pub in the state directory")
    static let authDeadline = Option(
        "auth-deadline", environment: "VALIDATION_AUTH_DEADLINE", default: Duration.seconds(2),
        parser: .duration,
        help: "How long a username lookup may take; past it the username is `failed` with network.error.")
    static let authProbeInterval = Option(
        "auth-probe-interval", environment: "VALIDATION_AUTH_PROBE_INTERVAL", default: Duration.seconds(5),
        parser: .duration,
        help: "How often auth-service's health is asked (sys.health is degraded while it "
            + "does not answer).")
    static let minimumUsername = Option(
        "min-username", environment: "VALIDATION_MIN_USERNAME", default: rules.minimumUsernameLength,
        parser: .integer(in: 1...64),
        help: "Fewest characters of a username to register (username.short {n}).")
    static let maximumUsername = Option(
        "max-username", environment: "VALIDATION_MAX_USERNAME", default: rules.maximumUsernameLength,
        parser: .integer(in: 1...1_024),
        help: "Most characters of a username (username.long {n}); keep it equal to auth-service's limit.")
    static let minimumPassword = Option(
        "min-password", environment: "VALIDATION_MIN_PASSWORD", default: rules.minimumRegisterPasswordLength,
        parser: .integer(in: 1...1_024),
        help: "Fewest characters of a password to register (password.min {n}).")
    static let minimumLoginPassword = Option(
        "min-login-password", environment: "VALIDATION_MIN_LOGIN_PASSWORD",
        default: rules.minimumLoginPasswordLength, parser: .integer(in: 1...1_024),
        help: "Fewest characters of a password to log in with (password.short).")
    static let minimumPhoneDigits = Option(
        "min-phone-digits", environment: "VALIDATION_MIN_PHONE_DIGITS", default: rules.minimumPhoneDigits,
        parser: .integer(in: 1...64), help: "Fewest digits of a phone number (phone.short).")
    static let maximumPhoneDigits = Option(
        "max-phone-digits", environment: "VALIDATION_MAX_PHONE_DIGITS", default: rules.maximumPhoneDigits,
        parser: .integer(in: 1...64), help: "Most digits of a phone number (phone.long past it).")
    static let maximumStreams = Option(
        "max-streams", environment: "VALIDATION_MAX_STREAMS", default: 8_192,
        parser: .integer(in: 1...1_000_000),
        help: "Calls and channels open at once over all clients; past it, `overloaded` at once.")
    static let maximumStreamsPerClient = Option(
        "max-streams-per-client", environment: "VALIDATION_MAX_STREAMS_PER_CLIENT", default: 1_024,
        parser: .integer(in: 1...1_000_000), help: "Calls and channels one connection may have open at once.")
    static let check = Option(
        "check", environment: nil, default: false, parser: .boolean,
        help: "Ask the running instance at --endpoint for its health and exit: 0 ready (or degraded), "
            + "1 not ready, 2 not answering.")

    static let all: [any AnyOption] =
        [
            endpoint, curve, authEndpoint, authCurve, authPublicKey, authDeadline, authProbeInterval,
            minimumUsername, maximumUsername, minimumPassword, minimumLoginPassword, minimumPhoneDigits,
            maximumPhoneDigits,
            maximumStreams, maximumStreamsPerClient, check,
        ] + standard.all

    static let server = ServerOptions(
        endpoint: endpoint, curve: curve, maximumStreams: maximumStreams,
        maximumStreamsPerClient: maximumStreamsPerClient, check: check, standard: standard)

    static let interface = CommandLineInterface(
        executable: "validation-service", version: ProjectVersion.current,
        summary: "Field rules (phone, username, password, repeat) as requests and streams for the reactive "
            + "login system (docs/services/validation.md).",
        options: all)
}
