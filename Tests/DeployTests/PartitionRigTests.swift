import Contracts
import Foundation
import RemoteStreams
import Synchronization
import TestSupport
import Testing
import ZeroMQ

/// The gateway over two auth-service replicas on hosts of the rig (deploy/local/hosts.sh, with names
/// and a network of the suite's own: `rlp-`, 10.81.0.0/24) and a throwaway PostgreSQL on the rig's
/// bridge; validation-service and the gateway run on the machine's side of the bridge, on `ipc://`
/// endpoints in a temporary directory. An end client drives the gateway's `register` and `signin`
/// commands from several workers while one replica's host is cut off the network and healed.
@Suite("gateway over auth replicas on rig hosts: one partitioned", .timeLimit(.minutes(2)), .serialized)
struct PartitionRigTests {
    private let rig = DatabaseRig(prefix: "rlp-", network: "10.81.0", databasePort: 55433)

    /// The gateway's deadline for a call to auth-service or validation-service (`--deadline`,
    /// `--auth-deadline`).
    private static let upstreamDeadline = Duration.seconds(2)
    /// The end client's deadline for a gateway command: a register command makes two upstream calls
    /// in a row (the field check, then `auth.register`), each within ``upstreamDeadline``.
    private static let commandDeadline = Duration.seconds(5)
    /// How long after a cut a caller may still send calls to the cut replica: until ZeroMQ's heartbeat
    /// (a ping every 1 s, the connection dropped after 3 s without traffic) finds the connection
    /// silent, the replica counts as connected; its calls then time out at their deadline, or fail
    /// `unavailable` when the connection is dropped (a safe call is sent again to the other
    /// replica). A command started after this window plus one command deadline never meets the cut
    /// replica.
    private static let detection = Duration.seconds(4)
    /// Timer granularity on top of ``detection`` (the heartbeat's timers, the loops' turns).
    private static let slack = Duration.seconds(1)
    /// End-client workers, each with one command open at a time.
    private static let workers = 4

    @Test(
        "one auth replica's host cut off: the gateway keeps answering through the other; healed, the replica is used again",
        .needsNamespaces)
    func partitionOneReplica() async throws {
        try await rig.run(statePrefix: "rigpartition", scenario(state:servers:))
    }

