import Foundation
import Testing

/// Every service that calls auth-service reads auth's public key from the same option, with the
/// same default: `--auth-public-key`, `auth.pub` in its own state directory, where deploy/README.md,
/// the systemd units, the Kubernetes manifests and `stack.sh` put it.
@Suite("--auth-public-key: one name and one default for every caller of auth", .timeLimit(.minutes(1)))
struct AuthKeyOptionTests {
    @Test(
        "--help names --auth-public-key, default auth.pub in the state directory",
        arguments: ["validation-service", "hero-catalog-service", "gateway"])
    func help(binary: String) async throws {
        let result = try await runCommand(Paths.binaries + "/" + binary, ["--help"])
        #expect(result.status == 0)
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.contains("--auth-public-key") }) else {
            Issue.record("no --auth-public-key in:\n\(result.output)")
            return
        }
        let entry = lines[start...].prefix(4).joined(separator: " ").split(whereSeparator: \.isWhitespace)
            .joined(separator: " ")
        #expect(entry.contains("auth.pub in the state directory"), "\(entry)")
    }

    @Test("hero-catalog-service reads auth.pub in its state directory by default, and names it when missing")
    func heroesDefault() async throws {
        let directory = try TemporaryDirectory(prefix: "authkey")
        defer { directory.remove() }
        let state = directory.file("heroes")
        let result = try await runCommand(
            Paths.binaries + "/hero-catalog-service",
            ["--state-dir", state, "--endpoint", "ipc://\(directory.file("heroes.sock"))"])
        #expect(result.status == 1)
        #expect(result.error.contains(state + "/auth.pub"), "\(result.error)")
        #expect(result.error.contains("--auth-public-key"), "\(result.error)")
    }

    @Test("the old --auth-server-key is still read, with a warning")
    func heroesDeprecatedAlias() async throws {
        let directory = try TemporaryDirectory(prefix: "authkey")
        defer { directory.remove() }
        let missing = directory.file("nowhere/auth.pub")
        let result = try await runCommand(
            Paths.binaries + "/hero-catalog-service",
            [
                "--state-dir", directory.file("heroes"), "--endpoint", "ipc://\(directory.file("heroes.sock"))",
                "--auth-server-key", missing,
            ])
        #expect(result.status == 1)
        #expect(result.error.contains("deprecated"), "\(result.error)")
        #expect(result.error.contains(missing), "\(result.error)")
    }
}
