import Foundation
import Testing

@Suite("--init of the service executables", .timeLimit(.minutes(1)))
struct InitCommandTests {
    @Test(
        "prints the keys in its state directory, binds nothing, takes no pid file, and repeats identically",
        arguments: [
            ("auth-service", "auth"), ("validation-service", "validation"),
            ("hero-catalog-service", "heroes"),
        ])
    func initialize(binary: String, service: String) async throws {
        let directory = try TemporaryDirectory(prefix: "init")
        defer { directory.remove() }
        let state = directory.file("state")
        let socket = directory.file("service.sock")
        let arguments = ["--init", "--state-dir", state, "--endpoint", "ipc://\(socket)"]
        let first = try await runCommand(Paths.binaries + "/" + binary, arguments)
        #expect(first.status == 0, "\(first.error)")
        let serverKey = contents(state + "/curve.pub").trimmingCharacters(in: .newlines)
        let clientKey = contents(state + "/client.pub").trimmingCharacters(in: .newlines)
        #expect(serverKey.count == 40 && clientKey.count == 40)
        #expect(first.output == "server_key=\(serverKey) client_key=\(clientKey)\n")
        #expect(FileManager.default.fileExists(atPath: state + "/allowed_clients"))
        #expect(!FileManager.default.fileExists(atPath: socket), "--init bound its endpoint")
        #expect(!FileManager.default.fileExists(atPath: state + "/\(service).pid"))
        let second = try await runCommand(Paths.binaries + "/" + binary, arguments)
        #expect(second.status == 0)
        #expect(second.output == first.output)
    }

    @Test("a secret key others can read: --init fails with exit 1, naming the file")
    func badKey() async throws {
        let directory = try TemporaryDirectory(prefix: "init")
        defer { directory.remove() }
        let binary = Paths.binaries + "/auth-service"
        let arguments = ["--init", "--state-dir", directory.path]
        #expect(try await runCommand(binary, arguments).status == 0)
        try FileManager.default.setAttributes(
            [.posixPermissions: 0o644], ofItemAtPath: directory.file("curve.key"))
        let result = try await runCommand(binary, arguments)
        #expect(result.status == 1)
        #expect(result.output.isEmpty)
        #expect(result.error.contains(directory.file("curve.key")))
    }
}
