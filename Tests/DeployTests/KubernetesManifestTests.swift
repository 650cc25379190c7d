import Foundation
import Testing

/// One process of the system as the manifests must run it.
struct DeployedProcess {
    let name: String
    let binary: String
    let prefix: String
    let port: Int
    /// Where its metrics listener (`--metrics-listen`) serves /metrics, /healthz and /readyz: the same
    /// port in every deployment (the local stack, systemd, Kubernetes).
    let metricsPort: Int
    let workload: String
}

let processes = [
    DeployedProcess(
        name: "auth", binary: "auth-service", prefix: "AUTH", port: 5562, metricsPort: 9562,
        workload: "Deployment"),
    DeployedProcess(
        name: "validation", binary: "validation-service", prefix: "VALIDATION", port: 5561, metricsPort: 9561,
        workload: "Deployment"),
    DeployedProcess(
        name: "heroes", binary: "hero-catalog-service", prefix: "HEROES", port: 5563, metricsPort: 9563,
        workload: "Deployment"),
    DeployedProcess(
        name: "gateway", binary: "gateway", prefix: "GATEWAY", port: 5560, metricsPort: 9560,
        workload: "Deployment"),
]

/// `object[key]` as a dictionary, array or string, for walking parsed JSON.
extension Dictionary where Key == String, Value == Any {
    func object(_ key: String) -> [String: Any] { self[key] as? [String: Any] ?? [:] }
    func list(_ key: String) -> [[String: Any]] { self[key] as? [[String: Any]] ?? [] }
    func string(_ key: String) -> String? { self[key] as? String }
    func strings(_ key: String) -> [String] { self[key] as? [String] ?? [] }
}

@Suite("Kubernetes manifests", .timeLimit(.minutes(1)))
struct KubernetesManifestTests {
    static let directory = Paths.deploy + "/kubernetes"

