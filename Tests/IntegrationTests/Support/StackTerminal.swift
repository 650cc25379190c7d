import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A tmux server of its own (`tmux -S <socket in the test's temp dir> -f /dev/null`; like `-L` with a
/// unique name, but the socket goes away with the directory instead of staying in
/// `/tmp/tmux-<uid>`, where tmux leaves it after `kill-server`) running one command in an
/// 80x24 pane: keys go in with `send-keys`, the screen comes out with `capture-pane -p`. The pane
/// stays after the command exits (`remain-on-exit`), so its last screen can still be read. Every
/// tmux call is a child process waited for with a deadline; ``kill()`` ends the server.
struct TmuxSession: Sendable {
    /// The `-S` socket path, unique per session.
    let socket: String
    /// Where each tmux call's output goes (a temp directory of the test).
    let directory: TemporaryDirectory

    /// The tmux binary, or nil when it is not installed.
    static let executable: String? = ["/usr/bin/tmux", "/usr/local/bin/tmux", "/bin/tmux"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Starts `command` (run by tmux's shell) in a detached 80x24 session named `main`.
    static func start(_ command: String, in directory: TemporaryDirectory) async throws -> TmuxSession {
        let session = TmuxSession(
            socket: directory.file("tmux-\(UUID().uuidString.prefix(8)).sock"), directory: directory)
        _ = try await session.run([
            "new-session", "-d", "-s", "main", "-x", "80", "-y", "24", command, ";",
            "set-option", "-w", "-t", "main", "remain-on-exit", "on",
        ])
        return session
    }

    /// Runs one tmux command on this server and returns its standard output; throws when it fails.
    @discardableResult
    func run(_ arguments: [String]) async throws -> String {
        guard let executable = Self.executable else { throw SupportError("tmux is not installed") }
        let output = directory.file("tmux-\(UUID().uuidString).out")
        defer {
            try? FileManager.default.removeItem(atPath: output)
            try? FileManager.default.removeItem(atPath: output + ".err")
        }
        // ChildProcess starts it with no signal blocked: a tmux server that inherited the test
        // threads' blocked SIGCHLD would never notice its pane's command ending.
        let child = try ChildProcess(
            executable: executable, arguments: ["-S", socket, "-f", "/dev/null"] + arguments,
            standardOutput: output, standardError: output + ".err")
        guard let ended = await child.waitForExit(timeout: .seconds(10)) else {
            await child.stop(grace: .zero)
            throw SupportError("tmux \(arguments) did not exit")
        }
        guard ended == .exited(0) else {
            let error = (try? String(contentsOfFile: output + ".err", encoding: .utf8)) ?? ""
            throw SupportError("tmux \(arguments): \(ended) \(error)")
        }
        return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    }

    /// Types `text` literally.
    func type(_ text: String) async throws { try await run(["send-keys", "-t", "main", "-l", text]) }

    /// Presses keys by tmux name (`Enter`, `Escape`, `BSpace`, `C-c`, …).
    func press(_ keys: String...) async throws { try await run(["send-keys", "-t", "main"] + keys) }

    /// The pane's text now.
    func screen() async throws -> String { try await run(["capture-pane", "-p", "-t", "main"]) }

    /// Captures the pane until `condition` holds (returning that screen) or `deadline` passes
    /// (throwing, with the last screen).
    @discardableResult
    func waitForScreen(
        _ what: String, deadline: Duration = .seconds(15), _ condition: (String) -> Bool
    ) async throws -> String {
        let end = ContinuousClock.now + deadline
        var last = ""
        while ContinuousClock.now < end {
            last = try await screen()
            if condition(last) { return last }
        }
        throw SupportError("the screen did not show \(what) within \(deadline); it shows:\n\(last)")
    }

    /// Waits until the screen contains `text`.
    @discardableResult
    func waitFor(_ text: String, deadline: Duration = .seconds(15)) async throws -> String {
        try await waitForScreen("\"\(text)\"", deadline: deadline) { $0.contains(text) }
    }

    /// Ends the tmux server and whatever runs in it.
    func kill() async { _ = try? await run(["kill-server"]) }
}

/// Quotes `text` for a POSIX shell command line.
func shellQuoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
}
