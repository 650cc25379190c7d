import Contracts
import Foundation
import ProcessSupport
import RemoteStreams
import ServiceKit

#if canImport(Glibc)
    import Glibc
#endif

/// One ``GatewayStack`` shared by the tests of a suite: the first ``acquire()`` starts it (CURVE
/// on, in a fresh temp directory), the last ``release()`` stops it (by pid) and removes the
/// directory. Tests of the suite run in parallel, so the stack starts once per suite run.
actor SharedGatewayStack {
    /// The stack of the suites that only run flows on it (they never stop or restart a service).
    static let flows = SharedGatewayStack()

    private var starting: Task<GatewayStack, any Error>?
    private var users = 0

    /// The running stack, started by the first caller; every caller must ``release()`` it.
    func acquire() async throws -> GatewayStack {
        users += 1
        if let starting { return try await starting.value }
        let task = Task<GatewayStack, any Error> {
            let directory = try TemporaryDirectory()
            do {
                let stack = try await GatewayStack.start(in: directory)
                // The CLI's own key pair, made once before any run (parallel runs would race to
                // create it).
                _ = try CurveKeyFiles.clientKeys(
                    in: StateDirectory(creating: stack.cliStateHome + "/reactive-login/gateway-cli"))
                return stack
            } catch {
                directory.remove()
                throw error
            }
        }
        starting = task
        return try await task.value
    }

    /// Ends one use; the last one stops the stack and removes its directory.
    func release() async {
        users -= 1
        guard users == 0, let starting else { return }
        self.starting = nil
        if let stack = try? await starting.value {
            await stack.stop()
            stack.directory.remove()
        }
    }

    /// Runs `body` with the shared stack, releasing it whatever happens; a failing body records the
    /// stack's logs.
    nonisolated func with(_ body: @Sendable (GatewayStack) async throws -> Void) async throws {
        let stack: GatewayStack
        do {
            stack = try await acquire()
        } catch {
            await release()
            throw error
        }
        do {
            try await body(stack)
        } catch {
            await release()
            throw SupportError("\(error)\nlogs:\n\(stack.logs)")
        }
        await release()
    }
}

/// How one `gateway-cli` run ended and what it printed.
struct CLIRun: Sendable, CustomStringConvertible {
    /// Its exit.
    let status: Termination
    /// Everything on standard output.
    let standardOutput: String
    /// Everything on standard error.
    let standardError: String

    /// Standard output's lines with every token replaced by `<token>` (``redactingTokens(_:)``).
    var lines: [String] {
        standardOutput.split(separator: "\n", omittingEmptySubsequences: true).map {
            Self.redactingTokens(String($0))
        }
    }

    /// The `token` member of the result line (the last line), if it has one.
    var token: String? {
        guard let last = standardOutput.split(separator: "\n").last,
            let value = try? JSONDecoder().decode(JSONValue.self, from: Data(last.utf8))
        else { return nil }
        return value["token"]?.string
    }

