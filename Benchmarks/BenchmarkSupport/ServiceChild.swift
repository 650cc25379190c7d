// The services a benchmark starts as real processes: each started with its options, its log in a
// file, a `RemoteClient` connected to it, ready when `sys.health` says so, and stopped by its pid
// (SIGTERM, then SIGKILL after a deadline). SIGINT/SIGTERM to the benchmark stop every running child
// too. Also what a benchmark reads about a process from /proc: CPU time and resident memory.

import Contracts
import Foundation
import Measuring
import Reactive
public import RemoteStreams
import Synchronization
import ZeroMQ

/// A failure of a benchmark's set-up or of a measured run.
public struct BenchmarkError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String

    /// An error saying `description`.
    public init(description: String) { self.description = description }
}

/// One slot of the table of running children the signal handler stops.
private final class PidSlot: Sendable {
    let pid = Atomic<Int32>(0)
}

/// The running children (0: free slot), read by the signal handler: atomics only, no locks.
private let childSlots: [PidSlot] = (0..<32).map { _ in PidSlot() }

/// Stops every running child (SIGTERM) and exits when the benchmark itself is interrupted or
/// terminated. Call it once, before starting children.
public func stopChildrenOnSignals() {
    _ = childSlots.count  // initialise the table before a handler can read it
    for signalNumber in [SIGINT, SIGTERM] {
        signal(signalNumber) { received in
            for slot in childSlots {
                let pid = slot.pid.load(ordering: .relaxed)
                if pid > 0 { kill(pid, SIGTERM) }
            }
            _exit(128 + received)
        }
    }
}

/// Records `pid` in a free slot of the table; returns the slot (nil when all 32 are taken).
private func registerChild(_ pid: Int32) -> PidSlot? {
    for slot in childSlots
    where slot.pid.compareExchange(expected: 0, desired: pid, ordering: .relaxed).exchanged {
        return slot
    }
    return nil
}

/// A service binary running as a child process, with a client connected to it.
public final class ServiceChild {
    /// A short name for messages (`auth-service`, `gateway`, ...).
    public let name: String
    /// Where it listens.
    public let endpoint: String
    /// A client connected to it (with `curve` when the service runs with CURVE), and to every shard
    /// of it (`sys.endpoints`) when it runs several (`--loops`).
    public let client: RemoteClient
    /// The file its stdout and stderr go to.
    public let logPath: String
    private let context: Context
    private let process: Process
    private let slot: PidSlot?
    private var stopped = false

    /// The child's pid.
    public var pid: Int32 { process.processIdentifier }

    /// Starts `executable` with `arguments` (which must include its endpoint, `endpoint`), output
    /// appended to `logPath`, and waits until `sys.health` says `ready` (at most `readyWithin`;
    /// `degraded` is enough when `acceptDegraded`). The client uses `curve`. `environment` adds to
    /// (or replaces in) this process's environment for the child. `executable` may be a launcher
    /// that execs the service (deploy/local/hosts.sh `run`): the pid is then the service's own.
    public init(
        name: String, executable: String, arguments: [String], endpoint: String, logPath: String,
        curve: RemoteClient.Curve? = nil, readyWithin: Duration = .seconds(60), acceptDegraded: Bool = false,
        environment: [String: String] = [:]
    ) async throws {
        self.name = name
        self.endpoint = endpoint
        self.logPath = logPath
        if !FileManager.default.fileExists(atPath: logPath) {
            guard FileManager.default.createFile(atPath: logPath, contents: nil) else {
                throw BenchmarkError(description: "cannot create \(logPath)")
            }
        }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        output.seekToEndOfFile()
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        context = try Context()
        client = try RemoteClient(
            context: context,
            configuration: .init(
                endpoints: [endpoint], deadline: .seconds(30), name: "\(name)-bench", curve: curve,
                discoversShards: true))
        do {
            try process.run()
        } catch {
            slot = nil
            await client.stop()
            context.terminate()
            throw BenchmarkError(description: "cannot start \(executable): \(error)")
        }
        slot = registerChild(process.processIdentifier)
        do {
            try await waitUntilReady(within: readyWithin, acceptDegraded: acceptDegraded)
        } catch {
            await stop()
            throw error
        }
        await waitForShards()
    }

