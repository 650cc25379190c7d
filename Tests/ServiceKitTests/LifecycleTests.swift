import ServiceKit
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Records the exit codes a `ShutdownSignals` would have exited with.
private final class ExitRecorder: Sendable {
    private let codes = Mutex<[Int32]>([])
    var exit: @Sendable (Int32) -> Void { { code in self.codes.withLock { $0.append(code) } } }
    var all: [Int32] { codes.withLock { $0 } }
}

/// A service whose `run()` serves until `stop()` (or, when `ignoresStop`, until cancelled).
private final class GatedService: Service {
    let gate = AsyncStream<Void>.makeStream()
    /// Never finished: a service ignoring its stop waits here until its task is cancelled.
    let ignored = AsyncStream<Void>.makeStream()
    let stops = Mutex(0)
    let ignoresStop: Bool
    let failure: String?

    init(ignoresStop: Bool = false, failure: String? = nil) {
        self.ignoresStop = ignoresStop
        self.failure = failure
    }

    func run() async throws {
        if ignoresStop {
            for await _ in ignored.stream {}
            try Task.checkCancellation()
        }
        for await _ in gate.stream {}
        if let failure { throw TestFailure(message: failure) }
    }

    func reload() {}

    func stop() async {
        stops.withLock { $0 += 1 }
        gate.continuation.finish()
    }
}

private struct TestFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

@Suite("Shutdown signals and lifecycle", .timeLimit(.minutes(1)))
struct LifecycleTests {
    @Test("the first signal wakes every waiter; later waiters return at once")
    func firstSignal() async {
        let recorder = ExitRecorder()
        let signals = ShutdownSignals(exit: recorder.exit)
        #expect(signals.requestedSignal == nil)
        async let first = signals.shutdownRequested()
        async let second = signals.shutdownRequested()
        signals.deliver(SIGTERM)
        #expect(await first == SIGTERM)
        #expect(await second == SIGTERM)
        #expect(await signals.shutdownRequested() == SIGTERM)
        #expect(signals.requestedSignal == SIGTERM)
        #expect(recorder.all.isEmpty)
    }

    @Test("a second signal exits at once with 128 + its number")
    func secondSignal() {
        let recorder = ExitRecorder()
        let signals = ShutdownSignals(exit: recorder.exit)
        signals.deliver(SIGTERM)
        signals.deliver(SIGINT)
        #expect(recorder.all == [128 + SIGINT])
        #expect(signals.requestedSignal == SIGTERM)
    }

    @Test("a cancelled waiter returns nil")
    func cancelledWaiter() async {
        let signals = ShutdownSignals(exit: { _ in })
        let waiter = Task { await signals.shutdownRequested() }
        waiter.cancel()
        #expect(await waiter.value == nil)
        #expect(signals.requestedSignal == nil)
    }

    @Test("a real signal reaches the waiter through the installed handler")
    func realSignal() async throws {
        let recorder = ExitRecorder()
        let signals = ShutdownSignals(exit: recorder.exit)
        signals.installHandlers(for: [SIGUSR2])
        // libdispatch replaces the ignore disposition with its own handler when it registers the
        // source on its manager thread; a signal sent before that would be ignored.
        try await waitUntil("libdispatch's handler is installed") { !isIgnored(SIGUSR2) }
        kill(getpid(), SIGUSR2)
        // The waiter is resumed by the delivery itself (the suite's time limit bounds the wait).
        #expect(await signals.shutdownRequested() == SIGUSR2)
        #expect(recorder.all.isEmpty)
    }

    @Test("a service that ends on its own finishes with 0; one that throws fails with 1")
    func endsOnItsOwn() async {
        let signals = ShutdownSignals(exit: { _ in })
        let finished = await ServiceLifecycle.run(
            signals: signals, drainTimeout: .seconds(10), run: {}, stop: {})
        #expect(finished == .finished && finished.exitCode == 0)
        let failed = await ServiceLifecycle.run(
            signals: signals, drainTimeout: .seconds(10), run: { throw TestFailure(message: "boom") },
            stop: {})
        #expect(failed == .failed("boom") && failed.exitCode == 1)
    }

    @Test("a signal stops the service, which drains in time: exit 0")
    func drains() async {
        let signals = ShutdownSignals(exit: { _ in })
        let service = GatedService()
        signals.deliver(SIGTERM)
        let outcome = await ServiceLifecycle.run(service, signals: signals, drainTimeout: .seconds(10))
        #expect(outcome == .drained(signal: SIGTERM) && outcome.exitCode == 0)
        #expect(service.stops.withLock { $0 } == 1)
    }

    @Test("a service that throws while draining fails")
    func throwsWhileDraining() async {
        let signals = ShutdownSignals(exit: { _ in })
        let service = GatedService(failure: "lost a write")
        signals.deliver(SIGINT)
        let outcome = await ServiceLifecycle.run(service, signals: signals, drainTimeout: .seconds(10))
        #expect(outcome == .failed("lost a write") && outcome.exitCode == 1)
    }

    @Test("a service that does not drain by the deadline is cancelled: non-zero exit")
    func drainTimeout() async {
        let signals = ShutdownSignals(exit: { _ in })
        let service = GatedService(ignoresStop: true)
        signals.deliver(SIGTERM)
        let outcome = await ServiceLifecycle.run(service, signals: signals, drainTimeout: .milliseconds(50))
        #expect(outcome == .drainTimedOut(signal: SIGTERM) && outcome.exitCode == 2)
        #expect(service.stops.withLock { $0 } == 1)
    }
}

/// True while `signal`'s disposition is `SIG_IGN`.
func isIgnored(_ signal: Int32) -> Bool {
    var action = sigaction()
    sigaction(signal, nil, &action)
    return unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self) == 1
}

private struct Timeout: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting until \(what)" }
}

/// Checks `condition` until it holds, yielding between checks, failing after five seconds. Only for
/// what nothing announces: libdispatch installs its signal handler on its own thread (within
/// microseconds) and tells no one, so the test looks at the signal's disposition until it changes.
func waitUntil(_ what: String, _ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(5)
    while !condition() {
        guard ContinuousClock.now < deadline else { throw Timeout(what: what) }
        await Task.yield()
    }
}
