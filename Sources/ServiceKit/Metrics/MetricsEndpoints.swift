public import Contracts
public import Metrics

/// What the metrics listener answers (docs/operations.md, "HTTP endpoints"): pure, the socket is
/// ``HTTPResponder``'s.
///
/// | path | `GET`/`HEAD` |
/// |---|---|
/// | `/metrics` | 200, the Prometheus text format 0.0.4 |
/// | `/healthz` | 200 in every status: the process is up and answers (liveness) |
/// | `/readyz` | 200 while it takes work (`ready`, `degraded`, as `--check` counts them); 503 while `starting` or `draining` |
///
/// The health bodies are one line: the status and its reasons (`degraded: auth unreachable`). Any
/// other path is 404; another method on a known path is 405 with `Allow: GET, HEAD`.
public enum MetricsEndpoints {
    /// The paths served.
    public enum Route: Sendable, Hashable {
        case metrics, healthz, readyz

        init?(path: String) {
            switch path {
            case "/metrics": self = .metrics
            case "/healthz": self = .healthz
            case "/readyz": self = .readyz
            default: return nil
            }
        }
    }

    /// How a request is answered: at once, or with the metrics (collected at scrape time).
    public enum Answer: Sendable, Hashable {
        case now(HTTPResponse)
        case metrics
    }

    /// The answer to `head`, with the health now in `health`.
    public static func answer(_ head: HTTPRequestHead, health: HealthReport) -> Answer {
        guard let route = Route(path: head.path) else {
            return .now(.text(.notFound, "not found: \(head.path) (try /metrics, /healthz or /readyz)"))
        }
        guard head.method == "GET" || head.method == "HEAD" else {
            return .now(
                .text(.methodNotAllowed, "\(head.method) is not allowed here", headers: [HTTPHeader("Allow", "GET, HEAD")]))
        }
        switch route {
        case .metrics:
            return .metrics
        case .healthz:
            return .now(healthResponse(health, serving: true))
        case .readyz:
            return .now(healthResponse(health, serving: health.status == .ready || health.status == .degraded))
        }
    }

    /// The metrics response for `families`.
    public static func metricsResponse(_ families: [MetricFamily]) -> HTTPResponse {
        HTTPResponse(
            .ok, headers: [HTTPHeader("Content-Type", Exposition.contentType)],
            body: Array(Exposition.text(families).utf8))
    }

    private static func healthResponse(_ report: HealthReport, serving: Bool) -> HTTPResponse {
        let reasons = report.reasons.isEmpty ? "" : ": " + report.reasons.joined(separator: "; ")
        return .text(serving ? .ok : .serviceUnavailable, report.status.rawValue + reasons)
    }
}
