import Contracts
import Foundation
import TestSupport
import Testing

/// deploy/prometheus/: the scrape configs and rules pass promtool (Debian's `prometheus` package,
/// which `make test` installs), the rules' unit tests pass, and every metric, method and code the
/// rules name is one the servers have.
@Suite("deploy/prometheus", .timeLimit(.minutes(2)))
struct PrometheusConfigTests {
    static let directory = Paths.deploy + "/prometheus"

    /// promtool, or a failure that says how to get it.
    static func promtool() throws -> String {
        guard let promtool = commandOnPath("promtool") else {
            throw SupportError(
                "promtool is not on PATH: `make test` (through `make deps`) installs Debian's prometheus "
                    + "package, which has it")
        }
        return promtool
    }

    @Test("promtool check config accepts prometheus.yml and the rules it loads")
    func checkConfig() async throws {
        let result = try await runCommand(
            try Self.promtool(), ["check", "config", Self.directory + "/prometheus.yml"])
        #expect(result.status == 0, "\(result.output)\(result.error)")
        #expect(
            result.output.contains("rules.yml"), "prometheus.yml does not load rules.yml: \(result.output)")
    }

    @Test("prometheus.yml scrapes the four servers on the loopback metrics ports, one job each")
    func staticTargets() async throws {
        let config = try #require(
            try await parseYAML([Self.directory + "/prometheus.yml"]).values.first?.first as? [String: Any])
        let jobs = Dictionary(
            uniqueKeysWithValues: config.list("scrape_configs").compactMap { job in
                job.string("job_name").map {
                    ($0, job.list("static_configs").flatMap { $0.strings("targets") })
                }
            })
        for process in processes {
            #expect(jobs[process.name] == ["127.0.0.1:\(process.metricsPort)"], "\(process.name): \(jobs)")
        }
    }

    @Test(
        "prometheus-kubernetes.yml passes promtool (its pod discovery swapped for a static target where promtool lacks it)"
    )
    func checkKubernetesConfig() async throws {
        let promtool = try Self.promtool()
        let path = Self.directory + "/prometheus-kubernetes.yml"
        let config = try #require(try await parseYAML([path]).values.first?.first as? [String: Any])
        let job = try #require(config.list("scrape_configs").first)
        let discovery = try #require(job.list("kubernetes_sd_configs").first)
        #expect(discovery.string("role") == "pod")
        #expect(discovery.object("namespaces").strings("names") == ["reactive-login"])
        let relabel = job.list("relabel_configs")
        #expect(
            relabel.contains {
                $0.strings("source_labels") == ["__meta_kubernetes_pod_annotation_prometheus_io_scrape"]
                    && $0.string("action") == "keep"
            })
        #expect(
            relabel.contains {
                $0.strings("source_labels") == ["__meta_kubernetes_pod_label_app_kubernetes_io_name"]
                    && $0.string("target_label") == "job"
            }, "the job must be the pod's app.kubernetes.io/name, as rules.yml expects")

        let direct = try await runCommand(promtool, ["check", "config", path])
        if direct.status == 0 { return }
        // Debian builds Prometheus without Kubernetes discovery: check everything else of the file.
        try #require(
            (direct.output + direct.error).contains("kubernetes_sd_configs not found"),
            "\(direct.output)\(direct.error)")
        let scratch = try TemporaryDirectory(prefix: "promk8s")
        defer { scratch.remove() }
        let copy = scratch.file("prometheus.yml")
        let swap = """
            import json, os, sys, yaml
            source, target = sys.argv[1], sys.argv[2]
            config = yaml.safe_load(open(source))
            for job in config["scrape_configs"]:
                job.pop("kubernetes_sd_configs")
                job["static_configs"] = [{"targets": ["127.0.0.1:9"]}]
            directory = os.path.dirname(os.path.abspath(source))
            config["rule_files"] = [os.path.join(directory, f) for f in config.get("rule_files", [])]
            json.dump(config, open(target, "w"))
            """
        let python = try #require(commandOnPath("python3"))
        let swapped = try await runCommand(python, ["-c", swap, path, copy])
        try #require(swapped.status == 0, "\(swapped.error)")
        let result = try await runCommand(promtool, ["check", "config", copy])
        #expect(result.status == 0, "\(result.output)\(result.error)")
    }

    @Test("promtool check rules accepts rules.yml, and promtool test rules passes rules.test.yml")
    func rules() async throws {
        let promtool = try Self.promtool()
        let check = try await runCommand(promtool, ["check", "rules", Self.directory + "/rules.yml"])
        #expect(check.status == 0, "\(check.output)\(check.error)")
        let test = try await runCommand(promtool, ["test", "rules", Self.directory + "/rules.test.yml"])
        #expect(test.status == 0, "\(test.output)\(test.error)")
        #expect(test.output.contains("SUCCESS"), "\(test.output)")
    }

    @Test("rules.test.yml makes every alert of rules.yml fire, and checks it silent too")
    func everyAlertTested() async throws {
        let rules = try #require(
            try await parseYAML([Self.directory + "/rules.yml"]).values.first?.first as? [String: Any])
        let alerts = Set(rules.list("groups").flatMap { $0.list("rules") }.compactMap { $0.string("alert") })
        #expect(
            alerts == [
                "ReactiveLoginLoginLatencyHigh", "ReactiveLoginErrorRatioHigh", "ReactiveLoginDegraded",
                "ReactiveLoginTargetDown",
            ])
        let tests = try #require(
            try await parseYAML([Self.directory + "/rules.test.yml"]).values.first?.first as? [String: Any])
        let cases = tests.list("tests").flatMap { $0.list("alert_rule_test") }
        for alert in alerts {
            let mine = cases.filter { $0.string("alertname") == alert }
            #expect(mine.contains { !$0.list("exp_alerts").isEmpty }, "\(alert) is never expected to fire")
            #expect(
                mine.contains { ($0["exp_alerts"] as? [Any])?.isEmpty == true },
                "\(alert) is never expected to stay silent")
        }
    }

    @Test("the methods and codes rules.yml names are the servers' own")
    func methodsAndCodes() throws {
        let text = contents(Self.directory + "/rules.yml")
        // The login methods of the latency rule, as a PromQL regex in YAML (`auth\\.login`).
        let methods = try #require(firstCapture(#"method=~"([^"]+)""#, in: text))
            .replacingOccurrences(of: "\\\\.", with: ".").split(separator: "|").map(String.init)
        #expect(
            Set(methods)
                == [Methods.Command.login.name, Methods.Command.signin.name, Methods.Auth.login.name])
        // The codes the error ratio leaves out: outcomes the servers count, and ERROR codes of
        // docs/PROTOCOL.md's table.
        let excluded = try #require(firstCapture(#"code!~"([^"]+)""#, in: text)).split(separator: "|")
            .map(String.init)
        let protocolText = contents(Paths.inRepository("docs/PROTOCOL.md"))
        let section = try #require(protocolText.range(of: "## Error codes"))
        let documented = Set(
            protocolText[section.upperBound...].split(separator: "\n").prefix(20).compactMap { line in
                firstCapture(#"^\| `([a-z_]+)` \|"#, in: String(line))
            })
        #expect(documented.count >= 10, "\(documented)")
        #expect(excluded.contains("ok") && excluded.contains("cancelled"))
        for code in excluded where code != "ok" && code != "cancelled" {
            #expect(documented.contains(code), "\(code) is not an error code of docs/PROTOCOL.md")
        }
        for code in ["internal", "unavailable", "timeout", "overloaded"] {
            #expect(!excluded.contains(code), "\(code) is a server's failure, not a user's refusal")
        }
    }

    @Test(
        "every metric rules.yml names is in a server's /metrics (the four started by stack.sh)",
        .enabled(
            if: ["auth-service", "validation-service", "hero-catalog-service", "gateway"].allSatisfy {
                FileManager.default.isExecutableFile(atPath: Paths.binaries + "/" + $0)
            }, "the servers are not part of this build"))
    func metricNamesExist() async throws {
        let text = contents(Self.directory + "/rules.yml")
        // Metric names, not the recorded series (`job:reactive_login_requests:rate5m`) that contain them.
        let used = Set(captures(#"(?<![:\w])(reactive_login_[a-z0-9_]+)"#, in: text))
        #expect(used.contains("reactive_login_requests_total"))
        #expect(text.contains("up{job="))

        let stack = try LocalStack(services: ["auth", "validation", "heroes", "gateway"])
        defer { stack.tearDown() }
        let up = try await stack.run("up")
        try #require(up.status == 0, "up failed: \(up.output)\(up.error)")
        let status = try await stack.run("status")
        var families: [String: [String: String]] = [:]  // server → family name → type
        for line in status.output.split(separator: "\n") {
            let words = line.split(separator: " ").map(String.init)
            let url = try #require(words.last, "\(line)")
            let port = try #require(
                firstCapture(#"^http://127\.0\.0\.1:([0-9]+)/metrics$"#, in: url).flatMap { Int($0) },
                "\(line)")
            let answer = try await HTTPExchange.get("/metrics", port: port)
            #expect(answer.status == 200)
            for type in answer.text.split(separator: "\n") where type.hasPrefix("# TYPE ") {
                let parts = type.split(separator: " ")
                if parts.count == 4 { families[words[0], default: [:]][String(parts[2])] = String(parts[3]) }
            }
        }
        #expect(Set(families.keys) == Set(stack.services))
        let exposed = families.values.reduce(into: [String: String]()) { $0.merge($1) { first, _ in first } }
        for name in used.sorted() {
            let histogram = ["_bucket", "_sum", "_count"].compactMap { suffix in
                name.hasSuffix(suffix) ? String(name.dropLast(suffix.count)) : nil
            }.first { exposed[$0] == "histogram" }
            #expect(
                exposed[name] != nil || histogram != nil, "rules.yml names \(name), which no server exposes")
        }
        // The families the alerts rest on, on every server.
        for (server, names) in families {
            for name in [
                "reactive_login_requests_total", "reactive_login_request_duration_seconds",
                "reactive_login_health_status",
            ] {
                #expect(names[name] != nil, "\(server) has no \(name)")
            }
        }
        let down = try await stack.run("down")
        #expect(down.status == 0, "\(down.output)\(down.error)")
    }
}

/// The first capture group of `pattern`'s first match in `text`.
private func firstCapture(_ pattern: String, in text: String) -> String? {
    captures(pattern, in: text).first
}

/// The first capture group of each match of `pattern` in `text`.
private func captures(_ pattern: String, in text: String) -> [String] {
    guard let expression = try? NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines]) else {
        return []
    }
    let range = NSRange(text.startIndex..., in: text)
    return expression.matches(in: text, range: range).compactMap { match in
        Range(match.range(at: 1), in: text).map { String(text[$0]) }
    }
}
