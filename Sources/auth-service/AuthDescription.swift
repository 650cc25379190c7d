import AuthCore
import RemoteStreams
import SQLite
import ServiceKit
import Sodium
import ZeroMQ

/// auth-service's own part of the process. Once per process: the store, the hashing pool and the
/// one ``AuthGraphs`` (throttle and account events) on shard 0's loop; per shard: an
/// ``AuthService`` over them on the shard's loop, whose handlers the shard's server serves. The
/// store and the pool close after every server has drained, so every acknowledged write is
/// committed.
struct AuthDescription: HostedService {
    let configuration: Configuration

    func open(on process: ProcessResources) async throws -> Shared {
        typealias O = AuthOptions
        let logger = process.logger
        let databasePath = configuration[O.database] ?? process.state.file("auth.sqlite")
        // Read first: a secret that cannot be used stops the start before anything is open.
        let deviceSecret = try DeviceTokens.loadOrCreateSecret(
            at: configuration[O.deviceKey] ?? process.state.file("device.key"))
        let store = try await SQLiteAccountStore(
            configuration: .init(path: databasePath, synchronous: configuration[O.synchronous].value),
            report: { message in logger.error("storage", ["problem": .string(message)]) })
        let pool = PasswordHashingPool(
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
        let loop = process.loops[0]
        let shared = Shared(
            store: store, pool: pool, graphs: AuthGraphs(on: loop, policy: policy),
            configuration: AuthConfiguration(
                rules: rules, throttle: policy, cost: configuration[O.hashCost].cost,
                tokenLifetime: configuration[O.tokenLifetime],
                deviceTokens: DeviceTokens(secret: deviceSecret)),
            loop: loop,
            purge: nil,
            listening: [
                "database": .string(databasePath), "hash_cost": .string(configuration[O.hashCost].rawValue),
                "hash_workers": .integer(configuration[O.hashWorkers]),
            ])
        do {
            // Made now, so the first login of an unknown user costs no more than a wrong password.
            _ = try await pool.dummyHash(for: configuration[O.hashCost].cost)
        } catch {
            await shared.stop()
            throw error
        }
        // Expired sessions are deleted hourly (they are refused from the moment they expire), on a
        // timer of shard 0's loop; the deletion itself runs on the store's writer.
        let purging = AuthService(
            store: store, hashing: pool, configuration: shared.configuration, state: shared.graphs, loop: loop)
        let purge = loop.schedule(every: .seconds(3_600)) {
            _ = purging.removeExpiredSessions().subscribe(onSuccess: { count in
                if count > 0 { logger.info("expired sessions removed", ["count": .integer(count)]) }
            })
        }
        return shared.with(purge: purge)
    }

    func start(on shard: HostResources, shared: Shared, handlers: inout RemoteHandlers) async throws -> Running {
        let service = AuthService(
            store: shared.store, hashing: shared.pool, configuration: shared.configuration, state: shared.graphs,
            loop: shard.loop)
        service.register(into: &handlers)
        return Running(service: service)
    }

    /// What every shard shares: the store, the pool, the throttle and events' actor.
    struct Shared: RunningService {
        let store: SQLiteAccountStore
        let pool: PasswordHashingPool
        let graphs: AuthGraphs
        let configuration: AuthConfiguration
        let loop: SocketLoop
        /// The loop's hourly timer that deletes expired sessions.
        let purge: SocketLoop.TimerID?
        let listening: [String: LogValue]

        func with(purge: SocketLoop.TimerID) -> Shared {
            Shared(
                store: store, pool: pool, graphs: graphs, configuration: configuration, loop: loop, purge: purge,
                listening: listening)
        }

        func stats() async -> [String: [String: Int]] {
            ["store": store.counters.statsGroup, "hashing": pool.counters.statsGroup]
        }

        func stop() async {
            if let purge { loop.cancelTimer(purge) }
            await store.close()
            await pool.shutdown()
        }
    }

    /// One shard's service.
    struct Running: RunningService {
        let service: AuthService

        func stats() async -> [String: [String: Int]] { ["auth": service.counters.statsGroup] }
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
