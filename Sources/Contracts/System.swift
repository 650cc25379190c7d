public import RemoteProtocol

extension Methods {
    /// The methods every service answers (docs/services/servicekit.md, "Health, stats and the
    /// service shape").
    public enum System {
        /// `sys.health` `{}` → ``HealthReport``.
        public static let health = RequestMethod<NoParameters, HealthReport>(
            "sys.health", retrySafety: .idempotent)
        /// `sys.stats` `{}` → ``StatsReport``.
        public static let stats = RequestMethod<NoParameters, StatsReport>(
            "sys.stats", retrySafety: .idempotent)

        /// `sys.endpoints` `{}` → ``ShardEndpoints``: every shard's endpoint, shard 0 first
        /// (docs/PROTOCOL.md, "System methods").
        public static let endpoints = RequestMethod<NoParameters, ShardEndpoints>.shardEndpoints

        /// All three.
        public static let all: [any RemoteMethod] = [health, stats, endpoints]
    }
}

/// Whether a service is ready, and if not, why.
public struct HealthReport: Codable, Sendable, Hashable {
    /// The service's phase.
    public enum Status: String, Codable, Sendable, Hashable {
        /// Starting: not serving yet.
        case starting
        /// Serving.
        case ready
        /// Serving, with a problem (a dependency down, a queue full): see the reasons.
        case degraded
        /// Shutting down: finishing what is in flight, taking nothing new.
        case draining
    }

    /// The service's name (`auth`, `validation`, …).
    public var service: String
    /// Its version.
    public var version: String
    /// Its phase.
    public var status: Status
    /// True when it takes work (`ready` or `degraded`).
    public var ready: Bool
    /// What is wrong, if anything (empty when all is well).
    public var reasons: [String]

    /// A report.
    public init(service: String, version: String, status: Status, reasons: [String]) {
        self.service = service
        self.version = version
        self.status = status
        self.ready = status == .ready || status == .degraded
        self.reasons = reasons
    }
}

/// A service's counters, by group (e.g. `transport`, `auth`, `store`).
public struct StatsReport: Codable, Sendable, Hashable {
    /// The service's name.
    public var service: String
    /// Its version.
    public var version: String
    /// Seconds since it started.
    public var uptimeSeconds: Int64
    /// Counter groups: group name → counter name → value.
    public var counters: [String: [String: Int]]

    /// A report.
    public init(service: String, version: String, uptimeSeconds: Int64, counters: [String: [String: Int]]) {
        self.service = service
        self.version = version
        self.uptimeSeconds = uptimeSeconds
        self.counters = counters
    }

    enum CodingKeys: String, CodingKey {
        case service, version, uptimeSeconds = "uptime_seconds", counters
    }
}

// MARK: Direct JSON codings (docs/transport/json.md, "Direct codings"): one line per stored property.

extension HealthReport.Status: JSONFieldValue {}

extension HealthReport: JSONBody {
    public static let jsonFields = JSONFields<Self>(
        blank: HealthReport(service: "", version: "", status: .starting, reasons: []),
        [
            .field("service", \.service), .field("version", \.version), .field("status", \.status),
            .field("ready", \.ready), .field("reasons", \.reasons),
        ])
}

extension StatsReport: JSONBody {
    public static let jsonFields = JSONFields<Self>(
        blank: StatsReport(service: "", version: "", uptimeSeconds: 0, counters: [:]),
        [
            .field("service", \.service), .field("version", \.version),
            .field("uptime_seconds", \.uptimeSeconds), .field("counters", \.counters),
        ])
}
