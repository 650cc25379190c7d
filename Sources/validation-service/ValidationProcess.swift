import Contracts
import Foundation
import Reactive
import RemoteStreams
import ServiceKit
import Synchronization
import ValidationCore
import ZeroMQ

/// The running validation service: the client to auth-service, the logic and the server, started in
/// order and stopped in reverse (drain, then close) on SIGTERM.
final class ValidationProcess: Service {
    let health: HealthState
    private let context: Context
    private let server: RemoteServer
    private let auth: RemoteClient
    private let service: ValidationService
    private let logger: Logger
    /// Reloads the CURVE allow-list (nil without one).
    private let loop: SocketLoop
    private let allowListReload: AllowListReloader?
    private let stopped = StopLatch()
    private let probe: Task<Void, Never>

    init(configuration: Configuration, state: StateDirectory, logger: Logger) async throws {
        typealias O = ValidationOptions
        self.logger = logger
        health = HealthState(service: "validation", version: O.interface.version)
        context = try Context()
        // The process's one event loop: the server's ROUTER, the client's DEALER to auth-service, the
        // graphs' actor and every timer run on its thread.
        loop = try SocketLoop(name: "validation")

        let authEndpoint = configuration[O.authEndpoint].description
        var authCurve: RemoteClient.Curve?
        if configuration[O.authCurve] == .on {
            let keyPath = configuration[O.authPublicKey] ?? state.file("auth.pub")
            authCurve = RemoteClient.Curve(
                serverKey: try CurveKeyFiles.publicKey(at: keyPath),
                keys: try CurveKeyFiles.clientKeys(in: state))
        }
        let deadline = configuration[O.authDeadline]
        auth = try RemoteClient(
            context: context, loop: loop,
            configuration: .init(
                endpoints: [authEndpoint], deadline: deadline, name: "auth-client", curve: authCurve))
        let rules = ValidationRules(
            minimumUsernameLength: configuration[O.minimumUsername],
            maximumUsernameLength: configuration[O.maximumUsername],
            minimumLoginPasswordLength: configuration[O.minimumLoginPassword],
            minimumRegisterPasswordLength: configuration[O.minimumPassword],
            minimumPhoneDigits: configuration[O.minimumPhoneDigits],
            maximumPhoneDigits: configuration[O.maximumPhoneDigits])
        // The client's own deadline fires first and says why (timeout or unavailable); the graph's
        // timeout, a little later, only guards against a lookup that never ends.
        let lookupTimeout = RxTimeInterval.milliseconds(Self.milliseconds(deadline) + 500)
        service = ValidationService(
            rules: rules, directory: RemoteUsernameDirectory(client: auth, deadline: deadline),
            lookupTimeout: lookupTimeout, loop: loop)

        let curve = configuration[O.curve] == .on ? try state.serverCurve() : nil
        allowListReload = AllowListReloader.forServer(curve, state: state, logger: logger)
        var handlers = RemoteHandlers()
        service.register(into: &handlers)
        let health = self.health
        let reference = ServerReference()
        let service = self.service
        let auth = self.auth
        handlers.addSystemMethods(health: health, server: reference) {
            var groups: [String: [String: Int]] = [
                "validation": service.counters.statsGroup, "username_checks": service.checks.statsGroup,
            ]
            groups["auth_client"] = auth.counters.statsGroup
            return groups
        }
        self.server = try RemoteServer(
            context: context, loop: loop,
            configuration: .init(
                endpoints: [configuration[O.endpoint].description],
                maxStreamsPerClient: configuration[O.maximumStreamsPerClient],
                maxStreamsTotal: configuration[O.maximumStreams], name: "validation-server", curve: curve,
                peerQueue: O.standard.clientQueue(from: configuration)),
            handlers: handlers)
        reference.bind(self.server)
        // auth-service's health, asked periodically: degraded (still serving; usernames then answer
        // network.error) while it does not answer.
        health.set(.ready)
        probe = UpstreamProbe.start(
            [Upstream(name: "auth-service", endpoint: authEndpoint, client: auth)], deadline: deadline,
            interval: configuration[O.authProbeInterval], health: health, logger: logger)
        logger.notice(
            "listening",
            [
                "endpoint": .string(self.server.endpoints.joined(separator: ",")),
                "curve": .string(configuration[O.curve].rawValue), "auth_endpoint": .string(authEndpoint),
                "auth_curve": .string(configuration[O.authCurve].rawValue),
            ])
    }

    /// SIGHUP: the CURVE allow-list is all this service reloads.
    func reload() {
        _ = allowListReload?.reload()
    }

    func run() async throws {
        await stopped.wait()
    }

    /// Drains: new calls are refused, calls and channels in flight finish, then everything closes.
    func stop() async {
        probe.cancel()
        _ = await probe.value
        health.set(.draining)
        logger.notice("draining")
        await server.drain()
        await server.stop()
        await auth.stop()
        await loop.stop()
        context.terminate()
        logger.notice("stopped")
        stopped.release()
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds) * 1_000
            + Int(duration.components.attoseconds / 1_000_000_000_000_000)
    }
}
