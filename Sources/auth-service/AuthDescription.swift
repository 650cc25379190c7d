import Argon2
import AuthCore
import Metrics
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
        let database = configuration[O.database] ?? process.state.file("auth.sqlite")
        // Read first: a secret that cannot be used stops the start before anything is open.
        let deviceSecret = try DeviceTokens.loadOrCreateSecret(
            at: configuration[O.deviceKey] ?? process.state.file("device.key"))
        let report: @Sendable (String) -> Void = { message in
            logger.error("storage", ["problem": .string(message)])
        }
        let store: Store
        let (reachability, reachabilityChanged) = AsyncStream.makeStream(
            of: (reachable: Bool, reason: String?).self, bufferingPolicy: .bufferingNewest(16))
        if Store.isPostgres(database) {
            store = .postgres(
                try await PostgresAccountStore(
                    configuration: .init(url: database), report: report,
                    reachability: { reachable, reason in
                        if reachable {
                            logger.notice("database reachable")
                        } else {
                            logger.warning("database unreachable", ["reason": .string(reason ?? "unknown")])
                        }
                        reachabilityChanged.yield((reachable, reason))
                    }))
        } else {
            reachabilityChanged.finish()
            store = .sqlite(
                try await SQLiteAccountStore(
                    configuration: .init(path: database, synchronous: configuration[O.synchronous].value),
                    report: report))
        }
        // Each worker's workspace is mapped and faulted in here, before the service answers.
        let (implementation, reason) = configuration[O.argon2].resolve()
        let pool: PasswordHashingPool
        do {
            pool = try PasswordHashingPool(
                workers: configuration[O.hashWorkers],
                queueCapacity: configuration[O.hashQueue] ?? 4 * configuration[O.hashWorkers],
                implementation: implementation, cost: configuration[O.hashCost].cost)
        } catch {
            await store.close()
            throw error
        }
        logger.info(
            "argon2id",
            [
                "implementation": .string(implementation.description), "reason": .string(reason),
                "cpu_kernels": .string(Argon2Kernel.supported.map(\.rawValue).joined(separator: ",")),
                "workspace_bytes": .integer(pool.hashingSetup.workspaceBytes),
                "resident_bytes": .integer(pool.hashingSetup.residentBytes),
            ])
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
        // With PostgreSQL, logins are throttled in the database, by every replica together.
        let sharedThrottle = store.sharedThrottle(policy: policy)
        let policyCheck = sharedThrottle.map { ThrottlePolicyCheck(throttle: $0) }
        let shared = Shared(
            store: store, pool: pool, graphs: AuthGraphs(on: loop, policy: policy, shared: sharedThrottle),
            configuration: AuthConfiguration(
                rules: rules, throttle: policy, cost: configuration[O.hashCost].cost,
                tokenLifetime: configuration[O.tokenLifetime],
                deviceTokens: DeviceTokens(secret: deviceSecret)),
            loop: loop,
            purge: nil, sweep: nil, policyCheck: policyCheck,
            health: process.health,
            reachability: reachability,
            listening: [
                "database": .string(Store.describe(database)),
                "hash_cost": .string(configuration[O.hashCost].rawValue),
                "hash_workers": .integer(configuration[O.hashWorkers]),
                "argon2": .string(implementation.description),
            ])
        do {
            // Made now, so the first login of an unknown user costs no more than a wrong password.
            _ = try await pool.dummyHash(for: configuration[O.hashCost].cost)
            // The latest replica to start records the policy the others are compared with.
            if let policyCheck {
                Self.recorded(try await policyCheck.record().value, policy: policy, logger: logger)
            }
        } catch {
            await shared.stop()
            throw error
        }
        // Expired sessions are deleted hourly (they are refused from the moment they expire), on a
        // timer of shard 0's loop; the deletion itself runs on the store's writer.
        let purging = AuthService(
            store: store.accountStore, hashing: pool, configuration: shared.configuration, state: shared.graphs,
            loop: loop)
        let purge = loop.schedule(every: .seconds(3_600)) {
            _ = purging.removeExpiredSessions().subscribe(onSuccess: { count in
                if count > 0 { logger.info("expired sessions removed", ["count": .integer(count)]) }
            })
        }
        // Throttle entries back at rest are deleted every minute (by one replica at a time), and the
        // policy the database records is compared with this replica's.
        let interval = max(configuration[O.sharedThrottleInterval], .seconds(1))
        let sweep = sharedThrottle.map { throttle in
            loop.schedule(every: interval) {
                _ = throttle.removeResting().subscribe { _ in }
                _ = policyCheck?.check().subscribe(onSuccess: { Self.report($0, logger: logger) })
            }
        }
        return shared.with(purge: purge, sweep: sweep)
    }

    /// Logs the policy this replica recorded, and how it differs from the one it replaced.
    static func recorded(_ replaced: RecordedThrottlePolicy?, policy: ThrottlePolicy, logger: Logger) {
        let differences = replaced.map { policy.differences(from: $0.policy) } ?? []
        guard let replaced, !differences.isEmpty else {
            logger.info("throttle policy recorded", ["policy": .string(policy.sharedText)])
            return
        }
        logger.notice(
            "throttle policy recorded, replacing a different one",
            [
                "policy": .string(policy.sharedText),
                "differences": .string(describe(differences, recordedAs: "was")),
                "replaced_replica": .string(replaced.replica), "replaced_at": .string(replaced.writtenAt),
            ])
    }

    /// Logs what a check of the recorded policy found: once per change of the record.
    static func report(_ finding: ThrottlePolicyCheck.Finding?, logger: Logger) {
        switch finding {
        case .differs(let differences, let record)?:
            logger.warning(
                "throttle policy differs from the one the database records",
                [
                    "differences": .string(describe(differences)), "replica": .string(record.replica),
                    "written_at": .string(record.writtenAt),
                ])
        case .agrees(let record)?:
            logger.notice(
                "throttle policy agrees with the one the database records",
                ["replica": .string(record.replica), "written_at": .string(record.writtenAt)])
        case nil: break
        }
    }

    /// `field: here <own>, recorded <recorded>; …`, with `recordedAs` instead of `recorded` (`was`,
    /// for the record this replica has just replaced).
    private static func describe(_ differences: [ThrottlePolicyDifference], recordedAs: String = "recorded")
        -> String
    {
        differences.map { "\($0.field): here \($0.own ?? "none"), \(recordedAs) \($0.recorded ?? "none")" }
            .joined(separator: "; ")
    }

    func start(on shard: HostResources, shared: Shared, handlers: inout RemoteHandlers) async throws -> Running {
        let service = AuthService(
            store: shared.store.accountStore, hashing: shared.pool, configuration: shared.configuration,
            state: shared.graphs, loop: shard.loop)
        service.register(into: &handlers)
        return Running(service: service)
    }

    /// What every shard shares: the store, the pool, the throttle and events' actor.
    struct Shared: RunningService {
        let store: Store
        let pool: PasswordHashingPool
        let graphs: AuthGraphs
        let configuration: AuthConfiguration
        let loop: SocketLoop
        /// The loop's hourly timer that deletes expired sessions.
        let purge: SocketLoop.TimerID?
        /// The loop's timer that sweeps the shared throttle's entries at rest and checks the
        /// recorded policy (PostgreSQL only).
        let sweep: SocketLoop.TimerID?
        /// Compares the shared throttle's recorded policy with this replica's (PostgreSQL only).
        let policyCheck: ThrottlePolicyCheck?
        let health: HealthState
        /// The PostgreSQL store's reachability changes (finished at once for SQLite).
        let reachability: AsyncStream<(reachable: Bool, reason: String?)>
        let listening: [String: LogValue]

        func with(purge: SocketLoop.TimerID, sweep: SocketLoop.TimerID?) -> Shared {
            Shared(
                store: store, pool: pool, graphs: graphs, configuration: configuration, loop: loop, purge: purge,
                sweep: sweep, policyCheck: policyCheck, health: health, reachability: reachability,
                listening: listening)
        }

        func stats() async -> [String: [String: Int]] {
            var storeGroup = store.statsGroup
            if let policyCheck { storeGroup["throttle_policy_mismatch"] = policyCheck.mismatch ? 1 : 0 }
            return [
                "store": storeGroup, "hashing": pool.counters.statsGroup,
                "argon2": pool.hashingSetup.statsGroup,
            ]
        }

        func metrics() async -> [MetricFamily] {
            let hashing = pool.counters
            var families = [
                HostMetrics.gauge("auth_hash_queue_depth", "Password checks waiting for a hashing thread.", Double(hashing.queued)),
                HostMetrics.gauge("auth_hash_in_flight", "Password hashes running on a hashing thread now.", Double(hashing.running)),
                HostMetrics.gauge("auth_hash_workers", "Hashing threads.", Double(pool.workers)),
                HostMetrics.counter(
                    "auth_hash_jobs_total", "Hashing jobs, by result (completed, or rejected overloaded with the queue full).",
                    by: "result", [("completed", hashing.completed), ("rejected", hashing.rejected)]),
            ]
            families += store.metrics
            if let policyCheck {
                families.append(
                    HostMetrics.gauge(
                        "auth_throttle_policy_mismatch",
                        "1 while this replica's throttle policy differs from the one the shared database records.",
                        policyCheck.mismatch ? 1 : 0))
            }
            return families
        }

        /// While the database is unreachable, health is `degraded` (calls answer `unavailable`); it
        /// is `ready` again once the store has reconnected. A throttle policy differing from the
        /// recorded one leaves health alone: during a rolling update that changes the throttling
        /// flags it is expected, and turning replicas unready would take capacity away mid-update;
        /// it is logged and counted in `sys.stats` instead.
        func serve() async {
            if case .postgres(let postgres) = store, !postgres.isReachable {
                health.set(.degraded, reasons: ["the account database is unreachable"])
            }
            for await change in reachability {
                if change.reachable {
                    health.set(.ready)
                } else {
                    health.set(
                        .degraded,
                        reasons: [
                            "the account database is unreachable (\(change.reason ?? "connection lost"))"
                        ])
                }
            }
        }

        func stop() async {
            if let purge { loop.cancelTimer(purge) }
            if let sweep { loop.cancelTimer(sweep) }
            await store.close()
            await pool.shutdown()
        }
    }

    /// One shard's service.
    struct Running: RunningService {
        let service: AuthService

        func stats() async -> [String: [String: Int]] { ["auth": service.counters.statsGroup] }

        func metrics() async -> [MetricFamily] { service.counters.metrics }
    }
}

