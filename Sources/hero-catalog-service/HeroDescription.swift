import Foundation
import HeroCatalogCore
import Metrics
import RemoteStreams
import ServiceKit
import Synchronization
import ZeroMQ

/// hero-catalog-service's own part of the process. Once per process: the catalog (`--catalog`,
/// read-only, reloaded on SIGHUP into every shard). Per shard: the client to auth-service that
/// checks tokens and the token cache, on the shard's loop, the catalog's graphs, and the probe of
/// auth-service's health.
struct HeroDescription: HostedService {
    let configuration: Configuration

    func open(on process: ProcessResources) async throws -> Shared {
        // Read before anything listens: a bad file is an error at start-up.
        let catalogPath = configuration[HeroOptions.catalog]
        let catalog =
            try catalogPath.map { path in try CatalogLoader.load(path: path) }
            ?? HeroCatalog(heroes: CatalogLoader.decode(Data(BuiltInCatalog.json.utf8), as: .json))
        return Shared(
            catalog: catalog, catalogPath: catalogPath, logger: process.logger,
            listening: [
                "catalog": .string(catalogPath ?? "built-in"), "heroes": .integer(catalog.heroes.count),
            ])
    }

    func start(on host: HostResources, shared: Shared, handlers: inout RemoteHandlers) async throws -> Running {
        typealias O = HeroOptions
        let logger = host.logger
        var authCurve: RemoteClient.Curve?
        if configuration[O.authCurve].isOn {
            if host.shard == 0, configuration[O.authPublicKey] == nil, configuration[O.authServerKey] != nil {
                logger.warning("--auth-server-key is deprecated: use --auth-public-key")
            }
            let keyPath =
                configuration[O.authPublicKey] ?? configuration[O.authServerKey]
                ?? host.state.file("auth.pub")
            let serverKey: [UInt8]
            do {
                serverKey = try CurveKeyFiles.publicKey(at: keyPath)
            } catch {
                throw StartError(
                    "\(keyPath): cannot read auth-service's public key (\(error)); give it with "
                        + "--auth-public-key, or use --auth-curve off on a trusted loopback")
            }
            let own = try CurveKeyFiles.clientKeys(in: host.state)
            authCurve = RemoteClient.Curve(serverKey: serverKey, keys: own)
            if host.shard == 0 {
                logger.notice(
                    "auth client key",
                [
                    "public": .string((try? Z85.encode(own.publicKey)) ?? "?"),
                        "hint": "list it in auth's allowed_clients",
                    ])
            }
        }
        let authEndpoints = configuration[O.authEndpoint].map(\.description)
        let authEndpoint = authEndpoints.joined(separator: ",")
        let deadline = configuration[O.authDeadline]
        let auth = try RemoteClient(
            context: host.context, loop: host.loop,
            configuration: .init(
                endpoints: authEndpoints, deadline: deadline, name: "heroes-auth", curve: authCurve,
                discoversShards: true))
        let cache = CachingTokenVerifier(
            RemoteTokenVerifier(client: auth, deadline: deadline), lifetime: configuration[O.tokenCache])
        let service = HeroCatalogService(catalog: shared.catalog, verifier: cache, loop: host.loop)
        shared.shards.add(service)
        service.register(into: &handlers)
        return Running(
            service: service, cache: cache, auth: auth,
            probe: {
                // Degraded (still serving the catalog to tokens in the cache; other token checks fail
                // with `unavailable`) while auth-service does not answer.
                await UpstreamProbe.run(
                    [Upstream(name: "auth-service", endpoint: authEndpoint, client: auth)],
                    deadline: deadline,
                    interval: configuration[O.authProbeInterval], health: host.health, logger: logger)
            },
            listening: [
                "auth_endpoint": .string(authEndpoint),
                "auth_curve": .string(configuration[O.authCurve].rawValue),
            ])
    }

