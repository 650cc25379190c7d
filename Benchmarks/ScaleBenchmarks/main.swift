// `make bench-scale`: auth-service replicas on the multi-host rig (deploy/local/hosts.sh), in one run
// and side by side:
//   (1) aggregate logins per second with 1, 2 and 3 replicas, each on a rig host of its own with the
//       same CPU quota (`--cpu`, default 0.5 of a core), all sharing one PostgreSQL on the rig's
//       bridge; the ratio of N replicas to N × one replica's rate (goal ≥ 0.9);
//   (2) logins per second of one replica on SQLite, on a host with the same quota: the ratio of (1)'s
//       one replica on PostgreSQL to it (goal ≥ 0.95);
//   (3) durable registrations per second of one replica (`--hash-cost test`, 64 in flight, no CPU
//       quota) on PostgreSQL and on SQLite, with commits per registration: the store's own count
//       (`sys.stats`) for both, and PostgreSQL's `xact_commit` (`pg_stat_database`) over the
//       replica's whole life.
// Logins use the production hash cost (`--hash-cost owasp`, m=19 MiB, t=2) against users registered
// first at that cost, `--in-flight` calls per replica. The load generator is this process, on the
// machine's side of the bridge, outside every quota, with one client per replica (each replica gets
// the same closed-model load, so the figures are the replicas' capacity, not a balancing policy).
// PostgreSQL runs outside the quotas too. Rows (1) and (2) are interleaved over `--rounds` rounds (3);
// each keeps its best. Every run is bounded in count and time after a warm-up. Needs root (network
// namespaces, cgroups); the rig's names and network are the benchmark's own (`--hosts-prefix`,
// `--hosts-net`), and everything it starts is stopped and removed at the end, also on failure.
//
// Usage: ScaleBenchmarks [--bin DIR] [--hosts SCRIPT] [--pg-cluster SCRIPT] [--cpu F] [--seconds S]
//                        [--register-seconds S] [--rounds N] [--users N] [--in-flight N] [--only ROWS]
//                        [--hosts-prefix P] [--hosts-net A.B.C] [--pg-port N] [--loops N]
// `--loops` is every replica's shards (`auth-service --loops N`; default: the service's own, the
// cores); each replica's client connects to all of them (`sys.endpoints`).

import BenchmarkSupport
import Contracts
import Foundation
import Measuring
import Reactive
import RemoteStreams

func usage() -> Never {
    print(
        "usage: ScaleBenchmarks [--bin DIR] [--hosts SCRIPT] [--pg-cluster SCRIPT] [--cpu F] [--seconds S] "
            + "[--register-seconds S] [--rounds N] [--users N] [--in-flight N] [--only login,register] "
            + "[--hosts-prefix P] [--hosts-net A.B.C] [--pg-port N] [--loops N]")
    exit(2)
}

/// The command line's settings.
struct Options: Sendable {
    var binaries = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
    var hostsScript = "deploy/local/hosts.sh"
    var clusterScript = "deploy/local/pg-cluster.sh"
    var cpu = "0.5"
    var seconds = 8.0
    var registerSeconds = 5.0
    var rounds = 3
    var users = 16
    var inFlight = 4
    var only: Set<String> = ["login", "register"]
    var prefix = "rlb-"
    var network = "10.79.0"
    var databasePort = 55433
    /// `--loops` for every replica; nil: the service's default.
    var loops: Int?

