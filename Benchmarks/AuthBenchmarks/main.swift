// `make bench-auth`: password logins against their limit, in one run and side by side:
//   (1) raw argon2id verification at the default cost (m=19 MiB, t=2, p=1) on one thread per core:
//       libsodium's `crypto_pwhash_str_verify` (through `Argon2id.verify`), the limit, then the
//       Argon2 module with each kernel this CPU runs (a workspace per thread);
//   (2) logins per second through auth-service (default `--hash-cost owasp`) over ZeroMQ from this
//       process, 4 × cores in flight, against a few pre-registered users, once with
//       `--argon2 libsodium` and once with `--argon2 swift`; each one's ratio to libsodium's (1)
//       (goal with the Swift implementation: ≥ 1.3), and its page faults per login;
//   (3) `auth.exists` with 64 in flight: the stack's own cost, no hashing (the per-client rate limit
//       raised to its maximum for this row);
//   (4) registrations per second with durable commits (`--synchronous full`), `--hash-cost test` so
//       hashing does not dominate, 64 in flight, with the store's commits from `sys.stats`;
//   (5) the same against PostgreSQL (`--database postgresql://…`): a throwaway PostgreSQL 15 cluster
//       the benchmark starts itself (deploy/local/pg-cluster.sh, unix socket, fsync and
//       synchronous_commit on), with the store's commits per registration.
// Each service row starts its own auth-service child on a temp state directory (`--curve off`,
// `ipc://` inside that directory) and stops it by pid at the end of the row, also on failure.
// Every run is bounded in count and in time, after a warm-up; each prints a `RESULT` line.
//
// Usage: AuthBenchmarks [--service PATH] [--seconds S] [--only ROW[,ROW...]] [--users N] [--rounds N]
//                        [--pg-cluster SCRIPT] [--loops N]
//   --service   the auth-service executable (default: next to this one)
//   --pg-cluster the script that makes row (5)'s cluster (default: deploy/local/pg-cluster.sh)
//   --seconds   each measured run's time budget (default 5)
//   --only      rows to run: 1 raw, 2 login, 3 exists, 4 register, 5 register-pg (default all)
//   --users     users registered for (2) (default 16)
//   --rounds    rounds of (1) and (2), interleaved; each keeps its best round (default 3)
//   --loops     the service's shards (`auth-service --loops N`; default: the service's own, the cores);
//               the benchmark's client connects to every shard (`sys.endpoints`)

import BenchmarkSupport
import Contracts
import Foundation
import Measuring
import Reactive
import Sodium

func usage() -> Never {
    print(
        "usage: AuthBenchmarks [--service PATH] [--seconds S] [--only ROW[,ROW...]] [--users N] [--rounds N] "
            + "[--pg-cluster SCRIPT] [--loops N]")
    exit(2)
}

let rowNames = ["1": "raw", "2": "login", "3": "exists", "4": "register", "5": "register-pg"]

/// The command line's settings.
struct Options: Sendable {
    var servicePath = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("auth-service").path
    var seconds = 5.0
    var only = Set(rowNames.values)
    var users = 16
    var rounds = 3
    var clusterScript = "deploy/local/pg-cluster.sh"
    /// `--loops` for the service; nil: its default.
    var loops: Int?

    static func parse() -> Options {
        var options = Options()
        var arguments = CommandLine.arguments.dropFirst()
        while let option = arguments.popFirst() {
            guard option != "--help" && option != "-h", let value = arguments.popFirst() else { usage() }
            switch option {
            case "--service": options.servicePath = value
            case "--seconds": options.seconds = Double(value) ?? 0
            case "--users": options.users = Int(value) ?? 0
            case "--rounds": options.rounds = Int(value) ?? 0
            case "--pg-cluster": options.clusterScript = value
            case "--loops":
                guard let loops = Int(value), (1...256).contains(loops) else { usage() }
                options.loops = loops
            case "--only":
                options.only = Set(value.split(separator: ",").map { rowNames[String($0)] ?? String($0) })
                guard options.only.isSubset(of: Set(rowNames.values)) else { usage() }
            default: usage()
            }
        }
        guard options.seconds > 0, options.seconds <= 600, options.users > 0, options.users <= 1_000,
            options.rounds > 0, options.rounds <= 20
        else {
            usage()
        }
        return options
    }
}

