import Foundation
public import ProcessSupport
public import Tracing
public import ZeroMQ

/// The options every service takes, with environment variables under one prefix
/// (`AUTH` gives `AUTH_LOG_LEVEL`, `AUTH_LOG_FORMAT`, `AUTH_STATE_DIR`, `AUTH_DRAIN_TIMEOUT`).
///
/// ```swift
/// let standard = StandardOptions(environmentPrefix: "AUTH")
/// let interface = CommandLineInterface(
///     executable: "auth-service", version: ProjectVersion.current, summary: "Accounts and tokens.",
///     options: [AuthOptions.endpoint] + standard.all)
/// ```
public struct StandardOptions: Sendable {
    /// `--log-level`: the minimum level written (default `info`).
    public let logLevel: Option<LogLevel>
    /// `--log-format`: `logfmt` (default) or `json`.
    public let logFormat: Option<LogFormat>
    /// `--state-dir`: overrides the state directory's default location.
    public let stateDirectory: Option<String?>
    /// `--drain-timeout`: how long a graceful shutdown may take (default 10s).
    public let drainTimeout: Option<Duration>
    /// `--init`: prepare the state directory (keys, allow-list), print the public keys and exit
    /// (``ServiceHost``'s `main` does it; see ``StateDirectory/initialize()``).
    public let initialize: Option<Bool>
    /// `--client-queue-messages`: answers the server keeps for one client that is not reading
    /// (default 1,000), beyond libzmq's own 1,000.
    public let clientQueueMessages: Option<Int>
    /// `--client-queue-bytes`: the same bound in bytes (default 4 MiB).
    public let clientQueueBytes: Option<Int>
    /// `--loops`: how many shards (an event loop and a server each) the process runs (default:
    /// ``defaultLoops(cores:)`` of the ``AvailableCores``).
    public let loops: Option<Int>
    /// `--metrics-listen`: where the HTTP listener for `/metrics`, `/healthz` and `/readyz` binds
    /// (default: none, off).
    public let metricsListen: Option<ListenAddress?>
    /// `--trace-sample`: the share of calls and inputs arriving without a trace that start one
    /// (default 0: only calls that come with a sampled `traceparent` are traced).
    public let traceSample: Option<Double>
    /// `--otlp-endpoint`: the OTLP/HTTP collector spans are POSTed to (default: none).
    public let otlpEndpoint: Option<String?>
    /// `--trace-file`: a file spans are appended to, one OTLP JSON batch per line (default: none).
    public let traceFile: Option<String?>

    /// The standard options with variables named `<prefix>_LOG_LEVEL` and so on.
    public init(environmentPrefix prefix: String) {
        logLevel = Option(
            "log-level", environment: "\(prefix)_LOG_LEVEL", default: .info, parser: .choice(),
            help: "Minimum level of the events written to stderr.")
        logFormat = Option(
            "log-format", environment: "\(prefix)_LOG_FORMAT", default: .logfmt, parser: .choice(),
            help: "Log line format: logfmt or JSON lines.")
        stateDirectory = Option(
            "state-dir", environment: "\(prefix)_STATE_DIR", default: nil, parser: .optional(.string),
            help: "Directory for the pid file, keys and data (created with mode 0700).",
            defaultDescription: "$XDG_STATE_HOME/reactive-login/<service>, else "
                + "$HOME/.local/state/reactive-login/<service>, else ./.state/<service>")
        drainTimeout = Option(
            "drain-timeout", environment: "\(prefix)_DRAIN_TIMEOUT", default: .seconds(10),
            parser: .duration, help: "How long in-flight work may take to finish after SIGTERM/SIGINT.")
        initialize = Option(
            "init", environment: nil, default: false, parser: .boolean,
            help: "Create the state directory, the server and client key pairs and allowed_clients where "
                + "missing, print the public keys (server_key=... client_key=...) and exit 0 without "
                + "binding.")
        clientQueueMessages = Option(
            "client-queue-messages", environment: "\(prefix)_CLIENT_QUEUE_MESSAGES", default: 1_000,
            parser: .integer(in: 1...10_000_000),
            help: "Answers kept for one client that does not read them (beyond libzmq's 1,000); past it "
                + "or --client-queue-bytes, they are dropped and its calls end with `overloaded`. Other "
                + "clients are never held up by it.")
        clientQueueBytes = Option(
            "client-queue-bytes", environment: "\(prefix)_CLIENT_QUEUE_BYTES", default: 4 << 20,
            parser: .byteSize, help: "The same bound in bytes (4MiB, 512KiB, ...).")
        loops = Option(
            "loops", environment: "\(prefix)_LOOPS", default: Self.defaultLoops(cores: AvailableCores.count),
            parser: .integer(in: 1...256),
            help: "Shards: event loops, each with its own server and connections. Shard 0 listens on "
                + "--endpoint, the others on endpoints derived from it (sys.endpoints lists them all).",
            defaultDescription: "one per two available cores, at least one")
        metricsListen = Option(
            "metrics-listen", environment: "\(prefix)_METRICS_LISTEN", default: nil,
            parser: .optional(.listenAddress),
            help:
                "HOST:PORT of an HTTP listener with /metrics (Prometheus text format), /healthz and /readyz "
                + "(docs/operations.md); port 0 picks a free one.",
            defaultDescription: "off")
        traceSample = Option(
            "trace-sample", environment: "\(prefix)_TRACE_SAMPLE", default: 0, parser: .ratio,
            help: "Share of calls and inputs that arrive without a trace and start one (0 to 1); a call "
                + "that carries a traceparent follows its sampled flag (docs/operations.md, Traces).")
        otlpEndpoint = Option(
            "otlp-endpoint", environment: "\(prefix)_OTLP_ENDPOINT", default: nil,
            parser: .optional(
                ValueParser(
                    expected: "an http://HOST:PORT[/PATH] URL", placeholder: "<url>",
                    parse: { OTLPHTTP.parse($0) == nil ? nil : $0 }, format: { $0 })),
            help: "http://HOST:PORT of an OpenTelemetry collector: spans are POSTed there as OTLP/HTTP JSON "
                + "(/v1/traces) in batches, from a thread of their own.", defaultDescription: "none")
        traceFile = Option(
            "trace-file", environment: "\(prefix)_TRACE_FILE", default: nil, parser: .optional(.string),
            help: "File spans are appended to, one OTLP JSON ExportTraceServiceRequest per line.",
            defaultDescription: "none")
    }

