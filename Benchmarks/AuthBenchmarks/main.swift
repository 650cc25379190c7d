// `make bench-auth`: password logins against their limit, in one run and side by side:
//   (1) raw argon2id verification at the default cost (m=19 MiB, t=2, p=1) on one thread per core:
//       libsodium's `crypto_pwhash_str_verify` (through `Argon2id.verify`), the limit, then the
//       Argon2 module with each kernel this CPU runs (a workspace per thread);
//   (2) logins per second through auth-service (default `--hash-cost owasp`) over ZeroMQ from this
//       process, 4 × cores in flight, against a few pre-registered users, once with
//       `--argon2 libsodium` and once with `--argon2 swift`; each one's ratio to libsodium's (1)
//       (goal with the Swift implementation: ≥ 1.3), and per login the service's page faults, user and
//       kernel CPU time, and a `THREADS` line per role of its threads (loop, hashing, store, libzmq:
//       faults, CPU and context switches per login); with `--baseline PATH`, also an older auth-service build with `--argon2 swift`,
//       measured in turn with the others in the same rounds;
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
// Usage: AuthBenchmarks [--service PATH] [--seconds S] [--warm-up S] [--only ROW[,ROW...]] [--users N] [--rounds N]
//                        [--pg-cluster SCRIPT] [--loops N] [--argon2 SETTING[,SETTING]] [--baseline PATH]
//   --service   the auth-service executable (default: next to this one)
//   --argon2    the `--argon2` settings row (2) runs (default libsodium,swift)
//   --baseline  another auth-service executable (an older build) for row (2) with `--argon2 swift`
//   --pg-cluster the script that makes row (5)'s cluster (default: deploy/local/pg-cluster.sh)
//   --seconds   each measured run's time budget (default 5)
//   --warm-up   the warm-up before each measured run, in seconds (default a fifth of --seconds, at
//               most 1); a long one measures a service that has reached its working size
//   --only      rows to run: 1 raw, 2 login, 3 exists, 4 register, 5 register-pg (default all)
//   --users     users registered for (2) (default 16)
//   --rounds    rounds of (1) and (2), interleaved; each keeps its best round (default 3)
//   --loops     the service's shards (`auth-service --loops N`; default: the service's own);
//               the benchmark's client connects to every shard (`sys.endpoints`); given to the
//               baseline too, so leave it out for a baseline older than `--loops`

import BenchmarkSupport
import Contracts
import Foundation
import Measuring
import Reactive
import Sodium

func usage() -> Never {
    print(
        "usage: AuthBenchmarks [--service PATH] [--seconds S] [--warm-up S] [--only ROW[,ROW...]] [--users N] [--rounds N] "
            + "[--pg-cluster SCRIPT] [--loops N] [--argon2 SETTING[,SETTING]] [--baseline PATH]")
    exit(2)
}

let rowNames = ["1": "raw", "2": "login", "3": "exists", "4": "register", "5": "register-pg"]

/// The command line's settings.
struct Options: Sendable {
    var servicePath = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("auth-service").path
    var seconds = 5.0
    /// Seconds of warm-up before each measured run; nil: a fifth of `seconds`, at most 1.
    var warmUp: Double?
    var only = Set(rowNames.values)
    var users = 16
    var rounds = 3
    var clusterScript = "deploy/local/pg-cluster.sh"
    /// `--loops` for the service; nil: its default.
    var loops: Int?
    var loginSettings = ["libsodium", "swift"]
    var baselinePath: String?