extension AuthService.Counters {
    var statsGroup: [String: Int] {
        [
            "registered": registered, "registrations_taken": registrationsTaken,
            "registrations_repeated": registrationsRepeated, "logins": logins,
            "failed_logins": failedLogins, "throttled_logins": throttledLogins, "budget_spent": budgetSpent,
            "device_logins": deviceLogins, "locks": locks,
            "exists_answered": existsAnswered, "exists_rate_limited": existsRateLimited, "verified": verified,
            "unauthenticated": unauthenticated, "logouts": logouts, "bad_requests": badRequests,
            "overloaded": overloaded,
        ]
    }
}

extension AuthService.Counters {
    /// The shard's families (docs/operations.md, "Metrics"): logins, registrations, tokens and the
    /// throttle's decisions.
    var metrics: [MetricFamily] {
        [
            HostMetrics.counter(
                "auth_logins_total", "Logins, by result (ok, failed: wrong password or unknown user, throttled).",
                by: "result", [("ok", logins), ("failed", failedLogins), ("throttled", throttledLogins)]),
            HostMetrics.counter(
                "auth_device_logins_total", "Logins that presented a valid device token for their account.",
                deviceLogins),
            HostMetrics.counter(
                "auth_registrations_total", "Registrations, by result (registered, taken, repeated).",
                by: "result",
                [("registered", registered), ("taken", registrationsTaken), ("repeated", registrationsRepeated)]),
            HostMetrics.counter(
                "auth_throttle_decisions_total",
                "Calls the throttle refused or locks it started, by kind (login_delayed: a client's delay or "
                    + "lock on an account, account_budget_spent, client_locked: locks started, exists_rate_limited).",
                by: "kind",
                [
                    ("login_delayed", throttledLogins - budgetSpent), ("account_budget_spent", budgetSpent),
                    ("client_locked", locks), ("exists_rate_limited", existsRateLimited),
                ]),
            HostMetrics.counter(
                "auth_exists_total", "auth.exists lookups answered.", existsAnswered),
            HostMetrics.counter(
                "auth_token_checks_total", "Session tokens checked, by result (valid, refused).", by: "result",
                [("valid", verified), ("refused", unauthenticated)]),
            HostMetrics.counter("auth_logouts_total", "Sessions revoked.", logouts),
            HostMetrics.counter(
                "auth_refusals_total", "Calls refused, by code (bad_request, overloaded: hashing pool or store full).",
                by: "code", [("bad_request", badRequests), ("overloaded", overloaded)]),
        ]
    }
}

