import Contracts
import Foundation
import Postgres
import Reactive
import Synchronization
import TestSupport
import Testing

@testable import AuthCore

/// The login throttle in PostgreSQL, against its specification ``ThrottleState`` on one injected
/// clock, and with several stores (replicas) on one database.
@Suite("PostgresLoginThrottle", .timeLimit(.minutes(3)))
struct PostgresLoginThrottleTests {
    /// Small limits, so that random sequences reach every rule: delays, locks, forgetting, both
    /// buckets running dry and growing back.
    static let policy = ThrottlePolicy(
        freeFailures: 2, baseDelay: .seconds(1), maximumDelay: .seconds(4), lockAfter: 4,
        lockDuration: .seconds(60), failureMemory: .seconds(300), clientFailuresPerMinute: 6,
        accountFreeFailures: 4, accountFailuresPerMinute: 2, inFlightExpiry: .seconds(10 * 24 * 3_600))

    @Test(
        "random admissions, failures, successes and abandonments: the same answers as ThrottleState, to the microsecond",
        arguments: [1, 2, 3, 4] as [UInt64])
    func differential(seed: UInt64) async throws {
        try await PostgresCluster.with { cluster in
            let store = try await PostgresAccountStore(configuration: .init(url: cluster.url))
            let clock = InjectedClock()
            let sql = PostgresLoginThrottle(store: store, policy: Self.policy, now: { clock.microseconds })
            var spec = ThrottleState(policy: Self.policy)
            let start = ContinuousClock.now
            var random = SeededGenerator(seed: seed)
            let accounts = ["alice", "bob"]
            let origins: [LoginOrigin] = [
                .client("x"), .client("y"), .client("z"), .client("w"), .client("v"), .device("phone"),
            ]
            var open: [(account: String, origin: LoginOrigin)] = []
            var seen: [String: Int] = [:]
            var last: (String, LoginOrigin)?
            for step in 0..<1_000 {
                // Time moves on: mostly a little, sometimes a lot (past delays, locks, memory).
                let advance: Int64
                switch random.next() % 10 {
                case 0..<5: advance = Int64(random.next() % 300)
                case 5..<8: advance = Int64(random.next() % 5_000)
                case 8: advance = Int64(random.next() % 40_000)
                default: advance = Int64(random.next() % 400_000)
                }
                clock.advance(milliseconds: advance)
                let now = start + .microseconds(clock.microseconds)
                let context = "seed \(seed), step \(step), t = \(clock.microseconds) µs"
                if open.isEmpty || random.next() % 2 == 0 {
                    // Half the time the pair tried last again, as a guesser would.
                    if last == nil || random.next() % 2 == 0 {
                        last = (
                            accounts[Int(random.next() % UInt64(accounts.count))],
                            origins[Int(random.next() % UInt64(origins.count))]
                        )
                    }
                    guard let (account, origin) = last else { continue }
                    let expected = spec.admitLogin(account: account, from: origin, now: now)
                    let actual = try await sql.admit(account: account, from: origin).value
                    #expect(actual == expected, "\(context): admit \(account) from \(origin)")
                    if actual != expected { return await store.close() }
                    seen[Self.kind(expected), default: 0] += 1
                    if expected == .allowed { open.append((account, origin)) }
                } else {
                    let attempt = open.remove(at: Int(random.next() % UInt64(open.count)))
                    switch random.next() % 8 {
                    case 0..<6:
                        let expected = spec.recordFailure(
                            account: attempt.account, from: attempt.origin, now: now)
                        let actual = try await sql.recordFailure(
                            account: attempt.account, from: attempt.origin
                        )
                        .value
                        #expect(actual == expected, "\(context): failure of \(attempt)")
                        seen[expected ? "lock" : "failure", default: 0] += 1
                    case 6:
                        spec.recordSuccess(account: attempt.account, from: attempt.origin)
                        try await sql.recordSuccess(account: attempt.account, from: attempt.origin).value
                        seen["success", default: 0] += 1
                    default:
                        spec.recordAbandoned(account: attempt.account, from: attempt.origin)
                        try await sql.recordAbandoned(account: attempt.account, from: attempt.origin).value
                        seen["abandoned", default: 0] += 1
                    }
                }
            }
            // The sequence reached every kind of answer, so the comparison covered every rule.
            for kind in [
                "allowed", "throttled", "locked", "budgetSpent", "failure", "lock", "success", "abandoned",
            ] {
                #expect(seen[kind, default: 0] > 0, "seed \(seed): no \(kind) in \(seen)")
            }
            await store.close()
        }
    }