    static func parse() -> Options {
        var options = Options()
        var arguments = CommandLine.arguments.dropFirst()
        while let option = arguments.popFirst() {
            guard option != "--help" && option != "-h", let value = arguments.popFirst() else { usage() }
            switch option {
            case "--service": options.servicePath = value
            case "--seconds": options.seconds = Double(value) ?? 0
            case "--warm-up":
                guard let warmUp = Double(value), warmUp >= 0, warmUp <= 3_600 else { usage() }
                options.warmUp = warmUp
            case "--users": options.users = Int(value) ?? 0
            case "--rounds": options.rounds = Int(value) ?? 0
            case "--pg-cluster": options.clusterScript = value
            case "--loops":
                guard let loops = Int(value), (1...256).contains(loops) else { usage() }
                options.loops = loops
            case "--baseline": options.baselinePath = value
            case "--argon2":
                options.loginSettings = value.split(separator: ",").map(String.init)
                guard !options.loginSettings.isEmpty,
                    options.loginSettings.allSatisfy({ ["libsodium", "swift"].contains($0) })
                else { usage() }
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
let warmUp = options.warmUp ?? min(1.0, seconds / 5)
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
    _ arguments: [String], executable: String = servicePath, _ body: (ServiceUnderTest) async throws -> T
) async throws -> T {
    let arguments = arguments + (loops.map { ["--loops", "\($0)"] } ?? [])
    print("  \(executable == servicePath ? "auth-service" : executable) \(arguments.joined(separator: " "))")
    let service = try await ServiceUnderTest(executable: executable, arguments: arguments)
    do {
        let result = try await body(service)
        await service.stop()
        return result
    } catch {
        await service.stop()
        throw error
    }
}

/// One auth-service of row (2): its key in the rows, its executable and its `--argon2` setting.
struct LoginContender: Sendable {
    let name: String
    let executable: String
    let setting: String
}

/// Row (2)'s services: this build with each `--argon2` setting, then the baseline build with `swift`.
let loginContenders =
    options.loginSettings.map { LoginContender(name: $0, executable: servicePath, setting: $0) }
    + (options.baselinePath.map { [LoginContender(name: "swift-baseline", executable: $0, setting: "swift")] }
        ?? [])

/// Rows (1) and (2), as selected, interleaved over `rounds` rounds so that load from other processes
/// hits every row alike; each keeps its best round (the highest rate, with that round's other
/// figures). Both services of (2) run throughout (idle while not measured).
func rawAndLoginRows(raw: Bool, login: Bool) async throws -> [Row] {
    let rawImplementations = RawImplementation.available
    func rawLabel(_ implementation: RawImplementation) -> String {
        "(1) argon2id verify, \(implementation), \(cores) threads"
    }
    func loginLabel(_ contender: LoginContender) -> String {
        "(2) auth.login, --argon2 \(contender.setting)\(contender.executable == servicePath ? "" : ", baseline build"), "
            + "\(loginsInFlight) in flight"
    }
    if raw {
        print(
            "(1) argon2id verify, \(rawImplementations.map(\.description).joined(separator: ", ")), "
                + "\(cores) threads, \(Argon2id.Cost.owasp)")
    }
    if login {
        print(
            "(2) auth.login with --argon2 \(loginContenders.map(\.name).joined(separator: ", ")), \(loginsInFlight) in "
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
            + loginContenders.compactMap { contender in
                best["login \(contender.name)"].map {
                    Row(label: loginLabel(contender), key: "login-\(contender.name)", figures: $0)
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
    return try await withServices(loginContenders) { services in
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
            for (contender, service) in services {
                keep(
                    "login \(contender.name)",
                    try await measureLogin(service, contender: contender, round: round, password: password))
            }
        }
        return rows()
    }
}

/// Starts a service for each of `contenders` (at the default cost, each with its `--argon2`), runs
/// `body` with all of them and stops them, whatever happens. All run for the whole of `body`; the
/// ones not measured at a time stay idle.
func withServices<T>(
    _ contenders: [LoginContender], started: [(LoginContender, ServiceUnderTest)] = [],
    _ body: ([(LoginContender, ServiceUnderTest)]) async throws -> T
) async throws -> T {
    guard let next = contenders.first else { return try await body(started) }
    return try await withService(
        ["--hash-cost", "owasp", "--argon2", next.setting], executable: next.executable
    ) { service in
        try await withServices(Array(contenders.dropFirst()), started: started + [(next, service)], body)
    }
}

/// One round of row (2) against `service`, its `RESULT` line printed.
func measureLogin(
    _ service: ServiceUnderTest, contender: LoginContender, round: Int,
    password: @escaping @Sendable (Int) -> String
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
    // Read right before and after the measured logins (the `sys.stats` calls lie outside).
    let faultsBefore = minorFaults(ofProcess: service.pid) ?? 0
    let cpuBefore = try service.cpuTime()
    let threadsBefore = threadUsage(ofProcess: service.pid) ?? [:]
    var figures = try await loadRun(inFlight: loginsInFlight, limit: 1_000_000, seconds: seconds, call: call)
    let threads = usageByRole(from: threadsBefore, to: threadUsage(ofProcess: service.pid) ?? [:])
    let faults = (minorFaults(ofProcess: service.pid) ?? 0) - faultsBefore
    let cpu = try service.cpuTime().since(cpuBefore)
    let stats = try await service.stats()
    let logins = Double(max(figures.count, 1))
    figures.extras =
        [
            ("round", "\(round)"), ("argon2", contender.setting), ("build", contender.name),
            ("inflight", "\(loginsInFlight)"), ("users", "\(users)"),
        ]
        + (try await cost.extras(
            service, figures: figures,
            counters: [
                ("hashing", "completed"), ("hashing", "rejected"), ("hashing", "own_hashes"),
                ("hashing", "libsodium_hashes"), ("store", "commits"),
            ]))
        + [
            ("service_faults_per_op", fixed(Double(faults) / logins, 3)),
            ("service_user_ms_per_op", fixed(cpu.user * 1e3 / logins, 3)),
            ("service_sys_ms_per_op", fixed(cpu.system * 1e3 / logins, 3)),
            ("service_switches_per_op", fixed(Double(threads.reduce(0) { $0 + $1.switches }) / logins, 2)),
            ("argon2_resident_bytes", "\(stats["argon2"]?["resident_bytes"] ?? 0)"),
        ]
    print(figures.resultLine(row: "login-\(contender.name)"))
    for thread in threads where thread.cpu.total > 0 || thread.switches > 0 {
        print(
            "THREADS row=login-\(contender.name) round=\(round) role=\(thread.name)"
                + " faults_per_op=\(fixed(Double(thread.minorFaults) / logins, 3))"
                + " user_ms_per_op=\(fixed(thread.cpu.user * 1e3 / logins, 3))"
                + " sys_ms_per_op=\(fixed(thread.cpu.system * 1e3 / logins, 3))"
                + " voluntary_switches_per_op=\(fixed(Double(thread.voluntarySwitches) / logins, 2))"
                + " involuntary_switches_per_op=\(fixed(Double(thread.involuntarySwitches) / logins, 2))")
    }
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
// Per login in the service: page faults, user and kernel CPU time; new build against the baseline.
for login in rows where login.key.hasPrefix("login-") {
    let faults = extra(login, "service_faults_per_op") ?? 0
    let user = extra(login, "service_user_ms_per_op") ?? 0
    let system = extra(login, "service_sys_ms_per_op") ?? 0
    print(
        "\(login.label): per login in auth-service \(fixed(faults, 3)) page faults, "
            + "\(fixed(user, 2)) ms user, \(fixed(system, 3)) ms kernel")
}
if let new = rows.first(where: { $0.key == "login-swift" }),
    let old = rows.first(where: { $0.key == "login-swift-baseline" })
{
    func ratio(_ key: String) -> String {
        guard let a = extra(new, key), let b = extra(old, key), b > 0 else { return "-" }
        return fixed(a / b, 2)
    }
    print(
        "(2) --argon2 swift, this build / baseline build: rate \(fixed(new.figures.rate / old.figures.rate, 2)), "
            + "CPU per login \(ratio("service_cpu_ms_per_op")), kernel per login \(ratio("service_sys_ms_per_op")), "
            + "page faults per login \(ratio("service_faults_per_op"))")
    print(
        "RESULT row=baseline-ratio rate=\(fixed(new.figures.rate / old.figures.rate, 3)) "
            + "cpu=\(ratio("service_cpu_ms_per_op")) sys=\(ratio("service_sys_ms_per_op")) "
            + "faults=\(ratio("service_faults_per_op"))")
}
for row in rows where !row.figures.extras.isEmpty {
    print("\(row.label): " + row.figures.extras.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
}
