/// The life of a loop, as one state shared by its thread and its callers (under the loop's mutex).
///
/// Transitions are synchronous and return whether they happened; the loop thread does the work
/// that follows (closing sockets, waking those in ``SocketLoop/stop()``) after leaving the mutex.
enum LoopState: Hashable, Sendable {
    /// The thread has not yet taken the groups, messages and work queued before it ran. Sends,
    /// work, timers and groups are accepted and wait for it.
    case starting
    /// The thread runs turns: poll, read a batch, hand it to the groups' handlers, run work,
    /// timers and the executor's jobs, send what they queued, publish the counters.
    case running
    /// The loop is ending: ``SocketLoop/stop()`` was called or the context was terminated. No
    /// further turn runs; the thread closes every socket with linger 0 (a group detached in the
    /// last turn closed with ``LoopThread/detachLinger``), completes the detachments asked for,
    /// counts what was never sent as dropped and ends. Sends, work and groups are refused.
    case stopping(Reason)
    /// The thread has ended: its sockets and the wake-up pipe are closed; ``SocketLoop/stop()``
    /// returns at once.
    case stopped

    /// Why a loop stops.
    enum Reason: Hashable, Sendable {
        /// ``SocketLoop/stop()`` was called.
        case stopRequested
        /// The context was terminated under the loop (a socket call said so).
        case contextTerminated
    }

    /// Whether the loop takes new messages, work, timers and groups.
    var acceptsWork: Bool {
        switch self {
        case .starting, .running: true
        case .stopping, .stopped: false
        }
    }

    /// Whether the thread runs (another) turn.
    var runsTurns: Bool { self == .running }

    /// The thread took what was queued before it ran: turns begin (unless it is already stopping).
    @discardableResult
    mutating func started() -> Bool {
        guard self == .starting else { return false }
        self = .running
        return true
    }

    /// The loop is to stop for `reason`; false when it already was stopping or stopped (the first
    /// reason stays).
    @discardableResult
    mutating func stop(_ reason: Reason) -> Bool {
        guard acceptsWork else { return false }
        self = .stopping(reason)
        return true
    }

    /// The thread has closed everything and ends.
    mutating func finished() {
        precondition(!acceptsWork, "a loop ends only once it is stopping")
        self = .stopped
    }
}