let options = Options.parse()
let servicePath = options.servicePath
let seconds = options.seconds
let users = options.users
let rounds = options.rounds
let loops = options.loops
let cores = ProcessInfo.processInfo.activeProcessorCount
let warmUp = min(1.0, seconds / 5)
let loginsInFlight = 4 * cores
let manyInFlight = 64
let existsLimit = 10_000_000  // auth-service's largest --exists-per-second and --exists-burst

/// One printed row.
struct Row {
    let label: String
    let key: String
    let figures: Figures
}

/// Starts a service, runs `body` against it and stops it, whatever happens.
func withService<T>(
    _ arguments: [String], _ body: (ServiceUnderTest) async throws -> T
) async throws -> T {
    let arguments = arguments + (loops.map { ["--loops", "\($0)"] } ?? [])
    print("  auth-service \(arguments.joined(separator: " "))")
    let service = try await ServiceUnderTest(executable: servicePath, arguments: arguments)
    do {
        let result = try await body(service)
        await service.stop()
        return result
    } catch {
        await service.stop()
        throw error
    }
}

/// The `--argon2` settings row (2) runs auth-service with.
let loginImplementations = ["libsodium", "swift"]

/// Rows (1) and (2), as selected, interleaved over `rounds` rounds so that load from other processes
/// hits every row alike; each keeps its best round (the highest rate, with that round's other
/// figures). Both services of (2) run throughout (idle while not measured).
func rawAndLoginRows(raw: Bool, login: Bool) async throws -> [Row] {
    let rawImplementations = RawImplementation.available
    func rawLabel(_ implementation: RawImplementation) -> String {
        "(1) argon2id verify, \(implementation), \(cores) threads"
    }
    func loginLabel(_ setting: String) -> String {
        "(2) auth.login, --argon2 \(setting), \(loginsInFlight) in flight"
    }
    if raw {
        print(
            "(1) argon2id verify, \(rawImplementations.map(\.description).joined(separator: ", ")), "
                + "\(cores) threads, \(Argon2id.Cost.owasp)")
    }
    if login {
        print(
            "(2) auth.login with --argon2 \(loginImplementations.joined(separator: ", ")), \(loginsInFlight) in "
                + "flight, \(users) users (registered first, at the same cost)")
    }
    if raw && login { print("    \(rounds) rounds of (1) then (2); each row keeps its best round") }
    var best: [String: Figures] = [:]
    func keep(_ key: String, _ figures: Figures) {
        if figures.rate > best[key]?.rate ?? -1 { best[key] = figures }
    }
    func rows() -> [Row] {
        rawImplementations.compactMap { implementation in
            best["raw \(implementation)"].map {
                Row(label: rawLabel(implementation), key: "raw-verify-\(implementation)", figures: $0)
            }
        }
            + loginImplementations.compactMap { setting in
                best["login \(setting)"].map {
                    Row(label: loginLabel(setting), key: "login-\(setting)", figures: $0)
                }
            }
    }
    guard login else {
        for round in 1...rounds {
            for implementation in rawImplementations {
                keep("raw \(implementation)", try await measureRaw(implementation, round: round))
            }
        }
        return rows()
    }
    return try await withService(["--hash-cost", "owasp", "--argon2", loginImplementations[0]]) { first in
        try await withService(["--hash-cost", "owasp", "--argon2", loginImplementations[1]]) { second in
            let services = [(loginImplementations[0], first), (loginImplementations[1], second)]
            let password: @Sendable (Int) -> String = { "bench-password-\($0)" }
            for (_, service) in services {
                try await register(
                    service, users: users, prefix: "benchlogin", inFlight: loginsInFlight, password: password)
            }
            for round in 1...rounds {
                if raw {
                    for implementation in rawImplementations {
                        keep("raw \(implementation)", try await measureRaw(implementation, round: round))
                    }
                }
                for (setting, service) in services {
                    keep(
                        "login \(setting)",
                        try await measureLogin(service, setting: setting, round: round, password: password))
                }
            }
            return rows()
        }
    }
}

