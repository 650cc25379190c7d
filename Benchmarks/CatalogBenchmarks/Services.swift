// The two child processes of the wire measurement: auth-service (to log in once) and
// hero-catalog-service on the generated catalog, both `--curve off` on `ipc://` endpoints in a temp
// directory, stopped by their pids.

import Contracts
import Foundation
import Reactive
import RemoteStreams
import ZeroMQ

/// A failure of the benchmark's set-up.
struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
}

/// Parameters of `sys.*` calls.
struct NoParameters: Codable, Sendable {}

/// A child process with a client connected to it.
final class Child {
    let name: String
    let endpoint: String
    let client: RemoteClient
    private let context: Context
    private let process: Process
    private let logPath: String

    /// Starts `executable` with `arguments` plus `--endpoint` and `--state-dir` in `directory`, and
    /// waits until `sys.health` says ready (at most `timeout`).
    init(name: String, executable: String, arguments: [String], directory: String, timeout: Duration)
        async throws
    {
        self.name = name
        endpoint = "ipc://\(directory)/\(name).sock"
        logPath = "\(directory)/\(name).log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments =
            ["--endpoint", endpoint, "--state-dir", "\(directory)/\(name)-state", "--log-level", "notice"]
            + arguments
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.standardOutput = output
        process.standardError = output
        context = try Context()
        client = try RemoteClient(
            context: context,
            configuration: .init(endpoints: [endpoint], deadline: .seconds(30), name: "\(name)-bench"))
        try process.run()
        let end = ContinuousClock.now + timeout
        while ContinuousClock.now < end {
            guard process.isRunning else { throw BenchmarkError(description: "\(name) exited:\n\(log())") }
            let health = try? await client.request(
                SystemMethod.health, NoParameters(), as: HealthReport.self, deadline: .milliseconds(500)
            ).value
            if health?.ready == true { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        await stop()
        throw BenchmarkError(description: "\(name) was not ready within \(timeout):\n\(log())")
    }

    func log() -> String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// The child's resident memory now, in MiB (from /proc).
    var residentMiB: Int {
        let status =
            (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1_024
    }

    /// Stops the client, then the process (SIGTERM, SIGKILL after 20 s).
    func stop() async {
        await client.stop()
        context.terminate()
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        let end = ContinuousClock.now + .seconds(20)
        while process.isRunning && ContinuousClock.now < end { try? await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}