/// The store auth-service runs on: SQLite in the state directory (the default) or PostgreSQL.
enum Store: Sendable {
    case sqlite(SQLiteAccountStore)
    case postgres(PostgresAccountStore)

    /// Whether `--database` names a PostgreSQL database rather than a SQLite file.
    static func isPostgres(_ database: String) -> Bool {
        database.hasPrefix("postgresql://") || database.hasPrefix("postgres://")
    }

    /// `database` for the log: a URL without its credentials and parameters.
    static func describe(_ database: String) -> String {
        guard isPostgres(database), let schemeEnd = database.range(of: "://") else { return database }
        var rest = database[schemeEnd.upperBound...]
        if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        if let query = rest.firstIndex(of: "?") { rest = rest[..<query] }
        return "postgresql://" + rest
    }

    /// The login throttle replicas share (PostgreSQL), or nil: each process throttles alone.
    func sharedThrottle(policy: ThrottlePolicy) -> PostgresLoginThrottle? {
        switch self {
        case .sqlite: nil
        case .postgres(let store): PostgresLoginThrottle(store: store, policy: policy)
        }
    }

    var accountStore: any AccountStore {
        switch self {
        case .sqlite(let store): store
        case .postgres(let store): store
        }
    }

    func close() async {
        switch self {
        case .sqlite(let store): await store.close()
        case .postgres(let store): await store.close()
        }
    }

