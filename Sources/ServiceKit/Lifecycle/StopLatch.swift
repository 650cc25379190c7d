import Synchronization

/// A one-shot latch a service's `run()` waits on until its `stop()` has finished draining.
///
/// ```swift
/// func run() async throws { health.set(.ready); await stopped.wait() }
/// func stop() async { await server.drain(); …; stopped.release() }
/// ```
///
/// Waiting after the release returns at once; releasing twice changes nothing.
public final class StopLatch: Sendable {
    private let state = Mutex<(released: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// A latch not yet released.
    public init() {}

    /// Suspends until ``release()`` (returns at once if it already happened).
    public func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.released { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Releases every waiter, now and later.
    public func release() {
        let waiters = state.withLock { state in
            state.released = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
