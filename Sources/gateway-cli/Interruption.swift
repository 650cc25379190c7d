import GatewayClient
import ProcessSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// SIGINT and SIGTERM while a script runs: the script is disposed (its channel gets `CANCEL`) and
/// the program exits with ``ExitCode/interrupted``. Before the script starts (while reading a
/// password from a pipe) a signal exits at once.
///
/// The signals come through ProcessSupport's `ProcessSignals`, so the handler is ordinary Swift code in
/// a task, never in a signal handler. Owned by the main thread (not `Sendable`); only ``Slot`` is
/// shared with the task that watches.
final class Interruption {
    /// What to do on a signal, once the script runs; `fired` if one came first.
    final class Slot: Sendable {
        let state = Mutex<(handler: (@Sendable () -> Void)?, fired: Bool)>((nil, false))
    }

    private let signals = ProcessSignals()
    private let slot = Slot()
    private let watcher: Task<Void, Never>

    /// Starts catching SIGINT and SIGTERM.
    init() {
        let (signals, slot) = (self.signals, self.slot)
        signals.watch([SIGINT, SIGTERM])
        watcher = Task {
            for await _ in signals.received {
                let handler = slot.state.withLock { state -> (@Sendable () -> Void)? in
                    state.fired = true
                    return state.handler
                }
                guard let handler else {
                    writeStandardError("gateway-cli: interrupted\n")
                    exit(ExitCode.interrupted.rawValue)
                }
                handler()
            }
        }
    }

    /// Runs `handler` on the next signal (now, if one already came).
    func onSignal(_ handler: @escaping @Sendable () -> Void) {
        let fired = slot.state.withLock { state in
            state.handler = handler
            return state.fired
        }
        if fired { handler() }
    }

    deinit {
        signals.finish()
        watcher.cancel()
    }
}