    static func parse() -> Options {
        var options = Options()
        var arguments = CommandLine.arguments.dropFirst()
        while let option = arguments.popFirst() {
            guard option != "--help" && option != "-h", let value = arguments.popFirst() else { usage() }
            switch option {
            case "--bin": options.binaries = value
            case "--hosts": options.hostsScript = value
            case "--pg-cluster": options.clusterScript = value
            case "--cpu": options.cpu = value
            case "--seconds": options.seconds = Double(value) ?? 0
            case "--register-seconds": options.registerSeconds = Double(value) ?? 0
            case "--rounds": options.rounds = Int(value) ?? 0
            case "--users": options.users = Int(value) ?? 0
            case "--in-flight": options.inFlight = Int(value) ?? 0
            case "--only": options.only = Set(value.split(separator: ",").map(String.init))
            case "--hosts-prefix": options.prefix = value
            case "--hosts-net": options.network = value
            case "--pg-port": options.databasePort = Int(value) ?? 0
            case "--loops":
                guard let loops = Int(value), (1...256).contains(loops) else { usage() }
                options.loops = loops
            default: usage()
            }
        }
        guard options.seconds > 0, options.seconds <= 600, options.registerSeconds > 0,
            options.registerSeconds <= 600, options.rounds > 0, options.rounds <= 10, options.users > 0,
            options.users <= 1_000, options.inFlight > 0, options.inFlight <= 64,
            !options.only.isEmpty, options.only.isSubset(of: ["login", "register"]),
            Double(options.cpu).map({ $0 > 0 }) == true, options.databasePort > 0
        else {
            usage()
        }
        return options
    }
}

let options = Options.parse()
let servicePath = options.binaries + "/auth-service"
let mostReplicas = 3
let replicaCounts = Array(1...mostReplicas)
let sqliteHost = 4
let loginPort = 5562
let registerPort = 5572
let registrationsInFlight = 64
let warmUp = 1.0

/// One printed row.
struct Row {
    let label: String
    let key: String
    var figures: Figures
}

/// The `index`-th user's name.
func userName(_ prefix: String, _ index: Int) -> String {
    let digits = String(index)
    return prefix + String(repeating: "0", count: max(0, 7 - digits.count)) + digits
}

/// Registers `options.users` users named `prefix` + number at the replica's cost, a few at a time.
func registerUsers(on replica: Replica, prefix: String) async throws {
    let client = replica.child.client
    let figures = try await loadRun(inFlight: options.inFlight, limit: options.users, seconds: 600) { index in
        client.request(
            Methods.Auth.register,
            RegisterRequest(username: userName(prefix, index), password: "bench-password-\(index)")
        ).map { $0.statusCode == 201 }
    }
    guard figures.count == options.users else {
        throw BenchmarkError(description: "registered \(figures.count) of \(options.users) users")
    }
}

/// Logins against `replicas` at once, `options.inFlight` per replica, each with a client of its own,
/// for `seconds`: the sum of their counts over the longest run, the worst p50 and p99, each replica's
/// rate, and the replicas' CPU per login.
func logins(_ replicas: [Replica], prefix: String, seconds: Double) async throws -> Figures {
    let users = options.users
    let inFlight = options.inFlight
    let cpuBefore = try replicas.map { try $0.child.cpuTime() }
    let runs = try await withThrowingTaskGroup(of: (Int, Figures).self) { group in
        for (index, replica) in replicas.enumerated() {
            let client = replica.child.client
            group.addTask {
                let figures = try await loadRun(inFlight: inFlight, limit: 1_000_000, seconds: seconds) {
                    call in
                    let user = call % users
                    return client.request(
                        Methods.Auth.login,
                        LoginRequest(username: userName(prefix, user), password: "bench-password-\(user)")
                    ).map { $0.statusCode == 200 && $0.user != nil }
                }
                return (index, figures)
            }
        }
        var runs: [(Int, Figures)] = []
        for try await run in group { runs.append(run) }
        return runs.sorted { $0.0 < $1.0 }.map(\.1)
    }
    let cpu = try zip(replicas, cpuBefore).reduce(0.0) { sum, pair in
        sum + (try pair.0.child.cpuTime().since(pair.1).total)
    }
    let count = runs.reduce(0) { $0 + $1.count }
    var figures = Figures(
        count: count, seconds: runs.map(\.seconds).max() ?? seconds, p50: runs.compactMap(\.p50).max(),
        p99: runs.compactMap(\.p99).max())
    figures.extras = [
        ("replicas", "\(replicas.count)"), ("inflight_per_replica", "\(inFlight)"),
        ("per_replica", runs.map { fixed($0.rate, 1) }.joined(separator: ",")),
        ("service_cpu_ms_per_op", fixed(cpu * 1e3 / Double(max(count, 1)), 2)),
        ("service_cpu_busy", fixed(cpu / figures.seconds, 2)),
    ]
    return figures
}

