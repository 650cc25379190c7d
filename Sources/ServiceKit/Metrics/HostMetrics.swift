public import Contracts
public import Metrics
import RemoteProtocol
public import RemoteStreams
public import Tracing
public import ZeroMQ

/// The metric families every server exports through ``ServiceHost`` (docs/operations.md,
/// "Metrics"): its calls and transport counters (the shards' summed), CURVE authentications, its
/// health, its build and the metrics listener's own connections.
public enum HostMetrics {
    /// The prefix of every family of the project's own.
    public static let prefix = "reactive_login_"

    /// The calls and transport families of a process whose shards' servers report `shards`.
    public static func transport(_ shards: [RemoteCounters]) -> [MetricFamily] {
        var requests = MetricFamily(
            prefix + "requests_total", .counter,
            help: "Calls finished, by method and outcome (ok, cancelled or the ERROR code).")
        var duration = MetricFamily(
            prefix + "request_duration_seconds", .histogram,
            help: "From reading a call's opening frame to its answer or terminal frame, by method "
                + "(a stream's or channel's whole life).")
        var open = MetricFamily(
            prefix + "open_streams", .gauge,
            help: "Calls open now, by interaction model (request, stream, channel).")
        for counters in shards {
            for (method, calls) in counters.methods.sorted(by: { $0.key < $1.key }) {
                for (code, count) in calls.outcomes.sorted(by: { $0.key < $1.key }) {
                    requests.add(count, ["method": method, "code": code])
                }
                duration.add(calls.duration, ["method": method])
            }
            for model in InteractionModel.allCases {
                open.add(counters.openByModel[model] ?? 0, ["model": model.rawValue])
            }
        }
        func counter(_ name: String, _ help: String, _ value: (RemoteCounters) -> Int) -> MetricFamily {
            .counter(prefix + name, help: help, value: shards.map(value).reduce(0, +))
        }
        func gauge(_ name: String, _ help: String, _ value: (RemoteCounters) -> Int) -> MetricFamily {
            .gauge(prefix + name, help: help, value: Double(shards.map(value).reduce(0, +)))
        }
        var errors = MetricFamily(
            prefix + "errors_sent_total", .counter,
            help: "ERROR frames sent, by code (refusals of unknown methods and unreadable frames included).")
        for counters in shards {
            for (code, count) in counters.errorsByCode.sorted(by: { $0.key < $1.key }) {
                errors.add(count, ["code": code])
            }
        }
        return [
            requests, duration, open,
            counter("frames_received_total", "Messages received from clients.", \.framesIn),
            counter("frames_sent_total", "Messages queued for clients.", \.framesOut),
            counter(
                "frames_dropped_total",
                "Frames for unknown streams, and messages too short to route, dropped.",
                \.droppedFrames),
            errors,
            counter(
                "clients_lost_total", "Clients whose connection closed or fell silent, their calls ended.",
                \.clientsLost),
            counter(
                "client_queue_overflows_total",
                "Times a client that did not read went over its queue bound: its answers dropped, its calls "
                    + "ended overloaded.", \.clientOverflows),
            gauge(
                "blocked_clients", "Clients not reading now: answers wait for them, or they were cut off.",
                \.blockedClients),
            gauge(
                "queued_for_blocked_clients", "Answers waiting now for clients that do not read.",
                \.queuedForBlockedClients),
            counter(
                "messages_dropped_total",
                "Messages that could not be sent: to clients over their bound or gone.", \.messagesDropped),
            counter(
                "refused_while_blocked_total",
                "Calls refused overloaded unread because their client's earlier answers were waiting.",
                \.refusedWhileBlocked),
        ]
    }

    /// The span exporter's counts (docs/operations.md, "Traces").
    public static func traces(_ counts: ExporterCounts, queued: Int) -> [MetricFamily] {
        [
            .counter(
                prefix + "trace_spans_exported_total", help: "Spans written to every trace target.",
                value: Int(counts.exported)),
            .counter(
                prefix + "trace_spans_dropped_total",
                help: "Spans dropped because the exporter's queue was full (a collector slow or down).",
                value: Int(counts.dropped)),
            .counter(
                prefix + "trace_export_failures_total",
                help: "Batches a trace target refused or could not be reached for (their spans are lost).",
                value: Int(counts.failedBatches)),
            .gauge(
                prefix + "trace_spans_queued", help: "Spans waiting in the exporter's queue.",
                value: Double(queued)),
        ]
    }

