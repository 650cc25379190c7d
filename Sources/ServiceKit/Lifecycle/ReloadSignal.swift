import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// SIGHUP as a reload request: the process's one SIGHUP handler.
///
/// A process installs it once (``ServiceMain`` does, before the service starts, so a hang-up while
/// starting never ends the process) and sets one action, the service's ``Service/reload()``, which
/// reloads *everything* the service can reload (its CURVE allow-list, hero-catalog-service's
/// catalog). One handler per process matters: a second `signal(SIGHUP, …)` or Dispatch source for
/// the same signal replaces the first one's, and then one of the reloads silently never runs.
///
/// Actions run one at a time on the handler's own queue, in the order the signals came; hang-ups
/// that arrive during a reload are coalesced by the kernel into one more run. Tests call
/// ``deliver()`` directly.
///
/// ```swift
/// let hangups = ReloadSignal()
/// hangups.installHandler()
/// let service = try await start()
/// hangups.setAction { service.reload() }
/// ```
public final class ReloadSignal: Sendable {
    /// What a hang-up runs, and what became of them.
    private struct State {
        var action: (@Sendable () -> Void)?
        /// Hang-ups that arrived before an action was set (ignored, and counted).
        var ignored = 0
        /// Reloads run.
        var reloads = 0
        var source: RetainedSource?
    }

    /// Holds the Dispatch signal source only to keep it alive.
    ///
    /// Safe without compiler checking: libdispatch objects are thread-safe, the reference is
    /// immutable, and nothing but retaining and cancelling it happens here.
    private struct RetainedSource: @unchecked Sendable {
        let source: any DispatchSourceSignal
    }

    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "ServiceKit.reload")

    /// A handler with no action yet.
    public init() {}

    /// Ignores SIGHUP's default action (ending the process) and delivers it through one Dispatch
    /// signal source to ``deliver()``. A second call does nothing.
    public func installHandler() {
        state.withLock { state in
            guard state.source == nil else { return }
            signal(SIGHUP, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: queue)
            source.setEventHandler { [weak self] in self?.run() }
            source.resume()
            state.source = RetainedSource(source: source)
        }
    }

    /// Sets what a hang-up runs (replacing any earlier action).
    public func setAction(_ action: @escaping @Sendable () -> Void) {
        state.withLock { $0.action = action }
    }

    /// Handles one hang-up: runs the action on the handler's queue (after any reload in progress),
    /// or counts it as ignored when no action is set yet.
    public func deliver() {
        queue.async { [self] in run() }
    }

    /// Waits for the reloads delivered so far to finish (for tests).
    public func waitForReloads() {
        queue.sync {}
    }

    /// Reloads run so far, and hang-ups ignored because no action was set yet.
    public var counts: (reloads: Int, ignored: Int) {
        state.withLock { ($0.reloads, $0.ignored) }
    }

    /// Stops handling SIGHUP (it stays ignored).
    public func cancel() {
        state.withLock { state in
            state.source?.source.cancel()
            state.source = nil
        }
    }

    /// On the queue: runs the action once.
    private func run() {
        let action = state.withLock { state -> (@Sendable () -> Void)? in
            if state.action == nil { state.ignored += 1 } else { state.reloads += 1 }
            return state.action
        }
        action?()
    }
}