/// One round of row (2) against `service`, its `RESULT` line printed.
func measureLogin(
    _ service: ServiceUnderTest, setting: String, round: Int, password: @escaping @Sendable (Int) -> String
) async throws -> Figures {
    let client = service.client
    let call: @Sendable (Int) -> Single<Bool> = { index in
        let user = index % users
        return client.request(
            Methods.Auth.login,
            LoginRequest(username: userName("benchlogin", user), password: password(user))
        ).map { $0.statusCode == 200 && $0.user != nil }
    }
    _ = try await loadRun(inFlight: loginsInFlight, limit: 1_000_000, seconds: warmUp, call: call)
    let cost = try await ServiceCost(service)
    let faultsBefore = minorFaults(ofProcess: service.pid) ?? 0
    var figures = try await loadRun(inFlight: loginsInFlight, limit: 1_000_000, seconds: seconds, call: call)
    let faults = (minorFaults(ofProcess: service.pid) ?? 0) - faultsBefore
    let stats = try await service.stats()
    figures.extras =
        [
            ("round", "\(round)"), ("argon2", setting), ("inflight", "\(loginsInFlight)"),
            ("users", "\(users)"),
        ]
        + (try await cost.extras(
            service, figures: figures,
            counters: [
                ("hashing", "completed"), ("hashing", "rejected"), ("hashing", "own_hashes"),
                ("hashing", "libsodium_hashes"), ("store", "commits"),
            ]))
        + [
            ("service_faults_per_op", fixed(Double(faults) / Double(max(figures.count, 1)), 2)),
            ("argon2_resident_bytes", "\(stats["argon2"]?["resident_bytes"] ?? 0)"),
        ]
    print(figures.resultLine(row: "login-\(setting)"))
    return figures
}

/// One round of row (1) with `implementation`, its `RESULT` line printed.
func measureRaw(_ implementation: RawImplementation, round: Int) async throws -> Figures {
    var figures = try await rawVerifyRate(
        implementation, threads: cores, limit: 1_000_000, seconds: seconds, warmUpSeconds: warmUp)
    figures.extras.insert(("round", "\(round)"), at: 0)
    print(figures.resultLine(row: "raw-verify-\(implementation)"))
    return figures
}

func existsRow() async throws -> Row {
    print("(3) auth.exists, \(manyInFlight) in flight (rate limit raised to \(existsLimit)/s per client)")
    // The hash queue holds every registration of the set-up at once (the default, 4 per worker,
    // would answer some of them `overloaded`).
    return try await withService([
        "--hash-cost", "test", "--exists-per-second", "\(existsLimit)", "--exists-burst", "\(existsLimit)",
        "--hash-queue", "\(manyInFlight)",
    ]) { service in
        let known = 16
        try await register(service, users: known, prefix: "benchexist", inFlight: known) { _ in
            "bench-password"
        }
        let client = service.client
        // Every other name exists.
        let exists: @Sendable (Int) -> Single<Bool> = { index in
            let user = index % (2 * known)
            return client.request(
                Methods.Auth.exists, ExistsRequest(username: userName("benchexist", user))
            ).map { $0.exists == (user < known) }
        }
        _ = try await loadRun(inFlight: manyInFlight, limit: 10_000_000, seconds: warmUp, call: exists)
        let cost = try await ServiceCost(service)
        var figures = try await loadRun(
            inFlight: manyInFlight, limit: 10_000_000, seconds: seconds, call: exists)
        figures.extras =
            [("inflight", "\(manyInFlight)")]
            + (try await cost.extras(service, figures: figures, counters: [("auth", "exists_answered")]))
        return Row(label: "(3) auth.exists, \(manyInFlight) in flight", key: "exists", figures: figures)
    }
}

func registerRow() async throws -> Row {
    print("(4) auth.register, \(manyInFlight) in flight, --synchronous full, --hash-cost test")
    return try await registrations(
        ["--synchronous", "full"], label: "(4) auth.register, durable, \(manyInFlight) in flight",
        key: "register")
}

func registerPostgresRow() async throws -> Row {
    print(
        "(5) auth.register, \(manyInFlight) in flight, PostgreSQL 15 on a throwaway cluster, --hash-cost test"
    )
    let cluster = try await BenchCluster.start(script: options.clusterScript)
    do {
        let row = try await registrations(
            ["--database", cluster.url],
            label: "(5) auth.register, durable, PostgreSQL, \(manyInFlight) in flight", key: "register-pg")
        await cluster.remove()
        return row
    } catch {
        await cluster.remove()
        throw error
    }
}

