// The two child processes of the wire measurement: auth-service (to log in once) and
// hero-catalog-service on the generated catalog, both `--curve off` on `ipc://` endpoints in a temp
// directory, started and stopped by pid with BenchmarkSupport's ServiceChild.

import BenchmarkSupport

extension ServiceChild {
    /// Starts `executable` with `arguments` plus `--endpoint` and `--state-dir` in `directory` (the
    /// socket, the state directory and the log named after `name`), and waits until `sys.health`
    /// says ready (at most `timeout`).
    convenience init(
        name: String, executable: String, arguments: [String], directory: String, timeout: Duration
    ) async throws {
        let endpoint = "ipc://\(directory)/\(name).sock"
        try await self.init(
            name: name, executable: executable,
            arguments: [
                "--endpoint", endpoint, "--state-dir", "\(directory)/\(name)-state", "--log-level", "notice",
            ]
                + arguments,
            endpoint: endpoint, logPath: "\(directory)/\(name).log", readyWithin: timeout)
    }
}
