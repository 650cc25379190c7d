// The benchmark's own rig: deploy/local/hosts.sh with a prefix and network of its own (so it never
// touches `make cluster-up`'s hosts or the tests'), a throwaway PostgreSQL on the rig's bridge
// (deploy/local/pg-cluster.sh), and auth-service replicas started on the hosts, each with an optional
// CPU quota, stopped by pid.

import BenchmarkSupport
import Foundation
import Postgres

/// Runs `command` with `/bin/sh -c` on a thread of its own (the scripts block for a second or more),
/// its output appended to `log`; returns the exit status.
func shell(_ command: String, log: String) async -> Int32 {
    let line = "\(command) >>'\(log)' 2>&1 </dev/null"
    return await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: system(line)) }.start()
    }
}

/// `'text'` for a shell command line (`text` must not hold a quote).
func quoted(_ text: String) -> String { "'\(text)'" }

/// The hosts of the benchmark: `hosts.sh` with `HOSTS_PREFIX` and `HOSTS_NET` of its own.
struct Rig: Sendable {
    let script: String
    let prefix: String
    let network: String
    /// Where the scripts' output goes.
    let log: String

    /// The environment every `hosts.sh` call gets.
    var environment: [String: String] { ["HOSTS_PREFIX": prefix, "HOSTS_NET": network] }

    private var commandPrefix: String { "HOSTS_PREFIX=\(prefix) HOSTS_NET=\(network) \(quoted(script))" }

    /// Host `number`'s address.
    func address(_ number: Int) -> String { "\(network).\(10 + number)" }

    /// The bridge's address (this machine's side, where PostgreSQL and the load generator are).
    var bridgeAddress: String { "\(network).1" }

    /// `hosts.sh up count`.
    func up(_ count: Int) async throws {
        let status = await shell("\(commandPrefix) up \(count)", log: log)
        guard status == 0 else {
            throw BenchmarkError(description: "hosts.sh up \(count) failed; see \(log)")
        }
    }

    /// `hosts.sh down`: stops what runs in the hosts, deletes them. Idempotent.
    func down() async {
        _ = await shell("\(commandPrefix) down", log: log)
    }
}

/// A throwaway PostgreSQL 15 cluster listening on the rig's bridge address (trusting the rig's
/// network) and on a unix socket in its directory.
struct RigDatabase: Sendable {
    let script: String
    let directory: String
    let address: String
    let port: Int
    let allow: String
    let log: String

    /// The URL the replicas and the benchmark use.
    var url: String { "postgresql://postgres@\(address):\(port)/postgres" }

    private var environment: String { "PG_LISTEN=\(address) PG_PORT=\(port) PG_ALLOW=\(allow)" }

    /// Creates and starts the cluster in a fresh temp directory.
    static func start(script: String, address: String, port: Int, allow: String, log: String) async throws
        -> RigDatabase
    {
        let directory = try makeTemporaryDirectory(prefix: "scalebench-pg")
        // The server runs as `postgres` when started by root: it must reach its directory.
        chmod(directory, 0o755)
        let database = RigDatabase(
            script: script, directory: directory, address: address, port: port, allow: allow, log: log)
        let status = await shell(
            "\(database.environment) \(quoted(script)) start \(quoted(directory + "/pg"))", log: log)
        guard status == 0 else {
            await database.remove()
            throw BenchmarkError(description: "\(script) start failed (status \(status)); see \(log)")
        }
        return database
    }

    /// Stops the server and deletes its directory.
    func remove() async {
        _ = await shell("\(environment) \(quoted(script)) remove \(quoted(directory + "/pg"))", log: log)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The database's `xact_commit` from `pg_stat_database`, once no other client is connected (a
    /// backend publishes its counts when it exits, so this waits, at most 10 s, for the replicas'
    /// connections to end).
    func commitsWhenIdle() async throws -> Int {
        let url = self.url
        return try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(
                    with: Result { () throws -> Int in
                        let connection = try Connection(url)
                        defer { connection.close() }
                        let end = ContinuousClock.now + .seconds(10)
                        while ContinuousClock.now < end {
                            let others = try connection.query(
                                "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' "
                                    + "AND pid <> pg_backend_pid()"
                            ).integer(0, 0)
                            if others == 0 { break }
                            usleep(50_000)
                        }
                        return Int(
                            try connection.query(
                                "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()"
                            ).integer(0, 0))
                    })
            }.start()
        }
    }
}

/// An auth-service replica on a host of the rig: `hosts.sh run HOST [--cpu Q] auth-service …` (which
/// execs into the service, so the child's pid is the service's), on a fresh temp state directory,
/// `--curve off`, listening on the host's address.
final class Replica {
    let host: Int
    let cpu: String?
    let child: ServiceChild
    private let directory: String

    /// Starts auth-service on `host` with `arguments` and waits until it is ready.
    init(rig: Rig, host: Int, port: Int, cpu: String?, servicePath: String, arguments: [String]) async throws
    {
        self.host = host
        self.cpu = cpu
        directory = try makeTemporaryDirectory(prefix: "scalebench")
        chmod(directory, 0o700)
        let endpoint = "tcp://\(rig.address(host)):\(port)"
        let quota = cpu.map { ["--cpu", $0] } ?? []
        let arguments = arguments + (options.loops.map { ["--loops", "\($0)"] } ?? [])
        let all =
            ["run", "\(host)"] + quota + [
                servicePath, "--state-dir", directory, "--endpoint", endpoint, "--curve", "off",
                "--log-level",
                "notice",
            ] + arguments
        print(
            "  host \(host)\(cpu.map { " (\($0) CPU)" } ?? ""): auth-service \(arguments.joined(separator: " "))"
        )
        do {
            child = try await ServiceChild(
                name: "auth-service on \(rig.prefix)h\(host)", executable: rig.script, arguments: all,
                endpoint: endpoint, logPath: "\(directory)/service.log", readyWithin: .seconds(60),
                environment: rig.environment)
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    /// The service's counters.
    func stats() async throws -> [String: [String: Int]] { try await child.stats() }

    /// Stops the service by its pid and removes its state directory.
    func stop() async {
        await child.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
