import Argon2
import AuthCore
import Contracts
import SQLite
import ServiceKit
import Sodium

/// The hash costs `--hash-cost` chooses from.
enum HashCost: String, CaseIterable, Sendable {
    /// argon2id m=19 MiB, t=2, p=1: OWASP's first choice (the default).
    case owasp
    /// m=64 MiB, t=3.
    case strong
    /// The cheapest libsodium accepts: for tests and load tests of everything but hashing.
    case test

    var cost: Argon2id.Cost {
        switch self {
        case .owasp: .owasp
        case .strong: .strong
        case .test: .test
        }
    }
}

/// `--synchronous`.
enum SynchronousSetting: String, CaseIterable, Sendable {
    case off, normal, full, extra

    var value: Database.Synchronous {
        switch self {
        case .off: .off
        case .normal: .normal
        case .full: .full
        case .extra: .extra
        }
    }
}

/// Every option of `auth-service`, with its variable and default.
enum AuthOptions {
    static let standard = StandardOptions(environmentPrefix: "AUTH")
    static let defaults = ThrottlePolicy()
    static let rules = AuthRules()

    static let endpoint = Option(
        "endpoint", environment: "AUTH_ENDPOINT", default: Endpoint(tcpHost: "127.0.0.1", port: 5562),
        parser: .endpoint, help: "Where the service listens (tcp://host:port or ipc://path).")
    static let curve = Option(
        "curve", environment: "AUTH_CURVE", default: CurveSetting.on, parser: .choice(),
        help: "Require CURVE: clients must know the service's key (curve.pub in the state directory) and be "
            + "listed in its allowed_clients file.")
    static let database = Option(
        "database", environment: "AUTH_DATABASE", default: String?.none, parser: .optional(.string),
        help: "Where accounts and sessions live: a SQLite database file, or a postgresql:// (or postgres://) "
            + "URL of a PostgreSQL database that several replicas may share.",
        defaultDescription: "auth.sqlite in the state directory")
    static let synchronous = Option(
        "synchronous", environment: "AUTH_SYNCHRONOUS", default: SynchronousSetting.full, parser: .choice(),
        help: "SQLite's synchronous setting: full makes every acknowledged write survive a power cut "
            + "(PostgreSQL: the server's synchronous_commit decides).")
    static let hashCost = Option(
        "hash-cost", environment: "AUTH_HASH_COST", default: HashCost.owasp, parser: .choice(),
        help: "argon2id cost of new password hashes: owasp (m=19MiB,t=2), strong (m=64MiB,t=3), or test "
            + "(cheapest; never in production).")
    static let hashWorkers = Option(
        "hash-workers", environment: "AUTH_HASH_WORKERS", default: PasswordHashingPool.defaultWorkers,
        parser: .integer(in: 1...256), help: "Threads hashing passwords (each holds the cost's memory).",
        defaultDescription: "the cores the process may use")
    static let argon2 = Option(
        "argon2", environment: "AUTH_ARGON2", default: Argon2Choice.auto, parser: .choice(),
        help: "argon2id implementation: swift (this package's, each hashing thread owning the cost's memory "
            + "from the start), libsodium, or auto (swift where this CPU runs a kernel of ours faster than "
            + "libsodium: AVX2 or AVX-512; else libsodium).")
    static let hashQueue = Option(
        "hash-queue", environment: "AUTH_HASH_QUEUE", default: Int?.none,
        parser: .optional(.integer(in: 0...100_000)),
        help: "Password checks that may wait for a hashing thread; past it, logins get `overloaded` at once. "
            + "Each queued check adds one hash time / workers to the wait (about 10 ms at the default cost on "
            + "2 cores), so a deep queue trades refusals for latency.",
        defaultDescription: "4 per hashing worker")
    static let tokenLifetime = Option(
        "token-lifetime", environment: "AUTH_TOKEN_LIFETIME", default: Duration.seconds(24 * 3_600),
        parser: .duration, help: "How long a session token lives.")
    static let minimumUsername = Option(
        "min-username", environment: "AUTH_MIN_USERNAME", default: rules.minimumUsernameLength,
        parser: .integer(in: 1...64), help: "Fewest characters in a username.")
    static let minimumPassword = Option(
        "min-password", environment: "AUTH_MIN_PASSWORD", default: rules.minimumPasswordLength,
        parser: .integer(in: 1...1_024), help: "Fewest characters in a password.")
    static let freeFailures = Option(
        "login-free-failures", environment: "AUTH_LOGIN_FREE_FAILURES", default: defaults.freeFailures,
        parser: .integer(in: 0...1_000),
        help: "Failed logins of one client on one account before delays start.")
    static let maximumDelay = Option(
        "login-max-delay", environment: "AUTH_LOGIN_MAX_DELAY", default: defaults.maximumDelay,
        parser: .duration, help: "The longest delay between failed logins (it doubles from 1s).")
    static let lockAfter = Option(
        "login-lock-after", environment: "AUTH_LOGIN_LOCK_AFTER", default: defaults.lockAfter,
        parser: .integer(in: 1...10_000), help: "Failed logins that lock one client out of one account.")
    static let lockDuration = Option(
        "login-lock-duration", environment: "AUTH_LOGIN_LOCK_DURATION", default: defaults.lockDuration,
        parser: .duration, help: "How long such a lock lasts.")
    static let clientFailures = Option(
        "client-failures-per-minute", environment: "AUTH_CLIENT_FAILURES_PER_MINUTE",
        default: defaults.clientFailuresPerMinute, parser: .integer(in: 1...1_000_000),
        help: "Failed logins one client may make per minute over all accounts.")
    static let accountFreeFailures = Option(
        "account-free-failures", environment: "AUTH_ACCOUNT_FREE_FAILURES",
        default: defaults.accountFreeFailures, parser: .integer(in: 1...1_000_000),
        help: "Login attempts one account takes from clients without its device token, over all clients, "
            + "before its shared budget runs dry.")
    static let accountFailuresPerMinute = Option(
        "account-failures-per-minute", environment: "AUTH_ACCOUNT_FAILURES_PER_MINUTE",
        default: defaults.accountFailuresPerMinute, parser: .integer(in: 1...1_000_000),
        help: "How fast a spent account budget grows back, in attempts per minute.")
    static let sharedThrottleInterval = Option(
        "shared-throttle-interval", environment: "AUTH_SHARED_THROTTLE_INTERVAL",
        default: Duration.seconds(60), parser: .duration,
        help: "With PostgreSQL: how often this replica sweeps the shared login throttle's entries at rest "
            + "and compares its throttling flags with the policy the database records (at least 1s).")
    static let deviceKey = Option(
        "device-key", environment: "AUTH_DEVICE_KEY", default: String?.none, parser: .optional(.string),
        help: "The secret device tokens are made with (created on first start, mode 0600); replacing it "
            + "withdraws every device token.", defaultDescription: "device.key in the state directory")
    static let existsPerSecond = Option(
        "exists-per-second", environment: "AUTH_EXISTS_PER_SECOND", default: defaults.existsPerSecond,
        parser: .integer(in: 1...10_000_000), help: "auth.exists requests one client may make per second.")
    static let existsBurst = Option(
        "exists-burst", environment: "AUTH_EXISTS_BURST", default: defaults.existsBurst,
        parser: .integer(in: 1...10_000_000), help: "auth.exists requests one client may make in a burst.")
    static let maximumStreams = Option(
        "max-streams", environment: "AUTH_MAX_STREAMS", default: 8_192, parser: .integer(in: 1...1_000_000),
        help: "Calls in flight at once over all clients; past it, `overloaded` at once.")
    static let maximumStreamsPerClient = Option(
        "max-streams-per-client", environment: "AUTH_MAX_STREAMS_PER_CLIENT", default: 1_024,
        parser: .integer(in: 1...1_000_000), help: "Calls one connection may have in flight at once.")
    static let check = Option(
        "check", environment: nil, default: false, parser: .boolean,
        help: "Ask the running instance at --endpoint for its health and exit: 0 ready, 1 not ready, "
            + "2 not answering.")

    static let all: [any AnyOption] =
        [
            endpoint, curve, database, synchronous, hashCost, hashWorkers, argon2, hashQueue, tokenLifetime,
            minimumUsername, minimumPassword, freeFailures, maximumDelay, lockAfter, lockDuration,
            clientFailures, accountFreeFailures, accountFailuresPerMinute, sharedThrottleInterval, deviceKey,
            existsPerSecond, existsBurst, maximumStreams, maximumStreamsPerClient, check,
        ] + standard.all

    static let server = ServerOptions(
        endpoint: endpoint, curve: curve, maximumStreams: maximumStreams,
        maximumStreamsPerClient: maximumStreamsPerClient, check: check, standard: standard)

    static let interface = CommandLineInterface(
        executable: "auth-service", version: ProjectVersion.current,
        summary:
            "Accounts, passwords and session tokens for the reactive login system (docs/services/auth.md).",
        options: all)
}
