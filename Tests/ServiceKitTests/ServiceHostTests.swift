import Contracts
import Foundation
import ProcessSupport
import Reactive
@testable import RemoteStreams
import ServiceKit
import Synchronization
import Testing
import ZeroMQ

#if canImport(Glibc)
    import Glibc
#endif

@Suite("ServiceHost: start, serve, drain, cancel", .timeLimit(.minutes(1)))
struct ServiceHostTests {
    @Test("nothing starts before run(); a signal drains it, run() returns and everything is closed")
    func runsAndDrains() async throws {
        try await withTemporaryDirectory { root in
            let rig = try HostRig(root: root)
            #expect(rig.events.all.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: rig.pidFile))
            #expect((try? FileManager.default.contentsOfDirectory(atPath: rig.state.path))?.isEmpty == true)

            let run = rig.start()
            try await rig.events.wait(for: "serving")
            #expect(FileManager.default.fileExists(atPath: rig.pidFile))
            let client = try rig.client()
            #expect(try await client.request(Methods.System.health).value.status == .ready)
            await client.stop()
            #expect(rig.events.all == ["start", "serving"])

            rig.signals.deliver(SIGTERM)
            try await run.value
            #expect(rig.events.all == ["start", "serving", "serve cancelled", "stop"])
            #expect(rig.health?.report.status == .draining)
            #expect(!FileManager.default.fileExists(atPath: rig.pidFile))
            #expect(rig.exits.all.isEmpty)
            let messages = rig.log.messages
            for message in ["listening", "shutdown requested: draining", "draining", "stopped"] {
                #expect(messages.contains(message), "\(messages)")
            }
            #expect(rig.log.line("listening")?.contains("flavour=test") == true)
            #expect(ServiceHostError.exitCode(for: nil) == 0)
        }
    }

    @Test("sys.health and sys.stats: the service's groups and the server's transport")
    func systemMethods() async throws {
        try await withTemporaryDirectory { root in
            let rig = try HostRig(root: root)
            let run = rig.start()
            try await rig.events.wait(for: "serving")
            let client = try rig.client()
            let health = try await client.request(Methods.System.health).value
            #expect(health.service == "test" && health.version == "1.2.3" && health.ready)
            let stats = try await client.request(Methods.System.stats).value
            #expect(stats.counters["test"] == ["answers": 42])
            #expect(stats.counters["transport"]?["frames_in"] ?? 0 >= 1)
            await client.stop()
            rig.signals.deliver(SIGINT)
            try await run.value
        }
    }

    @Test("the drain is bounded: past the deadline the work in flight is cancelled and run() throws")
    func drainDeadline() async throws {
        try await withTemporaryDirectory { root in
            let rig = try HostRig(root: root, drainTimeout: .milliseconds(200))
            let run = rig.start()
            try await rig.events.wait(for: "serving")
            let client = try rig.client()
            let call = client.request("test.hang", NoParameters(), as: Int.self).subscribe { _ in }
            try await rig.events.wait(for: "call")
            rig.signals.deliver(SIGTERM)
            await #expect(throws: ServiceHostError.drainTimedOut(signal: SIGTERM)) { try await run.value }
            #expect(rig.events.all.contains("call disposed"))
            #expect(rig.events.all.last == "stop")
            #expect(rig.log.messages.contains("drain deadline passed: exiting with work in flight"))
            #expect(!FileManager.default.fileExists(atPath: rig.pidFile))
            #expect(ServiceHostError.exitCode(for: ServiceHostError.drainTimedOut(signal: SIGTERM)) == 2)
            call.dispose()
            await client.stop()
        }
    }

