import Foundation
import Postgres
import Reactive
import RemoteProtocol
import Synchronization
import TestSupport
import Testing

@testable import AuthCore

/// Waits until `condition` holds, checking after each yield, for at most ten seconds.
func waitUntil(_ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + .seconds(10)
    while !(try await condition()) {
        if ContinuousClock.now > deadline { return false }
        await Task.yield()
    }
    return true
}

/// The PostgreSQL store on a throwaway cluster: group commit, migrations by several replicas, the
/// database's clock, the sweep lock, and a database that goes away and comes back.
@Suite("PostgresAccountStore", .timeLimit(.minutes(1)))
struct PostgresAccountStoreTests {
    @Test("registrations submitted together are committed in a few transactions, each answered")
    func groupCommit() async throws {
        try await PostgresCluster.with { cluster in
            let store = try await PostgresAccountStore(configuration: .init(url: cluster.url))
            let blocker = try await ClusterConnection(cluster.url)
            // The test's transaction locks the table, so the writer waits on its first group while the
            // rest queue up behind it.
            try await blocker.run { try $0.execute("BEGIN; LOCK TABLE accounts IN EXCLUSIVE MODE") }
            let commitsBefore = try await blocker.query(
                "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()"
            ).integer(0, 0)
            let outcomes = Outcomes<AccountCreation>()
            for index in 0..<500 {
                outcomes.subscribe(
                    index, store.createAccount(username: "user\(index)", passwordHash: "$h", createdAt: 0))
            }
            try await blocker.run { try $0.execute("COMMIT") }

            let results = await outcomes.wait(for: 500)
            let ids = Set(
                results.values.compactMap { result -> Int64? in
                    if case .success(.created(let id)) = result { return id }
                    return nil
                })
            #expect(ids.count == 500)
            let counters = store.counters
            #expect(counters.writes == 500)
            #expect(counters.commits <= 3)  // the first group, then the rest (at most 256 per group)
            #expect(counters.largestGroup > 1)
            // The server's own count agrees: a handful of transactions for 500 registrations.
            let commitsAfter = try await blocker.query(
                "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()"
            ).integer(0, 0)
            #expect(commitsAfter - commitsBefore < 50)
            #expect(try await blocker.query("SELECT count(*) FROM accounts").integer(0, 0) == 500)
            await blocker.close()
            await store.close()
        }
    }

    @Test("two stores starting at once migrate the schema exactly once")
    func concurrentMigration() async throws {
        try await PostgresCluster.with { cluster in
            let holder = try await ClusterConnection(cluster.url)
            _ = try await holder.query(
                "SELECT pg_advisory_lock($1)", [.integer(PostgresAccountStore.migrationLock)])
            let url = cluster.url
            async let first = PostgresAccountStore(configuration: .init(url: url))
            async let second = PostgresAccountStore(configuration: .init(url: url))
            // Both wait for the migration lock the test holds; then they race for it.
            let waiting = try await waitUntil {
                try await holder.query(
                    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
                ).integer(0, 0) == 2
            }
            #expect(waiting)
            _ = try await holder.query(
                "SELECT pg_advisory_unlock($1)", [.integer(PostgresAccountStore.migrationLock)])
            let stores = try await [first, second]
            let versions = try await holder.query(
                "SELECT version, count(*) FROM schema_migrations GROUP BY version ORDER BY version")
            // Every version once.
            #expect(versions.rows == PostgresAccountStore.migrations.map { ["\($0.version)", "1"] })
            guard
                case .created = try await stores[0].createAccount(
                    username: "alice1", passwordHash: "$h", createdAt: 0
                ).value
            else {
                Issue.record("not created")
                return
            }
            #expect(try await stores[1].exists(username: "alice1").value)
            #expect(
                try await stores[1].createAccount(username: "alice1", passwordHash: "$h", createdAt: 0).value
                    == .taken)
            for store in stores { await store.close() }
            await holder.close()
        }
    }

    @Test("expiry is the database's clock, not the caller's; one replica sweeps at a time")
    func databaseClockAndSweepLock() async throws {
        try await PostgresCluster.with { cluster in
            let store = try await PostgresAccountStore(configuration: .init(url: cluster.url))
            guard
                case .created(let id) = try await store.createAccount(
                    username: "alice1", passwordHash: "$h", createdAt: 0
                ).value
            else {
                Issue.record("not created")
                return
            }
            let now = Int64(Date().timeIntervalSince1970)
            try await store.addSession(digest: [1], accountID: id, expiresAt: now + 3_600).value
            try await store.addSession(digest: [2], accountID: id, expiresAt: now - 60).value
            // A caller whose clock is a day ahead (or behind) changes nothing.
            #expect(try await store.session(digest: [1], now: now + 86_400).value?.expiresAt == now + 3_600)
            #expect(try await store.session(digest: [2], now: 0).value == nil)

            // Another replica holds the sweep lock: this one's sweep deletes nothing.
            let replica = try await ClusterConnection(cluster.url)
            _ = try await replica.query(
                "SELECT pg_advisory_lock($1)", [.integer(PostgresAccountStore.sweepLock)])
            #expect(try await store.removeExpiredSessions(now: now + 86_400).value == 0)
            _ = try await replica.query(
                "SELECT pg_advisory_unlock($1)", [.integer(PostgresAccountStore.sweepLock)])
            #expect(try await store.removeExpiredSessions(now: now + 86_400).value == 1)
            #expect(try await replica.query("SELECT count(*) FROM sessions").integer(0, 0) == 1)
            await replica.close()
            await store.close()
        }
    }

    @Test("a database that goes away: calls answer unavailable, then the store reconnects by itself")
    func restart() async throws {
        try await PostgresCluster.with { cluster in
            let (changes, changed) = AsyncStream.makeStream(of: Bool.self)
            let store = try await PostgresAccountStore(
                configuration: .init(url: cluster.url, backoff: .milliseconds(20)...(.milliseconds(200))),
                reachability: { reachable, _ in changed.yield(reachable) })
            var events = changes.makeAsyncIterator()
            let key = "registration-1"
            guard
                case .created(let id) = try await store.createAccount(
                    username: "alice1", passwordHash: "$h", createdAt: 0, registrationKey: key
                ).value
            else {
                Issue.record("not created")
                return
            }

            try await cluster.stop()
            // The first call after the crash meets the dead connection: unavailable, never a wrong answer.
            let during = await errorCode(of: store.exists(username: "alice1"))
            #expect(during == .unavailable)
            #expect(await events.next() == false)
            #expect(!store.isReachable)
            #expect(
                await errorCode(of: store.createAccount(username: "bob123", passwordHash: "$h", createdAt: 0))
                    == .unavailable)
            #expect(await errorCode(of: store.account(named: "alice1")) == .unavailable)

            try await cluster.restart()
            #expect(await events.next() == true)
            #expect(store.isReachable)
            #expect(try await store.exists(username: "alice1").value)
            // The registration whose answer was lost, sent again: its own account, not "taken".
            #expect(
                try await store.createAccount(
                    username: "alice1", passwordHash: "$h2", createdAt: 1, registrationKey: key
                )
                .value == .repeated(id: id))
            #expect(store.counters.unavailable >= 3)
            #expect(store.counters.disconnects >= 1)
            await store.close()
        }
    }

    @Test("a database that cannot be reached fails the initializer")
    func unreachable() async throws {
        await #expect(throws: PostgresError.self) {
            _ = try await PostgresAccountStore(
                configuration: .init(url: "postgresql:///postgres?host=/nonexistent-socket-dir&user=postgres")
            )
        }
    }
}