    /// `line` with the value of every `"token"` member and the token in a rendered `login.ok`
    /// (after `标识符:`, `識別碼:` or `token: `, up to the closing quote) replaced by `<token>`.
    static func redactingTokens(_ line: String) -> String {
        line.replacing(#/"token":"[^"]*"/#, with: #""token":"<token>""#)
            .replacing(#/(标识符:|識別碼:|token: )[^"]*/#) { match in match.1 + "<token>" }
    }

    var description: String { "exit \(status)\nstdout:\n\(standardOutput)stderr:\n\(standardError)" }
}

extension GatewayStack {
    /// The gateway's public key file (`--server-key`).
    var gatewayKeyFile: String { directory.file("state-gateway/curve.pub") }

    /// `HOME` and `XDG_STATE_HOME` of every `gateway-cli` run (its client keys are in there).
    var cliStateHome: String { directory.file("cli-home") }

    /// The arguments that point `gateway-cli` at this stack's gateway (CURVE on).
    var cliConnection: [String] { ["--endpoint", gateway.endpoint, "--server-key", gatewayKeyFile] }

    /// Runs `gateway-cli` with ``cliConnection`` and `arguments` to its end, `input` (e.g. the
    /// password lines) on standard input; fails after `timeout` (and kills it by pid).
    func cli(_ arguments: [String], input: String = "", timeout: Duration = .seconds(30)) async throws
        -> CLIRun
    {
        try await Self.runCLI(
            cliConnection + arguments, input: input, home: cliStateHome, in: directory, timeout: timeout)
    }

    /// Runs `gateway-cli` with exactly `arguments` (through `/bin/sh`, which only redirects standard
    /// input and sets `HOME`/`XDG_STATE_HOME` to `home`, without any `GATEWAY_CLI_*` variable).
    static func runCLI(
        _ arguments: [String], input: String, home: String, in directory: TemporaryDirectory,
        timeout: Duration = .seconds(30)
    ) async throws -> CLIRun {
        let base = directory.file("cli-\(UUID().uuidString)")
        try input.write(toFile: base + ".in", atomically: true, encoding: .utf8)
        defer {
            for suffix in [".in", ".out", ".err"] {
                try? FileManager.default.removeItem(atPath: base + suffix)
            }
        }
        let script = """
            unset GATEWAY_CLI_ENDPOINT GATEWAY_CLI_SERVER_KEY GATEWAY_CLI_CURVE GATEWAY_CLI_LANG \
            GATEWAY_CLI_TIMEOUT GATEWAY_CLI_TOKEN
            home=$1; input=$2; shift 2
            HOME="$home" XDG_STATE_HOME="$home" exec "$@" < "$input"
            """
        let child = try ChildProcess(
            executable: "/bin/sh",
            arguments: ["-c", script, "sh", home, base + ".in", try Binaries.path("gateway-cli")] + arguments,
            standardOutput: base + ".out", standardError: base + ".err")
        guard let status = await child.waitForExit(timeout: timeout) else {
            await child.stop(grace: .zero)
            throw SupportError("gateway-cli \(arguments) did not exit within \(timeout)")
        }
        return CLIRun(
            status: status,
            standardOutput: (try? String(contentsOfFile: base + ".out", encoding: .utf8)) ?? "",
            standardError: (try? String(contentsOfFile: base + ".err", encoding: .utf8)) ?? "")
    }

    /// Registers `username` with `password` through the gateway's `register` command (a test's
    /// own account, made without the CLI).
    func register(_ username: String, password: String = "secret1") async throws {
        let made = try await client.request(
            Methods.Command.register, RegisterCommand(username: username, password: password)
        ).value
        guard made.ok else { throw SupportError("cannot register \(username): \(made)") }
    }
}

/// A random suffix of `digits` digits, for unique usernames and phones per test.
func randomDigits(_ digits: Int) -> String {
    String((0..<digits).map { _ in "0123456789".randomElement() ?? "0" })
}

/// A `gateway-cli` run in the background: the process, and the files its output goes to.
struct RunningCLI: Sendable {
    let child: ChildProcess
    let standardOutput: String
    let standardError: String

    /// Waits up to `timeout` for the run to end; its exit and output, or nil if it did not end.
    func wait(timeout: Duration) async -> CLIRun? {
        guard let status = await child.waitForExit(timeout: timeout) else { return nil }
        return CLIRun(
            status: status,
            standardOutput: (try? String(contentsOfFile: standardOutput, encoding: .utf8)) ?? "",
            standardError: (try? String(contentsOfFile: standardError, encoding: .utf8)) ?? "")
    }
}

extension GatewayStack {
    /// Starts `gateway-cli` with ``cliConnection`` and `arguments` (standard input empty) without
    /// waiting for it; stop it by its pid if the test does not see it end.
    func startCLI(_ arguments: [String]) throws -> RunningCLI {
        let base = directory.file("cli-\(UUID().uuidString)")
        try "".write(toFile: base + ".in", atomically: true, encoding: .utf8)
        let script = """
            unset GATEWAY_CLI_ENDPOINT GATEWAY_CLI_SERVER_KEY GATEWAY_CLI_CURVE GATEWAY_CLI_LANG \
            GATEWAY_CLI_TIMEOUT GATEWAY_CLI_TOKEN
            home=$1; input=$2; shift 2
            HOME="$home" XDG_STATE_HOME="$home" exec "$@" < "$input"
            """
        let child = try ChildProcess(
            executable: "/bin/sh",
            arguments: ["-c", script, "sh", cliStateHome, base + ".in", try Binaries.path("gateway-cli")]
                + cliConnection + arguments,
            standardOutput: base + ".out", standardError: base + ".err")
        return RunningCLI(child: child, standardOutput: base + ".out", standardError: base + ".err")
    }
}