/// Rows (1) and (2): three replicas on PostgreSQL (hosts 1–3) and one on SQLite (host 4), each
/// with the quota, all running throughout; each round measures 1, 2 and 3 PostgreSQL replicas and
/// the SQLite one in turn, after a warm-up each.
func loginRows(rig: Rig, database: RigDatabase) async throws -> [Row] {
    print(
        "(1) auth.login, --hash-cost owasp, \(options.inFlight) in flight per replica, 1/2/3 replicas on "
            + "PostgreSQL, each on its own host with \(options.cpu) CPU; (2) the same, one replica on SQLite")
    var replicas: [Replica] = []
    func stopAll() async {
        for replica in replicas { await replica.stop() }
    }
    do {
        let common = ["--hash-cost", "owasp"]
        for host in 1...mostReplicas {
            replicas.append(
                try await Replica(
                    rig: rig, host: host, port: loginPort, cpu: options.cpu, servicePath: servicePath,
                    arguments: common + ["--database", database.url]))
        }
        let sqlite = try await Replica(
            rig: rig, host: sqliteHost, port: loginPort, cpu: options.cpu, servicePath: servicePath,
            arguments: common)
        replicas.append(sqlite)
        try await registerUsers(on: replicas[0], prefix: "scalepg")
        try await registerUsers(on: sqlite, prefix: "scalelite")
        print(
            "    \(options.users) users in each store; \(options.rounds) rounds of 1, 2, 3 replicas then SQLite, "
                + "\(fixed(warmUp, 0)) s warm-up and \(fixed(options.seconds, 0)) s each; each row keeps its best"
        )
        var best: [String: Row] = [:]
        func keep(_ row: Row) {
            if row.figures.rate > best[row.key]?.figures.rate ?? -1 { best[row.key] = row }
        }
        for round in 1...options.rounds {
            for count in replicaCounts {
                let chosen = Array(replicas.prefix(count))
                _ = try await logins(chosen, prefix: "scalepg", seconds: warmUp)
                var figures = try await logins(chosen, prefix: "scalepg", seconds: options.seconds)
                figures.extras.insert(("round", "\(round)"), at: 0)
                let key = "login-pg-\(count)"
                print(figures.resultLine(row: key))
                keep(
                    Row(
                        label:
                            "(1) auth.login, PostgreSQL, \(count) replica\(count == 1 ? "" : "s") × \(options.cpu) CPU",
                        key: key, figures: figures))
            }
            _ = try await logins([sqlite], prefix: "scalelite", seconds: warmUp)
            var figures = try await logins([sqlite], prefix: "scalelite", seconds: options.seconds)
            figures.extras.insert(("round", "\(round)"), at: 0)
            print(figures.resultLine(row: "login-sqlite-1"))
            keep(
                Row(
                    label: "(2) auth.login, SQLite, 1 replica × \(options.cpu) CPU", key: "login-sqlite-1",
                    figures: figures))
        }
        await stopAll()
        return (replicaCounts.map { "login-pg-\($0)" } + ["login-sqlite-1"]).compactMap { best[$0] }
    } catch {
        await stopAll()
        throw error
    }
}

