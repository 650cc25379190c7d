import Contracts
import LoadTestCore
import ServiceKit

/// `--progress`.
enum ProgressSetting: String, CaseIterable, Sendable {
    /// A live line on standard error when it is a terminal.
    case auto
    /// Always.
    case on
    /// Never.
    case off
}

extension ValueParser where Value == Scenario {
    /// `login`, `register`, `exists`, `verify` or `mix:login=80,exists=15,register=5`.
    static var scenario: ValueParser<Scenario> {
        ValueParser(
            expected:
                "login, register, exists, verify, flow.login, flow.register, flow.signin, flow.heroes "
                + "or mix:kind=weight,... (mix:login=80,exists=20)",
            placeholder: "<scenario>", parse: { Scenario(parsing: $0) }, format: { $0.description })
    }
}

extension ValueParser where Value == GeneratorShard {
    /// `I/N`, 0 ≤ I < N.
    static var shard: ValueParser<GeneratorShard> {
        ValueParser(
            expected: "I/N with 0 <= I < N (0/3, 1/3, 2/3)", placeholder: "<I/N>",
            parse: { GeneratorShard(parsing: $0) }, format: { $0.description })
    }
}

extension ValueParser where Value == [Stage] {
    /// `[name=]DURATION:TARGET,…`.
    static var stages: ValueParser<[Stage]> {
        ValueParser(
            expected: "stages such as 30s:100,peak=1m:2000,30s:0 ([name=]duration:target, names unique)",
            placeholder: "<stages>", parse: { Stage.parseList($0) },
            format: { $0.isEmpty ? "none" : $0.map(\.description).joined(separator: ",") })
    }
}

extension ValueParser where Value == Double {
    /// A finite number in `range`.
    static func number(in range: ClosedRange<Double>) -> ValueParser<Double> {
        ValueParser(
            expected: "a number from \(range.lowerBound) to \(range.upperBound)", placeholder: "<x>",
            parse: { text in Double(text).flatMap { range.contains($0) ? $0 : nil } },
            format: { "\($0)" })
    }
}

extension ValueParser where Value == [Threshold] {
    /// `p99<50ms,errors<1%`.
    static var thresholds: ValueParser<[Threshold]> {
        ValueParser(
            expected: "conditions such as p99<50ms,errors<1% (p50 p90 p99 p99.9 min max mean errors rate)",
            placeholder: "<conditions>", parse: { Threshold.parseList($0) },
            format: { $0.isEmpty ? "none" : $0.map(\.description).joined(separator: ",") })
    }
}

extension ValueParser where Value == String {
    /// A file path (not empty).
    static var path: ValueParser<String> {
        ValueParser(
            expected: "a file path", placeholder: "<file>", parse: { $0.isEmpty ? nil : $0 }, format: { $0 })
    }

    /// A directory path (not empty).
    static var directory: ValueParser<String> {
        ValueParser(
            expected: "a directory path", placeholder: "<dir>", parse: { $0.isEmpty ? nil : $0 },
            format: { $0 })
    }

    /// A CURVE key as 40 Z85 characters.
    static var z85Key: ValueParser<String> {
        ValueParser(
            expected: "40 Z85 characters", placeholder: "<z85>", parse: { $0.utf8.count == 40 ? $0 : nil },
            format: { $0 })
    }
}

/// `--target`.
enum TargetSetting: String, CaseIterable, Sendable {
    /// auth-service's calls.
    case auth
    /// Virtual users on the gateway's flows.
    case gateway
}

/// `--time-keystrokes`.
enum KeystrokeTiming: String, CaseIterable, Sendable {
    /// Each field's last keystroke.
    case last
    /// Every keystroke (each sent with a sampled traceparent).
    case all
}

