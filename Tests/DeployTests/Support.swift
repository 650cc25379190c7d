import Contracts
import Dispatch
import Foundation
import RemoteStreams
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Where things are: the repository (from this file's path) and the build directory (that of the
/// test runner, `/proc/self/exe`), whose executables the stack test runs.
enum Paths {
    /// The repository's root.
    static let repository: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// `deploy/` in the repository.
    static let deploy = repository + "/deploy"

    /// The directory of the running test binary (`.build/debug` in `swift test`).
    static let binaries: String = {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        return URL(fileURLWithPath: executable).deletingLastPathComponent().path
    }()

    /// The absolute path of `relative` in the repository.
    static func inRepository(_ relative: String) -> String { repository + "/" + relative }
}

/// A failure of the test support itself.
struct SupportError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// How a finished command ended, with what it wrote.
struct CommandResult: Sendable {
    /// The exit status (128 + n when killed by signal n).
    let status: Int32
    /// Its standard output.
    let output: String
    /// Its standard error.
    let error: String
    /// True when it was stopped for running past its time limit.
    let timedOut: Bool
}

/// Runs `executable` with `arguments` and `environment` added to this process's, with stdout and
/// stderr in files (no pipe to fill up, and background children of a script may keep them open).
/// The child is started with `posix_spawn` and reaped by a thread of its own blocked in `waitid`/
/// `waitpid` (never on the cooperative pool). Past `timeLimit` the child alone gets SIGKILL, by its
/// pid, which cannot have been reused: the exit is first observed with `WNOWAIT`, marked under the
/// lock, and only then reaped.
func runCommand(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:],
    timeLimit: Duration = .seconds(50)
) async throws -> CommandResult {
    let directory = try TemporaryDirectory(prefix: "deploycmd")
    defer { directory.remove() }
    let outputPath = directory.file("stdout")
    let errorPath = directory.file("stderr")
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    let variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map {
        "\($0.key)=\($0.value)"
    }
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    let envp = variables.map { strdup($0) } + [nil]
    defer { for pointer in argv + envp { free(pointer) } }
    var spawned: pid_t = 0
    let result = spawnWithCleanSignals(&spawned, executable, &actions, argv, envp)
    guard result == 0 else { throw SupportError("cannot start \(executable): errno \(result)") }
    let pid = spawned
    let state = Mutex<(exited: Bool, killed: Bool)>((false, false))
    let milliseconds = Int(timeLimit.components.seconds * 1_000)
    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds)) {
        state.withLock { state in
            if !state.exited {
                state.killed = true
                kill(pid, SIGKILL)
            }
        }
    }
    let status: Int32 = await withCheckedContinuation { continuation in
        let reaper = Thread {
            var information = siginfo_t()
            while waitid(P_PID, id_t(pid), &information, WEXITED | WNOWAIT) == -1 && errno == EINTR {}
            state.withLock { $0.exited = true }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            let signal = status & 0x7f
            continuation.resume(returning: signal == 0 ? (status >> 8) & 0xff : 128 + signal)
        }
        reaper.name = "deploy-test-reaper-\(pid)"
        reaper.start()
    }
    return CommandResult(
        status: status, output: contents(outputPath), error: contents(errorPath),
        timedOut: state.withLock { $0.killed })
}

/// The first executable named `name` on PATH, if any.
func commandOnPath(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for directory in path.split(separator: ":") {
        let candidate = "\(directory)/\(name)"
        if access(candidate, X_OK) == 0 { return candidate }
    }
    return nil
}

/// A fresh directory in /tmp (short, so `ipc://` paths inside fit the socket path limit), removed by
/// ``remove()``.
struct TemporaryDirectory: Sendable {
    /// Its absolute path.
    let path: String

