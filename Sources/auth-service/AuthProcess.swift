import AuthCore
import Contracts
import Foundation
import Reactive
import RemoteStreams
import SQLite
import ServiceKit
import Sodium
import Synchronization
import ZeroMQ

/// The running auth service: the store, the hashing pool, the logic and the server, started in
/// order and stopped in reverse (drain, then close) on SIGTERM.
final class AuthProcess: Service {
    let health: HealthState
    private let context: Context
    /// The process's one event loop: the server's ROUTER and every timer run on its thread.
    private let loop: SocketLoop
    private let server: RemoteServer
    private let store: SQLiteAccountStore
    private let pool: PasswordHashingPool
    private let service: AuthService
    private let logger: Logger
    /// Reloads the CURVE allow-list (nil without one).
    private let allowListReload: AllowListReloader?
    private let stopped = StopLatch()
    /// The loop's hourly timer that deletes expired sessions.
    private let purge: SocketLoop.TimerID

    init(configuration: Configuration, state: StateDirectory, logger: Logger) async throws {
        typealias O = AuthOptions
        self.logger = logger
        health = HealthState(service: "auth", version: O.interface.version)
        let databasePath = configuration[O.database] ?? state.file("auth.sqlite")
        // Read first: a secret that cannot be used stops the start before anything is open.
        let deviceSecret = try DeviceTokens.loadOrCreateSecret(
            at: configuration[O.deviceKey] ?? state.file("device.key"))
        store = try await SQLiteAccountStore(
            configuration: .init(path: databasePath, synchronous: configuration[O.synchronous].value),
            report: { message in logger.error("storage", ["problem": .string(message)]) })
        pool = PasswordHashingPool(
            workers: configuration[O.hashWorkers],
            queueCapacity: configuration[O.hashQueue] ?? 4 * configuration[O.hashWorkers])
        let policy = ThrottlePolicy(
            freeFailures: configuration[O.freeFailures], maximumDelay: configuration[O.maximumDelay],
            lockAfter: configuration[O.lockAfter], lockDuration: configuration[O.lockDuration],
            clientFailuresPerMinute: configuration[O.clientFailures],
            accountFreeFailures: configuration[O.accountFreeFailures],
            accountFailuresPerMinute: configuration[O.accountFailuresPerMinute],
            existsPerSecond: configuration[O.existsPerSecond], existsBurst: configuration[O.existsBurst])
        let rules = AuthRules(
            minimumUsernameLength: configuration[O.minimumUsername],
            minimumPasswordLength: configuration[O.minimumPassword])
        context = try Context()
        loop = try SocketLoop(name: "auth")
        service = AuthService(
            store: store, hashing: pool,
            configuration: AuthConfiguration(
                rules: rules, throttle: policy, cost: configuration[O.hashCost].cost,
                tokenLifetime: configuration[O.tokenLifetime],
                deviceTokens: DeviceTokens(secret: deviceSecret)),
            loop: loop)

        // Made now, so the first login of an unknown user costs no more than a wrong password.
        _ = try await pool.dummyHash(for: configuration[O.hashCost].cost)
        let curve = configuration[O.curve] == .on ? try state.serverCurve() : nil
        allowListReload = AllowListReloader.forServer(curve, state: state, logger: logger)
        var handlers = RemoteHandlers()
        service.register(into: &handlers)
        let health = self.health
        let reference = ServerReference()
        let service = self.service
        let store = self.store
        let pool = self.pool
        handlers.addSystemMethods(health: health, server: reference) {
            var groups: [String: [String: Int]] = ["auth": service.counters.statsGroup]
            groups["store"] = store.counters.statsGroup
            groups["hashing"] = pool.counters.statsGroup
            return groups
        }
        self.server = try RemoteServer(
            context: context, loop: loop,
            configuration: .init(
                endpoints: [configuration[O.endpoint].description],
                maxStreamsPerClient: configuration[O.maximumStreamsPerClient],
                maxStreamsTotal: configuration[O.maximumStreams], name: "auth-server", curve: curve,
                peerQueue: O.standard.clientQueue(from: configuration)),
            handlers: handlers)
        reference.bind(self.server)
        // Expired sessions are deleted hourly (they are refused from the moment they expire), on a
        // timer of the loop; the deletion itself runs on the store's writer.
        purge = loop.schedule(every: .seconds(3_600)) {
            _ = service.removeExpiredSessions().subscribe(onSuccess: { count in
                if count > 0 { logger.info("expired sessions removed", ["count": .integer(count)]) }
            })
        }
        logger.notice(
            "listening",
            [
                "endpoint": .string(self.server.endpoints.joined(separator: ",")),
                "curve": .string(configuration[O.curve].rawValue), "database": .string(databasePath),
                "hash_cost": .string(configuration[O.hashCost].rawValue),
                "hash_workers": .integer(configuration[O.hashWorkers]),
            ])
    }

    /// SIGHUP: the CURVE allow-list is all this service reloads.
    func reload() {
        _ = allowListReload?.reload()
    }

    func run() async throws {
        health.set(.ready)
        await stopped.wait()
    }

    /// Drains: new calls are refused, calls in flight finish (their writes commit), then everything
    /// closes.
    func stop() async {
        health.set(.draining)
        logger.notice("draining")
        loop.cancelTimer(purge)
        await server.drain()
        await server.stop()
        await store.close()
        await pool.shutdown()
        await loop.stop()
        context.terminate()
        logger.notice("stopped")
        stopped.release()
    }
}

extension AuthService.Counters {
    var statsGroup: [String: Int] {
        [
            "registered": registered, "registrations_taken": registrationsTaken, "logins": logins,
            "failed_logins": failedLogins, "throttled_logins": throttledLogins, "budget_spent": budgetSpent,
            "device_logins": deviceLogins, "locks": locks,
            "exists_answered": existsAnswered, "exists_rate_limited": existsRateLimited, "verified": verified,
            "unauthenticated": unauthenticated, "logouts": logouts, "bad_requests": badRequests,
            "overloaded": overloaded,
        ]
    }
}

extension SQLiteAccountStore.Counters {
    var statsGroup: [String: Int] {
        ["commits": commits, "writes": writes, "largest_group": largestGroup, "failures": failures]
    }
}

extension PasswordHashingPool.Counters {
    var statsGroup: [String: Int] {
        ["queued": queued, "running": running, "completed": completed, "rejected": rejected]
    }
}
