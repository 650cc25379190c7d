import Contracts
import Foundation
import RemoteStreams
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The four servers with `--metrics-listen`, scraped by a real Prometheus (Debian's `prometheus`,
/// which `make test` installs) and checked by `promtool`.
@Suite("metrics: the four servers scraped by Prometheus", .timeLimit(.minutes(2)), .serialized)
struct PrometheusIntegrationTests {
    static let everyServer = ["--metrics-listen", "127.0.0.1:0", "--loops", "2"]

    @Test("promtool check metrics passes on every server's /metrics, and HEAD and the probes answer")
    func promtoolChecksEveryServer() async throws {
        try await withMetricsStack { stack, directory in
            _ = try await stack.client.request(
                Methods.Command.register, RegisterCommand(username: "13700137000", password: "secret1")
            ).value
            for service in stack.servers {
                let port = try service.metricsPort()
                let metrics = try await HTTPExchange.get("/metrics", port: port)
                #expect(metrics.status == 200)
                #expect(metrics.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
                let file = directory.file("\(service.executable).metrics")
                try Data(metrics.body).write(to: URL(fileURLWithPath: file))
                let check = try await Tool.run(
                    "/bin/sh", ["-c", "exec promtool check metrics < \"$0\"", file], in: directory)
                #expect(check.status == .exited(0), "\(service.executable): \(check.output)")
                #expect(try await HTTPExchange.get("/readyz", port: port).status == 200)
                #expect(try await HTTPExchange.get("/healthz", port: port).text == "ready\n")
            }
        }
    }

    @Test("Prometheus scrapes all four (up == 1) and sees exactly the logins and registrations driven")
    func prometheusScrapes() async throws {
        try await withMetricsStack { stack, directory in
            let prometheus = try await PrometheusProcess.start(
                in: directory,
                targets: zip(["auth", "validation", "heroes", "gateway"], stack.servers).map {
                    ($0, try $1.metricsPort())
                })
            do {
                let phone = "13600136000"
                let registered = try await stack.client.request(
                    Methods.Command.register, RegisterCommand(username: phone, password: "secret1")
                ).value
                #expect(registered.ok)
                let good = try await stack.client.request(
                    Methods.Command.login, LoginCommand(phone: phone, password: "secret1")
                ).value
                #expect(good.ok)
                let bad = try await stack.client.request(
                    Methods.Command.login, LoginCommand(phone: phone, password: "wrong-password")
                ).value
                #expect(!bad.ok)

                for job in ["auth", "validation", "heroes", "gateway"] {
                    #expect(try await prometheus.waitFor("up{job=\"\(job)\"}", toBe: 1), "up of \(job)")
                }
                let expectations: [(String, Double)] = [
                    ("reactive_login_auth_logins_total{job=\"auth\",result=\"ok\"}", 1),
                    ("reactive_login_auth_logins_total{job=\"auth\",result=\"failed\"}", 1),
                    ("reactive_login_requests_total{job=\"auth\",method=\"auth.login\",code=\"ok\"}", 2),
                    ("reactive_login_request_duration_seconds_count{job=\"auth\",method=\"auth.login\"}", 2),
                    ("reactive_login_request_duration_seconds_bucket{job=\"auth\",method=\"auth.login\",le=\"+Inf\"}", 2),
                    ("reactive_login_requests_total{job=\"auth\",method=\"auth.register\",code=\"ok\"}", 1),
                    ("reactive_login_auth_registrations_total{job=\"auth\",result=\"registered\"}", 1),
                    ("reactive_login_requests_total{job=\"gateway\",method=\"login\",code=\"ok\"}", 2),
                    ("reactive_login_request_duration_seconds_count{job=\"gateway\",method=\"login\"}", 2),
                    ("sum(reactive_login_build_info)", 4),
                    ("count(reactive_login_health_status{status=\"ready\"} == 1)", 4),
                    ("reactive_login_catalog_heroes{job=\"heroes\"} > bool 0", 1),
                ]
                for (query, value) in expectations {
                    let got = try await prometheus.waitFor(query, toBe: value)
                    let last = got ? [] : try await prometheus.query(query)
                    #expect(got, "\(query) never was \(value): last \(last)")
                }
                // The histogram reads as a latency: a login's p99 over the scrapes is under 10 s.
                let p99 = try await prometheus.query(
                    "histogram_quantile(0.99, sum by (le) (reactive_login_request_duration_seconds_bucket{job=\"auth\",method=\"auth.login\"}))"
                )
                #expect(p99.count == 1 && (p99.first.map { $0 > 0 && $0 <= 10 } ?? false), "p99 \(p99)")
            } catch {
                Issue.record("prometheus log:\n\(prometheus.log)")
                await prometheus.stop()
                throw error
            }
            await prometheus.stop()
        }
    }
}

/// Starts the four with metrics on, runs `body`, stops them.
private func withMetricsStack(_ body: (GatewayStack, TemporaryDirectory) async throws -> Void) async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let stack = try await GatewayStack.start(in: directory, everyServer: PrometheusIntegrationTests.everyServer)
    do {
        try await body(stack, directory)
    } catch {
        Issue.record("logs:\n\(stack.logs)")
        await stack.stop()
        throw error
    }
    await stack.stop()
}

