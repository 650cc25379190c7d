import Foundation
import Reactive
import RemoteProtocol
@testable import RemoteStreams
import Testing
import ZeroMQ

/// `auth.login`'s parameters (docs/services/auth.md).
struct Login: Codable, Sendable {
    var username: String
    var password: String
}

/// `auth.login`'s answer for a wrong password.
struct LoginAnswer: Codable, Sendable {
    var status_code: Int
    var message: String
}

/// docs/PROTOCOL.md promises that a client can be written from the document alone; this runs the
/// document's own Python client (Debian's python3-zmq, which `make test` installs) against a
/// RemoteServer that answers `auth.login` like auth-service, over CURVE with an allow-list, with the
/// keys where `stack.sh` keeps them (`STACK_DIR`). Tests/DeployTests runs it against the real stack.
@Suite(.timeLimit(.minutes(1)))
struct ProtocolDocumentTests {
    /// The Python block of the document's "A client in Python" section.
    static func pythonClient() throws -> String {
        let document = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/PROTOCOL.md")
        let text = try String(contentsOf: document, encoding: .utf8)
        guard let section = text.range(of: "### A client in Python"),
            let start = text.range(of: "```python\n", range: section.upperBound..<text.endIndex),
            let end = text.range(of: "\n```", range: start.upperBound..<text.endIndex)
        else { throw RemoteError(code: .internal, message: "no Python client in docs/PROTOCOL.md") }
        return String(text[start.upperBound..<end.lowerBound])
    }

    @Test func thePythonClientOfTheDocumentTalksToAServerOverCurve() async throws {
        var handlers = RemoteHandlers()
        handlers.request("auth.login") { (login: Login) in
            login.username == "alice"
                ? Single.just(LoginAnswer(status_code: 401, message: "login.wrongPassword"))
                : Single.error(RemoteError(code: .badRequest, message: "unexpected user \(login.username)"))
        }
        // The layout of stack.sh's state: auth's curve.pub, validation's client pair on auth's list.
        let stack = FileManager.default.temporaryDirectory.appendingPathComponent("protocol-stack-\(UUID())")
        defer { try? FileManager.default.removeItem(at: stack) }
        let serverKeys = try CurveKeyPair.generate()
        let clientKeys = try CurveKeyPair.generate()
        for (directory, name, key) in [
            ("auth", "curve.pub", serverKeys.publicKey), ("validation", "client.pub", clientKeys.publicKey),
            ("validation", "client.key", clientKeys.secretKey),
        ] {
            let folder = stack.appendingPathComponent(directory)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try (try Z85.encode(key) + "\n").write(
                to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        let context = try Context()
        let server = try RemoteServer(
            context: context,
            configuration: .init(
                endpoints: ["tcp://127.0.0.1:*"],
                curve: .init(keys: serverKeys, allowList: CurveAllowList([clientKeys.publicKey]))),
            handlers: handlers)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "protocol-client-\(UUID()).py")
        try Self.pythonClient().write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }

        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        python.arguments = [file.path]
        python.environment = ProcessInfo.processInfo.environment.merging([
            "STACK_DIR": stack.path, "AUTH_ENDPOINT": server.endpoints[0],
        ]) { $1 }
        let output = Pipe()
        python.standardOutput = output
        python.standardError = output
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            python.terminationHandler = { process in continuation.resume(returning: process.terminationStatus)
            }
            do { try python.run() } catch { continuation.resume(throwing: error) }
        }
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(status == 0, "python3 said: \(printed)")
        #expect(printed.contains("login.wrongPassword"), "python3 said: \(printed)")
        #expect(await server.counters.framesIn == 1)
        await server.stop()
        context.terminate()
    }
}