    @Test("a second shutdown signal exits at once with 128 + its number")
    func secondSignal() async throws {
        try await withTemporaryDirectory { root in
            let rig = try HostRig(root: root, drainTimeout: .seconds(30))
            let run = rig.start()
            try await rig.events.wait(for: "serving")
            let client = try rig.client()
            let call = client.request("test.hang", NoParameters(), as: Int.self).subscribe { _ in }
            try await rig.events.wait(for: "call")
            rig.signals.deliver(SIGTERM)
            try await rig.log.wait(for: "draining")
            rig.signals.deliver(SIGINT)
            try await rig.exits.wait(for: 128 + SIGINT)
            #expect(rig.exits.all == [128 + SIGINT])
            // The recorder does not exit: end the drain by cancelling run().
            run.cancel()
            await #expect(throws: ServiceHostError.drainTimedOut(signal: SIGTERM)) { try await run.value }
            call.dispose()
            await client.stop()
        }
    }

    @Test("SIGHUP reloads the allow-list and the service; while starting it is ignored")
    func reload() async throws {
        try await withTemporaryDirectory { root in
            let rig = try HostRig(root: root, curve: .on, startGate: true)
            let run = rig.start()
            try await rig.events.wait(for: "start")
            rig.signals.deliver(SIGHUP)
            try await rig.log.wait(for: "reload requested (SIGHUP) while not serving: ignored")
            rig.service.openGate()
            try await rig.events.wait(for: "serving")
            rig.signals.deliver(SIGHUP)
            try await rig.events.wait(for: "reload")
            #expect(rig.log.messages.contains("reload requested (SIGHUP)"))
            #expect(rig.log.messages.contains("allow-list reloaded"))
            rig.signals.deliver(SIGHUP)
            try await rig.events.wait(for: "reload", count: 2)
            rig.signals.deliver(SIGTERM)
            try await run.value
            #expect(rig.events.all.filter { $0 == "reload" }.count == 2)
            #expect(rig.exits.all.isEmpty)
        }
    }

    @Test("a signal while starting drains as soon as the start is done")
    func signalWhileStarting() async throws {
        try await withTemporaryDirectory { root in
            let rig = try HostRig(root: root, startGate: true)
            let run = rig.start()
            try await rig.events.wait(for: "start")
            rig.signals.deliver(SIGTERM)
            rig.service.openGate()
            try await run.value
            #expect(rig.exits.all.isEmpty)
            let messages = rig.log.messages
            let listening = try #require(messages.firstIndex(of: "listening"))
            let draining = try #require(messages.firstIndex(of: "shutdown requested: draining"))
            #expect(listening < draining)
            #expect(rig.events.all.last == "stop")
        }
    }

    @Test("a start that fails: run() throws its error, logs it, opens nothing and leaves no pid file")
    func startFails() async throws {
        try await withTemporaryDirectory { root in
            let rig = try HostRig(root: root, failure: "no database")
            await #expect(throws: TestFailure.self) { try await rig.start().value }
            #expect(rig.log.line("cannot start")?.contains("no database") == true)
            #expect(!FileManager.default.fileExists(atPath: rig.pidFile))
            #expect(!rig.log.messages.contains("listening"))
            #expect(ServiceHostError.exitCode(for: TestFailure(message: "no database")) == 1)
        }
    }

    @Test("another live instance holds the pid file: run() throws before starting the service")
    func pidFileTaken() async throws {
        try await withTemporaryDirectory { root in
            let rig = try HostRig(root: root)
            try write("\(getppid())\n", to: rig.pidFile)
            await #expect(throws: StateError.self) { try await rig.start().value }
            #expect(rig.events.all.isEmpty)
            #expect(rig.log.messages.contains("cannot start"))
        }
    }

    @Test("cancelling run() skips the drain: the service is stopped and CancellationError thrown")
    func cancelled() async throws {
        try await withTemporaryDirectory { root in
            let rig = try HostRig(root: root)
            let run = rig.start()
            try await rig.events.wait(for: "serving")
            run.cancel()
            await #expect(throws: CancellationError.self) { try await run.value }
            #expect(rig.events.all == ["start", "serving", "serve cancelled", "stop"])
            #expect(!rig.log.messages.contains("draining"))
        }
    }