    /// Waits (at most 10 s) until the client is connected to every shard of the service, so that
    /// the load spreads over all of them from its first call. A service without `sys.endpoints`
    /// (an older build) has one.
    private func waitForShards() async {
        guard let shards = try? await client.request(Methods.System.endpoints).value.endpoints.count else {
            return
        }
        let end = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < end, !(0..<shards).allSatisfy({ client.isConnected(replica: $0) }) {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    private func waitUntilReady(within limit: Duration, acceptDegraded: Bool) async throws {
        let end = ContinuousClock.now + limit
        var last = "no answer"
        while ContinuousClock.now < end {
            guard process.isRunning else {
                throw BenchmarkError(
                    description: "\(name) exited at start-up; its log ends with:\n\(logTail())")
            }
            do {
                let health = try await client.request(
                    Methods.System.health, deadline: .milliseconds(500)
                ).value
                if health.status == .ready || (acceptDegraded && health.ready) { return }
                last = "status \(health.status.rawValue) \(health.reasons.joined(separator: "; "))"
            } catch {
                last = "\(error)"
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw BenchmarkError(description: "\(name) was not ready within \(limit) (\(last)):\n\(logTail())")
    }

    /// The service's `sys.stats` counters.
    public func stats() async throws -> [String: [String: Int]] {
        try await client.request(Methods.System.stats).value.counters
    }

    /// The child's CPU time so far.
    public func cpuTime() throws -> CPUTime {
        guard let time = BenchmarkSupport.cpuTime(ofProcess: pid) else {
            throw BenchmarkError(description: "cannot read /proc/\(pid)/stat")
        }
        return time
    }

    /// The child's resident memory now, in KiB (`VmRSS` of /proc/<pid>/status).
    public func residentKiB() throws -> Int {
        guard let value = BenchmarkSupport.residentKiB(ofProcess: pid) else {
            throw BenchmarkError(description: "cannot read VmRSS of /proc/\(pid)/status")
        }
        return value
    }

    /// Whether the process still runs.
    public var isRunning: Bool { process.isRunning }

    /// The last `lines` lines of the log.
    public func logTail(_ lines: Int = 20) -> String {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(lines).joined(separator: "\n")
    }

    /// Stops the client, then the child by its pid (SIGTERM; SIGKILL after `grace`). Prints the end
    /// of the log if it did not exit with status 0. Returns the exit status (nil if killed).
    @discardableResult
    public func stop(grace: Duration = .seconds(20)) async -> Int32? {
        guard !stopped else { return nil }
        stopped = true
        await client.stop()
        context.terminate()
        var killed = false
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            let end = ContinuousClock.now + grace
            while process.isRunning && ContinuousClock.now < end {
                try? await Task.sleep(for: .milliseconds(10))
            }
            if process.isRunning {
                print("\(name) (pid \(pid)) did not stop within \(grace) of SIGTERM: SIGKILL")
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                killed = true
            }
        }
        slot?.pid.store(0, ordering: .relaxed)
        if killed { return nil }
        let status = process.terminationStatus
        if status != 0 {
            print("\(name) exited with status \(status); its log ends with:\n\(logTail())")
        }
        return status
    }
}

/// A tcp port on 127.0.0.1 nobody listens on now (bound to port 0, read back, closed). Another
/// process may take it before the child binds it: callers retry on "in use".
public func freeLoopbackPort() throws -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw BenchmarkError(description: "socket failed: errno \(errno)") }
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
    guard bound else { throw BenchmarkError(description: "bind to 127.0.0.1:0 failed: errno \(errno)") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Creates a fresh directory `/tmp/<prefix>.XXXXXX` (mode 0700) and returns its path.
public func makeTemporaryDirectory(prefix: String) throws -> String {
    var template = Array("/tmp/\(prefix).XXXXXX".utf8CString)
    guard let created = mkdtemp(&template) else {
        throw BenchmarkError(description: "mkdtemp failed: errno \(errno)")
    }
    return String(cString: created)
}

/// CPU time, user and system, in seconds.
public struct CPUTime: Sendable {
    /// User-mode seconds.
    public var user: Double
    /// Kernel-mode seconds.
    public var system: Double

    /// A CPU time.
    public init(user: Double, system: Double) {
        self.user = user
        self.system = system
    }

    /// Both.
    public var total: Double { user + system }

    /// The time spent since `earlier`.
    public func since(_ earlier: CPUTime) -> CPUTime {
        CPUTime(user: user - earlier.user, system: system - earlier.system)
    }

    /// `key=value` extras for `operations` operations in `seconds`: CPU milliseconds per operation,
    /// cores kept busy, and the kernel's share of the time, under `prefix`.
    public func extras(prefix: String, operations: Int, seconds: Double) -> [(key: String, value: String)] {
        [
            ("\(prefix)cpu_ms_per_op", fixed(total * 1e3 / Double(max(operations, 1)), 3)),
            ("\(prefix)cpu_busy", fixed(total / seconds, 2)),
            ("\(prefix)sys_share", fixed(total > 0 ? system / total : 0, 2)),
        ]
    }
}

/// This process's CPU time (every thread).
public func ownCPUTime() -> CPUTime {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return CPUTime(
        user: Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6,
        system: Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6)
}

/// Another process's CPU time (every thread) from `/proc/<pid>/stat`.
public func cpuTime(ofProcess pid: Int32) -> CPUTime? {
    guard let line = firstLine(of: "/proc/\(pid)/stat") else { return nil }
    // The command name (field 2) is in parentheses and may hold spaces: fields 3... follow the last ')'.
    guard let close = line.lastIndex(of: ")") else { return nil }
    let fields = line[line.index(after: close)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else {
        return nil
    }
    let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
    return CPUTime(user: user / ticks, system: system / ticks)
}

/// Another process's minor page faults so far (every thread), from `/proc/<pid>/stat`.
public func minorFaults(ofProcess pid: Int32) -> Int? {
    guard let line = firstLine(of: "/proc/\(pid)/stat") else { return nil }
    guard let close = line.lastIndex(of: ")") else { return nil }
    // Field 10 (minflt) is the eighth after the command name.
    let fields = line[line.index(after: close)...].split(separator: " ")
    return fields.count > 7 ? Int(fields[7]) : nil
}

/// A process's resident memory (`VmRSS`) in KiB, from `/proc/<pid>/status`.
public func residentKiB(ofProcess pid: Int32) -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
    guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
    return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
}

private func firstLine(of path: String) -> String? {
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    var buffer = [CChar](repeating: 0, count: 4_096)
    guard fgets(&buffer, Int32(buffer.count), file) != nil else { return nil }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Context switches of every thread of a process so far (voluntary and not, summed over
/// /proc/<pid>/task/*/status): a thread hand-off costs one or two, so per operation they count the
/// hops a request takes.
public func contextSwitches(ofProcess pid: Int32) -> Int? {
    threadUsage(ofProcess: pid).map { $0.values.reduce(0) { $0 + $1.switches } }
}

/// What one thread of a process has used so far, from `/proc/<pid>/task/<tid>/stat` and `status`.
public struct ThreadUsage: Sendable {
    /// The thread's name (`comm`: its first 15 bytes).
    public var name: String
    /// Minor page faults.
    public var minorFaults: Int
    /// CPU time (clock ticks, so to 10 ms: over a run, the sums are what count).
    public var cpu: CPUTime
    /// Times it gave up the CPU to wait (a sleep in `poll`, a lock, the disk).
    public var voluntarySwitches: Int
    /// Times another thread took its CPU.
    public var involuntarySwitches: Int

    /// Both kinds of context switch.
    public var switches: Int { voluntarySwitches + involuntarySwitches }

    /// The role the name tells, without a trailing index: `auth-hash-1` and `auth-hash-0` are both
    /// `auth-hash`, libzmq's `ZMQbg/IO/0` is `ZMQbg/IO`.
    public var role: String {
        var role = Substring(name)
        while let last = role.last, last.isNumber { role = role.dropLast() }
        if role.count < name.count, let last = role.last, last == "-" || last == "/" {
            role = role.dropLast()
        }
        return role.isEmpty ? name : String(role)
    }

    /// What was used since `earlier` (the same thread).
    public func since(_ earlier: ThreadUsage) -> ThreadUsage {
        ThreadUsage(
            name: name, minorFaults: minorFaults - earlier.minorFaults, cpu: cpu.since(earlier.cpu),
            voluntarySwitches: voluntarySwitches - earlier.voluntarySwitches,
            involuntarySwitches: involuntarySwitches - earlier.involuntarySwitches)
    }

    /// The sum of two threads' use, under this one's name.
    func adding(_ other: ThreadUsage) -> ThreadUsage {
        ThreadUsage(
            name: name, minorFaults: minorFaults + other.minorFaults,
            cpu: CPUTime(user: cpu.user + other.cpu.user, system: cpu.system + other.cpu.system),
            voluntarySwitches: voluntarySwitches + other.voluntarySwitches,
            involuntarySwitches: involuntarySwitches + other.involuntarySwitches)
    }
}

/// Every live thread of a process, by thread id; nil when the process is gone.
public func threadUsage(ofProcess pid: Int32) -> [Int32: ThreadUsage]? {
    guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else {
        return nil
    }
    let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
    var threads: [Int32: ThreadUsage] = [:]
    for task in tasks {
        guard let tid = Int32(task), let line = firstLine(of: "/proc/\(pid)/task/\(task)/stat"),
            let open = line.firstIndex(of: "("), let close = line.lastIndex(of: ")"),
            let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8)
        else { continue }  // the thread ended meanwhile
        let fields = line[line.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let faults = Int(fields[7]), let user = Double(fields[11]),
            let system = Double(fields[12])
        else { continue }
        func count(_ key: String) -> Int {
            status.split(separator: "\n").first { $0.hasPrefix(key) }
                .flatMap { Int($0.dropFirst(key.count).trimmingCharacters(in: .whitespaces)) } ?? 0
        }
        threads[tid] = ThreadUsage(
            name: String(line[line.index(after: open)..<close]), minorFaults: faults,
            cpu: CPUTime(user: user / ticks, system: system / ticks),
            voluntarySwitches: count("voluntary_ctxt_switches:"),
            involuntarySwitches: count("nonvoluntary_ctxt_switches:"))
    }
    return threads
}

/// What each role of a process's threads (``ThreadUsage/role``) used between two readings, most CPU
/// first; a thread that started in between counts from zero, one that ended is left out.
public func usageByRole(from before: [Int32: ThreadUsage], to after: [Int32: ThreadUsage]) -> [ThreadUsage] {
    var roles: [String: ThreadUsage] = [:]
    for (tid, now) in after {
        let zero = ThreadUsage(
            name: now.name, minorFaults: 0, cpu: CPUTime(user: 0, system: 0), voluntarySwitches: 0,
            involuntarySwitches: 0)
        var used = now.since(before[tid] ?? zero)
        used.name = now.role
        roles[used.name] = roles[used.name].map { $0.adding(used) } ?? used
    }
    return roles.values.sorted { ($0.cpu.total, $0.name) > ($1.cpu.total, $1.name) }
}