extension GatewayStack {
    /// The four servers, in the order auth, validation, heroes, gateway.
    var servers: [ServiceProcess] { [auth, validation, heroes, gateway] }
}

/// A command run to its end.
enum Tool {
    struct Run {
        let status: Termination?
        let output: String
    }

    /// Runs `executable` with `arguments`, stdout and stderr into one file; up to 30 s.
    static func run(_ executable: String, _ arguments: [String], in directory: TemporaryDirectory) async throws -> Run {
        let log = directory.file("tool-\(UUID().uuidString).log")
        let child = try ChildProcess(executable: executable, arguments: arguments, standardOutput: log, standardError: log)
        let status = await child.waitForExit(timeout: .seconds(30))
        if status == nil { await child.stop() }
        return Run(status: status, output: (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
    }
}

/// Prometheus on a temp directory, with a scrape config for the given targets, stopped by its pid.
struct PrometheusProcess {
    let child: ChildProcess
    let port: Int
    let logPath: String

    static let executable = "/usr/bin/prometheus"

    /// Writes the config (a 1 s scrape interval; one job per target), starts Prometheus on a free
    /// loopback port and waits until it is ready.
    static func start(in directory: TemporaryDirectory, targets: [(job: String, port: Int)]) async throws
        -> PrometheusProcess
    {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw SupportError("\(executable) is missing: `make test` installs Debian's prometheus package")
        }
        var config = "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n"
        for target in targets {
            config += "  - job_name: \(target.job)\n    static_configs:\n      - targets: ['127.0.0.1:\(target.port)']\n"
        }
        let configPath = directory.file("prometheus.yml")
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        let check = try await Tool.run("/usr/bin/promtool", ["check", "config", configPath], in: directory)
        guard check.status == .exited(0) else { throw SupportError("promtool check config: \(check.output)") }
        var attempt = 0
        while true {
            attempt += 1
            let port = try ServiceProcess.freePort()
            let logPath = directory.file("prometheus-\(attempt).log")
            let child = try ChildProcess(
                executable: executable,
                arguments: [
                    "--config.file=\(configPath)", "--storage.tsdb.path=\(directory.file("tsdb-\(attempt)"))",
                    "--web.listen-address=127.0.0.1:\(port)", "--log.level=warn",
                ], standardOutput: logPath, standardError: logPath)
            let prometheus = PrometheusProcess(child: child, port: port, logPath: logPath)
            let ready = await eventually(within: .seconds(30), every: .milliseconds(100)) {
                if child.ended != nil { return true }
                return (try? await HTTPExchange.get("/-/ready", port: port).status) == 200
            }
            if ready, child.ended == nil { return prometheus }
            let log = prometheus.log
            await prometheus.stop()
            if attempt < 3, log.contains("address already in use") { continue }
            throw SupportError("prometheus did not become ready:\n\(log)")
        }
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// The values of an instant query's vector.
    func query(_ expression: String) async throws -> [Double] {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let encoded = expression.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
        let answer = try await HTTPExchange.get("/api/v1/query?query=\(encoded)", port: port)
        guard answer.status == 200,
            let json = try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any],
            let data = json["data"] as? [String: Any], let result = data["result"] as? [[String: Any]]
        else { throw SupportError("query \(expression): \(answer.status) \(answer.text)") }
        return result.compactMap { sample in
            (sample["value"] as? [Any])?.last.flatMap { $0 as? String }.flatMap(Double.init)
        }
    }

    /// Whether `expression` gives exactly one sample equal to `value` within 20 s (scrapes come
    /// every second).
    func waitFor(_ expression: String, toBe value: Double) async throws -> Bool {
        try await eventually(within: .seconds(20), every: .milliseconds(250)) {
            try await query(expression) == [value]
        }
    }

    func stop() async { await child.stop() }
}
