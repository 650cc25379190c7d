import Contracts
import Foundation
import GatewayClient
import RemoteStreams
import Testing
import ZeroMQ

#if canImport(Glibc)
    import Glibc
#endif

/// The fake gateway served over tcp on a random loopback port with CURVE, its public key in a
/// file of a temp directory.
final class FakeGatewayServer: Sendable {
    let directory: TemporaryDirectory
    let context: Context
    let server: RemoteServer
    let keyPath: String

    init() throws {
        directory = try TemporaryDirectory()
        context = try Context()
        let keys = try CurveKeyPair.generate()
        keyPath = directory.file("gateway.pub")
        try directory.write("gateway.pub", try Z85.encode(keys.publicKey) + "\n")
        server = try RemoteServer(
            context: context,
            configuration: .init(
                endpoints: ["tcp://127.0.0.1:*"], name: "fake-gateway",
                curve: .init(keys: keys, allowList: nil)),
            handlers: FakeGateway.handlers)
    }

    var endpoint: String { server.endpoints[0] }

    /// `gateway-cli` against this server, CURVE on, in English unless told otherwise.
    func cli(_ arguments: [String], input: String = "") async throws -> CLIRun {
        try await CLIBinary.run(
            ["--endpoint", endpoint, "--server-key", keyPath, "--lang", "en"] + arguments, input: input,
            in: directory)
    }

    func stop() async {
        await server.stop()
        directory.remove()
    }
}

