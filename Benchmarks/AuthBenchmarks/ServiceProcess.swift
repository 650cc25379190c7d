// The auth-service child process: started on a fresh temp state directory with `--curve off` on an
// `ipc://` endpoint inside it (BenchmarkSupport's ServiceChild), stopped by its pid, the directory
// removed. SIGINT/SIGTERM to the benchmark stop the running child too (`stopChildrenOnSignals`).

import BenchmarkSupport
import Foundation
import RemoteStreams

/// A running `auth-service` and a client connected to it.
final class ServiceUnderTest {
    /// The arguments it was started with (after the state directory and endpoint).
    let arguments: [String]
    private let child: ServiceChild
    private let directory: String

    /// Its endpoint.
    var endpoint: String { child.endpoint }
    /// A client for the load.
    var client: RemoteClient { child.client }
    /// The child's pid.
    var pid: Int32 { child.pid }

    /// Starts `executable` with `arguments` and waits (at most 60 s) until `sys.health` says ready.
    init(executable: String, arguments: [String]) async throws {
        self.arguments = arguments
        directory = try makeTemporaryDirectory(prefix: "authbench")
        let endpoint = "ipc://\(directory)/auth.sock"
        do {
            child = try await ServiceChild(
                name: "auth-service", executable: executable,
                arguments: [
                    "--state-dir", directory, "--endpoint", endpoint, "--curve", "off", "--log-level",
                    "notice",
                ] + arguments,
                endpoint: endpoint, logPath: "\(directory)/service.log", readyWithin: .seconds(60))
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    /// The service's counters.
    func stats() async throws -> [String: [String: Int]] { try await child.stats() }

    /// The child's CPU time so far.
    func cpuTime() throws -> CPUTime { try child.cpuTime() }

    /// Stops the client, then the child by its pid (SIGTERM; SIGKILL after 20 s), and removes the
    /// state directory. Prints the end of the service's log if it did not exit with 0.
    func stop() async {
        await child.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
