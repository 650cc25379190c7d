import TestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// deploy/local/stack.sh with the debug executables, its state in a temp directory and every
/// service on an `ipc://` endpoint inside it (nothing on shared ports). By default the three
/// services; the gateway joins where its executable is built.
struct LocalStack {
    let directory: TemporaryDirectory
    let script = Paths.deploy + "/local/stack.sh"
    let services: [String]

    init(services: [String] = ["auth", "validation", "heroes"]) throws {
        directory = try TemporaryDirectory(prefix: "stack")
        self.services = services
    }

    var environment: [String: String] {
        [
            "STACK_DIR": directory.path, "BIN_DIR": Paths.binaries,
            "STACK_SERVICES": services.joined(separator: " "),
            "STACK_GATEWAY_ENDPOINT": "ipc://\(directory.path)/gateway.sock",
            "STACK_AUTH_ENDPOINT": "ipc://\(directory.path)/auth.sock",
            "STACK_VALIDATION_ENDPOINT": "ipc://\(directory.path)/validation.sock",
            "STACK_HEROES_ENDPOINT": "ipc://\(directory.path)/heroes.sock",
            "STACK_AUTH_ARGS": "--hash-cost test", "STACK_WAIT_SECONDS": "20", "STACK_STOP_SECONDS": "10",
            // Free ports rather than the fixed 9560-9563, which a stack of the user's may hold.
            "STACK_GATEWAY_METRICS": "127.0.0.1:0", "STACK_AUTH_METRICS": "127.0.0.1:0",
            "STACK_VALIDATION_METRICS": "127.0.0.1:0", "STACK_HEROES_METRICS": "127.0.0.1:0",
        ]
    }

    /// Runs `stack.sh command` with the stack's environment plus `extra`.
    func run(_ command: String, _ extra: [String: String] = [:]) async throws -> CommandResult {
        try await runCommand(script, [command], environment: environment.merging(extra) { $1 })
    }

