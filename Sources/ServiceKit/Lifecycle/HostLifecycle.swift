#if canImport(Glibc)
    import Glibc
#endif

/// The host's shutdown state machine: starting → running → draining → cancelled. Transitions are
/// synchronous and return what to do; the host runs the action after releasing its lock.
struct HostLifecycle {
    enum State {
        /// The service is being built. `shutdown` is the first SIGTERM/SIGINT that came meanwhile: the
        /// drain begins as soon as the start is done.
        case starting(shutdown: Int32?)
        /// Serving. `reload` is the service's SIGHUP action; `waiter` is `run()` waiting for a
        /// shutdown request (nil while it is not waiting yet).
        case running(reload: @Sendable () -> Void, waiter: CheckedContinuation<Int32?, Never>?)
        /// A shutdown signal came: the service drains within the deadline. Another signal exits at once.
        case draining(signal: Int32)
        /// The drain deadline passed or `run()` was cancelled (`signal` nil): remaining work is
        /// cancelled. Another signal exits at once.
        case cancelled(signal: Int32?)
    }

    /// What a transition asks for.
    enum Action {
        case none
        /// Resume `run()`'s wait with the signal (nil: the wait was cancelled).
        case resume(CheckedContinuation<Int32?, Never>, Int32?)
        /// Run the service's reload on the reload queue.
        case reload(@Sendable () -> Void)
        /// A hang-up that nothing can reload now (still starting, or stopping).
        case ignoreHangUp
        /// Exit the process at once with this code.
        case exit(Int32)
    }

    private(set) var state = State.starting(shutdown: nil)

    /// The signals that ask for a shutdown.
    static let shutdownSignals: Set<Int32> = [SIGTERM, SIGINT]

    /// A signal arrived: SIGHUP reloads; the first SIGTERM/SIGINT begins the drain; a later one exits.
    mutating func received(_ signal: Int32) -> Action {
        guard Self.shutdownSignals.contains(signal) else {
            guard signal == SIGHUP else { return .none }
            if case .running(let reload, _) = state { return .reload(reload) }
            return .ignoreHangUp
        }
        switch state {
        case .starting(nil):
            state = .starting(shutdown: signal)
            return .none
        case .running(_, let waiter):
            state = .draining(signal: signal)
            return waiter.map { .resume($0, signal) } ?? .none
        case .starting, .draining, .cancelled:
            return .exit(128 + signal)
        }
    }

    /// The service is built and its server listens; `reload` is what SIGHUP runs from now on.
    mutating func started(reload: @escaping @Sendable () -> Void) {
        if case .starting(let shutdown?) = state {
            state = .draining(signal: shutdown)
        } else {
            state = .running(reload: reload, waiter: nil)
        }
    }

    /// `run()` waits for a shutdown request: the signal now if one came, else `waiter` is kept.
    mutating func wait(_ waiter: CheckedContinuation<Int32?, Never>, cancelled: Bool) -> Action {
        switch state {
        case .draining(let signal):
            return .resume(waiter, signal)
        case .running(let reload, _):
            if cancelled {
                state = .cancelled(signal: nil)
                return .resume(waiter, nil)
            }
            state = .running(reload: reload, waiter: waiter)
            return .none
        case .starting, .cancelled:
            return .resume(waiter, nil)
        }
    }

    /// `run()`'s task was cancelled while it waited: no drain, remaining work is cancelled.
    mutating func waitCancelled() -> Action {
        guard case .running(_, let waiter?) = state else { return .none }
        state = .cancelled(signal: nil)
        return .resume(waiter, nil)
    }

    /// The drain deadline passed (or `run()` was cancelled while draining).
    mutating func deadlinePassed() {
        if case .draining(let signal) = state { state = .cancelled(signal: signal) }
    }
}
