import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Whether this process may make network namespaces: root, and `ip netns` works.
func canMakeNamespaces() async -> Bool {
    guard getuid() == 0,
        let ip = commandOnPath("ip") ?? (access("/usr/sbin/ip", X_OK) == 0 ? "/usr/sbin/ip" : nil)
    else { return false }
    return (try? await runCommand(ip, ["netns", "list"], timeLimit: .seconds(5)))?.status == 0
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only where ``canMakeNamespaces()``: the rig's tests, which make hosts.
    static var needsNamespaces: Self {
        .enabled(
            Comment(rawValue: "needs root and `ip netns` (network namespaces) to make hosts"),
            { await canMakeNamespaces() })
    }
}

/// deploy/local/hosts.sh with names and addresses of its own (`rlt-`, 10.78.0.0/24 unless told
/// otherwise; each suite its own), so that it never touches a rig someone runs with the defaults.
struct TestHosts {
    let script = Paths.deploy + "/local/hosts.sh"
    let environment: [String: String]

    init(prefix: String = "rlt-", network: String = "10.78.0") {
        environment = [
            "HOSTS_PREFIX": prefix, "HOSTS_NET": network, "HOSTS_STOP_SECONDS": "3",
            "PATH": (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin") + ":/usr/sbin:/sbin",
        ]
    }

    func run(_ arguments: [String], timeLimit: Duration = .seconds(30)) async throws -> CommandResult {
        try await runCommand(script, arguments, environment: environment, timeLimit: timeLimit)
    }
}

@Suite("deploy/local/hosts.sh", .timeLimit(.minutes(2)), .serialized)
struct HostsScriptTests {
    @Test(
        "two hosts reach each other over ZeroMQ; cut, one cannot reach the other; heal, it can again",
        .needsNamespaces)
    func partition() async throws {
        let hosts = TestHosts()
        let state = try TemporaryDirectory(prefix: "hosts")
        var server: Int32?
        do {
            try await scenario(hosts, state: state, server: &server)
        } catch {
            await cleanUp(hosts, state: state, server: server)
            throw error
        }
        await cleanUp(hosts, state: state, server: server)
        let after = try await hosts.run(["status"])
        #expect(after.output.contains("rlt-br0: absent"), "\(after.output)")
        #expect(!after.output.contains("rlt-h1"), "\(after.output)")
    }

    /// auth-service on host 2, its `--check` from host 1: ready, then not answering while host 2 is
    /// cut off, then ready again.
    private func scenario(_ hosts: TestHosts, state: TemporaryDirectory, server: inout Int32?) async throws {
        let up = try await hosts.run(["up", "2"])
        try #require(up.status == 0, "up failed: \(up.output)\(up.error)")
        #expect(up.output.contains("rlt-h1: 10.78.0.11"))
        #expect(up.output.contains("rlt-h2: 10.78.0.12"))

        let auth = Paths.binaries + "/auth-service"
        let endpoint = "tcp://10.78.0.12:5562"
        // hosts.sh run execs into the service: the pid the shell prints is auth-service's own.
        let started = try await runCommand(
            "/bin/bash",
            [
                "-c",
                "\"$0\" run 2 \"$1\" --curve off --hash-cost test --state-dir \"$2\" --endpoint \"$3\" "
                    + ">\"$2/log\" 2>&1 </dev/null & echo $!",
                hosts.script, auth, state.path, endpoint,
            ], environment: hosts.environment)
        server = Int32(started.output.trimmingCharacters(in: .whitespacesAndNewlines))
        try #require(server != nil, "no pid: \(started.output)\(started.error)")

        func check() async throws -> Int32 {
            try await hosts.run(
                [
                    "run", "1", auth, "--check", "--curve", "off", "--state-dir", state.path, "--endpoint",
                    endpoint,
                ],
                timeLimit: .seconds(15)
            ).status
        }
        // A check runs a process for up to its own 15 s: asked every 200 ms at most.
        func waitFor(_ status: Int32, within limit: Duration) async throws -> Bool {
            try await eventually(within: limit, every: .milliseconds(200)) { try await check() == status }
        }

        #expect(try await waitFor(0, within: .seconds(20)), "\(contents(state.file("log")))")
        let cut = try await hosts.run(["cut", "rlt-h2"])
        #expect(cut.status == 0, "\(cut.error)")
        let status = try await hosts.run(["status"])
        let line = status.output.split(separator: "\n").first { $0.hasPrefix("rlt-h2") }
        #expect(line?.contains(" cut ") == true, "\(status.output)")
        // --check waits 2 s for an answer; a partitioned host gives none.
        #expect(try await waitFor(2, within: .seconds(10)), "host 2 still answers while cut off")
        let heal = try await hosts.run(["heal", "h2"])
        #expect(heal.status == 0, "\(heal.error)")
        #expect(try await waitFor(0, within: .seconds(20)), "host 2 does not answer after heal")
    }

    /// Stops the server by its pid, then `down` (which also stops anything left in the namespaces),
    /// then deletes the state directory: whatever happened before.
    private func cleanUp(_ hosts: TestHosts, state: TemporaryDirectory, server: Int32?) async {
        if let server { await stopServers([server], grace: .seconds(5)) }
        let down = try? await hosts.run(["down"])
        #expect(down?.status == 0, "down failed: \(down?.error ?? "did not run")")
        state.remove()
    }
}
