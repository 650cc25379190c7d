import Contracts
import Foundation
import Reactive
import RemoteProtocol
import RemoteStreams
import TestSupport
import Testing
import ZeroMQ

#if canImport(Glibc)
    import Glibc
#endif

/// Options every replica of these tests runs with: a hash queue deep enough for the bursts (past the
/// default, 4 per worker, a replica answers `overloaded`, which these tests do not look at) and the
/// `auth.exists` rate limit out of the way of the load.
private let replicaOptions = [
    "--hash-queue", "64", "--exists-per-second", "1000000", "--exists-burst", "1000000",
]

/// `count` auth-service replicas sharing one throwaway PostgreSQL cluster, each on a tcp loopback port
/// of its own with its own state directory, as `--auth-endpoint a,b,c` callers see them. `body` gets
/// the cluster, the replicas and their directories (to start one again on the same state and port);
/// every replica and the cluster are stopped and removed afterwards, however `body` ends.
private func withReplicas<T>(
    _ count: Int,
    _ body: (PostgresCluster, [ServiceProcess], [TemporaryDirectory]) async throws -> T
) async throws -> T {
    try await PostgresCluster.with { cluster in
        var directories: [TemporaryDirectory] = []
        var replicas: [ServiceProcess] = []
        func cleanUp() async {
            for replica in replicas { await replica.stop() }
            for directory in directories { directory.remove() }
        }
        do {
            for index in 0..<count {
                let directory = try TemporaryDirectory()
                directories.append(directory)
                replicas.append(
                    try await ServiceProcess.start(
                        replicaOptions + ["--database", cluster.url], in: directory, transport: .tcp,
                        name: "auth-\(index + 1)"))
            }
            let result = try await body(cluster, replicas, directories)
            await cleanUp()
            return result
        } catch {
            for replica in replicas { Issue.record("\(replica.endpoint) log:\n\(replica.log)") }
            await cleanUp()
            throw error
        }
    }
}

/// Runs `body` with a client of every replica at once, the way services call auth (`--auth-endpoint
/// a,b,c`: one DEALER per replica and per shard it discovers, calls spread over the connected ones),
/// then stops the client and terminates its context, however `body` ends.
private func withCaller<T>(
    of replicas: [ServiceProcess], deadline: Duration, _ body: (RemoteClient) async throws -> T
) async throws -> T {
    let context = try Context()
    let caller: RemoteClient
    do {
        caller = try RemoteClient(
            context: context,
            configuration: .init(
                endpoints: replicas.map(\.endpoint), deadline: deadline, name: "test-caller",
                discoversShards: true))
    } catch {
        context.terminate()
        throw error
    }
    do {
        let result = try await body(caller)
        await caller.stop()
        context.terminate()
        return result
    } catch {
        await caller.stop()
        context.terminate()
        throw error
    }
}

/// How one call ended.
private enum CallOutcome: Sendable, Equatable {
    /// The answer the test expected (201 for a fresh name, 200 for the right password, ...).
    case expected
    /// An answer, but a wrong one: the text says which.
    case wrong(String)
    /// An `ERROR` frame (or the client's own deadline or lost connection) with this code.
    case failed(ErrorCode)
}

/// One finished call.
private typealias CallRecord = TimedRecord<CallOutcome>

/// Calls `single` and records how it ended against `expected`.
private func record<T: Sendable>(
    _ what: String, _ single: Single<T>, expected: @escaping @Sendable (T) -> String?
) async -> CallRecord {
    let started = ContinuousClock.now
    let outcome: CallOutcome
    do {
        let answer = try await single.value
        outcome = expected(answer).map { .wrong($0) } ?? .expected
    } catch let error as RemoteError {
        outcome = .failed(error.code)
    } catch {
        outcome = .failed(ErrorCode("not a RemoteError: \(error)"))
    }
    return CallRecord(what: what, outcome: outcome, started: started)
}

