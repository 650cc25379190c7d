import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// SIGTERM/SIGINT as a graceful-shutdown request: the first signal wakes everyone awaiting
/// ``shutdownRequested()``; a second one exits the process at once with `128 + signal`.
///
/// Signals are delivered by ``deliver(_:)``: ``installHandlers(for:)`` connects the real ones
/// (their default action is ignored and Dispatch signal sources call `deliver`); tests call
/// `deliver` directly and inject the exit.
///
/// ```swift
/// let signals = ShutdownSignals()
/// signals.installHandlers()
/// let signal = await signals.shutdownRequested()   // SIGTERM or SIGINT
/// ```
public final class ShutdownSignals: Sendable {
    /// The shutdown state machine.
    private enum State {
        /// No signal yet. `waiters` are the tasks suspended in `shutdownRequested`; `cancelled`
        /// holds ids whose task was cancelled before its continuation was stored.
        case running(waiters: [UInt64: CheckedContinuation<Int32?, Never>], cancelled: Set<UInt64>)
        /// The first signal arrived; the next one exits at once.
        case shuttingDown(signal: Int32)
    }

    /// What a transition asks for, run after the lock is released.
    private enum Action {
        /// Resume these waiters with the signal.
        case wake([CheckedContinuation<Int32?, Never>], Int32)
        /// Exit the process with this code.
        case exit(Int32)
    }

    private let state = Mutex(State.running(waiters: [:], cancelled: []))
    private let nextID = Atomic<UInt64>(0)
    private let exitProcess: @Sendable (Int32) -> Void
    /// Kept alive for as long as this object lives, so the handlers stay installed.
    private let sources = Mutex<[RetainedSource]>([])

    /// Holds a Dispatch signal source only to keep it alive.
    ///
    /// Safe without compiler checking: libdispatch objects are thread-safe (their API may be called
    /// from any thread), the reference is immutable, and nothing but retaining it happens here.
    private struct RetainedSource: @unchecked Sendable {
        let source: any DispatchSourceSignal
    }

    /// Makes the state machine. `exit` ends the process on the second signal (`_exit` when nil; tests
    /// inject a recorder).
    public init(exit: (@Sendable (Int32) -> Void)? = nil) {
        exitProcess = exit ?? { code in _exit(code) }
    }

    /// Ignores the default action of `signals` (SIGTERM and SIGINT when nil) and delivers them
    /// through Dispatch signal sources to ``deliver(_:)``.
    public func installHandlers(for signals: [Int32]? = nil) {
        let queue = DispatchQueue(label: "ServiceKit.signals")
        for number in signals ?? [SIGTERM, SIGINT] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [weak self] in self?.deliver(number) }
            source.resume()
            let retained = RetainedSource(source: source)
            sources.withLock { $0.append(retained) }
        }
    }

    /// Handles one signal: the first begins the shutdown; any later one exits with `128 + signal`.
    public func deliver(_ signal: Int32) {
        let action = state.withLock { state -> Action in
            switch state {
            case .running(let waiters, _):
                state = .shuttingDown(signal: signal)
                return .wake(Array(waiters.values), signal)
            case .shuttingDown:
                return .exit(128 + signal)
            }
        }
        switch action {
        case .wake(let waiters, let signal): waiters.forEach { $0.resume(returning: signal) }
        case .exit(let code): exitProcess(code)
        }
    }

    /// The first signal received so far, if any.
    public var requestedSignal: Int32? {
        state.withLock { state in
            if case .shuttingDown(let signal) = state { return signal }
            return nil
        }
    }

    /// Suspends until the first signal and returns it; returns at once if one already arrived, and
    /// returns nil if the waiting task is cancelled first.
    public func shutdownRequested() async -> Int32? {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Int32?, Never>) in
                let immediate = state.withLock { state -> Int32?? in
                    switch state {
                    case .shuttingDown(let signal):
                        return .some(signal)
                    case .running(var waiters, var cancelled):
                        if cancelled.remove(id) != nil {
                            state = .running(waiters: waiters, cancelled: cancelled)
                            return .some(nil)
                        }
                        waiters[id] = continuation
                        state = .running(waiters: waiters, cancelled: cancelled)
                        return .none
                    }
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Int32?, Never>? in
                guard case .running(var waiters, var cancelled) = state else { return nil }
                let waiter = waiters.removeValue(forKey: id)
                if waiter == nil { cancelled.insert(id) }
                state = .running(waiters: waiters, cancelled: cancelled)
                return waiter
            }
            waiter?.resume(returning: nil)
        }
    }
}
