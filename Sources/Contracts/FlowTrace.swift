public import RemoteProtocol

/// The trace of one flow input, as the gateway reports it in a ``FlowOutput/Name/trace`` output
/// (docs/gateway/protocol.md, "Traces"): the trace id and the hops, in the order they ended.
///
/// `{"trace_id":"4bf9…4736","hops":[{"service":"gateway","shard":0,"method":"flow.signin loginTap",
/// "start_us":0,"duration_us":51020,"outcome":"ok","depth":0},{"service":"auth","shard":1,
/// "method":"auth.login","start_us":310,"duration_us":50240,"outcome":"ok","depth":1}]}`
public struct FlowTrace: Codable, Sendable, Hashable {
    /// One piece of work in the trace: the gateway's handling of the input, a call made for it, or
    /// work of the service that call reached.
    public struct Hop: Codable, Sendable, Hashable {
        /// The process that did the work (`gateway`), or the service called (`validation`, `auth`,
        /// `heroes`).
        public var service: String
        /// The shard (event loop) of that service, when known.
        public var shard: Int?
        /// The method called, or the name of the work (`argon2id verify`).
        public var method: String
        /// Microseconds from the start of the input's handling to the start of this hop.
        public var startMicros: Int
        /// How long the hop took, in microseconds.
        public var durationMicros: Int
        /// `ok`, `cancelled` or the error code the hop ended with.
        public var outcome: String
        /// 0 for the gateway's handling of the input, 1 for a call it made, 2 for a call or work of
        /// the service that call reached, and so on.
        public var depth: Int

        /// A hop.
        public init(
            service: String, shard: Int? = nil, method: String, startMicros: Int, durationMicros: Int,
            outcome: String = "ok", depth: Int = 0
        ) {
            self.service = service
            self.shard = shard
            self.method = method
            self.startMicros = startMicros
            self.durationMicros = durationMicros
            self.outcome = outcome
            self.depth = depth
        }

        /// Where the hop ends, in microseconds from the start of the input's handling.
        public var endMicros: Int { startMicros + durationMicros }

        enum CodingKeys: String, CodingKey {
            case service, shard, method, startMicros = "start_us", durationMicros = "duration_us", outcome
            case depth
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            service = try container.decode(String.self, forKey: .service)
            shard = try container.decodeIfPresent(Int.self, forKey: .shard)
            method = try container.decode(String.self, forKey: .method)
            startMicros = max(0, try container.decodeIfPresent(Int.self, forKey: .startMicros) ?? 0)
            durationMicros = max(0, try container.decodeIfPresent(Int.self, forKey: .durationMicros) ?? 0)
            outcome = try container.decodeIfPresent(String.self, forKey: .outcome) ?? "ok"
            depth = max(0, try container.decodeIfPresent(Int.self, forKey: .depth) ?? 0)
        }
    }

    /// The trace id: 32 lower-case hex digits.
    public var traceID: String
    /// The hops.
    public var hops: [Hop]

    /// A trace.
    public init(traceID: String, hops: [Hop]) {
        self.traceID = traceID
        self.hops = hops
    }

    /// The microseconds from the earliest start to the latest end of the hops (0 without hops).
    public var spanMicros: Int {
        guard let start = hops.map(\.startMicros).min(), let end = hops.map(\.endMicros).max() else {
            return 0
        }
        return end - start
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id", hops
    }

    /// A fresh W3C `traceparent` (version 00) with the *sampled* flag set, for an input that asks
    /// for its trace: `00-<32 hex trace id>-<16 hex span id>-01`, lower case, from `generator`; the
    /// ids are never all zero (which W3C Trace Context reserves as invalid).
    public static func newTraceparent(using generator: inout some RandomNumberGenerator) -> String {
        func nonZero() -> UInt64 {
            while true {
                let value = generator.next()
                if value != 0 { return value }
            }
        }
        let traceHigh = generator.next()
        let traceLow = traceHigh == 0 ? nonZero() : generator.next()
        return "00-" + hex(traceHigh) + hex(traceLow) + "-" + hex(nonZero()) + "-01"
    }

    /// ``newTraceparent(using:)`` from the system's generator.
    public static func newTraceparent() -> String {
        var generator = SystemRandomNumberGenerator()
        return newTraceparent(using: &generator)
    }

    /// The trace id of `traceparent`: its 32 hex digits, or nil when it is not version 00's shape.
    public static func traceID(of traceparent: String) -> String? {
        let parts = traceparent.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "00", parts[1].utf8.count == 32 else { return nil }
        return String(parts[1])
    }

    /// `value` as 16 lower-case hex digits.
    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

// MARK: Direct JSON codings (docs/transport/json.md, "Direct codings"): one line per stored property.

extension FlowTrace: JSONBody {
    public static let jsonFields = JSONFields<Self>(
        blank: FlowTrace(traceID: "", hops: []), [.field("trace_id", \.traceID), .field("hops", \.hops)])
}

extension FlowTrace.Hop: JSONBody {
    /// As `init(from:)`: the times and the depth default to 0 and are clamped at 0, the outcome
    /// defaults to `ok`.
    public static let jsonFields = JSONFields<Self>(
        blank: FlowTrace.Hop(service: "", method: "", startMicros: 0, durationMicros: 0),
        [
            .field("service", \.service), .field("shard", \.shard), .field("method", \.method),
            .field("start_us", \.startMicros, ifAbsent: 0, adjust: { max(0, $0) }),
            .field("duration_us", \.durationMicros, ifAbsent: 0, adjust: { max(0, $0) }),
            .field("outcome", \.outcome, ifAbsent: "ok"),
            .field("depth", \.depth, ifAbsent: 0, adjust: { max(0, $0) }),
        ])
}