/// auth-service replicas on one PostgreSQL database, as real processes on loopback: what one replica
/// does the others see, a replica killed mid-burst loses nothing it acknowledged, and a database
/// restart is answered `unavailable` (never wrongly) and recovered from without help.
@Suite("auth-service: replicas on one PostgreSQL", .timeLimit(.minutes(2)), .serialized)
struct AuthReplicasIntegrationTests {
    @Test("registered on A, logged in on B; logged out on A, B refuses the token")
    func sessionsAcrossReplicas() async throws {
        try await withReplicas(2) { _, replicas, _ in
            let a = replicas[0].client
            let b = replicas[1].client
            #expect(try await a.register("shared_ann").statusCode == 201)
            #expect(try await b.exists("shared_ann"))
            #expect(try await b.register("shared_ann").statusCode == 409)
            #expect(try await b.login("shared_ann", "not the password").statusCode == 401)

            let login = try await b.login("shared_ann")
            #expect(login.statusCode == 200)
            let token = try #require(login.user?.userToken)
            let verified = try await a.request(Methods.Auth.verify, VerifyRequest(token: token)).value
            #expect(verified.name == "shared_ann")

            let logout = try await a.request(Methods.Auth.logout, LogoutRequest(token: token)).value
            #expect(logout.revoked)
            #expect(
                await errorCode(of: b.request(Methods.Auth.verify, VerifyRequest(token: token)))
                    == .unauthenticated)
            #expect(
                await errorCode(of: a.request(Methods.Auth.verify, VerifyRequest(token: token)))
                    == .unauthenticated)
        }
    }

    @Test(
        "SIGKILL of a replica mid-burst: every registration succeeds on another replica, nothing is lost, it rejoins"
    )
    func replicaKilledMidBurst() async throws {
        let deadline = Duration.seconds(2)
        try await withReplicas(3) { cluster, replicas, directories in
            try await withCaller(of: replicas, deadline: deadline) { caller in
                try await burst(caller, cluster, replicas, directories, deadline: deadline)
            }
        }
    }

    /// The burst, the kill, the checks and the restart of ``replicaKilledMidBurst()``.
    private func burst(
        _ caller: RemoteClient, _ cluster: PostgresCluster, _ replicas: [ServiceProcess],
        _ directories: [TemporaryDirectory], deadline: Duration
    ) async throws {
        let victim = replicas[0]
        let records = Locked<[CallRecord]>([])
        let killed = Locked(false)
        let acknowledgedAfterKill = Locked(0)

        // 12 senders register fresh names until 100 are acknowledged, then the first replica is
        // killed; they go on until 100 more are acknowledged after the kill (or 2,400 calls).
        await withTaskGroup(of: Void.self) { group in
            for sender in 0..<12 {
                group.addTask {
                    for round in 0..<200 {
                        if acknowledgedAfterKill.value >= 100 { return }
                        let name = "burst_\(sender)_\(round)"
                        let call = await record(
                            name,
                            caller.request(
                                Methods.Auth.register,
                                RegisterRequest(
                                    username: name, password: "correct horse", requestID: UUID().uuidString))
                        ) { answer in
                            answer.statusCode == 201 ? nil : "\(answer.statusCode) \(answer.message)"
                        }
                        let acknowledged = records.withLock { records in
                            records.append(call)
                            return records.filter { $0.outcome == .expected }.count
                        }
                        if call.outcome == .expected, killed.value {
                            acknowledgedAfterKill.withLock { $0 += 1 }
                        }
                        let kill =
                            acknowledged >= 100
                            && killed.withLock { killed in
                                defer { killed = true }
                                return !killed
                            }
                        if kill { victim.child.send(SIGKILL) }
                    }
                }
            }
        }
        #expect(await victim.child.waitForExit(timeout: .seconds(10)) == .signaled(SIGKILL))
        let all = records.value
        let acknowledged = all.filter { $0.outcome == .expected }.map(\.what)
        #expect(acknowledged.count >= 200, "acknowledged \(acknowledged.count) of \(all.count)")
        #expect(acknowledgedAfterKill.value >= 100, "the burst did not go on after the kill")

        // Every call ended within its deadline (the client's own timer fires at the deadline plus
        // a tenth, at least 100 ms), a retry included: it carries what is left of the deadline.
        let limit = deadline + .milliseconds(800)
        let slow = all.filter { $0.took > limit }
        #expect(slow.isEmpty, "calls past the deadline: \(slow.map { "\($0.what) \($0.took)" })")

        // No registration fails: each carries a `request_id`, so the caller's client sends one that
        // was open on the killed replica (or sent to it before its connection was seen lost) again to
        // another replica, which answers 201 whether or not the killed one had committed it.
        let failed = all.filter { $0.outcome != .expected }
        #expect(failed.isEmpty, "\(failed.map { "\($0.what): \($0.outcome)" })")

        // Nothing acknowledged is lost: every name answered 201 is there, seen through another
        // replica.
        let witness = replicas[2].client
        var missing: [String] = []
        for name in acknowledged where !(try await witness.exists(name)) { missing.append(name) }
        #expect(missing.isEmpty, "acknowledged but missing: \(missing)")

        // The killed replica starts again on its state directory and port; the callers' client
        // reconnects to it by itself, and it serves what the others wrote meanwhile.
        let again = try await ServiceProcess.start(
            replicaOptions + ["--database", cluster.url], in: directories[0],
            endpoint: victim.endpoint, name: "auth-1-again")
        do {
            #expect(
                await eventually(within: .seconds(10)) { caller.isConnected(replica: 0) },
                "the callers' client did not reconnect to the restarted replica")
            let latest = try #require(acknowledged.last)
            #expect(try await again.client.exists(latest))
            #expect(try await again.client.login(latest).statusCode == 200)
            #expect(try await again.client.register("after_restart").statusCode == 201)
            #expect(try await replicas[1].client.exists("after_restart"))
            #expect(await again.stop() == .exited(0))
        } catch {
            Issue.record("restarted replica's log:\n\(again.log)")
            await again.stop()
            throw error
        }
    }

    @Test(
        "PostgreSQL restarts under load: degraded, unavailable and never a wrong answer, then ready by itself"
    )
    func databaseRestartUnderLoad() async throws {
        try await withReplicas(2) { cluster, replicas, directories in
            try await withCaller(of: replicas, deadline: .seconds(5)) { caller in
                try await outage(caller, cluster, replicas, directories)
            }
        }
    }

    /// The load, the outage and the checks of ``databaseRestartUnderLoad()``.
    private func outage(
        _ caller: RemoteClient, _ cluster: PostgresCluster, _ replicas: [ServiceProcess],
        _ directories: [TemporaryDirectory]
    ) async throws {
        #expect(try await caller.register("steady_user").statusCode == 201)
        let load = ReplicaLoad(caller: caller)
        try await whileLoading({ await load.run(workers: 6) }, stop: load.stop) {
            try await scenario(cluster, replicas, directories, load)
        }

        let all = load.records
        let wrong = all.filter { if case .wrong = $0.outcome { true } else { false } }
        #expect(wrong.isEmpty, "wrong answers: \(wrong.prefix(10).map { "\($0.what): \($0.outcome)" })")
        let codes = Set(all.compactMap { if case .failed(let code) = $0.outcome { code } else { nil } })
        #expect(codes.isSubset(of: [.unavailable]), "errors other than unavailable: \(codes)")
        // What was acknowledged before, during and after the outage is all there.
        let registered = all.filter { $0.what.hasPrefix("register ") && $0.outcome == .expected }
            .map { String($0.what.dropFirst("register ".count)) }
        var missing: [String] = []
        for name in registered where !(try await replicas[1].client.exists(name)) { missing.append(name) }
        #expect(missing.isEmpty, "acknowledged but missing: \(missing)")
    }

    /// The outage: load flowing, PostgreSQL stopped (immediate shutdown, as a crash), each replica
    /// degraded and answering `unavailable`, PostgreSQL started again, each replica ready by itself
    /// and the load answered as before.
    private func scenario(
        _ cluster: PostgresCluster, _ replicas: [ServiceProcess], _ directories: [TemporaryDirectory],
        _ load: ReplicaLoad
    ) async throws {
        #expect(await eventually(within: .seconds(10)) { load.count(.expected) >= 60 }, "no load flows")
        try await cluster.stop()
        for replica in replicas {
            #expect(try await waitForHealth(replica.client, .degraded), "\(replica.endpoint) not degraded")
            let report = try await replica.client.health().value
            #expect(report.ready, "a degraded replica still answers")
            #expect(report.reasons.contains { $0.contains("database") }, "\(report.reasons)")
        }
        let (ended, output) = try await runAuthService(
            [
                "--check", "--curve", "off", "--state-dir", replicas[1].stateDirectory, "--endpoint",
                replicas[1].endpoint,
            ],
            in: directories[1])
        #expect(ended == .exited(0) && output.contains("degraded"), "\(ended) \(output)")
        let failedBefore = load.count(.failed(.unavailable))
        #expect(
            await eventually(within: .seconds(10)) { load.count(.failed(.unavailable)) >= failedBefore + 30 },
            "the load is not answered unavailable during the outage")

        try await cluster.restart()
        for replica in replicas {
            #expect(try await waitForHealth(replica.client, .ready), "\(replica.endpoint) not ready again")
        }
        let recovered = ContinuousClock.now
        #expect(
            await eventually(within: .seconds(10)) {
                ["login", "register", "exists"].allSatisfy {
                    load.count(.expected, kind: $0, since: recovered) >= 20
                }
            }, "the load is not answered as before after the database is back")
    }
}