    @Test("a real signal reaches the one signal stream through the watched source")
    func realSignal() async throws {
        let signals = ProcessSignals()
        signals.watch([SIGUSR2])
        defer { signals.finish() }
        // libdispatch replaces the ignore disposition with its own handler when it registers the
        // source on its manager thread; a signal sent before that would be ignored.
        try await waitUntil("libdispatch's handler is installed") { !isIgnored(SIGUSR2) }
        kill(getpid(), SIGUSR2)
        var received = signals.received.makeAsyncIterator()
        #expect(await received.next() == SIGUSR2)
    }

    @Test("manual signals are delivered in order; watching does nothing")
    func manualSignals() async {
        let signals = ProcessSignals(.manual)
        signals.watch([SIGUSR1])
        #expect(!isIgnored(SIGUSR1))
        signals.deliver(SIGHUP)
        signals.deliver(SIGTERM)
        signals.finish()
        var received: [Int32] = []
        for await signal in signals.received { received.append(signal) }
        #expect(received == [SIGHUP, SIGTERM])
    }
}

// MARK: - The rig

struct TestFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// Things that happened, in order, with waits for one of them (bounded by a deadline).
final class Recorder<Item: Equatable & Sendable>: Sendable {
    private struct State {
        var items: [Item] = []
        var waiters: [(id: Int, item: Item, count: Int, continuation: CheckedContinuation<Bool, Never>)] = []
        var nextID = 0
    }

    private let state = Mutex(State())

    func append(_ item: Item) {
        let ready = state.withLock { state in
            state.items.append(item)
            let items = state.items
            let ready = state.waiters.filter { waiter in
                items.filter { $0 == waiter.item }.count >= waiter.count
            }
            state.waiters.removeAll { waiter in ready.contains { $0.id == waiter.id } }
            return ready
        }
        for waiter in ready { waiter.continuation.resume(returning: true) }
    }

    var all: [Item] { state.withLock { $0.items } }

    /// Returns once `item` has been recorded `count` times; throws after `deadline`.
    func wait(for item: Item, count: Int = 1, deadline: Duration = .seconds(20)) async throws {
        let arrived = await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.arrival(of: item, count: count) }
            group.addTask {
                try? await Task.sleep(for: deadline)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        guard arrived else { throw WaitTimeout(what: "\(item)", seen: "\(all)") }
    }

    private func arrival(of item: Item, count: Int) async -> Bool {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.items.filter({ $0 == item }).count >= count { return true }
                    if Task.isCancelled { return true }
                    state.waiters.append((id, item, count, continuation))
                    return false
                }
                if now { continuation.resume(returning: true) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(returning: false)
        }
    }
}

struct WaitTimeout: Error, CustomStringConvertible {
    let what: String
    let seen: String
    var description: String { "timed out waiting for \(what); seen: \(seen)" }
}

/// The log lines a host wrote, by message.
final class LogRecorder: Sendable {
    private let lines = Mutex<[String]>([])
    private let recorded = Recorder<String>()

    /// The messages logged so far, in order.
    var messages: [String] { recorded.all }

    var sink: LogSink {
        LogSink { line in
            self.lines.withLock { $0.append(line) }
            guard let start = line.range(of: " msg=")?.upperBound else { return }
            var message = String(line[start...])
            if message.hasPrefix("\"") {
                message = String(message.dropFirst().prefix { $0 != "\"" })
            } else {
                message = String(message.prefix { $0 != " " })
            }
            self.recorded.append(message)
        }
    }

    /// The first line whose message is `message`.
    func line(_ message: String) -> String? {
        let messages = recorded.all
        guard let index = messages.firstIndex(of: message) else { return nil }
        return lines.withLock { $0.filter { $0.contains(" msg=") }[index] }
    }

    func wait(for message: String) async throws { try await recorded.wait(for: message) }
}

/// A service whose every step is recorded: `start` (optionally held until ``openGate()``, or
/// failing), `serving`, `serve cancelled`, `reload`, `stop`, and `call`/`call disposed` for a
/// `test.hang` request that is never answered.
final class RecordingService: HostedService {
    let events: Recorder<String>
    let failure: String?
    let gate: AsyncStream<Void>.Continuation?
    private let gateStream: AsyncStream<Void>?
    let health = Mutex<HealthState?>(nil)