/// Every option of `auth-loadtest`.
enum LoadTestOptions {
    static let endpoint = Option(
        "endpoint", environment: "LOADTEST_ENDPOINT", default: [Endpoint(tcpHost: "127.0.0.1", port: 5562)],
        parser: .endpoints,
        help: "The auth service to load: its replicas' endpoints, separated by commas, or a name with "
            + "one address per replica (re-resolved every 5 s); requests go to the connected replica "
            + "with the fewest in flight.")
    static let allowRemote = Option(
        "allow-remote", environment: nil, default: false, parser: .boolean,
        help: "Allow a tcp endpoint that is not on the loopback interface.")
    static let target = Option(
        "target", environment: "LOADTEST_TARGET", default: TargetSetting.auth, parser: .choice(),
        help: "What to load: auth-service's calls, or the gateway's flows as virtual users "
            + "(--scenario flow.login|flow.register|flow.signin|flow.heroes or a mix; --endpoint "
            + "default tcp://127.0.0.1:5560, CURVE keys found as gateway-cli finds them).")
    static let think = Option(
        "think", environment: nil, default: Duration.milliseconds(120), parser: .duration,
        help: "With --target gateway: a virtual user's pause before each keystroke and before a tap.")
    static let timeKeystrokes = Option(
        "time-keystrokes", environment: nil, default: KeystrokeTiming.last, parser: .choice(),
        help: "With --target gateway: time each field's last keystroke, or every one (each then "
            + "carries a sampled traceparent, which costs the gateway tracing's price).")
    static let scenario = Option(
        "scenario", environment: "LOADTEST_SCENARIO", default: Scenario(weights: [(.login, 1)]),
        parser: .scenario, help: "What to send.")
    static let rate = Option(
        "rate", environment: nil, default: Double?.none, parser: .optional(.number(in: 0.001...10_000_000)),
        help: "Open model: requests per second on a fixed schedule (latency from the scheduled time).",
        defaultDescription: "1000 unless --concurrency is given")
    static let concurrency = Option(
        "concurrency", environment: nil, default: Int?.none, parser: .optional(.integer(in: 1...100_000)),
        help: "Closed model: requests in flight, each reply sending the next.")
    static let stages = Option(
        "stages", environment: nil, default: [Stage](), parser: .stages,
        help: "Ramp the load through stages after the warm-up, each linear from where the one before "
            + "ended to its target: the rate from --rate (default 0), or the concurrency from "
            + "--concurrency. Sets the measured time; --fail-if 'name:p99<50ms' checks one stage.")
    static let duration = Option(
        "duration", environment: nil, default: Duration.seconds(10), parser: .duration,
        help: "The measured time, after the warm-up; with --find-capacity, the whole search's bound.",
        defaultDescription: "10s; 2m for --find-capacity")
    static let findCapacity = Option(
        "find-capacity", environment: nil, default: [Threshold]?.none, parser: .optional(.thresholds),
        help: "Search for the highest open-model rate that meets these conditions (e.g. "
            + "'p99<50ms,errors<0.1%'): steps doubling from --rate (default 100), then a bisection to 5 %, "
            + "each with its own warm-up; reports that rate and the whole curve.")
    static let stepDuration = Option(
        "step-duration", environment: nil, default: Duration.seconds(5), parser: .duration,
        help: "With --find-capacity: each step's measured time, after its --warmup.")
    static let warmup = Option(
        "warmup", environment: nil, default: Duration.seconds(2), parser: .duration,
        help: "Time sent at the same pace but not counted.")
    static let requests = Option(
        "requests", environment: nil, default: Int?.none, parser: .optional(.integer(in: 1...1_000_000_000)),
        help: "The most requests sent in all (warm-up included).", defaultDescription: "only time bounds it")
    static let users = Option(
        "users", environment: nil, default: 100, parser: .integer(in: 0...10_000_000),
        help: "Accounts lt_user_NNNNNNN to seed first (existing ones are reused) for login, exists, verify.")
    static let failRatio = Option(
        "fail-ratio", environment: nil, default: 0.0, parser: .number(in: 0...1),
        help: "The share of logins made with a wrong password (expected to answer 401).")
    static let clients = Option(
        "clients", environment: nil, default: 1_000, parser: .integer(in: 1...100_000),
        help: "End-client names the requests are spread over (per-client limits apply to each).")
    static let connections = Option(
        "connections", environment: nil, default: 4, parser: .integer(in: 1...64),
        help: "DEALER connections (one RemoteClient each); requests go round-robin.")
    static let timeout = Option(
        "timeout", environment: nil, default: Duration.seconds(10), parser: .duration,
        help: "Each request's deadline; an unanswered request counts as an error at this latency.")
    static let seed = Option(
        "seed", environment: nil, default: 1, parser: .integer(in: 0...Int.max),
        help: "Seed of the request sequence (users, kinds, wrong passwords).")
    static let shard = Option(
        "shard", environment: "LOADTEST_SHARD", default: GeneratorShard.whole, parser: .shard,
        help: "Generator I of N running at once: a disjoint share of --users, --clients and the "
            + "sequence, and 1/N of --rate, --concurrency and --requests; `merge` combines their --json.")
    static let json = Option(
        "json", environment: nil, default: String?.none, parser: .optional(.path),
        help: "Write the full result as JSON to this file.")
    static let svg = Option(
        "svg", environment: nil, default: String?.none, parser: .optional(.path),
        help: "Draw latency by percentile and throughput over time as SVG to this file.")
    static let failIf = Option(
        "fail-if", environment: nil, default: [Threshold](), parser: .thresholds,
        help: "Exit 1 when any condition is missed, e.g. 'p99<50ms,errors<1%'.")
    static let curve = Option(
        "curve", environment: "LOADTEST_CURVE", default: CurveSetting.on, parser: .choice(),
        help: "CURVE as the service requires: keys from --server-key/--client-key or the state directory.")
    static let stateDirectory = Option(
        "state-dir", environment: "AUTH_STATE_DIR", default: String?.none, parser: .optional(.directory),
        help: "The auth service's state directory: its curve.pub, and client.key (generated if missing).",
        defaultDescription: "as auth-service resolves it")
    static let serverKey = Option(
        "server-key", environment: nil, default: String?.none, parser: .optional(.z85Key),
        help: "The service's CURVE public key (40 Z85 characters) instead of curve.pub.")
    static let clientKey = Option(
        "client-key", environment: nil, default: String?.none, parser: .optional(.path),
        help: "A file holding this client's CURVE secret key (Z85) instead of client.key.")
    static let progress = Option(
        "progress", environment: nil, default: ProgressSetting.auto, parser: .choice(),
        help: "The live progress line on standard error.")
    static let echo = Option(
        "echo", environment: nil, default: false, parser: .boolean,
        help: "Measure the tool itself: load an in-process stub answering auth.exists at once (on "
            + "tcp loopback) instead of --endpoint.")

    static let echoDelay = Option(
        "echo-delay", environment: nil, default: Duration.zero, parser: .duration,
        help: "With --echo: the stub answers each request this long after it came, as a service with "
            + "that service time and no queue would.")

    static let all: [any AnyOption] = [
        endpoint, allowRemote, target, think, timeKeystrokes, scenario, rate, concurrency, stages,
        findCapacity, stepDuration, duration,
        warmup, requests, users,
        failRatio,
        clients, connections, timeout, seed, shard, json, svg, failIf, curve, stateDirectory, serverKey,
        clientKey,
        progress, echo, echoDelay,
    ]

    static let interface = CommandLineInterface(
        executable: "auth-loadtest", version: ProjectVersion.current,
        summary: "A load generator for auth-service: open (--rate) or closed (--concurrency) model, "
            + "HdrHistogram-style latencies, report, --json, --svg, --fail-if; "
            + "`auth-loadtest merge A.json B.json…` combines generators' result files, "
            + "`auth-loadtest compare BASE.json NEW.json` sets two runs side by side (docs/LOADTEST.md).",
        options: all)
}