/// Calls through every replica in a loop, from several tasks, until stopped: logins of an existing
/// user with the right password (must never be 401), registrations of fresh names (never 409) and
/// `auth.exists` of fresh names (never true). Every call is recorded.
private final class ReplicaLoad: Sendable {
    private let caller: RemoteClient
    private let recorded = Locked<[CallRecord]>([])
    private let stopped = Locked(false)

    init(caller: RemoteClient) { self.caller = caller }

    /// Every call so far.
    var records: [CallRecord] { recorded.value }

    /// Calls that ended with `outcome`, of `kind` (`login`, `register`, `exists`) if given, started at
    /// or after `since` if given.
    func count(_ outcome: CallOutcome, kind: String? = nil, since: ContinuousClock.Instant? = nil) -> Int {
        recorded.withLock { records in
            records.filter { record in
                record.outcome == outcome && (kind.map { record.what.hasPrefix($0 + " ") } ?? true)
                    && (since.map { record.started >= $0 } ?? true)
            }.count
        }
    }

    func stop() { stopped.withLock { $0 = true } }

    /// Runs `workers` loops until ``stop()``.
    func run(workers: Int) async {
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<workers {
                group.addTask { [self] in
                    var round = 0
                    while !stopped.value {
                        round += 1
                        let call = await next(worker: worker, round: round)
                        recorded.withLock { $0.append(call) }
                        // Pacing, not synchronisation: calls answered at once (`unavailable` during the
                        // outage) would otherwise spin the workers.
                        if call.took < .milliseconds(5) { try? await Task.sleep(for: .milliseconds(5)) }
                    }
                }
            }
        }
    }

    private func next(worker: Int, round: Int) async -> CallRecord {
        let fresh = "load_\(worker)_\(round)"
        switch round % 3 {
        case 0:
            // Each worker is an end client of its own, as the gateway names them: one client's
            // attempts in flight count as failures until answered (docs/security/throttling.md), so
            // workers sharing one identity would be throttled by their own concurrency.
            return await record(
                "login steady_user",
                caller.request(
                    Methods.Auth.login,
                    LoginRequest(username: "steady_user", password: "correct horse", client: "worker-\(worker)"))
            ) { answer in answer.statusCode == 200 ? nil : "\(answer.statusCode) \(answer.message)" }
        case 1:
            return await record(
                "register \(fresh)",
                caller.request(
                    Methods.Auth.register,
                    RegisterRequest(username: fresh, password: "correct horse", requestID: UUID().uuidString))
            ) { answer in answer.statusCode == 201 ? nil : "\(answer.statusCode) \(answer.message)" }
        default:
            return await record(
                "exists \(fresh)",
                caller.request(Methods.Auth.exists, ExistsRequest(username: "never_\(fresh)"))
            ) { answer in answer.exists ? "exists" : nil }
        }
    }
}
