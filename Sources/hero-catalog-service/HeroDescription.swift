import Foundation
import HeroCatalogCore
import RemoteStreams
import ServiceKit
import ZeroMQ

/// hero-catalog-service's own part of the process: the catalog (`--catalog`, reloaded on SIGHUP),
/// the client to auth-service that checks tokens, on the host's loop, and the probe of its health.
struct HeroDescription: HostedService {
    let configuration: Configuration

    func start(on host: HostResources, handlers: inout RemoteHandlers) async throws -> Running {
        typealias O = HeroOptions
        let logger = host.logger
        // Read before anything listens: a bad file is an error at start-up.
        let catalogPath = configuration[O.catalog]
        let catalog =
            try catalogPath.map { path in try CatalogLoader.load(path: path) }
            ?? HeroCatalog(heroes: CatalogLoader.decode(Data(BuiltInCatalog.json.utf8), as: .json))
        var authCurve: RemoteClient.Curve?
        if configuration[O.authCurve].isOn {
            if configuration[O.authPublicKey] == nil, configuration[O.authServerKey] != nil {
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
            logger.notice(
                "auth client key",
                [
                    "public": .string((try? Z85.encode(own.publicKey)) ?? "?"),
                    "hint": "list it in auth's allowed_clients",
                ])
        }
        let authEndpoints = configuration[O.authEndpoint].map(\.description)
        let authEndpoint = authEndpoints.joined(separator: ",")
        let deadline = configuration[O.authDeadline]
        let auth = try RemoteClient(
            context: host.context, loop: host.loop,
            configuration: .init(
                endpoints: authEndpoints, deadline: deadline, name: "heroes-auth", curve: authCurve))
        let cache = CachingTokenVerifier(
            RemoteTokenVerifier(client: auth, deadline: deadline), lifetime: configuration[O.tokenCache])
        let service = HeroCatalogService(catalog: catalog, verifier: cache, loop: host.loop)
        service.register(into: &handlers)
        return Running(
            service: service, cache: cache, auth: auth, catalogPath: catalogPath, logger: logger,
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
                "catalog": .string(catalogPath ?? "built-in"), "heroes": .integer(catalog.heroes.count),
            ])
    }

    struct Running: RunningService {
        let service: HeroCatalogService
        let cache: CachingTokenVerifier
        let auth: RemoteClient
        let catalogPath: String?
        let logger: Logger
        let probe: @Sendable () async -> Void
        let listening: [String: LogValue]

        func stats() async -> [String: [String: Int]] {
            let statistics = cache.statistics
            return [
                "heroes": service.counters.statsGroup,
                "token_cache": ["hits": statistics.hits, "misses": statistics.misses],
                "auth_client": auth.counters.statsGroup,
            ]
        }

        func serve() async { await probe() }

        /// SIGHUP: rereads `--catalog`; a file that fails to load leaves the current catalog in place.
        func reload() {
            guard let catalogPath else {
                logger.notice("reload: nothing to reload (the built-in catalog is served)")
                return
            }
            let start = ContinuousClock.now
            do {
                let catalog = try CatalogLoader.load(path: catalogPath)
                service.replace(catalog)
                logger.notice(
                    "catalog reloaded",
                    [
                        "catalog": .string(catalogPath), "heroes": .integer(catalog.heroes.count),
                        "ms": .integer(Int((ContinuousClock.now - start) / .milliseconds(1))),
                    ])
            } catch {
                logger.error("reload failed: keeping the current catalog", ["error": .string("\(error)")])
            }
        }

        func stop() async { await auth.stop() }
    }
}

/// A start-up failure with a message for a person.
struct StartError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