    /// Every YAML file in deploy/kubernetes, parsed.
    static func documents() async throws -> [String: [[String: Any]]] {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasSuffix(".yaml") }.sorted().map { directory + "/" + $0 }
        let parsed = try await parseYAML(files)
        return parsed.mapValues { $0.compactMap { $0 as? [String: Any] } }
    }

    @Test("every file parses, and kustomization lists exactly the manifests")
    func parsesAndIsListed() async throws {
        let documents = try await Self.documents()
        #expect(documents.count >= 6)
        for (path, list) in documents {
            #expect(!list.isEmpty, "\(path) has no document")
            for document in list {
                #expect(document.string("kind") != nil, "a document without kind in \(path)")
            }
        }
        let kustomization = try #require(documents[Self.directory + "/kustomization.yaml"]?.first)
        let listed = Set(kustomization.strings("resources"))
        let manifests = Set(documents.keys.map { URL(fileURLWithPath: $0).lastPathComponent })
            .subtracting(["kustomization.yaml"])
        #expect(listed == manifests)
    }

    @Test("one workload and one Service per process, probes over the metrics listener, keys from a Secret")
    func workloads() async throws {
        let all = try await Self.documents().values.flatMap { $0 }
        for process in processes {
            let workloads = all.filter {
                $0.string("kind") == process.workload && $0.object("metadata").string("name") == process.name
            }
            try #require(workloads.count == 1, "\(process.name): expected one \(process.workload)")
            let spec = workloads[0].object("spec").object("template").object("spec")
            #expect(spec.object("securityContext")["runAsNonRoot"] as? Bool == true)
            let container = try #require(spec.list("containers").first { $0.string("name") == process.name })
            #expect(container.strings("command") == ["/usr/local/bin/\(process.binary)"])
            let readiness = container.object("readinessProbe").object("httpGet")
            #expect(readiness.string("path") == "/readyz" && readiness.string("port") == "metrics")
            let liveness = container.object("livenessProbe").object("httpGet")
            #expect(liveness.string("path") == "/healthz" && liveness.string("port") == "metrics")
            #expect(container.list("ports").first?["containerPort"] as? Int == process.port)

            // The state directory: the variable, the mount, and the keys copied into it.
            let environment = Dictionary(
                uniqueKeysWithValues: container.list("env").compactMap { entry in
                    entry.string("name").map { ($0, entry.string("value") ?? "") }
                })
            let state = try #require(environment["\(process.prefix)_STATE_DIR"])
            #expect(environment["\(process.prefix)_ENDPOINT"] == "tcp://0.0.0.0:\(process.port)")
            #expect(container.list("volumeMounts").contains { $0.string("mountPath") == state })
            let secretVolume = try #require(spec.list("volumes").first { $0["secret"] != nil })
            #expect(
                secretVolume.object("secret").string("secretName") == "reactive-login-\(process.name)-keys")
            let initContainer = try #require(spec.list("initContainers").first)
            let mounts = initContainer.list("volumeMounts")
            #expect(
                mounts.contains {
                    $0.string("name") == secretVolume.string("name") && $0["readOnly"] as? Bool == true
                })
            #expect(mounts.contains { $0.string("mountPath") == state })
            #expect(initContainer.strings("command").joined(separator: " ").contains("install -m 0600"))

            let services = all.filter {
                $0.string("kind") == "Service" && $0.object("metadata").string("name") == process.name
            }
            try #require(services.count == 1, "\(process.name): expected one Service")
            let service = services[0].object("spec")
            #expect(service.list("ports").first?["port"] as? Int == process.port)
            #expect(service.object("selector").string("app.kubernetes.io/name") == process.name)
        }
    }

    @Test(
        "each server listens for metrics on its port, named `metrics`, annotated for scraping, on a Service")
    func metricsPorts() async throws {
        let all = try await Self.documents().values.flatMap { $0 }
        for process in processes {
            let deployment = try #require(
                all.first {
                    $0.string("kind") == "Deployment" && $0.object("metadata").string("name") == process.name
                })
            let template = deployment.object("spec").object("template")
            let container = try #require(
                template.object("spec").list("containers").first { $0.string("name") == process.name })
            #expect(
                container.strings("args") == ["--metrics-listen", "0.0.0.0:\(process.metricsPort)"],
                "\(process.name): \(container.strings("args"))")
            let named = container.list("ports").filter { $0.string("name") == "metrics" }
            #expect(named.count == 1 && named.first?["containerPort"] as? Int == process.metricsPort)
            let annotations = template.object("metadata").object("annotations")
            #expect(annotations.string("prometheus.io/scrape") == "true", "\(process.name)")
            #expect(annotations.string("prometheus.io/port") == "\(process.metricsPort)", "\(process.name)")
            #expect(annotations.string("prometheus.io/path") == "/metrics", "\(process.name)")

            // Exactly one Service of the process's pods carries the metrics port; for the gateway it is
            // not the LoadBalancer, which is reachable from outside the cluster.
            let services = all.filter {
                $0.string("kind") == "Service"
                    && $0.object("spec").object("selector").string("app.kubernetes.io/name") == process.name
            }
            let withMetrics = services.filter { service in
                service.object("spec").list("ports").contains { $0.string("name") == "metrics" }
            }
            try #require(
                withMetrics.count == 1, "\(process.name): \(withMetrics.count) Services with metrics")
            let service = withMetrics[0]
            let port = try #require(
                service.object("spec").list("ports").first { $0.string("name") == "metrics" })
            #expect(port["port"] as? Int == process.metricsPort)
            #expect(port["targetPort"] as? String == "metrics")
            #expect(service.object("spec").string("type") != "LoadBalancer", "\(process.name)")
            #expect(
                service.object("metadata").object("labels").string("app.kubernetes.io/name") == process.name)
        }
    }

    @Test("the NetworkPolicies let Prometheus (namespace monitoring) reach every metrics port, and only it")
    func metricsNetworkPolicy() async throws {
        let all = try await Self.documents().values.flatMap { $0 }
        for process in processes {
            let policy = try #require(
                all.first {
                    $0.string("kind") == "NetworkPolicy"
                        && $0.object("metadata").string("name") == process.name
                }, "no NetworkPolicy \(process.name)"
            ).object("spec")
            #expect(
                policy.object("podSelector").object("matchLabels").string("app.kubernetes.io/name")
                    == process.name)
            let rules = policy.list("ingress").filter { rule in
                rule.list("ports").contains { $0["port"] as? Int == process.metricsPort }
            }
            try #require(rules.count == 1, "\(process.name): no single rule for port \(process.metricsPort)")
            let from = rules[0].list("from")
            try #require(from.count == 1, "\(process.name): the metrics port must not be open to all")
            #expect(
                from[0].object("namespaceSelector").object("matchLabels").string(
                    "kubernetes.io/metadata.name")
                    == "monitoring")
            #expect(
                from[0].object("podSelector").object("matchLabels").string("app.kubernetes.io/name")
                    == "prometheus")
            // The service's own port stays reachable by its callers.
            #expect(
                policy.list("ingress").contains {
                    $0.list("ports").contains { $0["port"] as? Int == process.port }
                })
        }
    }

    @Test(
        "the servicemonitor component renders with kubectl kustomize, and its ServiceMonitor scrapes every server",
        .enabled(if: commandOnPath("kubectl") != nil, "kubectl is not installed"))
    func serviceMonitorComponent() async throws {
        let kubectl = try #require(commandOnPath("kubectl"))
        let component = try #require(
            try await parseYAML([Self.directory + "/components/servicemonitor/kustomization.yaml"]).values
                .first?
                .first as? [String: Any])
        #expect(component.string("kind") == "Component")
        #expect(component.string("apiVersion") == "kustomize.config.k8s.io/v1alpha1")

        let result = try await runCommand(
            kubectl, ["kustomize", Paths.deploy + "/kubernetes-servicemonitor"])
        #expect(result.status == 0, "\(result.error)")
        let rendered = try await parseRendered(result.output)
        let base = try await runCommand(kubectl, ["kustomize", Self.directory])
        #expect(try await parseRendered(base.output).count == rendered.count - 1)
        let monitors = rendered.filter { $0.string("kind") == "ServiceMonitor" }
        try #require(monitors.count == 1)
        let monitor = monitors[0]
        #expect(monitor.string("apiVersion") == "monitoring.coreos.com/v1")
        #expect(monitor.object("metadata").string("namespace") == "reactive-login")
        let spec = monitor.object("spec")
        // Jobs named as deploy/prometheus/rules.yml expects: the Service's app.kubernetes.io/name.
        #expect(spec.string("jobLabel") == "app.kubernetes.io/name")
        let endpoints = spec.list("endpoints")
        #expect(endpoints.map { $0.string("port") } == ["metrics"])
        #expect(endpoints.first?.string("path") == "/metrics")

        /// Whether a label selector (matchLabels and In/NotIn/Exists matchExpressions) selects `labels`.
        func selects(_ selector: [String: Any], _ labels: [String: Any]) -> Bool {
            let matchLabels = selector.object("matchLabels")
            guard matchLabels.allSatisfy({ labels[$0.key] as? String == $0.value as? String }) else {
                return false
            }
            return selector.list("matchExpressions").allSatisfy { expression in
                let value = expression.string("key").flatMap { labels[$0] as? String }
                let values = expression.strings("values")
                switch expression.string("operator") {
                case "In": return value.map(values.contains) ?? false
                case "NotIn": return value.map { !values.contains($0) } ?? true
                case "Exists": return value != nil
                case "DoesNotExist": return value == nil
                default: return false
                }
            }
        }
        let services = rendered.filter { $0.string("kind") == "Service" }
        let scraped = services.filter { service in
            selects(spec.object("selector"), service.object("metadata").object("labels"))
                && service.object("spec").list("ports").contains { $0.string("name") == "metrics" }
        }
        #expect(
            Set(
                scraped.compactMap { $0.object("metadata").object("labels").string("app.kubernetes.io/name") }
            )
                == Set(processes.map(\.name)))
        #expect(
            scraped.count == processes.count, "\(scraped.map { $0.object("metadata").string("name") ?? "" })")
        #expect(
            !services.contains {
                $0.object("metadata").string("name") == "postgres"
                    && selects(spec.object("selector"), $0.object("metadata").object("labels"))
            })
        #expect(
            rendered.filter { $0.string("kind") != "Namespace" }.allSatisfy {
                $0.object("metadata").string("namespace") == "reactive-login"
            })
    }

    @Test("auth runs several replicas on the shared PostgreSQL, spread over nodes, with a disruption budget")
    func authReplicas() async throws {
        let all = try await Self.documents().values.flatMap { $0 }
        func named(_ kind: String, _ name: String) -> [String: Any]? {
            all.first { $0.string("kind") == kind && $0.object("metadata").string("name") == name }
        }
        let auth = try #require(named("Deployment", "auth")).object("spec")
        let replicas = try #require(auth["replicas"] as? Int)
        #expect(replicas > 1)
        // No volume of its own: the accounts are in the database, not in the pod.
        #expect(auth.list("volumeClaimTemplates").isEmpty)
        let pod = auth.object("template").object("spec")
        let container = try #require(pod.list("containers").first { $0.string("name") == "auth" })
        let database = try #require(container.list("env").first { $0.string("name") == "AUTH_DATABASE" })
        let reference = database.object("valueFrom").object("secretKeyRef")
        #expect(reference.string("name") == "reactive-login-database")
        #expect(reference.string("key") == "url")
        #expect(database["value"] == nil, "the database URL (with its password) belongs in a Secret")

        let preferred = pod.object("affinity").object("podAntiAffinity")
            .list("preferredDuringSchedulingIgnoredDuringExecution")
        let term = try #require(preferred.first).object("podAffinityTerm")
        #expect(term.string("topologyKey") == "kubernetes.io/hostname")
        #expect(term.object("labelSelector").object("matchLabels").string("app.kubernetes.io/name") == "auth")

        let budget = try #require(named("PodDisruptionBudget", "auth")).object("spec")
        #expect(budget.object("selector").object("matchLabels").string("app.kubernetes.io/name") == "auth")
        let allowed =
            (budget["maxUnavailable"] as? Int).map { $0 < replicas }
            ?? (budget["minAvailable"] as? Int).map { $0 >= 1 && $0 < replicas }
        #expect(allowed == true, "the budget must let one replica go and keep one")

        // Every caller names the headless Service, which it resolves into one replica per pod.
        for caller in ["validation", "heroes", "gateway"] {
            let spec = try #require(named("Deployment", caller)).object("spec").object("template").object(
                "spec")
            let values = spec.list("containers").flatMap { $0.list("env") }.compactMap { $0.string("value") }
            #expect(values.contains("tcp://auth:5562"), "\(caller) does not reach auth by its headless name")
        }
    }

    @Test("auth, validation and heroes have headless Services; PostgreSQL keeps its data and password safe")
    func headlessAndDatabase() async throws {
        let all = try await Self.documents().values.flatMap { $0 }
        func named(_ kind: String, _ name: String) -> [String: Any]? {
            all.first { $0.string("kind") == kind && $0.object("metadata").string("name") == name }
        }
        for name in ["auth", "validation", "heroes", "postgres"] {
            let service = try #require(named("Service", name), "no Service \(name)").object("spec")
            #expect(service.string("clusterIP") == "None", "\(name)'s Service is not headless")
        }
        let postgres = try #require(named("StatefulSet", "postgres")).object("spec")
        #expect(postgres["replicas"] as? Int == 1)
        #expect(postgres.list("volumeClaimTemplates").first?.object("metadata").string("name") == "data")
        let pod = postgres.object("template").object("spec")
        #expect(pod.object("securityContext")["runAsNonRoot"] as? Bool == true)
        let container = try #require(pod.list("containers").first)
        #expect(container.string("image")?.hasPrefix("postgres:15") == true)
        let password = try #require(container.list("env").first { $0.string("name") == "POSTGRES_PASSWORD" })
        #expect(
            password.object("valueFrom").object("secretKeyRef").string("name") == "reactive-login-database")
        #expect(container.list("volumeMounts").contains { $0.string("name") == "data" })

        // Only auth reaches PostgreSQL.
        let policy = try #require(named("NetworkPolicy", "postgres")).object("spec")
        #expect(
            policy.object("podSelector").object("matchLabels").string("app.kubernetes.io/name") == "postgres")
        let from = policy.list("ingress").flatMap { $0.list("from") }
        #expect(
            from.map { $0.object("podSelector").object("matchLabels").string("app.kubernetes.io/name") } == [
                "auth"
            ])
        #expect(policy.list("ingress").flatMap { $0.list("ports") }.first?["port"] as? Int == 5432)
    }

    @Test("peers are reached by Service name on their ports")
    func peerEndpoints() async throws {
        let all = try await Self.documents().values.flatMap { $0 }
        var values: [String] = []
        for document in all where document.string("kind") == "Deployment" {
            for container in document.object("spec").object("template").object("spec").list("containers") {
                values += container.list("env").compactMap { $0.string("value") }
            }
        }
        let endpoints = values.flatMap { $0.split(separator: ",").map(String.init) }
        for endpoint in ["tcp://auth:5562", "tcp://validation:5561", "tcp://heroes:5563"] {
            #expect(endpoints.contains(endpoint), "nobody reaches \(endpoint)")
        }
    }

    @Test(
        "kubectl kustomize renders the whole set offline",
        .enabled(if: commandOnPath("kubectl") != nil, "kubectl is not installed"))
    func kustomize() async throws {
        let result = try await runCommand(
            try #require(commandOnPath("kubectl")), ["kustomize", Self.directory])
        #expect(result.status == 0, "\(result.error)")
        let rendered = try await parseRendered(result.output)
        let kinds = rendered.compactMap { $0.string("kind") }
        #expect(kinds.filter { $0 == "Service" }.count == 6)
        #expect(kinds.filter { $0 == "Deployment" }.count == 4)
        #expect(kinds.filter { $0 == "StatefulSet" }.count == 1)
        #expect(kinds.filter { $0 == "PodDisruptionBudget" }.count == 1)
        let namespaced = rendered.filter { $0.string("kind") != "Namespace" }
        #expect(namespaced.allSatisfy { $0.object("metadata").string("namespace") == "reactive-login" })

        // The overlay for an external database: the same set without PostgreSQL.
        let external = try await runCommand(
            try #require(commandOnPath("kubectl")),
            ["kustomize", Paths.deploy + "/kubernetes-external-database"])
        #expect(external.status == 0, "\(external.error)")
        let withoutDatabase = try await parseRendered(external.output)
        #expect(withoutDatabase.count == rendered.count - 3)
        #expect(!withoutDatabase.contains { $0.object("metadata").string("name") == "postgres" })
        #expect(
            withoutDatabase.contains {
                $0.string("kind") == "Deployment" && $0.object("metadata").string("name") == "auth"
            })
    }

    @Test(
        "kubectl apply --dry-run=client accepts every manifest",
        .enabled(
            Comment(
                rawValue: "kubectl apply --dry-run=client needs an API server for discovery even with "
                    + "--validate=false; none answers here (kubectl kustomize and create secret "
                    + "--dry-run=client run offline instead)")
        ) { await kubectlReachesServer() })
    func dryRun() async throws {
        let kubectl = try #require(commandOnPath("kubectl"))
        let result = try await runCommand(
            kubectl, ["apply", "--dry-run=client", "--validate=false", "-k", Self.directory])
        #expect(result.status == 0, "\(result.error)")
    }

    @Test(
        "secrets.sh makes the Secrets the workloads mount, with the public keys exchanged",
        .enabled(if: commandOnPath("kubectl") != nil, "kubectl is not installed"))
    func secrets() async throws {
        let keys = try TemporaryDirectory(prefix: "keys")
        defer { keys.remove() }
        // The gateway is not part of this build: the three services.
        let result = try await runCommand(
            Self.directory + "/secrets.sh", [],
            environment: [
                "BIN_DIR": Paths.binaries, "KEYS_DIR": keys.path, "STACK_SERVICES": "auth validation heroes",
            ])
        #expect(result.status == 0, "\(result.error)")
        let secrets = try await parseRendered(result.output)
        func data(_ name: String, secret secretName: String? = nil) throws -> [String: String] {
            let wanted = secretName ?? "reactive-login-\(name)-keys"
            let secret = try #require(secrets.first { $0.object("metadata").string("name") == wanted })
            #expect(secret.string("kind") == "Secret")
            return secret.object("data").compactMapValues { value in
                (value as? String).flatMap { Data(base64Encoded: $0) }.map {
                    String(decoding: $0, as: UTF8.self)
                }
            }
        }
        let auth = try data("auth")
        let validation = try data("validation")
        let heroes = try data("heroes")
        for files in [auth, validation, heroes] {
            #expect(
                Set(["curve.key", "curve.pub", "client.key", "client.pub", "allowed_clients"]).isSubset(
                    of: files.keys))
        }
        #expect(validation["auth.pub"] == auth["curve.pub"])
        // One device-token secret for every auth replica, and the database's password and URL.
        #expect(auth["device.key"]?.trimmingCharacters(in: .newlines).count == 43)
        let database = try data("database", secret: "reactive-login-database")
        let password = try #require(database["password"])
        #expect(password.count >= 32)
        #expect(database["url"] == "postgresql://auth:\(password)@postgres:5432/accounts")
        #expect(heroes["auth.pub"] == auth["curve.pub"])
        let allowed = auth["allowed_clients"] ?? ""
        for client in [validation, heroes] {
            let key = (client["client.pub"] ?? "").trimmingCharacters(in: .newlines)
            #expect(key.count == 40)
            #expect(allowed.contains(key))
        }
        // What the workloads mount is what the script makes.
        let mounted = try await Self.documents().values.flatMap { $0 }.flatMap { document in
            document.object("spec").object("template").object("spec").list("volumes")
                .compactMap { $0.object("secret").string("secretName") }
        }
        for name in ["auth", "validation", "heroes"] {
            #expect(mounted.contains("reactive-login-\(name)-keys"))
        }
    }

    /// deploy/kubernetes/loadtest: the generators' Indexed Job, their results claim and NetworkPolicy.
    static let loadTestDirectory = directory + "/loadtest"

    /// `kubectl kustomize directory`, parsed.
    private func render(_ directory: String) async throws -> [[String: Any]] {
        let result = try await runCommand(try #require(commandOnPath("kubectl")), ["kustomize", directory])
        try #require(result.status == 0, "kubectl kustomize \(directory): \(result.error)")
        return try await parseRendered(result.output)
    }

    /// The value after `flag` in `arguments`.
    private func value(of flag: String, in arguments: [String]) -> String? {
        arguments.firstIndex(of: flag).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
    }

    @Test(
        "the load-test Job is Indexed, N pods at once, each `--shard $(JOB_COMPLETION_INDEX)/N` against auth's Service, each writing its own file on a shared claim",
        .enabled(if: commandOnPath("kubectl") != nil, "kubectl is not installed"))
    func loadTestJob() async throws {
        let rendered = try await render(Self.loadTestDirectory)
        func named(_ kind: String, _ name: String) -> [String: Any]? {
            rendered.first { $0.string("kind") == kind && $0.object("metadata").string("name") == name }
        }
        #expect(rendered.allSatisfy { $0.object("metadata").string("namespace") == "reactive-login" })
        // Its own set: the base lists no part of it.
        let base = try #require(
            try await parseYAML([Self.directory + "/kustomization.yaml"]).values.first?.first
                as? [String: Any])
        #expect(!base.strings("resources").contains { $0.contains("loadtest") })

        let job = try #require(named("Job", "auth-loadtest")).object("spec")
        #expect(job.string("completionMode") == "Indexed")
        let completions = try #require(job["completions"] as? Int)
        #expect(completions == 3)
        #expect(job["parallelism"] as? Int == completions)
        let pod = job.object("template").object("spec")
        #expect(pod.string("restartPolicy") == "Never")
        let container = try #require(pod.list("containers").first { $0.string("name") == "auth-loadtest" })
        #expect(container.strings("command") == ["/usr/local/bin/auth-loadtest"])
        let arguments = container.strings("args")
        #expect(
            value(of: "--shard", in: arguments) == "$(JOB_COMPLETION_INDEX)/\(completions)", "\(arguments)")
        #expect(value(of: "--concurrency", in: arguments) != nil || value(of: "--rate", in: arguments) != nil)
        let environment = container.list("env")
        if let index = environment.first(where: { $0.string("name") == "JOB_COMPLETION_INDEX" }) {
            #expect(
                index.object("valueFrom").object("fieldRef").string("fieldPath")
                    == "metadata.annotations['batch.kubernetes.io/job-completion-index']")
        }

        // Against the auth Service of the base, by its name and port.
        let baseRendered = try await render(Self.directory)
        let authService = try #require(
            baseRendered.first {
                $0.string("kind") == "Service" && $0.object("metadata").string("name") == "auth"
            })
        let authPort = try #require(
            authService.object("spec").list("ports").first { $0.string("name") == "zmq" }?["port"] as? Int)
        #expect(value(of: "--endpoint", in: arguments) == "tcp://auth:\(authPort)")
        #expect(arguments.contains("--allow-remote"))

        // The image of the other manifests, after kustomize.
        let images = Set(
            baseRendered.filter { $0.string("kind") == "Deployment" }.flatMap {
                $0.object("spec").object("template").object("spec").list("containers").compactMap {
                    $0.string("image")
                }
            })
        #expect(images.count == 1, "\(images)")
        #expect(container.string("image") == images.first)

        // Each pod writes its own file on the shared, ReadWriteMany claim.
        let json = try #require(value(of: "--json", in: arguments))
        #expect(json.contains("$(JOB_COMPLETION_INDEX)"), "\(json)")
        let resultsVolume = try #require(pod.list("volumes").first { $0["persistentVolumeClaim"] != nil })
        let claimName = try #require(resultsVolume.object("persistentVolumeClaim").string("claimName"))
        let claim = try #require(named("PersistentVolumeClaim", claimName), "no claim \(claimName)")
        #expect(claim.object("spec").strings("accessModes").contains("ReadWriteMany"))
        let mount = try #require(
            container.list("volumeMounts").first { $0.string("name") == resultsVolume.string("name") })
        let mountPath = try #require(mount.string("mountPath"))
        #expect(json.hasPrefix(mountPath + "/"), "\(json) is not on \(mountPath)")
        #expect(json == "/results/shard-$(JOB_COMPLETION_INDEX).json")

        // CURVE: the server's public key and a client key auth admits, never auth's server secret.
        let serverKey = try #require(environment.first { $0.string("name") == "AUTH_SERVER_KEY" })
        let reference = serverKey.object("valueFrom").object("secretKeyRef")
        #expect(
            reference.string("name") == "reactive-login-auth-keys" && reference.string("key") == "curve.pub")
        #expect(value(of: "--server-key", in: arguments) == "$(AUTH_SERVER_KEY)")
        let keys = try #require(pod.list("volumes").first { $0["secret"] != nil }).object("secret")
        #expect(keys.string("secretName") == "reactive-login-auth-keys")
        #expect(keys.list("items").compactMap { $0.string("key") } == ["client.key"])
        #expect(value(of: "--client-key", in: arguments)?.hasSuffix("/client.key") == true)

        // Locked down as the servers are, with resources.
        #expect(pod.object("securityContext")["runAsNonRoot"] as? Bool == true)
        #expect(pod.object("securityContext").object("seccompProfile").string("type") == "RuntimeDefault")
        let security = container.object("securityContext")
        #expect(security["allowPrivilegeEscalation"] as? Bool == false)
        #expect(security["readOnlyRootFilesystem"] as? Bool == true)
        #expect(security.object("capabilities").strings("drop") == ["ALL"])
        #expect(container.object("resources").object("requests").string("cpu") != nil)
        #expect(container.object("resources").object("limits").string("memory") != nil)

        // auth's NetworkPolicy admits only its callers: a policy of this set adds the generators.
        let labels = job.object("template").object("metadata").object("labels")
        let policies = rendered.filter { $0.string("kind") == "NetworkPolicy" }.map { $0.object("spec") }
        #expect(
            policies.contains { policy in
                policy.object("podSelector").object("matchLabels").string("app.kubernetes.io/name") == "auth"
                    && policy.list("ingress").contains { rule in
                        rule.list("ports").contains { $0["port"] as? Int == authPort }
                            && rule.list("from").contains { peer in
                                let wanted = peer.object("podSelector").object("matchLabels")
                                return !wanted.isEmpty
                                    && wanted.allSatisfy { labels[$0.key] as? String == $0.value as? String }
                            }
                    }
            }, "no NetworkPolicy lets the generators' pods reach auth on \(authPort)")
    }

    @Test(
        "the number of generators is one field: completions set to 5 makes parallelism 5 and --shard I/5",
        .enabled(if: commandOnPath("kubectl") != nil, "kubectl is not installed"))
    func loadTestGeneratorCount() async throws {
        let copy = try TemporaryDirectory(prefix: "loadtestjob")
        defer { copy.remove() }
        for name in try FileManager.default.contentsOfDirectory(atPath: Self.loadTestDirectory)
        where name.hasSuffix(".yaml") {
            var text = try String(contentsOfFile: Self.loadTestDirectory + "/" + name, encoding: .utf8)
            if name == "job.yaml" {
                #expect(text.contains("\n  completions: 3\n"))
                text = text.replacingOccurrences(of: "\n  completions: 3\n", with: "\n  completions: 5\n")
            }
            try text.write(toFile: copy.file(name), atomically: true, encoding: .utf8)
        }
        let job = try #require(
            try await render(copy.path).first {
                $0.string("kind") == "Job" && $0.object("metadata").string("name") == "auth-loadtest"
            }
        ).object("spec")
        #expect(job["completions"] as? Int == 5)
        #expect(job["parallelism"] as? Int == 5)
        let container = try #require(job.object("template").object("spec").list("containers").first)
        #expect(value(of: "--shard", in: container.strings("args")) == "$(JOB_COMPLETION_INDEX)/5")
    }

    @Test(
        "the merge Job reads every generator's file from the same claim and writes the merged run beside them",
        .enabled(if: commandOnPath("kubectl") != nil, "kubectl is not installed"))
    func loadTestMerge() async throws {
        let generators = try #require(
            try await render(Self.loadTestDirectory).first { $0.string("kind") == "Job" }
        ).object("spec").object("template").object("spec")
        let generator = try #require(generators.list("containers").first)
        let json = try #require(value(of: "--json", in: generator.strings("args")))
        let claim = generators.list("volumes").compactMap {
            $0.object("persistentVolumeClaim").string("claimName")
        }.first

        let rendered = try await render(Self.loadTestDirectory + "/merge")
        #expect(rendered.allSatisfy { $0.object("metadata").string("namespace") == "reactive-login" })
        let job = try #require(
            rendered.first {
                $0.string("kind") == "Job" && $0.object("metadata").string("name") == "auth-loadtest-merge"
            }
        ).object("spec")
        let pod = job.object("template").object("spec")
        let container = try #require(pod.list("containers").first)
        #expect(container.string("image") == generator.string("image"))
        // A shell expands the glob: one pattern for every index the generators write.
        let command = container.strings("command") + container.strings("args")
        #expect(Array(command.prefix(2)) == ["/bin/sh", "-c"], "\(command)")
        let script = command.dropFirst(2).joined(separator: " ")
        let pattern = json.replacingOccurrences(of: "$(JOB_COMPLETION_INDEX)", with: "*")
        #expect(script.contains("auth-loadtest merge \(pattern) "), "\(script)")
        #expect(script.contains("--json /results/merged.json"), "\(script)")
        let volume = try #require(pod.list("volumes").first { $0["persistentVolumeClaim"] != nil })
        #expect(volume.object("persistentVolumeClaim").string("claimName") == claim)
        let mount = try #require(
            container.list("volumeMounts").first { $0.string("name") == volume.string("name") })
        #expect(pattern.hasPrefix((mount.string("mountPath") ?? "?") + "/"))
        #expect(pod.object("securityContext")["runAsNonRoot"] as? Bool == true)
        #expect(container.object("securityContext")["readOnlyRootFilesystem"] as? Bool == true)
    }

    /// The YAML stream kubectl printed, parsed.
    private func parseRendered(_ text: String) async throws -> [[String: Any]] {
        let directory = try TemporaryDirectory(prefix: "kustomize")
        defer { directory.remove() }
        let path = directory.file("rendered.yaml")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return (try await parseYAML([path])[path] ?? []).compactMap { $0 as? [String: Any] }
    }
}

/// Whether kubectl reaches an API server (what `apply --dry-run=client` needs for discovery).
func kubectlReachesServer() async -> Bool {
    guard let kubectl = commandOnPath("kubectl"),
        let result = try? await runCommand(
            kubectl, ["version", "--request-timeout=3s", "-o", "json"], timeLimit: .seconds(10))
    else { return false }
    return result.status == 0
}
