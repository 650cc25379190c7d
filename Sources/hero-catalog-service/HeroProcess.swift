import Contracts
import Dispatch
import Foundation
import HeroCatalogCore
import Reactive
import RemoteStreams
import ServiceKit
import Synchronization
import ZeroMQ

/// The running catalog service: the auth client, the logic and the server, started in order and
/// stopped in reverse (drain, then close) on SIGTERM; SIGHUP reloads `--catalog`.
final class HeroProcess: Service {
    let health: HealthState
    private let context: Context
    /// The process's one event loop: the server's ROUTER, the client's DEALER to auth-service and
    /// every timer run on its thread.
    private let loop: SocketLoop
    private let server: RemoteServer
    private let authClient: RemoteClient
    private let service: HeroCatalogService
    private let cache: CachingTokenVerifier
    private let catalogPath: String?
    private let logger: Logger
    /// Reloads the CURVE allow-list (nil without one).
    private let allowListReload: AllowListReloader?
    private let stopped = StopLatch()
    private let probe: Task<Void, Never>

    /// Starts serving `catalog` (already loaded by `main`).
    init(
        configuration: Configuration, state: StateDirectory, environment: [String: String],
        catalog: HeroCatalog,
        logger: Logger
    ) throws {
        typealias O = HeroOptions
        self.logger = logger
        catalogPath = configuration[O.catalog]
        health = HealthState(service: "heroes", version: O.interface.version)
        context = try Context()
        loop = try SocketLoop(name: "heroes")

        var authCurve: RemoteClient.Curve?
        if configuration[O.authCurve] == .on {
            if configuration[O.authPublicKey] == nil, configuration[O.authServerKey] != nil {
                logger.warning("--auth-server-key is deprecated: use --auth-public-key")
            }
            let keyPath =
                configuration[O.authPublicKey] ?? configuration[O.authServerKey] ?? state.file("auth.pub")
            let serverKey: [UInt8]
            do {
                serverKey = try CurveKeyFiles.publicKey(at: keyPath)
            } catch {
                throw StartError(
                    "\(keyPath): cannot read auth-service's public key (\(error)); give it with "
                        + "--auth-public-key, or use --auth-curve off on a trusted loopback")
            }
            let own = try CurveKeyFiles.clientKeys(in: state)
            authCurve = RemoteClient.Curve(serverKey: serverKey, keys: own)
            logger.notice(
                "auth client key",
                [
                    "public": .string((try? Z85.encode(own.publicKey)) ?? "?"),
                    "hint": "list it in auth's allowed_clients",
                ])
        }
        authClient = try RemoteClient(
            context: context, loop: loop,
            configuration: .init(
                endpoints: [configuration[O.authEndpoint].description],
                deadline: configuration[O.authDeadline],
                name: "heroes-auth", curve: authCurve))
        cache = CachingTokenVerifier(
            RemoteTokenVerifier(client: authClient, deadline: configuration[O.authDeadline]),
            lifetime: configuration[O.tokenCache])
        service = HeroCatalogService(catalog: catalog, verifier: cache, loop: loop)

        let curve = configuration[O.curve] == .on ? try state.serverCurve() : nil
        allowListReload = AllowListReloader.forServer(curve, state: state, logger: logger)
        var handlers = RemoteHandlers()
        service.register(into: &handlers)
        let reference = ServerReference()
        let service = self.service
        let cache = self.cache
        let authClient = self.authClient
        handlers.addSystemMethods(health: health, server: reference) {
            var groups: [String: [String: Int]] = ["heroes": service.counters.statsGroup]
            let statistics = cache.statistics
            groups["token_cache"] = ["hits": statistics.hits, "misses": statistics.misses]
            groups["auth_client"] = authClient.counters.statsGroup
            return groups
        }
        server = try RemoteServer(
            context: context, loop: loop,
            configuration: .init(
                endpoints: [configuration[O.endpoint].description],
                maxStreamsPerClient: configuration[O.maximumStreamsPerClient],
                maxStreamsTotal: configuration[O.maximumStreams], name: "heroes-server", curve: curve,
                peerQueue: O.standard.clientQueue(from: configuration)),
            handlers: handlers)
        reference.bind(server)
        // auth-service's health, asked periodically: degraded (still serving the catalog to tokens in
        // the cache; other token checks fail with `unavailable`) while it does not answer.
        health.set(.ready)
        probe = UpstreamProbe.start(
            [
                Upstream(
                    name: "auth-service", endpoint: configuration[O.authEndpoint].description, client: authClient)
            ],
            deadline: configuration[O.authDeadline], interval: configuration[O.authProbeInterval],
            health: health, logger: logger)
        logger.notice(
            "listening",
            [
                "endpoint": .string(server.endpoints.joined(separator: ",")),
                "curve": .string(configuration[O.curve].rawValue),
                "auth_endpoint": .string(configuration[O.authEndpoint].description),
                "auth_curve": .string(configuration[O.authCurve].rawValue),
                "catalog": .string(catalogPath ?? "built-in"), "heroes": .integer(catalog.heroes.count),
            ])
    }

    /// Reloads `--catalog` (on the caller's thread: the signal queue, never the cooperative pool).
    /// A file that fails to load leaves the current catalog in place.
    func reloadCatalog() {
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

    /// SIGHUP: the CURVE allow-list and `--catalog`, each kept as it is when it fails to load.
    func reload() {
        _ = allowListReload?.reload()
        reloadCatalog()
    }

    func run() async throws {
        await stopped.wait()
    }

    /// Drains: new calls are refused, calls in flight finish, then everything closes.
    func stop() async {
        probe.cancel()
        _ = await probe.value
        health.set(.draining)
        logger.notice("draining")
        await server.drain()
        await server.stop()
        await authClient.stop()
        await loop.stop()
        context.terminate()
        logger.notice("stopped")
        stopped.release()
    }
}

/// A start-up failure with a message for a person.
struct StartError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
