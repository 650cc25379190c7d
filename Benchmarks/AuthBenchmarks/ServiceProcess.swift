// The auth-service child process: started on a fresh temp state directory with `--curve off` on an
// `ipc://` endpoint inside it, stopped by its pid (SIGTERM, then SIGKILL after a deadline), the
// directory removed. SIGINT/SIGTERM to the benchmark stop the running child too.

import BenchmarkSupport
import Contracts
import Foundation
import Reactive
import RemoteStreams
import Synchronization
import ZeroMQ

/// The pid of the running child (0: none), for the signal handler.
let runningChild = Atomic<Int32>(0)

/// Stops the child and exits when the benchmark itself is interrupted or terminated.
func stopChildOnSignals() {
    _ = runningChild.load(ordering: .relaxed)
    for signalNumber in [SIGINT, SIGTERM] {
        signal(signalNumber) { received in
            let pid = runningChild.load(ordering: .relaxed)
            if pid > 0 { kill(pid, SIGTERM) }
            _exit(128 + received)
        }
    }
}

/// Parameters of `sys.*` calls.
struct NoParameters: Codable, Sendable {}

/// A failure of the benchmark's set-up or of a measured run.
struct BenchmarkError: Error, CustomStringConvertible {
    /// What went wrong.
    let description: String
}

/// A running `auth-service` and a client connected to it.
final class ServiceUnderTest {
    /// The arguments it was started with (after the state directory and endpoint).
    let arguments: [String]
    /// Its endpoint.
    let endpoint: String
    /// A client for the load.
    let client: RemoteClient
    private let context: Context
    private let process: Process
    private let directory: URL
    private var stopped = false

    /// The child's pid.
    var pid: Int32 { process.processIdentifier }

    /// Starts `executable` with `arguments` and waits (at most 60 s) until `sys.health` says ready.
    init(executable: String, arguments: [String]) async throws {
        self.arguments = arguments
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "authbench-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        endpoint = "ipc://\(directory.path)/auth.sock"
        let log = directory.appendingPathComponent("service.log")
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
            try? FileManager.default.removeItem(at: directory)
            throw BenchmarkError(description: "cannot create \(log.path)")
        }
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments =
            [
                "--state-dir", directory.path, "--endpoint", endpoint, "--curve", "off", "--log-level",
                "notice",
            ]
            + arguments
        let output = try FileHandle(forWritingTo: log)
        process.standardOutput = output
        process.standardError = output
        context = try Context()
        client = try RemoteClient(
            context: context,
            configuration: .init(endpoints: [endpoint], deadline: .seconds(60), name: "authbench-client"))
        do {
            try process.run()
            runningChild.store(process.processIdentifier, ordering: .relaxed)
            try await waitUntilReady()
        } catch {
            await stop()
            throw error
        }
    }

    /// The service's counters.
    func stats() async throws -> [String: [String: Int]] {
        try await client.request(SystemMethod.stats, NoParameters(), as: StatsReport.self).value.counters
    }

    /// The child's CPU time so far.
    func cpuTime() throws -> CPUTime {
        guard let time = cpuTimeOfProcess(pid) else {
            throw BenchmarkError(description: "cannot read /proc/\(pid)/stat")
        }
        return time
    }

    /// Stops the client, then the child by its pid (SIGTERM; SIGKILL after 20 s), and removes the
    /// state directory. Prints the end of the service's log if it did not exit with 0.
    func stop() async {
        guard !stopped else { return }
        stopped = true
        await client.stop()
        context.terminate()
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            let deadline = monotonicNanoseconds() + 20_000_000_000
            while process.isRunning && monotonicNanoseconds() < deadline {
                try? await Task.sleep(for: .milliseconds(10))
            }
            if process.isRunning {
                print("auth-service (pid \(pid)) did not stop within 20 s of SIGTERM: SIGKILL")
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }
        runningChild.store(0, ordering: .relaxed)
        if process.processIdentifier > 0, process.terminationStatus != 0 {
            print("auth-service exited with status \(process.terminationStatus); its log ends with:")
            print(logTail())
        }
        try? FileManager.default.removeItem(at: directory)
    }

    private func waitUntilReady() async throws {
        let deadline = monotonicNanoseconds() + 60_000_000_000
        while monotonicNanoseconds() < deadline {
            guard process.isRunning else {
                throw BenchmarkError(description: "auth-service exited at start-up:\n\(logTail())")
            }
            let health = try? await client.request(
                SystemMethod.health, NoParameters(), as: HealthReport.self, deadline: .milliseconds(500)
            ).value
            if health?.ready == true { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw BenchmarkError(description: "auth-service was not ready within 60 s:\n\(logTail())")
    }

    private func logTail() -> String {
        let path = directory.appendingPathComponent("service.log").path
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(20).joined(separator: "\n")
    }
}

/// `cpuTime(ofProcess:)` under a name the class's method does not shadow.
private func cpuTimeOfProcess(_ pid: Int32) -> CPUTime? { cpuTime(ofProcess: pid) }