    /// The default `--loops` on a process with `cores` available cores (``AvailableCores``): one
    /// loop per two cores, at least one. A loop's traffic also keeps libzmq's I/O thread (one per
    /// process, for every shard) and the kernel's network path busy, so a loop with its share of
    /// them is counted as two cores: on two cores one loop per process already fills both, and a
    /// second costs CPU per call (wake-ups, a second set of sockets) without a core to run on
    /// (docs/services/servicekit.md, "Shards").
    public static func defaultLoops(cores: Int) -> Int { max(1, cores / 2) }

    /// All of them, for a ``CommandLineInterface``'s option list.
    public var all: [any AnyOption] {
        [
            logLevel, logFormat, stateDirectory, drainTimeout, initialize, clientQueueMessages,
            clientQueueBytes,
            loops, metricsListen, traceSample, otlpEndpoint, traceFile,
        ]
    }

    /// The process's tracer for `service`: the configured sampler and, with an OTLP endpoint or a
    /// trace file, an exporter on a thread of its own.
    public func tracer(service: String, from configuration: Configuration) -> Tracer {
        let targets = ExportTargets(otlpEndpoint: configuration[otlpEndpoint], file: configuration[traceFile])
        let exporter = targets.isEmpty ? nil : SpanExporter(.init(service: service, targets: targets))
        return Tracer(
            service: service, sampler: Sampler(ratio: configuration[traceSample]), exporter: exporter)
    }

    /// The bound on what one client that does not read may have waiting in the server.
    public func clientQueue(from configuration: Configuration) -> SocketLoop.PeerQueueLimit {
        SocketLoop.PeerQueueLimit(
            messages: configuration[clientQueueMessages], bytes: configuration[clientQueueBytes])
    }

    /// A logger for `service` with the configured level and format.
    public func logger(service: String, from configuration: Configuration, sink: LogSink = .standardError)
        -> Logger
    {
        Logger(
            service: service, level: configuration[logLevel], format: configuration[logFormat], sink: sink)
    }

    /// Resolves and creates the state directory for `service`.
    public func stateDirectory(
        service: String, from configuration: Configuration, environment: [String: String]
    ) throws(StateError) -> StateDirectory {
        try StateDirectory.prepare(
            service: service, override: configuration[stateDirectory], environment: environment)
    }
}

extension CommandLineInterface {
    /// For `main.swift`: parses the process's arguments and environment; prints help or the version
    /// and exits 0, or prints a usage error to stderr and exits 64; otherwise returns the values.
    public func parseOrExit() -> Configuration {
        let resolution = resolve(
            arguments: Array(CommandLine.arguments.dropFirst()),
            environment: ProcessInfo.processInfo.environment)
        switch resolution {
        case .run(let configuration):
            return configuration
        case .exit(let code, let standardOutput, let standardError):
            FileHandle.standardOutput.write(Data(standardOutput.utf8))
            FileHandle.standardError.write(Data(standardError.utf8))
            exit(code)
        }
    }
}