/// Row (3): one replica without a quota, `--hash-cost test`, on PostgreSQL (host 1) then on SQLite
/// (host 4), a fresh replica per round and store; registrations of fresh names, 64 in flight.
func registerRows(rig: Rig, database: RigDatabase) async throws -> [Row] {
    print(
        "(3) auth.register, durable, \(registrationsInFlight) in flight, --hash-cost test, one replica without "
            + "a CPU quota: PostgreSQL on host 1, SQLite on host 4")
    var best: [String: Row] = [:]
    for round in 1...options.rounds {
        for (key, host, store) in [
            ("register-pg", 1, ["--database", database.url]),
            ("register-sqlite", sqliteHost, ["--synchronous", "full"]),
        ] {
            let onPostgres = key == "register-pg"
            var commitsBefore = 0
            if onPostgres { commitsBefore = try await database.commitsWhenIdle() }
            let replica = try await Replica(
                rig: rig, host: host, port: registerPort, cpu: nil, servicePath: servicePath,
                arguments: ["--hash-cost", "test", "--hash-queue", "\(registrationsInFlight)"] + store)
            var figures: Figures
            var storeCommits = 0
            do {
                let client = replica.child.client
                let registration: @Sendable (String) -> @Sendable (Int) -> Single<Bool> = { prefix in
                    { index in
                        client.request(
                            Methods.Auth.register,
                            RegisterRequest(username: userName(prefix, index), password: "bench-password")
                        ).map { $0.statusCode == 201 }
                    }
                }
                let warm = try await loadRun(
                    inFlight: registrationsInFlight, limit: 10_000_000, seconds: warmUp,
                    call: registration("warm\(round)"))
                let before = try await replica.stats()
                let cpuBefore = try replica.child.cpuTime()
                figures = try await loadRun(
                    inFlight: registrationsInFlight, limit: 10_000_000, seconds: options.registerSeconds,
                    call: registration("reg\(round)"))
                let cpu = try replica.child.cpuTime().since(cpuBefore).total
                let after = try await replica.stats()
                storeCommits = (after["store"]?["commits"] ?? 0) - (before["store"]?["commits"] ?? 0)
                figures.extras = [
                    ("round", "\(round)"), ("inflight", "\(registrationsInFlight)"),
                    ("store_commits", "\(storeCommits)"),
                    (
                        "commits_per_registration",
                        fixed(Double(storeCommits) / Double(max(figures.count, 1)), 3)
                    ),
                    ("service_cpu_ms_per_op", fixed(cpu * 1e3 / Double(max(figures.count, 1)), 3)),
                ]
                await replica.stop()
                if onPostgres {
                    // Over the replica's life: start-up (migrations find nothing to do), warm-up, the run.
                    let commits = try await database.commitsWhenIdle() - commitsBefore
                    let registrations = warm.count + figures.count
                    figures.extras += [
                        ("pg_xact_commit", "\(commits)"), ("pg_registrations", "\(registrations)"),
                        (
                            "pg_commits_per_registration",
                            fixed(Double(commits) / Double(max(registrations, 1)), 3)
                        ),
                    ]
                }
            } catch {
                await replica.stop()
                throw error
            }
            print(figures.resultLine(row: key))
            let row = Row(
                label:
                    "(3) auth.register, durable, \(onPostgres ? "PostgreSQL" : "SQLite"), \(registrationsInFlight) in flight",
                key: key, figures: figures)
            if row.figures.rate > best[key]?.figures.rate ?? -1 { best[key] = row }
        }
    }
    return ["register-pg", "register-sqlite"].compactMap { best[$0] }
}

/// The table: one line per row.
func table(_ rows: [Row]) -> String {
    let labelWidth = rows.map(\.label.count).max() ?? 0
    func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(0, width - text.count))
        return left ? text + padding : padding + text
    }
    var lines = [
        pad("row", labelWidth, left: true) + " | " + pad("count", 8) + " | " + pad("seconds", 7) + " | "
            + pad("rate/s", 8) + " | " + pad("p50 ms", 8) + " | " + pad("p99 ms", 8)
    ]
    for row in rows {
        let figures = row.figures
        lines.append(
            pad(row.label, labelWidth, left: true) + " | " + pad(grouped(Double(figures.count)), 8) + " | "
                + pad(fixed(figures.seconds, 2), 7) + " | " + pad(fixed(figures.rate, 1), 8) + " | "
                + pad(figures.p50.map { fixed($0, 1) } ?? "-", 8) + " | "
                + pad(figures.p99.map { fixed($0, 1) } ?? "-", 8))
    }
    return lines.joined(separator: "\n")
}