    init(prefix: String) throws {
        var template = Array("/tmp/\(prefix).XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw SupportError("mkdtemp failed: errno \(errno)") }
        path = String(cString: created)
    }

    /// `name` inside the directory.
    func file(_ name: String) -> String { path + "/" + name }

    /// Deletes the directory and everything in it.
    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// True when `pid` is a live process: it exists and is not a zombie waiting to be reaped.
func isAlive(_ pid: Int32) -> Bool {
    guard kill(pid, 0) == 0 || errno == EPERM else { return false }
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
    else { return true }
    let state = stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first
    return state != "Z" && state != "X"
}

/// The contents of `path`, or "" when it cannot be read.
func contents(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

/// Parses YAML and JSON with python3 (PyYAML): every document of each file, as JSON, by file.
/// Returns nil (with the reason) when python3 or PyYAML is missing.
func parseYAML(_ paths: [String]) async throws -> [String: [Any]] {
    let script = """
        import json, sys, yaml
        out = {}
        for path in sys.argv[1:]:
            with open(path) as f:
                out[path] = [d for d in yaml.safe_load_all(f) if d is not None]
        json.dump(out, sys.stdout)
        """
    guard let python = commandOnPath("python3") else { throw SupportError("python3 is not on PATH") }
    let result = try await runCommand(python, ["-c", script] + paths)
    guard result.status == 0 else { throw SupportError("YAML did not parse: \(result.error)") }
    guard let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: [Any]]
    else { throw SupportError("unexpected parser output") }
    return object
}

/// Stops servers a test started, by pid: SIGTERM (each drains), up to `grace` for all to exit, then
/// SIGKILL to any left.
func stopServers(_ servers: [Int32], grace: Duration = .seconds(10)) async {
    for server in servers where isAlive(server) { kill(server, SIGTERM) }
    await eventually(within: grace, every: .milliseconds(50)) { !servers.contains(where: isAlive) }
    for server in servers where isAlive(server) { kill(server, SIGKILL) }
}

/// Polls `client`'s `sys.health` (each poll a request with a short deadline) until it says ready, for
/// at most `limit`: whether it did.
func ready(_ client: RemoteClient, within limit: Duration) async -> Bool {
    await eventually(within: limit, every: .milliseconds(100)) {
        (try? await client.request(Methods.System.health, deadline: .milliseconds(500)).value)?.ready == true
    }
}

/// Hosts of the rig (``TestHosts``) with a throwaway PostgreSQL listening on their bridge
/// (deploy/local/pg-cluster.sh), for the tests whose auth-service replicas share one database. Each
/// suite gives it a prefix, a network and a database port of its own.
struct DatabaseRig {
    /// The hosts.
    let hosts: TestHosts
    /// The prefix of the hosts' names (`HOSTS_PREFIX`).
    let prefix: String
    /// Where PostgreSQL listens and whom it admits (pg-cluster.sh's `PG_LISTEN`, `PG_PORT`, `PG_ALLOW`):
    /// the bridge's address, the given port, the hosts' network.
    let databaseEnvironment: [String: String]

    init(prefix: String, network: String, databasePort: Int) {
        hosts = TestHosts(prefix: prefix, network: network)
        self.prefix = prefix
        databaseEnvironment = [
            "PG_LISTEN": network + ".1", "PG_PORT": "\(databasePort)", "PG_ALLOW": network + ".0/24",
        ]
    }

    /// Runs `scenario` with a fresh state directory (named after `statePrefix`) and a list for the pids
    /// of the servers it starts. However it ends, then stops those servers, removes the database, takes
    /// the hosts down and deletes the directory; after a scenario that returned, expects the bridge gone.
    func run(
        statePrefix: String, _ scenario: (TemporaryDirectory, inout [Int32]) async throws -> Void
    ) async throws {
        let state = try TemporaryDirectory(prefix: statePrefix)
        // The database server runs as `postgres` (started by root): it must reach its directory.
        chmod(state.path, 0o755)
        var servers: [Int32] = []
        do {
            try await scenario(state, &servers)
        } catch {
            await cleanUp(state: state, servers: servers)
            throw error
        }
        await cleanUp(state: state, servers: servers)
        let after = try await hosts.run(["status"])
        #expect(after.output.contains("\(prefix)br0: absent"), "\(after.output)")
    }

    /// Makes `count` hosts and starts PostgreSQL in `state`'s `pg` on the bridge: its URL.
    func start(hosts count: Int, state: TemporaryDirectory) async throws -> String {
        let up = try await hosts.run(["up", "\(count)"])
        try #require(up.status == 0, "up failed: \(up.output)\(up.error)")
        let database = try await runCommand(
            Paths.deploy + "/local/pg-cluster.sh", ["start", state.file("pg")],
            environment: databaseEnvironment)
        try #require(database.status == 0, "PostgreSQL did not start: \(database.error)")
        return database.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Stops the servers by pid, removes the database, then `down` (which also stops anything left
    /// in the namespaces) and the state directory: whatever happened before.
    private func cleanUp(state: TemporaryDirectory, servers: [Int32]) async {
        await stopServers(servers)
        _ = try? await runCommand(
            Paths.deploy + "/local/pg-cluster.sh", ["remove", state.file("pg")],
            environment: databaseEnvironment)
        let down = try? await hosts.run(["down"])
        #expect(down?.status == 0, "down failed: \(down?.error ?? "did not run")")
        state.remove()
    }
}
