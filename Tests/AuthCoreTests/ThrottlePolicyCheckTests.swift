import Postgres
import Reactive
import TestSupport
import Testing

@testable import AuthCore

/// The policy replicas sharing the login throttle should agree on: its text, its record in the
/// database (schema version 3), and the check each replica runs against it.
@Suite("ThrottlePolicyCheck", .timeLimit(.minutes(1)))
struct ThrottlePolicyCheckTests {
    @Test("the text holds every field the shared throttle passes to the database, and reads back")
    func text() {
        let policy = ThrottlePolicy()
        #expect(
            policy.sharedText
                == "freeFailures=3 baseDelay=1000000us maximumDelay=60000000us lockAfter=10 "
                + "lockDuration=900000000us failureMemory=3600000000us clientFailuresPerMinute=30 "
                + "accountFreeFailures=10 accountFailuresPerMinute=3 inFlightExpiry=60000000us")
        #expect(policy.differences(from: policy.sharedText).isEmpty)
        // The per-process fields are not the shared throttle's: they may differ.
        var local = policy
        local.existsPerSecond = 1
        local.maximumTracked = 10
        #expect(local.differences(from: policy.sharedText).isEmpty)
        var other = policy
        other.lockAfter = 5
        other.inFlightExpiry = .milliseconds(1_500)
        #expect(
            policy.differences(from: other.sharedText) == [
                ThrottlePolicyDifference(field: "lockAfter", own: "10", recorded: "5"),
                ThrottlePolicyDifference(field: "inFlightExpiry", own: "60000000us", recorded: "1500000us"),
            ])
        // A record of another version's fields: missing and unknown fields both differ.
        let foreign = policy.sharedText.replacingOccurrences(of: "lockAfter=10", with: "lockAfterFailures=10")
        #expect(
            policy.differences(from: foreign) == [
                ThrottlePolicyDifference(field: "lockAfter", own: "10", recorded: nil),
                ThrottlePolicyDifference(field: "lockAfterFailures", own: nil, recorded: "10"),
            ])
    }

    @Test("two replicas with the same policy: no mismatch")
    func samePolicy() async throws {
        try await PostgresCluster.with { cluster in
            let (first, second) = (try await store(cluster), try await store(cluster))
            let a = ThrottlePolicyCheck(
                throttle: PostgresLoginThrottle(store: first, policy: .init()), replica: "a")
            let b = ThrottlePolicyCheck(
                throttle: PostgresLoginThrottle(store: second, policy: .init()), replica: "b")
            #expect(try await a.record().value == nil)
            let replaced = try #require(try await b.record().value)
            #expect(replaced.replica == "a")
            #expect(replaced.policy == ThrottlePolicy().sharedText)
            for check in [a, b] {
                #expect(try await check.check().value == nil)
                #expect(!check.mismatch)
            }
            await first.close()
            await second.close()
        }
    }

    @Test(
        "the newest start records its policy; the earlier replica finds the differing fields once per change")
    func differentPolicies() async throws {
        try await PostgresCluster.with { cluster in
            let (first, second, third) = (
                try await store(cluster), try await store(cluster), try await store(cluster)
            )
            let policy = ThrottlePolicy()
            var changed = policy
            changed.lockAfter = 3
            changed.baseDelay = .milliseconds(500)
            let a = ThrottlePolicyCheck(
                throttle: PostgresLoginThrottle(store: first, policy: policy), replica: "a")
            let b = ThrottlePolicyCheck(
                throttle: PostgresLoginThrottle(store: second, policy: changed), replica: "b")
            _ = try await a.record().value
            #expect(try await a.check().value == nil)
            // b starts with other flags (a rolling update): the record moves to b's.
            let replaced = try #require(try await b.record().value)
            #expect(policy.sharedText == replaced.policy)
            #expect(!b.mismatch)
            #expect(try await b.check().value == nil)
            // a's next check finds it, names the fields and b; the one after reports nothing new.
            guard case .differs(let differences, let record)? = try await a.check().value else {
                Issue.record("no mismatch found")
                return
            }
            #expect(
                differences == [
                    ThrottlePolicyDifference(field: "baseDelay", own: "1000000us", recorded: "500000us"),
                    ThrottlePolicyDifference(field: "lockAfter", own: "10", recorded: "3"),
                ])
            #expect(record.replica == "b")
            #expect(record.policy == changed.sharedText)
            #expect(record.writtenAt.hasSuffix("Z"))
            #expect(a.mismatch)
            #expect(try await a.check().value == nil)
            #expect(a.mismatch)
            // Another replica with a's policy starts: a agrees again (said once), and b now differs.
            let c = ThrottlePolicyCheck(
                throttle: PostgresLoginThrottle(store: third, policy: policy), replica: "c")
            _ = try await c.record().value
            guard case .agrees(let again)? = try await a.check().value else {
                Issue.record("a did not find the record agreeing again")
                return
            }
            #expect(again.replica == "c")
            #expect(!a.mismatch)
            guard case .differs(let reversed, let byC)? = try await b.check().value else {
                Issue.record("b found no mismatch")
                return
            }
            #expect(reversed.map(\.field) == ["baseDelay", "lockAfter"])
            #expect(byC.replica == "c")
            #expect(b.mismatch)
            for store in [first, second, third] { await store.close() }
        }
    }

    @Test("the migration applies on a database at schema version 2, keeping its data")
    func migrationFromVersion2() async throws {
        try await PostgresCluster.with { cluster in
            let connection = try await ClusterConnection(cluster.url)
            let older = Array(PostgresAccountStore.migrations.filter { $0.version <= 2 })
            #expect(try await connection.run { try PostgresAccountStore.migrate($0, older) } == [1, 2])
            _ = try await connection.query(
                "INSERT INTO accounts (username, password_hash, created_at) VALUES ('before', '$h', 0)")
            let store = try await PostgresAccountStore(configuration: .init(url: cluster.url))
            let versions = try await connection.query(
                "SELECT version FROM schema_migrations ORDER BY version")
            #expect(versions.rows == [["1"], ["2"], ["3"]])
            #expect(try await store.exists(username: "before").value)
            let check = ThrottlePolicyCheck(
                throttle: PostgresLoginThrottle(store: store, policy: .init()), replica: "r")
            #expect(try await check.record().value == nil)
            #expect(try await connection.query("SELECT replica FROM throttle_policy").rows == [["r"]])
            await store.close()
            await connection.close()
        }
    }

    private func store(_ cluster: PostgresCluster) async throws -> PostgresAccountStore {
        try await PostgresAccountStore(configuration: .init(url: cluster.url))
    }
}
