import Contracts
import Dispatch
import Foundation
import Reactive
import RemoteProtocol
import RemoteStreams
import Synchronization
import TestSupport
import Testing
import ZeroMQ

#if canImport(Glibc)
    import Glibc
#endif

/// A fresh directory under the system's temp directory, removed by ``remove()``.
struct TemporaryDirectory: Sendable {
    /// Its absolute path.
    let path: String

    /// Creates `/tmp/authit.XXXXXX` (short, so that `ipc://` paths in it fit the socket path limit).
    init() throws {
        var template = Array("/tmp/authit.XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw SupportError("mkdtemp failed: errno \(errno)") }
        path = String(cString: created)
    }

    /// `name` inside the directory.
    func file(_ name: String) -> String { path + "/" + name }

    /// Deletes the directory and everything in it.
    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// A value shared between tasks and threads, behind a lock.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    /// Runs `body` with the value, under the lock.
    func withLock<Result: Sendable>(_ body: (inout sending Value) -> sending Result) -> Result {
        mutex.withLock(body)
    }

    /// The value now.
    var value: Value { mutex.withLock { $0 } }
}

/// A failure of the test support itself (a binary missing, a process that would not start).
struct SupportError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// How a child process ended.
enum Termination: Sendable, Equatable {
    /// `exit(code)`.
    case exited(Int32)
    /// Killed by a signal.
    case signaled(Int32)

    init(waitStatus status: Int32) {
        let signal = status & 0x7f
        self = signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
    }
}

/// A child process started with `posix_spawn`, reaped by a thread of its own (blocked in `waitpid`),
/// so its end can be awaited with a deadline without polling.
final class ChildProcess: Sendable {
    /// The child's process id: every signal is sent to it alone.
    let pid: pid_t
    private let outcome = Mutex<Termination?>(nil)
    private let exited = DispatchSemaphore(value: 0)

    /// Starts `executable` with `arguments`, stdin from /dev/null and stdout/stderr into the given
    /// files, in an environment without the services' own `AUTH_*` and `VALIDATION_*` variables.
    init(executable: String, arguments: [String], standardOutput: String, standardError: String) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, standardOutput, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, standardError, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let environment = ProcessInfo.processInfo.environment
            .filter { !$0.key.hasPrefix("AUTH_") && !$0.key.hasPrefix("VALIDATION_") }
            .map { "\($0.key)=\($0.value)" }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = spawnWithCleanSignals(&pid, executable, &actions, argv, envp)
        guard result == 0 else { throw SupportError("cannot start \(executable): errno \(result)") }
        self.pid = pid
        let spawned = pid
        let thread = Thread { [self] in
            var status: Int32 = 0
            while waitpid(spawned, &status, 0) == -1 && errno == EINTR {}
            outcome.withLock { $0 = Termination(waitStatus: status) }
            exited.signal()
        }
        thread.name = "reaper-\(pid)"
        thread.start()
    }

    /// How the process ended, or nil while it runs.
    var ended: Termination? { outcome.withLock { $0 } }

    /// Sends `signal` to the process (nothing once it has been reaped: its id may be reused).
    func send(_ signal: Int32) {
        outcome.withLock { ended in
            if ended == nil { _ = kill(pid, signal) }
        }
    }

    /// Waits up to `timeout` for the process to end (off the cooperative pool).
    func waitForExit(timeout: Duration) async -> Termination? {
        let semaphore = exited
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let arrived = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let arrived = semaphore.wait(timeout: .now() + seconds) == .success
                if arrived { semaphore.signal() }  // for the next waiter
                continuation.resume(returning: arrived)
            }
        }
        return arrived ? outcome.withLock { $0 } : nil
    }

    /// SIGTERM, up to `grace` to exit, then SIGKILL: returns how the process ended.
    @discardableResult
    func stop(grace: Duration = .seconds(10)) async -> Termination? {
        send(SIGTERM)
        if let ended = await waitForExit(timeout: grace) { return ended }
        send(SIGKILL)
        return await waitForExit(timeout: .seconds(10))
    }
}

