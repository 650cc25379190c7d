import Dispatch
import GatewayClient
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// SIGINT and SIGTERM while a script runs: the script is disposed (its channel gets `CANCEL`) and
/// the program exits with ``ExitCode/interrupted``. Before the script starts (while reading a
/// password from a pipe) a signal exits at once.
///
/// The signals are taken from their default action and delivered by dispatch sources, so the
/// handler is ordinary Swift code on a dispatch thread.
/// Owned by the main thread (not `Sendable`); only ``Slot`` is shared with the signal handlers.
final class Interruption {
    /// What to do on a signal, once the script runs; `fired` if one came first.
    final class Slot: Sendable {
        let state = Mutex<(handler: (@Sendable () -> Void)?, fired: Bool)>((nil, false))
    }

    private let sources: [any DispatchSourceSignal]
    private let slot = Slot()

    /// Starts catching SIGINT and SIGTERM.
    init() {
        let slot = self.slot
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
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
            source.resume()
            return source
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
        for source in sources { source.cancel() }
    }
}
