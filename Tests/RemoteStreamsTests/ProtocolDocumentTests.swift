import Foundation
import Reactive
import RemoteProtocol
import RemoteStreams
import Testing
import ZeroMQ

struct Login: Codable, Sendable {
    var user: String
    var password: String
}

struct Session: Codable, Sendable {
    var token: String
    var expires: Int
}

/// docs/PROTOCOL.md promises that a client can be written from the document alone; this runs the
/// document's own Python client (Debian's python3-zmq, which `make test` installs) against a
/// RemoteServer.
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

    @Test func thePythonClientOfTheDocumentTalksToAServer() async throws {
        var handlers = RemoteHandlers()
        handlers.request("auth.login") { (login: Login) in
            login.user == "alice" && login.password == "secret"
                ? Single.just(Session(token: "t-42", expires: 3600))
                : Single.error(RemoteError(code: .unauthenticated, message: "wrong password"))
        }
        let context = try Context()
        let server = try RemoteServer(
            context: context, configuration: .init(endpoints: ["tcp://127.0.0.1:*"]), handlers: handlers)
        let script = try Self.pythonClient()
            .replacingOccurrences(of: "tcp://127.0.0.1:5562", with: server.endpoints[0])
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "protocol-client-\(UUID()).py")
        try script.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }

        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        python.arguments = [file.path]
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
        #expect(await server.counters.framesIn == 1)
        await server.stop()
        context.terminate()
    }
}