    static func kind(_ admission: ThrottleState.Admission) -> String {
        switch admission {
        case .allowed: "allowed"
        case .throttled(_, let locked): locked ? "locked" : "throttled"
        case .budgetSpent: "budgetSpent"
        }
    }

    @Test("an attempt in flight counts as a failure until it is recorded, or until its mark expires")
    func inFlightExpiry() async throws {
        try await PostgresCluster.with { cluster in
            let store = try await PostgresAccountStore(configuration: .init(url: cluster.url))
            let clock = InjectedClock()
            var policy = ThrottlePolicy(freeFailures: 1)
            policy.inFlightExpiry = .seconds(30)
            let sql = PostgresLoginThrottle(store: store, policy: policy, now: { clock.microseconds })
            #expect(try await sql.admit(account: "alice", from: .client("x")).value == .allowed)
            // In flight: the next one waits as if the first had failed.
            #expect(
                try await sql.admit(account: "alice", from: .client("x")).value
                    == .throttled(retryAfter: .seconds(1), locked: false))
            // The replica that admitted it died: the mark lapses after the expiry.
            clock.advance(milliseconds: 29_999)
            #expect(try await sql.admit(account: "alice", from: .client("x")).value != .allowed)
            clock.advance(milliseconds: 1)
            #expect(try await sql.admit(account: "alice", from: .client("x")).value == .allowed)
            // A failure recorded after all still counts.
            #expect(try await sql.recordFailure(account: "alice", from: .client("x")).value == false)
            #expect(
                try await sql.admit(account: "alice", from: .client("x")).value
                    == .throttled(retryAfter: .seconds(1), locked: false))
            await store.close()
        }
    }

    @Test("three stores (replicas) admitting at once on one database: no more than one store admits")
    func replicasAtOnce() async throws {
        try await PostgresCluster.with { cluster in
            var stores: [PostgresAccountStore] = []
            for _ in 0..<3 {
                stores.append(try await PostgresAccountStore(configuration: .init(url: cluster.url)))
            }
            let policy = ThrottlePolicy(clientFailuresPerMinute: 6, accountFreeFailures: 10)
            let throttles = stores.map { PostgresLoginThrottle(store: $0, policy: policy) }
            // One account, a new client each attempt: the account's budget, whatever the replica.
            let budget = Admissions()
            for index in 0..<60 {
                budget.subscribe(throttles[index % 3].admit(account: "target", from: .client("c\(index)")))
            }
            #expect(await budget.wait(for: 60).allowed == 10)
            // One client over many accounts: its own failures a minute.
            let perClient = Admissions()
            for index in 0..<30 {
                perClient.subscribe(
                    throttles[index % 3].admit(account: "acct\(index)", from: .client("sprayer")))
            }
            #expect(await perClient.wait(for: 30).allowed == 6)
            // One client on one account: its free failures (attempts in flight count).
            let pair = Admissions()
            for index in 0..<30 {
                pair.subscribe(throttles[index % 3].admit(account: "other", from: .client("guesser")))
            }
            #expect(await pair.wait(for: 30).allowed == 3)
            for store in stores { await store.close() }
        }
    }

    @Test("the sweep deletes entries at rest, one replica at a time, and leaves what still counts")
    func sweep() async throws {
        try await PostgresCluster.with { cluster in
            let store = try await PostgresAccountStore(configuration: .init(url: cluster.url))
            let clock = InjectedClock()
            let sql = PostgresLoginThrottle(store: store, policy: Self.policy, now: { clock.microseconds })
            for index in 0..<5 {
                #expect(
                    try await sql.admit(account: "name\(index)", from: .client("c\(index)")).value == .allowed
                )
                _ = try await sql.recordFailure(account: "name\(index)", from: .client("c\(index)")).value
            }
            // Nothing at rest yet: every entry still changes an answer.
            #expect(try await sql.removeResting().value == 0)
            let probe = try await ClusterConnection(cluster.url)
            // Another replica sweeping (the test holds the lock): this one deletes nothing.
            _ = try await probe.query(
                "SELECT pg_advisory_lock($1)", [.integer(PostgresLoginThrottle.sweepLock)])
            clock.advance(milliseconds: 3_600_000)
            #expect(try await sql.removeResting().value == 0)
            _ = try await probe.query(
                "SELECT pg_advisory_unlock($1)", [.integer(PostgresLoginThrottle.sweepLock)])
            // An hour on, the failures are forgotten and the buckets full: all of it goes.
            #expect(try await sql.admit(account: "kept", from: .client("k")).value == .allowed)
            #expect(try await sql.removeResting().value == 15)
            let left = try await probe.query(
                "SELECT (SELECT count(*) FROM throttle_pairs) + (SELECT count(*) FROM throttle_buckets)")
            #expect(try left.integer(0, 0) == 3)  // the attempt in flight: its pair and two buckets
            await probe.close()
            await store.close()
        }
    }

    @Test("the database goes away: admission answers unavailable, never admits unthrottled")
    func databaseDown() async throws {
        try await PostgresCluster.with { cluster in
            let store = try await PostgresAccountStore(
                configuration: .init(url: cluster.url, backoff: .milliseconds(20)...(.milliseconds(200))))
            let sql = PostgresLoginThrottle(store: store, policy: ThrottlePolicy())
            #expect(try await sql.admit(account: "alice", from: .client("x")).value == .allowed)
            try await cluster.stop()
            #expect(await errorCode(of: sql.admit(account: "alice", from: .client("x"))) == .unavailable)
            #expect(await errorCode(of: sql.admit(account: "alice", from: .client("y"))) == .unavailable)
            try await cluster.restart()
            let back = await waitUntil { store.isReachable }
            #expect(back)
            #expect(try await sql.admit(account: "alice", from: .client("x")).value == .allowed)
            await store.close()
        }
    }
}