    /// Starts `command` in the background (inside host `host` if given, through hosts.sh, which execs
    /// into it), its output in `log`, and returns its pid.
    private func start(_ command: [String], host: Int? = nil, log: String) async throws -> Int32 {
        let prefix = host.map { [rig.hosts.script, "run", "\($0)"] } ?? []
        let started = try await runCommand(
            "/bin/bash", ["-c", "log=$1; shift; \"$@\" >\"$log\" 2>&1 </dev/null & echo $!", "bash", log] + prefix + command,
            environment: rig.hosts.environment)
        return try #require(
            Int32(started.output.trimmingCharacters(in: .whitespacesAndNewlines)),
            "no pid: \(started.output)\(started.error)")
    }

    private func scenario(state: TemporaryDirectory, servers: inout [Int32]) async throws {
        let url = try await rig.start(hosts: 2, state: state)

        let replicaEndpoints = ["tcp://10.81.0.11:5562", "tcp://10.81.0.12:5562"]
        for host in 1...2 {
            let directory = state.file("auth-\(host)")
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            servers.append(
                try await start(
                    [
                        Paths.binaries + "/auth-service", "--curve", "off", "--hash-cost", "test", "--state-dir",
                        directory, "--endpoint", replicaEndpoints[host - 1], "--database", url,
                        // validation-service's lookups of every fresh name, out of the way of the load.
                        "--exists-per-second", "1000000", "--exists-burst", "1000000",
                    ], host: host, log: directory + ".log"))
        }
        let validation = "ipc://" + state.file("validation.sock")
        let gateway = "ipc://" + state.file("gateway.sock")
        let deadline = "\(Self.upstreamDeadline.components.seconds)s"
        for name in ["validation", "gateway"] {
            try FileManager.default.createDirectory(
                atPath: state.file(name), withIntermediateDirectories: true)
        }
        servers.append(
            try await start(
                [
                    Paths.binaries + "/validation-service", "--curve", "off", "--state-dir", state.file("validation"),
                    "--endpoint", validation, "--auth-endpoint", replicaEndpoints.joined(separator: ","),
                    "--auth-curve", "off", "--auth-deadline", deadline,
                ], log: state.file("validation.log")))
        servers.append(
            try await start(
                [
                    Paths.binaries + "/gateway", "--curve", "off", "--state-dir", state.file("gateway"),
                    "--endpoint", gateway, "--auth-endpoint", replicaEndpoints.joined(separator: ","),
                    "--validation-endpoint", validation, "--heroes-endpoint", "ipc://" + state.file("heroes.sock"),
                    "--auth-curve", "off", "--validation-curve", "off", "--heroes-curve", "off",
                    "--deadline", deadline,
                ], log: state.file("gateway.log")))

        let context = try Context()
        defer { context.terminate() }
        let replicas = try replicaEndpoints.map { endpoint in
            try RemoteClient(
                context: context,
                configuration: .init(endpoints: [endpoint], deadline: .seconds(2), name: "rig-test"))
        }
        let end = try RemoteClient(
            context: context,
            configuration: .init(endpoints: [gateway], deadline: Self.commandDeadline, name: "rig-end-client"))
        let clients = replicas + [end]
        do {
            try await partition(replicas: replicas, end: end, state: state)
        } catch {
            for client in clients { await client.stop() }
            throw error
        }
        for client in clients { await client.stop() }
    }

    /// Load through the gateway; the cut of host 1 (replica A) and its heal; the checks.
    private func partition(replicas: [RemoteClient], end: RemoteClient, state: TemporaryDirectory) async throws {
        let logs = ["auth-1", "auth-2", "validation", "gateway"].map { "\($0): \(contents(state.file("\($0).log")))" }
        for (index, client) in (replicas + [end]).enumerated() {
            try #require(await ready(client, within: .seconds(30)), "not ready (\(index)): \(logs)")
        }
        let (a, b) = (replicas[0], replicas[1])
        let load = CommandLoad(end: end)
        try await whileLoading({ await load.run(workers: Self.workers) }, stop: load.stop) {
            // Both replicas serve the load before the cut.
            let used = await eventually(within: .seconds(10)) {
                guard load.succeeded() >= 20, let usedA = await served(a), let usedB = await served(b) else {
                    return false
                }
                return usedA > 0 && usedB > 0
            }
            try #require(used, "the load does not reach both replicas: \(load.summary)")

            let cut = try await rig.hosts.run(["cut", "1"])
            try #require(cut.status == 0, "\(cut.error)")
            load.markCut()
            let settled = try #require(load.cutAt) + Self.detection + Self.slack
            // The gateway goes on answering through replica B: commands started once the cut is
            // noticed all succeed.
            #expect(
                await eventually(within: .seconds(20)) { load.succeeded(since: settled) >= 20 },
                "the gateway does not serve through the other replica: \(load.summary)")

            let heal = try await rig.hosts.run(["heal", "1"])
            try #require(heal.status == 0, "\(heal.error)")
            // Replica A is used again: its own counters grow past what it had served once it answers
            // again (the test asks it only `sys.stats`; logins and registrations come from the gateway
            // and validation-service).
            var healed: Int?
            #expect(
                await eventually(within: .seconds(15)) {
                    guard let now = await served(a) else { return false }
                    guard let before = healed else {
                        healed = now
                        return false
                    }
                    return now > before
                }, "replica A is not used again after heal: \(load.summary)")
        }

        let records = load.records
        // Every command was answered, within the end client's deadline: never an ERROR frame.
        let unanswered = records.filter { if case .error = $0.outcome { true } else { false } }
        #expect(unanswered.isEmpty, "\(unanswered.prefix(10).map { "\($0.what): \($0.outcome)" })")
        let slow = records.filter { $0.took > Self.commandDeadline }
        #expect(slow.isEmpty, "\(slow.prefix(10).map { "\($0.what): \($0.took)" })")
        // A failed command is `network.error` (an upstream call's deadline, or its connection to the
        // cut replica dropped), and only for commands started before the cut is noticed.
        let failed = records.filter { $0.outcome != .succeeded }
        let cutAt = try #require(load.cutAt)
        let late = failed.filter {
            $0.started > cutAt + Self.detection + Self.slack || $0.outcome != .failed(.networkError)
        }
        #expect(late.isEmpty, "\(late.prefix(10).map { "\($0.what): \($0.outcome) at \($0.started - cutAt)" })")
        // Each worker has one command open at a time; until the cut is noticed each can lose at most
        // the command open at the cut, one more per upstream deadline, and the one failed when the
        // connection is dropped.
        let bound = Self.workers * (2 + Int(Self.detection / Self.upstreamDeadline))
        #expect(failed.count <= bound, "\(failed.count) failed, at most \(bound): \(load.summary)")
        #expect(records.count - failed.count >= 60, "\(load.summary)")
    }

    /// Logins and registrations replica `client` has answered (its `sys.stats`), nil if it does
    /// not answer within 500 ms.
    private func served(_ client: RemoteClient) async -> Int? {
        guard
            let report = try? await client.request(Methods.System.stats, deadline: .milliseconds(500)).value,
            let auth = report.counters["auth"]
        else { return nil }
        return (auth["registered"] ?? 0) + (auth["logins"] ?? 0)
    }
}

