// Row (5)'s database: a throwaway PostgreSQL 15 cluster started by deploy/local/pg-cluster.sh in a
// temp directory (as the `postgres` user when run by root), reached on its unix socket, stopped and
// deleted at the end of the row.

import BenchmarkSupport
import Foundation

/// A running throwaway cluster.
struct BenchCluster {
    let directory: String
    let script: String

    /// Its connection URL.
    var url: String { "postgresql:///postgres?host=\(directory)/socket&user=postgres" }

    /// Creates and starts a cluster with `script`.
    static func start(script: String) async throws -> BenchCluster {
        let directory = try makeTemporaryDirectory(prefix: "authbench-pg")
        let cluster = BenchCluster(directory: directory, script: script)
        let status = await cluster.run("start")
        guard status == 0 else {
            _ = await cluster.run("remove")
            throw BenchmarkError(
                description: "\(script) start \(directory) failed (status \(status)); see \(directory).log")
        }
        return cluster
    }

    /// Stops the server and deletes the directory.
    func remove() async {
        _ = await run("remove")
        try? FileManager.default.removeItem(atPath: directory)
        try? FileManager.default.removeItem(atPath: directory + ".log")
    }

    /// Runs the script on a thread of its own (it blocks for about a second); its output goes to
    /// `<directory>.log`, kept if the start fails.
    private func run(_ command: String) async -> Int32 {
        let line = "'\(script)' \(command) '\(directory)' >>'\(directory).log' 2>&1"
        return await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: system(line)) }.start()
        }
    }
}