@Suite(.timeLimit(.minutes(2)))
struct CLIBinaryTests {
    @Test func numbersAsJSONLines() async throws {
        let gateway = try FakeGatewayServer()
        let run = try await gateway.cli(["numbers", "1", "2", "3", "--json"])
        await gateway.stop()
        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            run.outputLines == [
                #"{"output":"sum","number":0}"#, #"{"output":"sum","number":1}"#,
                #"{"output":"sum","number":3}"#,
                #"{"output":"sum","number":6}"#, #"{"result":"succeeded","exit":0,"message":"6"}"#,
            ])
        #expect(run.standardError.isEmpty)
    }

    /// The fake gateway reports no traces: the run waits the grace for them, then ends as ever.
    @Test func traceAgainstAGatewayThatReportsNoneChangesNothingElse() async throws {
        let gateway = try FakeGatewayServer()
        let run = try await gateway.cli(["numbers", "1", "2", "3", "--json", "--trace"])
        await gateway.stop()
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.outputLines.last == #"{"result":"succeeded","exit":0,"message":"6"}"#)
        #expect(run.outputLines.filter { $0.hasPrefix(#"{"output":"sum""#) }.count == 4)
        #expect(run.standardError.isEmpty)
    }

    @Test func loginSucceedsAndFails() async throws {
        let gateway = try FakeGatewayServer()
        let success = try await gateway.cli(
            ["login", "--phone", "13800138000", "--password-stdin"], input: "secret1\n")
        let failure = try await gateway.cli(
            ["login", "--phone", "13800138000", "--password-stdin"], input: "wrong12")
        let invalid = try await gateway.cli(
            ["login", "--phone", "138", "--password-stdin", "--lang", "zh-Hans"], input: "secret1\r\n")
        // The client's key pair was made on first use, private.
        var status = stat()
        let clientKey = gateway.directory.file("state/reactive-login/gateway-cli/client.key")
        let keyExists = stat(clientKey, &status) == 0
        await gateway.stop()
        #expect(success.status == 0, "\(success.standardError)")
        #expect(
            success.outputLines == [
                "Login succeeded, user: 13800138000, token: tok-13800138000", "tok-13800138000",
            ])
        #expect(failure.status == 1)
        #expect(failure.standardOutput.isEmpty)
        #expect(failure.standardError == "Login failed: Wrong password\n")
        #expect(invalid.status == 1)
        #expect(invalid.standardError == "号码长度不足\n")
        #expect(keyExists && status.st_mode & 0o077 == 0)
    }

    @Test func loginKeepsTheDeviceTokenPrivatelyAndPresentsItNextTime() async throws {
        let gateway = try FakeGatewayServer()
        let first = try await gateway.cli(
            ["login", "--phone", "13800138000", "--password-stdin", "--json"], input: "secret1\n")
        let file = gateway.directory.file("state/reactive-login/gateway-cli/device_tokens.json")
        let afterFirst = DeviceTokenStore(path: file).all()
        let second = try await gateway.cli(
            ["login", "--phone", "13800138000", "--password-stdin"], input: "secret1\n")
        let refused = try await gateway.cli(
            ["signin", "--username", "ann2024", "--password-stdin"], input: "wrong12\n")
        let afterSecond = DeviceTokenStore(path: file).all()
        var status = stat()
        let exists = stat(file, &status) == 0
        await gateway.stop()
        #expect(first.status == 0, "\(first.standardError)")
        #expect(second.status == 0, "\(second.standardError)")
        #expect(refused.status == 1)
        #expect(afterFirst == ["13800138000": "dev-13800138000"])
        // The second login presented the first's token (the fake answers it with a `+`).
        #expect(afterSecond == ["13800138000": "dev-13800138000+"])
        #expect(exists && status.st_mode & 0o777 == 0o600)
        // Never printed: not in the JSON events, not in the text output.
        #expect(!first.standardOutput.contains("dev-") && !first.standardOutput.contains("device_token"))
        #expect(!second.standardOutput.contains("dev-"))
    }

    @Test func signinThenHeroesWithItsToken() async throws {
        let gateway = try FakeGatewayServer()
        let signin = try await gateway.cli(
            ["signin", "--username", "ann2024", "--password-stdin", "--json"], input: "secret1\n")
        let token =
            signin.outputLines.last.flatMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            }?["token"] as? String
        let heroes = try await gateway.cli(["heroes", "--query", "man", "--token", token ?? "none"])
        let stale = try await gateway.cli(["heroes", "--token", "old"])
        let register = try await gateway.cli(
            ["register", "--username", "newuser", "--password-stdin"], input: "secret1\nsecret2\n")
        await gateway.stop()
        #expect(signin.status == 0)
        #expect(signin.outputLines.first == #"{"output":"username","state":"empty"}"#)
        #expect(token == "tok-ann2024")
        #expect(heroes.status == 0)
        #expect(heroes.outputLines == ["Superman", "Batman", "Wonder Woman", "Aquaman", "4 in all"])
        #expect(stale.status == 1)
        #expect(stale.standardError == "gateway-cli: the session has expired\n")
        #expect(register.status == 1)
        #expect(register.standardError == "The two passwords differ\n")
    }

    @Test func unreachableGatewayTimesOut() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("key.pub", try Z85.encode(try CurveKeyPair.generate().publicKey))
        // Port 1 on loopback: nothing listens there.
        let run = try await CLIBinary.run(
            [
                "--endpoint", "tcp://127.0.0.1:1", "--server-key", directory.file("key.pub"), "--timeout",
                "0.3",
                "numbers", "1", "2", "3",
            ],
            in: directory)
        let json = try await CLIBinary.run(
            [
                "--endpoint", "tcp://127.0.0.1:1", "--curve", "off", "--timeout", "0.3", "numbers", "1", "2",
                "3",
                "--json",
            ],
            in: directory)
        #expect(run.status == 2)
        #expect(run.standardError.contains("is the gateway running at tcp://127.0.0.1:1"))
        #expect(json.status == 2)
        #expect(json.outputLines.count == 1)
        #expect(json.standardOutput.hasPrefix(#"{"result":"timed_out","exit":2,"message":"#))
    }

    @Test func badUsageAndMissingKey() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let unknown = try await CLIBinary.run(["fly"], in: directory)
        let noPassword = try await CLIBinary.run(["login", "--phone", "1", "--curve", "off"], in: directory)
        let noKey = try await CLIBinary.run(["numbers", "1", "2", "3"], in: directory)
        let emptyPassword = try await CLIBinary.run(
            ["login", "--phone", "1", "--password-stdin", "--curve", "off"], input: "\n", in: directory)
        let help = try await CLIBinary.run(["signin", "--help"], in: directory)
        let version = try await CLIBinary.run(["--version"], in: directory)
        #expect(unknown.status == 64)
        #expect(unknown.standardError.hasPrefix("gateway-cli: unknown subcommand fly"))
        #expect(noPassword.status == 64)
        #expect(noPassword.standardError.contains("--password-stdin"))
        #expect(noKey.status == 64)
        #expect(
            noKey.standardError.contains(
                "no gateway key at \(directory.path)/state/reactive-login/stack/gateway/curve.pub or "
                    + "\(directory.path)/state/reactive-login/gateway/curve.pub"))
        // A stack started with another STACK_DIR is looked for there first.
        let otherStack = try await CLIBinary.run(
            ["numbers", "1", "2", "3"], in: directory, environment: ["STACK_DIR": directory.file("mine")])
        #expect(otherStack.status == 64)
        #expect(
            otherStack.standardError.contains(
                "no gateway key at \(directory.path)/mine/gateway/curve.pub or "
                    + "\(directory.path)/state/reactive-login/stack/gateway/curve.pub or "))
        #expect(emptyPassword.status == 64)
        #expect(emptyPassword.standardError.contains("the password is empty"))
        #expect(help.status == 0)
        #expect(help.standardOutput.hasPrefix("usage: gateway-cli signin"))
        #expect(version.status == 0)
        #expect(version.standardOutput == "gateway-cli \(ProjectVersion.current)\n")
    }
}