/// Rows (4) and (5): durable registrations with `arguments` choosing the store.
func registrations(_ arguments: [String], label: String, key: String) async throws -> Row {
    // Every registration in flight may wait for a hashing thread: this row measures the store.
    try await withService(["--hash-cost", "test", "--hash-queue", "\(manyInFlight)"] + arguments) { service in
        let client = service.client
        let registration: @Sendable (String) -> @Sendable (Int) -> Single<Bool> = { prefix in
            { index in
                client.request(
                    Methods.Auth.register,
                    RegisterRequest(username: userName(prefix, index), password: "bench-password")
                ).map { $0.statusCode == 201 }
            }
        }
        _ = try await loadRun(
            inFlight: manyInFlight, limit: 10_000_000, seconds: warmUp, call: registration("benchwarm"))
        let cost = try await ServiceCost(service)
        var figures = try await loadRun(
            inFlight: manyInFlight, limit: 10_000_000, seconds: seconds, call: registration("benchreg"))
        let extras = try await cost.extras(
            service, figures: figures, counters: [("store", "commits"), ("store", "writes")])
        let commits = extras.first { $0.key == "store_commits" }.flatMap { Int($0.value) } ?? 0
        figures.extras =
            [("inflight", "\(manyInFlight)")] + extras
            + [
                ("group_size", fixed(Double(figures.count) / Double(max(commits, 1)), 1)),
                ("commits_per_registration", fixed(Double(commits) / Double(max(figures.count, 1)), 3)),
            ]
        return Row(label: label, key: key, figures: figures)
    }
}

/// The table: one line per row, then each row's notes.
func table(_ rows: [Row]) -> String {
    let labelWidth = rows.map(\.label.count).max() ?? 0
    func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(0, width - text.count))
        return left ? text + padding : padding + text
    }
    var lines = [
        pad("row", labelWidth, left: true) + " | " + pad("count", 9) + " | " + pad("seconds", 7) + " | "
            + pad("rate/s", 9) + " | " + pad("p50 ms", 8) + " | " + pad("p99 ms", 8)
    ]
    for row in rows {
        let figures = row.figures
        lines.append(
            pad(row.label, labelWidth, left: true) + " | " + pad(grouped(Double(figures.count)), 9) + " | "
                + pad(fixed(figures.seconds, 2), 7) + " | " + pad(grouped(figures.rate), 9) + " | "
                + pad(figures.p50.map { fixed($0, 3) } ?? "-", 8) + " | "
                + pad(figures.p99.map { fixed($0, 3) } ?? "-", 8))
    }
    return lines.joined(separator: "\n")
}

stopChildrenOnSignals()
let startedAt = Date()
print(
    "AuthBenchmarks: \(cores) cores, \(fixed(seconds, 1)) s per measured run after \(fixed(warmUp, 1)) s warm-up"
)
print("started \(startedAt) with load average \(loadAverage())")
var rows: [Row] = []
do {
    if options.only.contains("raw") || options.only.contains("login") {
        rows += try await rawAndLoginRows(
            raw: options.only.contains("raw"), login: options.only.contains("login"))
    }
    let plan: [(String, () async throws -> Row)] = [
        ("exists", existsRow), ("register", registerRow), ("register-pg", registerPostgresRow),
    ]
    for (name, measure) in plan where options.only.contains(name) {
        let row = try await measure()
        print(row.figures.resultLine(row: row.key))
        rows.append(row)
    }
} catch {
    print("error: \(error)")
    exit(1)
}
print()
print("finished \(Date()) with load average \(loadAverage())")
print(table(rows))
/// A row's extra figure.
func extra(_ row: Row, _ key: String) -> Double? {
    row.figures.extras.first { $0.key == key }.flatMap { Double($0.value) }
}

if let raw = rows.first(where: { $0.key == "raw-verify-libsodium" }) {
    for login in rows where login.key.hasPrefix("login-") {
        let setting = String(login.key.dropFirst("login-".count))
        let ratio = login.figures.rate / raw.figures.rate
        print(
            "ratio (2) --argon2 \(setting) / (1) libsodium: \(fixed(ratio, 2)) "
                + (setting == "libsodium" ? "(goal ≥ 0.90)" : "(goal ≥ 1.3, stretch 1.5)"))
        var line = "RESULT row=ratio argon2=\(setting) login_over_raw=\(fixed(ratio, 3))"
        if let verify = extra(raw, "cpu_ms_per_op"), let service = extra(login, "service_cpu_ms_per_op"),
            let client = extra(login, "client_cpu_ms_per_op")
        {
            // What the ratio would be if both rows had the cores to themselves: CPU per operation.
            let cpuRatio = verify / (service + client)
            print(
                "  CPU per operation: verification (1) \(fixed(verify, 2)) ms; login (2) \(fixed(service, 2)) ms "
                    + "in auth-service + \(fixed(client, 2)) ms in this client; (1)/(2) = \(fixed(cpuRatio, 2))"
            )
            line += " cpu_ratio=\(fixed(cpuRatio, 3))"
        }
        print(line)
    }
}
for row in rows where !row.figures.extras.isEmpty {
    print("\(row.label): " + row.figures.extras.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
}
