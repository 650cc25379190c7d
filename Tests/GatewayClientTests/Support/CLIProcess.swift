import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A failure of the test support itself.
struct SupportError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A fresh directory under /tmp, removed by ``remove()``.
struct TemporaryDirectory: Sendable {
    let path: String

    init() throws {
        var template = Array("/tmp/gwcli.XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw SupportError("mkdtemp failed: errno \(errno)") }
        path = String(cString: created)
    }

    func file(_ name: String) -> String { path + "/" + name }

    func write(_ name: String, _ text: String) throws {
        try text.write(toFile: file(name), atomically: true, encoding: .utf8)
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// How a `gateway-cli` run ended.
struct CLIRun: Sendable {
    /// The exit status, or nil when killed by a signal.
    let status: Int32?
    let standardOutput: String
    let standardError: String

    var outputLines: [String] { standardOutput.split(separator: "\n").map(String.init) }
}

/// Runs the built `gateway-cli` binary (next to the test bundle: `swift build --build-tests`
/// builds every product into one directory) and waits for it off the cooperative pool.
enum CLIBinary {
    static let path: String = {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        return (executable as NSString).deletingLastPathComponent + "/gateway-cli"
    }()

    /// Runs it with `arguments`, `input` on standard input, in `directory` (its HOME and
    /// XDG_STATE_HOME, so its client keys go there) with `environment` added. Killed by pid,
    /// and the test fails, when it is still running after `timeout`.
    static func run(
        _ arguments: [String], input: String = "", in directory: TemporaryDirectory,
        environment: [String: String] = [:], timeout: Duration = .seconds(20)
    ) async throws -> CLIRun {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw SupportError("\(path) is missing: run `swift build --build-tests` first")
        }
        let name = UUID().uuidString
        try directory.write(name + ".in", input)
        let (stdoutPath, stderrPath) = (directory.file(name + ".out"), directory.file(name + ".err"))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, directory.file(name + ".in"), O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var variables = ProcessInfo.processInfo.environment.filter {
            !$0.key.hasPrefix("GATEWAY_CLI_") && !["LANG", "LC_ALL", "LC_MESSAGES"].contains($0.key)
        }
        variables["HOME"] = directory.path
        variables["XDG_STATE_HOME"] = directory.file("state")
        variables.merge(environment) { $1 }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, envp)
        guard spawned == 0 else { throw SupportError("cannot start gateway-cli: errno \(spawned)") }
        let child = pid
        let status = Mutex<Int32?>(nil)
        let ended = DispatchSemaphore(value: 0)
        let reaper = Thread {
            var raw: Int32 = 0
            while waitpid(child, &raw, 0) == -1 && errno == EINTR {}
            status.withLock { $0 = raw }
            ended.signal()
        }
        reaper.start()
        if await !wait(for: ended, seconds: Double(timeout.components.seconds)) {
            kill(child, SIGKILL)
            _ = await wait(for: ended, seconds: 10)
            throw SupportError("gateway-cli \(arguments) did not exit within \(timeout)")
        }
        let raw = status.withLock { $0 } ?? 0
        return CLIRun(
            status: raw & 0x7f == 0 ? (raw >> 8) & 0xff : nil,
            standardOutput: (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "",
            standardError: (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "")
    }

    /// Waits up to `seconds` for `semaphore` on a dispatch thread, not on the cooperative pool.
    private static func wait(for semaphore: DispatchSemaphore, seconds: Double) async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: semaphore.wait(timeout: .now() + seconds) == .success)
            }
        }
    }
}