    init(events: Recorder<String>, failure: String?, startGate: Bool) {
        self.events = events
        self.failure = failure
        if startGate {
            let (stream, continuation) = AsyncStream<Void>.makeStream()
            gateStream = stream
            gate = continuation
        } else {
            gateStream = nil
            gate = nil
        }
    }

    func openGate() { gate?.finish() }

    func open(on process: ProcessResources) async throws -> NothingShared {
        health.withLock { $0 = process.health }
        return NothingShared()
    }

    func start(on host: HostResources, shared: NothingShared, handlers: inout RemoteHandlers) async throws
        -> Running
    {
        events.append("start")
        if let gateStream { for await _ in gateStream {} }
        if let failure { throw TestFailure(message: failure) }
        let events = self.events
        handlers.request("test.hang") { (_: NoParameters) -> Single<Int> in
            Single.create { _ in
                events.append("call")
                return Disposables.create { events.append("call disposed") }
            }
        }
        return Running(events: events)
    }

    struct Running: RunningService {
        let events: Recorder<String>
        var listening: [String: LogValue] { ["flavour": "test"] }
        func stats() async -> [String: [String: Int]] { ["test": ["answers": 42]] }
        func serve() async {
            events.append("serving")
            let (never, _) = AsyncStream<Void>.makeStream()
            for await _ in never {}
            events.append("serve cancelled")
        }
        func reload() { events.append("reload") }
        func stop() async { events.append("stop") }
    }
}

/// A host of a ``RecordingService`` in a temporary state directory, listening on `ipc://`, with
/// manual signals, a recorded exit and a recorded log.
struct HostRig {
    let state: StateDirectory
    let endpoint: Endpoint
    let signals = ProcessSignals(.manual)
    let exits = Recorder<Int32>()
    let log = LogRecorder()
    let events = Recorder<String>()
    let service: RecordingService
    let host: ServiceHost<RecordingService>

    init(
        root: String, drainTimeout: Duration = .seconds(10), curve: CurveSetting = .off,
        startGate: Bool = false,
        failure: String? = nil, loops: Int = 1, metricsLimits: HTTPResponder.Limits? = nil
    ) throws {
        state = try StateDirectory(creating: root + "/state")
        endpoint = try #require(Endpoint("ipc://\(root)/test.sock"))
        service = RecordingService(events: events, failure: failure, startGate: startGate)
        let exits = self.exits
        host = ServiceHost(
            service,
            settings: .init(
                name: "test", version: "1.2.3", endpoint: endpoint, curve: curve, maxStreamsTotal: 100,
                maxStreamsPerClient: 10, drainTimeout: drainTimeout, loops: loops,
                metricsListen: metricsLimits.map { _ in ListenAddress(host: "127.0.0.1", port: 0) },
                metricsLimits: metricsLimits ?? HTTPResponder.Limits()),
            state: state, logger: Logger(service: "test", level: .debug, sink: log.sink),
            signals: signals, exit: { code in exits.append(code) })
    }

    var pidFile: String { state.file("test.pid") }
    var health: HealthState? { service.health.withLock { $0 } }

    /// Runs the host in a task of its own.
    func start() -> Task<Void, any Error> {
        let host = self.host
        return Task { try await host.run() }
    }

    /// A plain client of the host's server (of every shard, when it discovers them).
    func client(discoversShards: Bool = false) throws -> RemoteClient {
        try RemoteClient(
            context: try Self.context.get(),
            configuration: .init(
                endpoints: [endpoint.description], deadline: .seconds(5), name: "test-client",
                discoversShards: discoversShards))
    }

    /// The tests' clients' context, for the whole test process.
    static let context = Result { try Context() }
}

/// Runs `body` with a fresh temporary directory, removed afterwards.
func withTemporaryDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
    var template = Array((NSTemporaryDirectory() + "/servicekit-test-XXXXXX").utf8CString)
    guard let created = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
    let path = String(cString: created)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}