    /// What every shard shares: the catalog, and the shards' services a reload swaps it into.
    struct Shared: RunningService {
        let catalog: HeroCatalog
        let catalogPath: String?
        let logger: Logger
        let listening: [String: LogValue]
        let shards = ShardServices()
        let reloadFailures = ReloadFailures()

        /// The counters of the `heroes` group that describe the one catalog rather than a shard's work.
        static let processCounters: Set<String> = ["heroes", "reloads"]

        func stats() async -> [String: [String: Int]] {
            guard let first = shards.all.first else { return [:] }
            return ["heroes": first.counters.statsGroup.filter { Self.processCounters.contains($0.key) }]
        }

        func metrics() async -> [MetricFamily] {
            guard let first = shards.all.first else { return [] }
            let counters = first.counters
            return [
                HostMetrics.gauge("catalog_heroes", "Heroes in the catalog served now.", Double(counters.heroes)),
                HostMetrics.counter(
                    "catalog_reloads_total", "Catalog reloads (SIGHUP), by result (ok: swapped in, failed: kept the current).",
                    by: "result", [("ok", counters.reloads), ("failed", reloadFailures.count)]),
            ]
        }

        /// SIGHUP: rereads `--catalog` once and swaps it into every shard; a file that fails to load
        /// leaves the current catalog in place.
        func reload() {
            guard let catalogPath else {
                logger.notice("reload: nothing to reload (the built-in catalog is served)")
                return
            }
            let start = ContinuousClock.now
            do {
                let catalog = try CatalogLoader.load(path: catalogPath)
                for service in shards.all { service.replace(catalog) }
                logger.notice(
                    "catalog reloaded",
                    [
                        "catalog": .string(catalogPath), "heroes": .integer(catalog.heroes.count),
                        "ms": .integer(Int((ContinuousClock.now - start) / .milliseconds(1))),
                    ])
            } catch {
                reloadFailures.increment()
                logger.error("reload failed: keeping the current catalog", ["error": .string("\(error)")])
            }
        }
    }

    /// Reloads that failed (the current catalog kept).
    final class ReloadFailures: Sendable {
        private let value = Atomic<Int>(0)

        func increment() { value.add(1, ordering: .relaxed) }

        var count: Int { value.load(ordering: .relaxed) }
    }

    /// The shards' services, as they start.
    final class ShardServices: Sendable {
        private let services = Mutex<[HeroCatalogService]>([])

        func add(_ service: HeroCatalogService) { services.withLock { $0.append(service) } }

        var all: [HeroCatalogService] { services.withLock { $0 } }
    }

    struct Running: RunningService {
        let service: HeroCatalogService
        let cache: CachingTokenVerifier
        let auth: RemoteClient
        let probe: @Sendable () async -> Void
        let listening: [String: LogValue]

        func stats() async -> [String: [String: Int]] {
            let statistics = cache.statistics
            return [
                // The catalog's size and reloads are the process's: the shared part reports them.
                "heroes": service.counters.statsGroup.filter { !Shared.processCounters.contains($0.key) },
                "token_cache": ["hits": statistics.hits, "misses": statistics.misses],
                "auth_client": auth.counters.statsGroup,
            ]
        }

        func metrics() async -> [MetricFamily] {
            let statistics = cache.statistics
            let counters = service.counters
            return [
                HostMetrics.counter(
                    "catalog_calls_total", "Catalog calls answered, by kind (search, get, not_found, watch).", by: "kind",
                    [
                        ("search", counters.searches), ("get", counters.gets), ("not_found", counters.notFound),
                        ("watch", counters.watches),
                    ]),
                HostMetrics.counter(
                    "catalog_token_cache_total", "Session token checks, by whether the cache answered (hit, miss).",
                    by: "result", [("hit", statistics.hits), ("miss", statistics.misses)]),
            ] + HostMetrics.upstream("auth", auth.counters)
        }

        func serve() async { await probe() }

        func stop() async { await auth.stop() }
    }
}

/// A start-up failure with a message for a person.
struct StartError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