@Suite(.timeLimit(.minutes(1)))
struct CLITerminalTests {
    /// From a terminal the password is asked for and never shown; Backspace edits it.
    @Test func passwordPromptWithoutEcho() async throws {
        let gateway = try FakeGatewayServer()
        let terminal = try TerminalRun(
            [
                "--endpoint", gateway.endpoint, "--server-key", gateway.keyPath, "--lang", "en", "login",
                "--phone",
                "13800138000", "--password-stdin",
            ], in: gateway.directory)
        let prompted = await terminal.waitFor("Password: ")
        terminal.type("secret1x\u{7f}\r")
        let status = await terminal.exitStatus()
        _ = await terminal.waitFor("tok-13800138000\r\n", seconds: 2)
        await gateway.stop()
        #expect(prompted)
        #expect(status == 0, "\(terminal.text)")
        #expect(terminal.text.contains("Login succeeded, user: 13800138000"))
        #expect(!terminal.text.contains("secret1"))
    }

    /// Ctrl-C at the prompt cancels: bad usage, nothing sent, the terminal restored.
    @Test func controlCAtThePromptCancels() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let terminal = try TerminalRun(
            ["--curve", "off", "signin", "--username", "ann2024", "--password-stdin"], in: directory)
        let prompted = await terminal.waitFor("Password: ")
        terminal.type("sec\u{03}")
        let status = await terminal.exitStatus()
        #expect(prompted)
        #expect(status == 64)
        #expect(!terminal.text.contains("sec\u{03}") && !terminal.text.contains("sec\r"))
    }

    /// SIGINT while the script waits for the gateway: exit 130 at once, not at the timeout.
    @Test func signalStopsAWaitingScript() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let terminal = try TerminalRun(
            [
                "--endpoint", "tcp://127.0.0.1:1", "--curve", "off", "--timeout", "30", "login", "--phone",
                "13800138000", "--password-stdin",
            ], in: directory)
        let prompted = await terminal.waitFor("Password: ")
        terminal.type("secret1\r")
        let answered = await terminal.waitFor("Password: \r\n")
        kill(terminal.pid, SIGINT)
        let status = await terminal.exitStatus(seconds: 10)
        #expect(prompted && answered)
        #expect(status == 130)
        #expect(terminal.text.contains("gateway-cli: interrupted"))
    }
}