guard getuid() == 0 else {
    print("ScaleBenchmarks needs root: it makes network namespaces and cgroups (deploy/local/hosts.sh)")
    exit(1)
}
stopChildrenOnSignals()
let logDirectory = try makeTemporaryDirectory(prefix: "scalebench-log")
let log = logDirectory + "/scripts.log"
let rig = Rig(script: options.hostsScript, prefix: options.prefix, network: options.network, log: log)
print(
    "ScaleBenchmarks: \(ProcessInfo.processInfo.activeProcessorCount) cores; rig \(options.prefix)h1..h\(sqliteHost) "
        + "on \(options.network).0/24")
print("started \(Date()) with load average \(loadAverage())")
var rows: [Row] = []
var failure: (any Error)?
// What an earlier, interrupted run of the benchmark left behind under its own names.
await rig.down()
do {
    try await rig.up(sqliteHost)
    let database = try await RigDatabase.start(
        script: options.clusterScript, address: rig.bridgeAddress, port: options.databasePort,
        allow: "\(options.network).0/24", log: log)
    print("PostgreSQL 15 at \(database.url) (fsync and synchronous_commit on)")
    do {
        if options.only.contains("login") { rows += try await loginRows(rig: rig, database: database) }
        if options.only.contains("register") { rows += try await registerRows(rig: rig, database: database) }
    } catch {
        failure = error
    }
    await database.remove()
} catch {
    failure = error
}
await rig.down()
if let failure {
    print("error: \(failure) (the scripts' output is kept in \(log))")
    exit(1)
}
try? FileManager.default.removeItem(atPath: logDirectory)
print()
print("finished \(Date()) with load average \(loadAverage())")
print(table(rows))

let measured = rows
@MainActor func rate(_ key: String) -> Double? { measured.first { $0.key == key }?.figures.rate }
@MainActor func extra(_ key: String, _ name: String) -> String? {
    measured.first { $0.key == key }?.figures.extras.first { $0.key == name }?.value
}

if let one = rate("login-pg-1") {
    for count in replicaCounts.dropFirst() {
        guard let many = rate("login-pg-\(count)") else { continue }
        let ratio = many / (Double(count) * one)
        print(
            "(1) \(count) replicas / (\(count) × 1 replica): \(fixed(ratio, 2)) (goal ≥ 0.90); per replica "
                + "\(extra("login-pg-\(count)", "per_replica") ?? "-")/s")
        print("RESULT row=scale replicas=\(count) ratio=\(fixed(ratio, 3))")
    }
    if let sqlite = rate("login-sqlite-1") {
        let ratio = one / sqlite
        print("(2) one replica, PostgreSQL / SQLite: \(fixed(ratio, 2)) (goal ≥ 0.95)")
        print("RESULT row=store-ratio login_pg_over_sqlite=\(fixed(ratio, 3))")
    }
}
if let postgres = rate("register-pg"), let sqlite = rate("register-sqlite") {
    print(
        "(3) registrations, PostgreSQL / SQLite: \(fixed(postgres / sqlite, 2)); commits per registration: "
            + "PostgreSQL \(extra("register-pg", "commits_per_registration") ?? "-") (store), "
            + "\(extra("register-pg", "pg_commits_per_registration") ?? "-") (pg_stat_database xact_commit); "
            + "SQLite \(extra("register-sqlite", "commits_per_registration") ?? "-") (store)")
}
for row in rows where !row.figures.extras.isEmpty {
    print("\(row.label): " + row.figures.extras.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
}
