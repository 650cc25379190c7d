/// A long-running service: ``run()`` serves until it is stopped; ``stop()`` asks it to stop
/// accepting work and finish what is in flight, after which `run()` returns; ``reload()`` re-reads
/// what can change without a restart.
public protocol Service: Sendable {
    /// Serves until stopped (returns) or failed (throws).
    func run() async throws
    /// Begins a graceful stop; `run()` should return once in-flight work is done.
    func stop() async
    /// Reloads everything the service can reload in place (its CURVE allow-list, data files), on
    /// SIGHUP (``ReloadSignal``). Runs on the reload handler's queue, one reload at a time; a part
    /// that fails to load is logged and the current one kept.
    func reload()
}

/// Runs a service until it ends or a shutdown signal drains it within a deadline.
///
/// ```swift
/// let outcome = await ServiceLifecycle.run(service, signals: signals, drainTimeout: .seconds(10))
/// exit(outcome.exitCode)
/// ```
public enum ServiceLifecycle {
    /// How a run ended.
    public enum Outcome: Sendable, Hashable {
        /// `run()` returned without a signal.
        case finished
        /// A signal arrived, `stop()` was called, and `run()` returned within the deadline.
        case drained(signal: Int32)
        /// `run()` threw (before or after a signal); the error's description.
        case failed(String)
        /// A signal arrived and `run()` had not returned when the deadline passed: its task was
        /// cancelled and left behind (the process is expected to exit now).
        case drainTimedOut(signal: Int32)

        /// 0 for ``finished`` and ``drained(signal:)``, 1 for ``failed(_:)``, 2 for
        /// ``drainTimedOut(signal:)``.
        public var exitCode: Int32 {
            switch self {
            case .finished, .drained: 0
            case .failed: 1
            case .drainTimedOut: 2
            }
        }
    }

    /// Runs `service` (see ``run(signals:drainTimeout:logger:run:stop:)``).
    public static func run(
        _ service: some Service, signals: ShutdownSignals, drainTimeout: Duration, logger: Logger? = nil
    ) async -> Outcome {
        await run(
            signals: signals, drainTimeout: drainTimeout, logger: logger,
            run: { try await service.run() }, stop: { await service.stop() })
    }

    /// Runs `run`; on the first shutdown signal calls `stop` and waits up to `drainTimeout` for
    /// `run` to return. A second signal is handled by `signals` (immediate exit).
    public static func run(
        signals: ShutdownSignals, drainTimeout: Duration, logger: Logger? = nil,
        run: @escaping @Sendable () async throws -> Void,
        stop: @escaping @Sendable () async -> Void
    ) async -> Outcome {
        let (events, continuation) = AsyncStream<Event>.makeStream()
        let runTask = Task {
            do {
                try await run()
                continuation.yield(.runEnded(nil))
            } catch {
                continuation.yield(.runEnded("\(error)"))
            }
        }
        let signalTask = Task {
            if let signal = await signals.shutdownRequested() { continuation.yield(.signal(signal)) }
        }
        var deadlineTask: Task<Void, Never>?
        defer {
            signalTask.cancel()
            deadlineTask?.cancel()
            continuation.finish()
        }
        var draining: Int32?
        for await event in events {
            switch event {
            case .runEnded(let failure?):
                logger?.error("service failed", ["error": .string(failure)])
                return .failed(failure)
            case .runEnded(nil):
                return draining.map { .drained(signal: $0) } ?? .finished
            case .signal(let signal):
                draining = signal
                logger?.notice(
                    "shutdown requested: draining",
                    ["signal": .integer(Int(signal)), "deadline": .string(DurationText.format(drainTimeout))])
                Task { await stop() }
                deadlineTask = Task {
                    guard (try? await Task.sleep(for: drainTimeout)) != nil else { return }
                    continuation.yield(.deadline)
                }
            case .deadline:
                runTask.cancel()
                let signal = draining ?? 0
                logger?.error("drain deadline passed: exiting with work in flight")
                return .drainTimedOut(signal: signal)
            }
        }
        return .finished
    }

    /// What the run loop waits for.
    private enum Event: Sendable {
        /// `run()` ended: nil when it returned, its error's description when it threw.
        case runEnded(String?)
        /// The first shutdown signal.
        case signal(Int32)
        /// The drain deadline passed.
        case deadline
    }
}