/// Where the service binaries are: next to the test bundle (`swift build --build-tests` builds every
/// product into the same directory), or in `INTEGRATION_BIN_DIR` when it is set (e.g. the release
/// build's, `$(swift build -c release --show-bin-path)`, to time the release binaries).
enum Binaries {
    /// The build directory (that of `/proc/self/exe`), or `INTEGRATION_BIN_DIR`.
    static let directory: String = {
        if let directory = ProcessInfo.processInfo.environment["INTEGRATION_BIN_DIR"], !directory.isEmpty {
            return directory
        }
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        return (executable as NSString).deletingLastPathComponent
    }()

    /// The path of `name`, or a thrown error naming where it was looked for.
    static func path(_ name: String) throws -> String {
        let path = directory + "/" + name
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw SupportError("\(name) is not in \(directory): run `swift build --build-tests` first")
        }
        return path
    }
}

/// Runs `auth-service` with `arguments` to its end (e.g. `--help`, `--check`) and returns its exit
/// status and standard output; fails after `timeout`.
func runAuthService(_ arguments: [String], in directory: TemporaryDirectory, timeout: Duration = .seconds(15))
    async throws -> (Termination, String)
{
    let output = directory.file("run-\(UUID().uuidString).out")
    let child = try ChildProcess(
        executable: try Binaries.path("auth-service"), arguments: arguments, standardOutput: output,
        standardError: output + ".err")
    guard let ended = await child.waitForExit(timeout: timeout) else {
        await child.stop(grace: .zero)
        throw SupportError("auth-service \(arguments) did not exit within \(timeout)")
    }
    return (ended, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
}

/// A running service binary (`auth-service` unless told otherwise) in a temp state directory, with a
/// client connected to it.
final class ServiceProcess: Sendable {
    /// The binary's name.
    let executable: String
    /// Where it listens.
    let endpoint: String
    /// Its `--state-dir`.
    let stateDirectory: String
    /// The file its stderr (the log) goes to.
    let logPath: String
    /// The process.
    let child: ChildProcess
    /// The ZeroMQ context of the test's clients.
    let context: Context
    /// A client connected to it (plain, or with the service's own CURVE client key).
    let client: RemoteClient
    /// The CURVE settings of ``client`` (nil with `--curve off`).
    let curve: RemoteClient.Curve?

    /// The two ways a test reaches the service.
    enum Transport {
        /// `ipc://` in the temp directory.
        case ipc
        /// `tcp://127.0.0.1:<free port>`.
        case tcp
    }

    private init(
        executable: String, endpoint: String, stateDirectory: String, logPath: String, child: ChildProcess,
        context: Context, client: RemoteClient, curve: RemoteClient.Curve?
    ) {
        self.executable = executable
        self.endpoint = endpoint
        self.stateDirectory = stateDirectory
        self.logPath = logPath
        self.child = child
        self.context = context
        self.client = client
        self.curve = curve
    }

    /// The state directory inside `directory` every test uses.
    static func stateDirectory(in directory: TemporaryDirectory) -> String { directory.file("state") }

    /// Starts `executable` with `arguments` (plus `--state-dir`, `--endpoint`, `--curve off` unless
    /// given, and for auth-service `--hash-cost test` unless given) and waits until it answers
    /// `sys.health` ready. Each service of a test needs its own `name` (it names the socket and log).
    ///
    /// `curve` is used for the test's client and the readiness polls when the service runs with
    /// `--curve on`. A tcp port taken between choosing it and binding it is retried with another.
    static func start(
        _ arguments: [String] = [], in directory: TemporaryDirectory, transport: Transport = .ipc,
        endpoint fixedEndpoint: String? = nil, curve: RemoteClient.Curve? = nil, name: String = "auth",
        executable: String = "auth-service"
    ) async throws -> ServiceProcess {
        var attempt = 0
        while true {
            attempt += 1
            let endpoint: String
            if let fixedEndpoint {
                endpoint = fixedEndpoint
            } else {
                switch transport {
                case .ipc: endpoint = "ipc://" + directory.file("\(name).sock")
                case .tcp: endpoint = "tcp://127.0.0.1:\(try freePort())"
                }
            }
            // auth-service keeps its state across restarts in one test; other services get their own.
            let state =
                executable == "auth-service" ? stateDirectory(in: directory) : directory.file("state-\(name)")
            var all = ["--state-dir", state, "--endpoint", endpoint] + arguments
            if executable == "auth-service", !arguments.contains("--hash-cost") {
                all += ["--hash-cost", "test"]
            }
            if !arguments.contains("--curve") { all += ["--curve", "off"] }
            let logPath = directory.file("\(name)-\(attempt).log")
            let child = try ChildProcess(
                executable: try Binaries.path(executable), arguments: all, standardOutput: logPath,
                standardError: logPath)
            let context = try Context()
            let client = try RemoteClient(
                context: context,
                configuration: .init(
                    endpoints: [endpoint], deadline: .seconds(5), name: "test-client", curve: curve))
            let service = ServiceProcess(
                executable: executable, endpoint: endpoint, stateDirectory: state, logPath: logPath,
                child: child,
                context: context, client: client, curve: curve)
            do {
                try await service.waitUntilReady(deadline: .seconds(20))
                return service
            } catch {
                let log = service.log
                await service.stop()
                if transport == .tcp, fixedEndpoint == nil, attempt < 5, log.contains("in use") { continue }
                throw SupportError("\(error); log:\n\(log)")
            }
        }
    }

    /// A tcp port nobody listens on now: bound on 127.0.0.1:0, then closed.
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw SupportError("socket failed: errno \(errno)") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(descriptor, address, length) == 0 && getsockname(descriptor, address, &length) == 0
            }
        }
        guard bound else { throw SupportError("bind failed: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Polls `sys.health` (each poll a real request with a short deadline) until the service is
    /// ready; fails at once if the process exits, or when `deadline` passes.
    func waitUntilReady(deadline: Duration) async throws {
        let end = ContinuousClock.now + deadline
        var last = "no answer"
        while ContinuousClock.now < end {
            if let ended = child.ended {
                throw SupportError("\(executable) ended (\(ended)) before it was ready")
            }
            do {
                let report = try await client.request(
                    Methods.System.health, deadline: .milliseconds(300)
                ).value
                if report.ready { return }
                last = "status \(report.status.rawValue)"
            } catch {
                last = "\(error)"
            }
        }
        throw SupportError("\(executable) was not ready within \(deadline): \(last)")
    }

    /// What the service logged so far.
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// The port of the service's metrics listener (`--metrics-listen`), from its `listening` line.
    func metricsPort() throws -> Int {
        guard let line = log.split(separator: "\n").last(where: { $0.contains(" msg=listening ") }),
            let field = line.split(separator: " ").first(where: { $0.hasPrefix("metrics=") }),
            let port = Int(field.split(separator: ":").last ?? "")
        else { throw SupportError("\(executable) logged no metrics address:\n\(log)") }
        return port
    }

    /// Stops the client, then the process (SIGTERM, then SIGKILL after a deadline): returns how
    /// the process ended.
    @discardableResult
    func stop() async -> Termination? {
        await client.stop()
        context.terminate()
        return await child.stop()
    }
}

/// Starts a service, runs `body` with it, and stops it whatever happens; the temp directory is
/// removed afterwards.
func withService<T>(
    _ arguments: [String] = [], transport: ServiceProcess.Transport = .ipc,
    _ body: (ServiceProcess, TemporaryDirectory) async throws -> T
) async throws -> T {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let service = try await ServiceProcess.start(arguments, in: directory, transport: transport)
    do {
        let result = try await body(service, directory)
        await service.stop()
        return result
    } catch {
        Issue.record("service log:\n\(service.log)")
        await service.stop()
        throw error
    }
}

/// Runs `operation`, failing with `SupportError` if it takes longer than `limit`.
func within<T: Sendable>(_ limit: Duration, _ operation: @escaping @Sendable () async throws -> T)
    async throws
    -> T
{
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: limit)
            throw SupportError("not done within \(limit)")
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw SupportError("no result") }
        return first
    }
}

/// Any JSON value, to look at a body exactly as it was sent.
indirect enum JSONValue: Decodable, Sendable, Equatable {
    case null, bool(Bool), number(Double), string(String), array([JSONValue]), object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Every key and string in the value, recursively.
    var texts: [String] {
        switch self {
        case .null, .bool, .number: []
        case .string(let text): [text]
        case .array(let values): values.flatMap(\.texts)
        case .object(let members): members.flatMap { [$0.key] + $0.value.texts }
        }
    }

    /// The member `key` of an object.
    subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { members[key] } else { nil }
    }

    /// The string, if this is one.
    var string: String? { if case .string(let text) = self { text } else { nil } }
}