/// How one gateway command ended.
private enum CommandOutcome: Sendable, Equatable {
    /// `ok` (201-like for `register`, a session for `signin`).
    case succeeded
    /// Answered, not `ok`, with this message code.
    case failed(MessageCode)
    /// No answer: an `ERROR` frame or the end client's own deadline (the error's text).
    case error(String)
}

/// One finished command.
private typealias CommandRecord = TimedRecord<CommandOutcome>

/// Workers that each register a fresh name through the gateway and sign in with it, one command at
/// a time, until stopped. Every command is recorded.
private final class CommandLoad: Sendable {
    private let end: RemoteClient
    private let recorded = Mutex<[CommandRecord]>([])
    private let stopped = Atomic<Bool>(false)
    private let cut = Mutex<ContinuousClock.Instant?>(nil)

    init(end: RemoteClient) { self.end = end }

    var records: [CommandRecord] { recorded.withLock { $0 } }

    /// When the cut was made, if it was (set by ``markCut()``).
    var cutAt: ContinuousClock.Instant? { cut.withLock { $0 } }

    func markCut() { cut.withLock { $0 = .now } }

    /// Commands that succeeded, started at or after `since` if given.
    func succeeded(since: ContinuousClock.Instant? = nil) -> Int {
        recorded.withLock { records in
            records.filter { record in
                record.outcome == .succeeded && since.map { record.started >= $0 } ?? true
            }.count
        }
    }

    /// Counts by outcome, for failure messages.
    var summary: String {
        let counts = Dictionary(grouping: records, by: { "\($0.outcome)" }).mapValues(\.count)
        return "\(counts)"
    }

    func stop() { stopped.store(true, ordering: .relaxed) }

    func run(workers: Int) async {
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<workers {
                group.addTask { [self] in
                    var round = 0
                    while !stopped.load(ordering: .relaxed) {
                        round += 1
                        let name = "part_\(worker)_\(round)"
                        let registered = await record("register \(name)") { [end] in
                            try await end.request(
                                Methods.Command.register, RegisterCommand(username: name, password: "correct horse")
                            ).value
                        }
                        guard registered.outcome == .succeeded else { continue }
                        _ = await record("signin \(name)") { [end] in
                            try await end.request(
                                Methods.Command.signin, SigninCommand(username: name, password: "correct horse")
                            ).value
                        }
                    }
                }
            }
        }
    }

    private func record(_ what: String, _ call: () async throws -> Contracts.CommandResult) async -> CommandRecord {
        let started = ContinuousClock.now
        let outcome: CommandOutcome
        do {
            let result = try await call()
            outcome = result.ok ? .succeeded : .failed(result.code)
        } catch {
            outcome = .error("\(error)")
        }
        let call = CommandRecord(what: what, outcome: outcome, started: started)
        recorded.withLock { $0.append(call) }
        return call
    }
}