    /// The pid `up` recorded for `service`, if any.
    func pid(_ service: String) -> Int32? {
        Int32(contents(directory.file("run/\(service).pid")).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// A file in a service's state directory.
    func state(_ service: String, _ name: String) -> String { contents(directory.file("\(service)/\(name)")) }

    /// Waits up to `timeout` for `text` to appear in `service`'s log (woken by each write to it).
    func waitForLog(_ service: String, containing text: String, timeout: Duration) async -> Bool {
        await waitForFile(directory.file("logs/\(service).log"), containing: text, timeout: timeout)
    }

    /// Stops whatever is still running from the stack's pid files (SIGKILL, by pid) and removes
    /// the directory: the clean-up when an expectation failed half-way.
    func tearDown() {
        for service in services.reversed() {
            if let pid = pid(service), isAlive(pid) { kill(pid, SIGKILL) }
        }
        directory.remove()
    }
}

@Suite("deploy/local/stack.sh", .timeLimit(.minutes(2)), .serialized)
struct LocalStackTests {
    @Test("up starts the three services with keys exchanged; status says ready; down leaves nothing")
    func upStatusDown() async throws {
        let stack = try LocalStack()
        defer { stack.tearDown() }

        let up = try await stack.run("up")
        try #require(up.status == 0, "up failed: \(up.output)\(up.error)")
        for service in ["auth", "validation", "heroes"] {
            #expect(up.output.contains("\(service): ready at ipc://"))
        }
        let pids = try ["auth", "validation", "heroes"].map { try #require(stack.pid($0)) }
        #expect(pids.allSatisfy(isAlive))

        // The keys: auth's public key went to its clients, their client keys to auth's allow-list.
        let authKey = stack.state("auth", "curve.pub")
        #expect(authKey.count == 41)
        #expect(stack.state("validation", "auth.pub") == authKey)
        #expect(stack.state("heroes", "auth.pub") == authKey)
        let allowed = stack.state("auth", "allowed_clients")
        for client in ["validation", "heroes"] {
            let key = stack.state(client, "client.pub").trimmingCharacters(in: .newlines)
            #expect(allowed.contains("\(key) stack:\(client)\n"))
        }
        // validation reached auth over CURVE: its probe of auth's health succeeded.
        #expect(
            await stack.waitForLog(
                "validation", containing: "auth-service reachable", timeout: .seconds(10)))

        let status = try await stack.run("status")
        #expect(status.status == 0, "\(status.output)\(status.error)")
        let lines = status.output.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(lines.map { $0.first ?? "" } == ["auth", "validation", "heroes"])
        for (line, pid) in zip(lines, pids) {
            #expect(Array(line.dropFirst().prefix(3)) == ["ready", "pid", "\(pid)"], "\(line)")
        }
        // Each line ends with the service's metrics URL, which serves the Prometheus text format.
        for (line, service) in zip(lines, ["auth", "validation", "heroes"]) {
            let url = try #require(line.last, "\(line)")
            #expect(line.dropLast().last == "metrics" && url.hasPrefix("http://127.0.0.1:") && url.hasSuffix("/metrics"))
            let fetched = try await runCommand(
                "/usr/bin/env",
                ["python3", "-c", "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())", url])
            #expect(fetched.status == 0, "\(fetched.error)")
            #expect(fetched.output.contains("reactive_login_build_info{service=\"\(service)\""), "\(fetched.output.prefix(300))")
        }

        // The Python client of docs/PROTOCOL.md, as written, logs in to this stack's auth-service over
        // CURVE with the stack's keys (an unknown user: 401 login.wrongPassword).
        let script = stack.directory.file("protocol-client.py")
        try protocolDocumentPythonClient().write(toFile: script, atomically: true, encoding: .utf8)
        let python = try await runCommand(
            "/usr/bin/python3", [script],
            environment: ["STACK_DIR": stack.directory.path, "AUTH_ENDPOINT": "ipc://\(stack.directory.path)/auth.sock"],
            timeLimit: .seconds(30))
        #expect(python.status == 0, "\(python.output)\(python.error)")
        #expect(python.output.contains("'status_code': 401"), "\(python.output)")

        // A second up changes nothing: same processes, same allow-list, byte for byte.
        let again = try await stack.run("up")
        #expect(again.status == 0)
        #expect(again.output.contains("auth: already running (pid \(pids[0]))"))
        #expect(stack.state("auth", "allowed_clients") == allowed)
        #expect(try ["auth", "validation", "heroes"].map { try #require(stack.pid($0)) } == pids)

        let down = try await stack.run("down")
        #expect(down.status == 0, "\(down.output)\(down.error)")
        #expect(down.output.contains("auth: stopped"))
        for pid in pids { #expect(!isAlive(pid), "pid \(pid) still runs") }
        #expect(stack.pid("auth") == nil)
        let after = try await stack.run("status")
        #expect(after.status == 3)
        #expect(after.output.split(separator: "\n").allSatisfy { $0.split(separator: " ")[1] == "down" })
    }

    @Test("a service that cannot start: up fails with its log's tail and stops what it started")
    func failedStart() async throws {
        let stack = try LocalStack()
        defer { stack.tearDown() }
        let up = try await stack.run(
            "up", ["STACK_HEROES_ARGS": "--catalog \(stack.directory.path)/missing.json"])
        #expect(up.status == 1)
        #expect(up.error.contains("heroes exited during start-up"))
        #expect(up.error.contains("missing.json"))
        #expect(up.output.contains("auth: stopped"))
        #expect(up.output.contains("validation: stopped"))
        for service in ["auth", "validation", "heroes"] { #expect(stack.pid(service) == nil) }
        // The pids it printed while starting are gone.
        let started = up.output.split(separator: "\n").compactMap { line -> Int32? in
            guard line.contains(": ready at "), let open = line.range(of: "(pid ") else { return nil }
            return Int32(line[open.upperBound...].prefix { $0.isNumber })
        }
        #expect(started.count == 2)
        for pid in started { #expect(!isAlive(pid), "pid \(pid) still runs") }
    }

    @Test("a service keeps none of the descriptors up inherited (a lock held by whoever ran make)")
    func noInheritedDescriptors() async throws {
        let stack = try LocalStack(services: ["auth"])
        defer { stack.tearDown() }
        let held = stack.directory.file("held.lock")
        // As `flock /tmp/cpu.lock make up` does: descriptor 9 open on a file while up runs.
        let up = try await runCommand(
            "/bin/bash", ["-c", #"exec 9>>"$1" && exec "$2" up"#, "up", held, stack.script],
            environment: stack.environment)
        try #require(up.status == 0, "up failed: \(up.output)\(up.error)")
        let pid = try #require(stack.pid("auth"))
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        #expect(!descriptors.isEmpty)
        let targets = descriptors.compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")
        }
        #expect(!targets.contains(held), "auth-service holds \(held): \(targets)")
        let down = try await stack.run("down")
        #expect(down.status == 0)
    }

    @Test("usage errors: an unknown service or command exits 64 and starts nothing")
    func usage() async throws {
        let stack = try LocalStack()
        defer { stack.tearDown() }
        let unknown = try await stack.run("up", ["STACK_SERVICES": "auth mail"])
        #expect(unknown.status == 64)
        #expect(unknown.error.contains("unknown service 'mail'"))
        let command = try await stack.run("restart")
        #expect(command.status == 64)
        #expect(command.error.contains("stack.sh up"))
        #expect(!FileManager.default.fileExists(atPath: stack.directory.file("run")))
    }

    @Test(
        "with the gateway: it reaches the three services over CURVE and gateway-cli reaches it",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: Paths.binaries + "/gateway"),
            "the gateway executable is not part of this build"))
    func withGateway() async throws {
        let stack = try LocalStack(services: ["auth", "validation", "heroes", "gateway"])
        defer { stack.tearDown() }
        let up = try await stack.run("up")
        try #require(up.status == 0, "up failed: \(up.output)\(up.error)")
        for file in ["auth.pub", "validation.pub", "heroes.pub"] {
            let server = String(file.dropLast(".pub".count))
            #expect(stack.state("gateway", file) == stack.state(server, "curve.pub"))
        }
        let gatewayKey = stack.state("gateway", "client.pub").trimmingCharacters(in: .newlines)
        for server in ["auth", "validation", "heroes"] {
            #expect(stack.state(server, "allowed_clients").contains("\(gatewayKey) stack:gateway\n"))
        }
        for peer in ["auth-service", "validation-service", "hero-catalog-service"] {
            #expect(
                await stack.waitForLog("gateway", containing: "\(peer) reachable", timeout: .seconds(10)),
                "the gateway did not reach \(peer)")
        }
        let client = Paths.binaries + "/gateway-cli"
        if FileManager.default.isExecutableFile(atPath: client) {
            let numbers = try await runCommand(
                client,
                [
                    "--endpoint", "ipc://\(stack.directory.path)/gateway.sock", "--server-key",
                    stack.directory.file("gateway/curve.pub"), "numbers", "1", "2", "3",
                ])
            #expect(numbers.status == 0, "\(numbers.output)\(numbers.error)")
            #expect(numbers.output.contains("6"))
        }
        let pids = stack.services.compactMap(stack.pid)
        #expect(pids.count == 4)
        let down = try await stack.run("down")
        #expect(down.status == 0)
        for pid in pids { #expect(!isAlive(pid), "pid \(pid) still runs") }
    }
}

/// The Python block of docs/PROTOCOL.md's "A client in Python".
func protocolDocumentPythonClient() throws -> String {
    let text = contents(Paths.inRepository("docs/PROTOCOL.md"))
    guard let section = text.range(of: "### A client in Python"),
        let start = text.range(of: "```python\n", range: section.upperBound..<text.endIndex),
        let end = text.range(of: "\n```", range: start.upperBound..<text.endIndex)
    else { throw SupportError("no Python client in docs/PROTOCOL.md") }
    return String(text[start.upperBound..<end.lowerBound])
}