    /// The store's families: commits, writes, failures and commit latency (and with PostgreSQL, its
    /// reachability).
    var metrics: [MetricFamily] {
        func common(commits: Int, writes: Int, failures: Int, duration: DurationHistogram) -> [MetricFamily] {
            var latency = MetricFamily(
                HostMetrics.prefix + "auth_store_commit_duration_seconds", .histogram,
                help: "How long each committed transaction of the account store took.")
            latency.add(duration)
            return [
                HostMetrics.counter("auth_store_commits_total", "Transactions the account store committed.", commits),
                HostMetrics.counter("auth_store_writes_total", "Writes committed (several per transaction).", writes),
                HostMetrics.counter("auth_store_failures_total", "Calls that failed on a storage error.", failures),
                latency,
            ]
        }
        switch self {
        case .sqlite(let store):
            let counters = store.counters
            return common(
                commits: counters.commits, writes: counters.writes, failures: counters.failures,
                duration: counters.commitDuration)
        case .postgres(let store):
            let counters = store.counters
            return common(
                commits: counters.commits, writes: counters.writes, failures: counters.failures,
                duration: counters.commitDuration) + [
                    HostMetrics.counter(
                        "auth_store_unavailable_total", "Calls answered unavailable: the database unreachable.",
                        counters.unavailable),
                    HostMetrics.counter("auth_store_disconnects_total", "Database connections lost.", counters.disconnects),
                    HostMetrics.gauge("auth_store_reachable", "1 while the database is reachable.", store.isReachable ? 1 : 0),
                ]
        }
    }

    var statsGroup: [String: Int] {
        switch self {
        case .sqlite(let store):
            let counters = store.counters
            return [
                "commits": counters.commits, "writes": counters.writes,
                "largest_group": counters.largestGroup,
                "failures": counters.failures,
            ]
        case .postgres(let store):
            let counters = store.counters
            return [
                "commits": counters.commits, "writes": counters.writes,
                "largest_group": counters.largestGroup,
                "failures": counters.failures, "unavailable": counters.unavailable,
                "disconnects": counters.disconnects, "reachable": store.isReachable ? 1 : 0,
            ]
        }
    }
}

extension PasswordHashingPool.Counters {
    var statsGroup: [String: Int] {
        [
            "queued": queued, "running": running, "completed": completed, "rejected": rejected,
            "own_hashes": ownHashes, "libsodium_hashes": libsodiumHashes,
        ]
    }
}

extension HashingSetup {
    /// The implementation as flags (`libsodium` 1, or `swift` 1 and `kernel_<name>` 1) and the memory
    /// the workspaces keep resident.
    var statsGroup: [String: Int] {
        var group = [
            "workers": workers, "workspace_bytes": workspaceBytes, "resident_bytes": residentBytes,
        ]
        switch implementation {
        case .libsodium: group["libsodium"] = 1
        case .swift(let kernel):
            group["swift"] = 1
            group["kernel_\(kernel.rawValue)"] = 1
        }
        return group
    }
}
