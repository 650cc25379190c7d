import Contracts
import Foundation
import Reactive
import RemoteStreams
import Synchronization
import TestSupport
import Testing

/// Three auth-service replicas on one PostgreSQL database give an attacker no more wrong-password
/// attempts than one (docs/security/throttling.md, "Several replicas").
@Suite("auth-service: throttling across replicas on PostgreSQL", .timeLimit(.minutes(3)))
struct ThrottleReplicasIntegrationTests {
    /// Limits that do not move while a scenario runs: a lock after 3 failures (no delay that ends
    /// mid-scenario), an account budget of 10 that grows back one a minute, and 6 failures a
    /// client that grow back one every 10 s.
    static let arguments = [
        "--login-lock-after", "3", "--account-free-failures", "10", "--account-failures-per-minute", "1",
        "--client-failures-per-minute", "6",
    ]

    @Test("wrong-password attempts admitted per account and per client: three replicas, the same as one")
    func threeReplicasAsOne() async throws {
        try await PostgresCluster.with { cluster in
            let results = try await withReplicas(["--database", cluster.url]) { try await measure($0) }
            #expect(results.one == [3, 10, 6, 10])
            #expect(results.three == results.one)
        }
    }

    @Test("the same test without a shared database (SQLite each): three replicas give three times the guesses")
    func threeReplicasApart() async throws {
        let results = try await withReplicas([]) { try await measure($0) }
        #expect(results.one == [3, 10, 6, 10])
        #expect(results.three == results.one.map { $0 * 3 })
    }

    @Test("replicas started with different throttling flags: the earlier one reports it, health unchanged")
    func differentFlags() async throws {
        try await PostgresCluster.with { cluster in
            let shared = ["--database", cluster.url, "--shared-throttle-interval", "1s"]
            let directories = [try TemporaryDirectory(), try TemporaryDirectory()]
            defer { for directory in directories { directory.remove() } }
            let first = try await ServiceProcess.start(
                shared + ["--login-lock-after", "3"], in: directories[0], name: "first")
            var second: ServiceProcess?
            do {
                #expect(try await mismatchFlag(first) == 0)
                let started = try await ServiceProcess.start(
                    shared + ["--login-lock-after", "5"], in: directories[1], name: "second")
                second = started
                // The second start records its flags; the first finds them at its next check.
                let mismatch = try await eventually(within: .seconds(20), every: .milliseconds(200)) {
                    try await mismatchFlag(first) == 1
                }
                #expect(mismatch, "log:\n\(first.log)")
                #expect(try await mismatchFlag(started) == 0)
                let log = first.log
                #expect(log.contains("throttle policy differs from the one the database records"), "\(log)")
                #expect(log.contains("lockAfter: here 3, recorded 5"), "\(log)")
                #expect(log.contains("pid \(started.child.pid)"), "\(log)")
                #expect(started.log.contains("throttle policy recorded, replacing a different one"))
                #expect(started.log.contains("lockAfter: here 5, was 3"), "\(started.log)")
                // A mismatch does not make a replica unready.
                #expect(try await first.client.health().value.ready)
                #expect(await started.stop() == .exited(0))
                #expect(await first.stop() == .exited(0))
                // Said once per change of the record, not at every check.
                #expect(first.log.components(separatedBy: "throttle policy differs").count == 2)
            } catch {
                Issue.record("first log:\n\(first.log)\nsecond log:\n\(second?.log ?? "")")
                await second?.stop()
                await first.stop()
                throw error
            }
        }
    }

    /// The `throttle_policy_mismatch` counter of a replica's `store` group in `sys.stats`.
    private func mismatchFlag(_ replica: ServiceProcess) async throws -> Int? {
        let stats = try await replica.client.request(Methods.System.stats).value
        return stats.counters["store"]?["throttle_policy_mismatch"]
    }

    /// Starts three replicas with `arguments` (each in a state directory of its own, on a random
    /// loopback port), runs `body` with them, and stops them.
    private func withReplicas<T>(_ arguments: [String], _ body: ([ServiceProcess]) async throws -> T)
        async throws -> T
    {
        var replicas: [ServiceProcess] = []
        var directories: [TemporaryDirectory] = []
        defer { for directory in directories { directory.remove() } }
        do {
            for index in 0..<3 {
                let directory = try TemporaryDirectory()
                directories.append(directory)
                replicas.append(
                    try await ServiceProcess.start(
                        arguments + Self.arguments, in: directory, transport: .tcp, name: "replica\(index)"))
            }
            let result = try await body(replicas)
            for replica in replicas { #expect(await replica.stop() == .exited(0)) }
            return result
        } catch {
            for replica in replicas { Issue.record("\(replica.endpoint) log:\n\(replica.log)") }
            for replica in replicas { await replica.stop() }
            throw error
        }
    }

    /// The wrong-password attempts admitted in each scenario, against the first replica alone and
    /// against all three in turn (fresh names and clients for each).
    private func measure(_ replicas: [ServiceProcess]) async throws -> (one: [Int], three: [Int]) {
        let one = Array(replicas.prefix(1))
        var results: [String: [Int]] = [:]
        for target in [one, replicas] {
            let tag = "\(target.count)"
            #expect(try await target[0].client.register("victim-\(tag)").statusCode == 201)
            #expect(try await target[0].client.register("budget-\(tag)").statusCode == 201)
            // One account, one client, one guess after another: the pair's lock.
            let pair = try await attempts(target, 20) { _ in ("victim-\(tag)", "pair-guesser-\(tag)") }
            // One account, a new client for every guess: the account's budget.
            let budget = try await attempts(target, 40) { index in ("budget-\(tag)", "fresh-\(tag)-\(index)") }
            // One client over many names: the client's failures a minute.
            let spray = try await attempts(target, 30) { index in ("sprayed-\(tag)-\(index)", "sprayer-\(tag)") }
            // One account, 40 new clients all at once: attempts in flight count.
            let burst = try await attempts(target, 40, together: true) { index in
                ("burst-\(tag)", "burst-\(tag)-\(index)")
            }
            results[tag] = [pair, budget, spray, burst]
        }
        print(
            "wrong-password attempts admitted (pair, account budget, client, burst): 1 replica \(results["1"] ?? []), 3 replicas \(results["3"] ?? [])"
        )
        return (results["1"] ?? [], results["3"] ?? [])
    }

    /// Sends `count` wrong-password logins, the `index`-th as `target(index)` (a name and a client)
    /// to replica `index % replicas.count`, one after another or all at once; answers how many were
    /// admitted (`401`); every other answer must be `429`.
    private func attempts(
        _ replicas: [ServiceProcess], _ count: Int, together: Bool = false,
        _ target: @escaping @Sendable (Int) -> (String, String)
    ) async throws -> Int {
        let send: @Sendable (Int) async throws -> Int = { index in
            let (name, client) = target(index)
            let answer = try await replicas[index % replicas.count].client.request(
                Methods.Auth.login, LoginRequest(username: name, password: "wrong guess \(index)", client: client)
            ).value
            #expect(answer.statusCode == 401 || answer.statusCode == 429, "\(answer)")
            return answer.statusCode == 401 ? 1 : 0
        }
        guard together else {
            var admitted = 0
            for index in 0..<count { admitted += try await send(index) }
            return admitted
        }
        return try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<count { group.addTask { try await send(index) } }
            return try await group.reduce(0, +)
        }
    }
}
