import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where things are: the repository (from this file's path) and the build directory (that of the
/// test runner, `/proc/self/exe`), whose executables the stack test runs.
enum Paths {
    /// The repository's root.
    static let repository: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// `deploy/` in the repository.
    static let deploy = repository + "/deploy"

    /// The directory of the running test binary (`.build/debug` in `swift test`).
    static let binaries: String = {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        return URL(fileURLWithPath: executable).deletingLastPathComponent().path
    }()

    /// The absolute path of `relative` in the repository.
    static func inRepository(_ relative: String) -> String { repository + "/" + relative }
}

/// A failure of the test support itself.
struct SupportError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// How a finished command ended, with what it wrote.
struct CommandResult: Sendable {
    /// The exit status (128 + n when killed by signal n).
    let status: Int32
    /// Its standard output.
    let output: String
    /// Its standard error.
    let error: String
    /// True when it was stopped for running past its time limit.
    let timedOut: Bool
}

/// Runs `executable` with `arguments` and `environment` added to this process's, on a thread of
/// its own (the wait blocks, so never on the cooperative pool), with stdout and stderr in files
/// (no pipe to fill up, and background children of a script may keep them open without blocking
/// the wait). Past `timeLimit` the child alone gets SIGKILL, by its pid.
func runCommand(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:],
    timeLimit: Duration = .seconds(50)
) async throws -> CommandResult {
    let directory = try TemporaryDirectory(prefix: "deploycmd")
    defer { directory.remove() }
    let outputPath = directory.file("stdout")
    let errorPath = directory.file("stderr")
    guard FileManager.default.createFile(atPath: outputPath, contents: nil),
        FileManager.default.createFile(atPath: errorPath, contents: nil)
    else { throw SupportError("cannot create the output files in \(directory.path)") }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    process.standardInput = FileHandle.nullDevice
    guard let outputHandle = FileHandle(forWritingAtPath: outputPath),
        let errorHandle = FileHandle(forWritingAtPath: errorPath)
    else { throw SupportError("cannot open the output files in \(directory.path)") }
    process.standardOutput = outputHandle
    process.standardError = errorHandle
    let finished = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in finished.signal() }
    try process.run()
    let milliseconds = Int(timeLimit.components.seconds * 1_000)
    let timedOut: Bool = await withCheckedContinuation { continuation in
        let waiter = Thread {
            if finished.wait(timeout: .now() + .milliseconds(milliseconds)) == .timedOut {
                kill(process.processIdentifier, SIGKILL)
                finished.wait()
                continuation.resume(returning: true)
            } else {
                continuation.resume(returning: false)
            }
        }
        waiter.start()
    }
    try? outputHandle.close()
    try? errorHandle.close()
    let status =
        process.terminationReason == .uncaughtSignal
        ? 128 + process.terminationStatus : process.terminationStatus
    return CommandResult(
        status: status, output: (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "",
        error: (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "", timedOut: timedOut)
}

/// The first executable named `name` on PATH, if any.
func commandOnPath(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for directory in path.split(separator: ":") {
        let candidate = "\(directory)/\(name)"
        if access(candidate, X_OK) == 0 { return candidate }
    }
    return nil
}

/// A fresh directory in /tmp (short, so `ipc://` paths inside fit the socket path limit), removed by
/// ``remove()``.
struct TemporaryDirectory: Sendable {
    /// Its absolute path.
    let path: String

    init(prefix: String) throws {
        var template = Array("/tmp/\(prefix).XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw SupportError("mkdtemp failed: errno \(errno)") }
        path = String(cString: created)
    }

    /// `name` inside the directory.
    func file(_ name: String) -> String { path + "/" + name }

    /// Deletes the directory and everything in it.
    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// True when `pid` is a live process: it exists and is not a zombie waiting to be reaped.
func isAlive(_ pid: Int32) -> Bool {
    guard kill(pid, 0) == 0 || errno == EPERM else { return false }
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
    else { return true }
    let state = stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first
    return state != "Z" && state != "X"
}

/// The contents of `path`, or "" when it cannot be read.
func contents(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

/// Parses YAML and JSON with python3 (PyYAML): every document of each file, as JSON, by file.
/// Returns nil (with the reason) when python3 or PyYAML is missing.
func parseYAML(_ paths: [String]) async throws -> [String: [Any]] {
    let script = """
        import json, sys, yaml
        out = {}
        for path in sys.argv[1:]:
            with open(path) as f:
                out[path] = [d for d in yaml.safe_load_all(f) if d is not None]
        json.dump(out, sys.stdout)
        """
    guard let python = commandOnPath("python3") else { throw SupportError("python3 is not on PATH") }
    let result = try await runCommand(python, ["-c", script] + paths)
    guard result.status == 0 else { throw SupportError("YAML did not parse: \(result.error)") }
    guard let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: [Any]]
    else { throw SupportError("unexpected parser output") }
    return object
}