    /// CURVE authentications by the process's ZAP handler (none without an allow-list).
    public static func curve(_ statistics: ZAPHandler.Statistics?) -> [MetricFamily] {
        guard let statistics else { return [] }
        var family = MetricFamily(
            prefix + "curve_authentications_total", .counter,
            help: "CURVE handshakes checked against the allow-list, by result (allowed, refused, malformed).")
        family.add(statistics.allowed, ["result": "allowed"])
        family.add(statistics.denied, ["result": "refused"])
        family.add(statistics.malformed, ["result": "malformed"])
        return [family]
    }

    /// The health now (1 for its status, 0 for the others) and the build.
    public static func health(_ report: HealthReport, service: String, version: String) -> [MetricFamily] {
        var health = MetricFamily(
            prefix + "health_status", .gauge,
            help:
                "1 for the service's sys.health status now (starting, ready, degraded, draining), 0 for the others."
        )
        for status in ["starting", "ready", "degraded", "draining"] {
            health.add(report.status.rawValue == status ? 1 : 0, ["status": status])
        }
        return [
            health,
            .gauge(
                prefix + "build_info", help: "Always 1: the service and its version.", value: 1,
                labels: ["service": service, "version": version]),
        ]
    }

    /// The metrics listener's connections.
    public static func listener(_ statistics: HTTPResponder.Statistics) -> [MetricFamily] {
        var family = MetricFamily(
            prefix + "metrics_http_connections_total", .counter,
            help: "Connections to the metrics listener, by what became of them (accepted, refused over the "
                + "bound, malformed, timed_out).")
        family.add(statistics.accepted, ["result": "accepted"])
        family.add(statistics.refused, ["result": "refused"])
        family.add(statistics.malformed, ["result": "malformed"])
        family.add(statistics.timedOut, ["result": "timed_out"])
        return [family]
    }

    /// The families of a client of another service, `upstream` (auth, validation, heroes): its calls
    /// open, the ERRORs it received by code, and its retries on another replica.
    public static func upstream(_ upstream: String, _ counters: RemoteCounters) -> [MetricFamily] {
        var errors = MetricFamily(
            prefix + "upstream_errors_total", .counter,
            help: "ERRORs received from an upstream service, by upstream and code.")
        for (code, count) in counters.errorsByCode.sorted(by: { $0.key < $1.key }) {
            errors.add(count, ["upstream": upstream, "code": code])
        }
        return [
            gauge(
                "upstream_open_calls", "Calls open now to an upstream service, by upstream.",
                Double(counters.openStreams), ["upstream": upstream]),
            errors,
            counter(
                "upstream_retries_total",
                "Calls sent again to another replica of an upstream after overloaded or unavailable, by upstream.",
                counters.retries, ["upstream": upstream]),
        ]
    }

    /// A counter family of `value`.
    public static func counter(_ name: String, _ help: String, _ value: Int, _ labels: Labels = [:])
        -> MetricFamily
    {
        .counter(prefix + name, help: help, value: value, labels: labels)
    }

    /// A gauge family of `value`.
    public static func gauge(_ name: String, _ help: String, _ value: Double, _ labels: Labels = [:])
        -> MetricFamily
    {
        .gauge(prefix + name, help: help, value: value, labels: labels)
    }

    /// A counter family with one sample per `(label value, count)`, under `label`.
    public static func counter(_ name: String, _ help: String, by label: String, _ values: [(String, Int)])
        -> MetricFamily
    {
        var family = MetricFamily(prefix + name, .counter, help: help)
        for (value, count) in values { family.add(count, Labels([(label, value)])) }
        return family
    }

    /// A gauge family with one sample per `(label value, value)`, under `label`.
    public static func gauge(_ name: String, _ help: String, by label: String, _ values: [(String, Int)])
        -> MetricFamily
    {
        var family = MetricFamily(prefix + name, .gauge, help: help)
        for (value, count) in values { family.add(count, Labels([(label, value)])) }
        return family
    }
}