/// AuthService with its logins throttled in PostgreSQL.
@Suite("AuthService over PostgresLoginThrottle", .timeLimit(.minutes(1)))
struct SharedThrottleServiceTests {
    @Test("logins disposed while their admission is asked give back what they took; the budget holds")
    func disposedWhileAdmitting() async throws {
        try await PostgresCluster.with { cluster in
            let store = try await PostgresAccountStore(configuration: .init(url: cluster.url))
            let policy = ThrottlePolicy(accountFreeFailures: 3, accountFailuresPerMinute: 1)
            let pool = PasswordHashingPool(workers: 1, queueCapacity: 16)
            let service = AuthService(
                store: store, hashing: pool, configuration: AuthConfiguration(throttle: policy, cost: .test),
                loop: TestLoop.shared, sharedThrottle: PostgresLoginThrottle(store: store, policy: policy))
            let made = try await service.register(
                RegisterRequest(username: "someone", password: "secret1"), client: "c"
            ).value
            #expect(made.statusCode == 201)
            for index in 0..<10 {
                service.login(LoginRequest(username: "someone", password: "guess"), client: "gone-\(index)")
                    .subscribe { _ in }.dispose()
            }
            // Each was asked (its origin's bucket exists) and whatever it took is back: the origins'
            // buckets full, the account's budget full, nothing in flight.
            let probe = try await ClusterConnection(cluster.url)
            let settled = await waitUntil {
                let left = try? await probe.query(
                    """
                    SELECT (SELECT count(*) FROM throttle_buckets WHERE key LIKE 'o:c:gone-%' AND tokens = 30)
                           = 10
                       AND (SELECT coalesce(sum(in_flight), 0) FROM throttle_pairs) = 0
                       AND (SELECT tokens FROM throttle_buckets WHERE key = 'a:someone') = 3
                    """)
                return left?.rows.first?[0] == "t"
            }
            #expect(settled)
            var answers: [Int] = []
            for index in 0..<5 {
                answers.append(
                    try await service.login(
                        LoginRequest(username: "someone", password: "guess"), client: "new-\(index)"
                    ).value.statusCode)
            }
            #expect(answers == [401, 401, 401, 429, 429])
            let right = try await service.login(
                LoginRequest(username: "someone", password: "secret1"), client: "owner"
            ).value
            #expect(right.statusCode == 429)  // the budget is spent for every client without a device
            #expect(service.counters.failedLogins == 3)
            await probe.close()
            await pool.shutdown()
            await store.close()
        }
    }
}

/// A clock the test moves, in microseconds since its start.
final class InjectedClock: Sendable {
    private let now = Mutex<Int64>(0)
    var microseconds: Int64 { now.withLock { $0 } }
    func advance(milliseconds: Int64) { now.withLock { $0 += milliseconds * 1_000 } }
}

/// Admissions subscribed at once, counted as they come back.
final class Admissions: Sendable {
    private let answers = Mutex<[Result<ThrottleState.Admission, any Error>]>([])

    func subscribe(_ single: Single<ThrottleState.Admission>) {
        _ = single.subscribe { [self] event in
            answers.withLock { list in
                switch event {
                case .success(let admission): list.append(.success(admission))
                case .failure(let error): list.append(.failure(error))
                }
            }
        }
    }

    /// Waits (at most ten seconds) for `count` answers; answers how many were allowed.
    func wait(for count: Int) async -> (allowed: Int, answered: Int) {
        _ = await waitUntil { answers.withLock { $0.count } >= count }
        return answers.withLock { list in
            (list.filter { if case .success(.allowed) = $0 { true } else { false } }.count, list.count)
        }
    }
}
