import TestSupport
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
        // Nothing of the caller's settings reaches it: its options, locale, or another stack's place.
        let inherited = ["LANG", "LC_ALL", "LC_MESSAGES", "STACK_DIR"]
        var variables = ProcessInfo.processInfo.environment.filter {
            !$0.key.hasPrefix("GATEWAY_CLI_") && !inherited.contains($0.key)
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
        let spawned = spawnWithCleanSignals(&pid, path, &actions, argv, envp)
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

/// `gateway-cli` in a pseudo-terminal: standard input, output and error are the terminal, so
/// it prompts for the password. The test reads the screen (what the terminal shows) as it comes.
final class TerminalRun: Sendable {
    let pid: pid_t
    private let master: Int32
    private let screen = Mutex<[UInt8]>([])
    private let changed = DispatchSemaphore(value: 0)
    private let status = Mutex<Int32?>(nil)
    private let ended = DispatchSemaphore(value: 0)

    /// Starts `gateway-cli arguments` on a new pseudo-terminal, HOME and state in `directory`.
    init(_ arguments: [String], in directory: TemporaryDirectory) throws {
        // /dev/ptmx directly: Glibc's module does not export posix_openpt and friends. Linux's
        // ioctls (the same numbers on x86_64 and arm64): TIOCSPTLCK unlocks, TIOCGPTN names.
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard master >= 0, ioctl(master, 0x4004_5431, &unlock) == 0, ioctl(master, 0x8004_5430, &number) == 0
        else {
            throw SupportError("no pseudo-terminal: errno \(errno)")
        }
        let slave = "/dev/pts/\(number)"
        self.master = master
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor in Int32(0)...2 {
            posix_spawn_file_actions_addopen(&actions, descriptor, slave, O_RDWR | O_NOCTTY, 0)
        }
        // Nothing of the caller's settings reaches it: its options, locale, or another stack's place.
        let inherited = ["LANG", "LC_ALL", "LC_MESSAGES", "STACK_DIR"]
        var variables = ProcessInfo.processInfo.environment.filter {
            !$0.key.hasPrefix("GATEWAY_CLI_") && !inherited.contains($0.key)
        }
        variables["HOME"] = directory.path
        variables["XDG_STATE_HOME"] = directory.file("state")
        let argv = ([CLIBinary.path] + arguments).map { strdup($0) } + [nil]
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid: pid_t = 0
        let spawned = spawnWithCleanSignals(&pid, CLIBinary.path, &actions, argv, envp)
        guard spawned == 0 else {
            close(master)
            throw SupportError("cannot start gateway-cli: errno \(spawned)")
        }
        self.pid = pid
        let reader = Thread { [self] in
            var chunk = [UInt8](repeating: 0, count: 1024)
            while true {
                let count = read(master, &chunk, chunk.count)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }  // EIO once the terminal's last user is gone
                screen.withLock { $0 += chunk[..<count] }
                changed.signal()
            }
            changed.signal()
        }
        reader.start()
        let child = pid
        let reaper = Thread { [self] in
            var raw: Int32 = 0
            while waitpid(child, &raw, 0) == -1 && errno == EINTR {}
            status.withLock { $0 = raw }
            ended.signal()
        }
        reaper.start()
    }

    /// What the terminal showed so far.
    var text: String { screen.withLock { String(decoding: $0, as: UTF8.self) } }

    /// Waits until the screen contains `expected`, for at most `seconds`.
    func waitFor(_ expected: String, seconds: Double = 10) async -> Bool {
        let deadline = DispatchTime.now() + seconds
        while !text.contains(expected) {
            let changed = self.changed
            let arrived = await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    continuation.resume(returning: changed.wait(timeout: deadline) == .success)
                }
            }
            if !arrived { return text.contains(expected) }
        }
        return true
    }

    /// Types `text` on the terminal's keyboard.
    func type(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// The exit status once it exits (killed by pid after `seconds`: nil).
    func exitStatus(seconds: Double = 10) async -> Int32? {
        let ended = self.ended
        let arrived = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: ended.wait(timeout: .now() + seconds) == .success)
            }
        }
        if !arrived {
            kill(pid, SIGKILL)
            return nil
        }
        let raw = status.withLock { $0 } ?? 0
        return raw & 0x7f == 0 ? (raw >> 8) & 0xff : nil
    }

    deinit { close(master) }
}
