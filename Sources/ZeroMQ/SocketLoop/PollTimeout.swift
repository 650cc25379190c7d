/// How long the loop's next `poll(2)` may sleep, worked out during a turn from what it found: the
/// soonest timer, sockets left to read, queued work, sockets that reported writable, blocked peers.
///
/// It starts each turn at "until something happens" (-1) and only ever gets shorter.
struct PollTimeout: Hashable, Sendable {
    /// Milliseconds; -1 is "until a descriptor fires", 0 is "do not sleep".
    private(set) var milliseconds: Int

    /// Until a descriptor fires.
    static let indefinite = PollTimeout(milliseconds: -1)
    /// Not at all.
    static let zero = PollTimeout(milliseconds: 0)

    /// How soon a routed socket's blocked peers are tried again when nothing else wakes the loop
    /// (libzmq signals the descriptor when a peer has read enough, but not always soon).
    static let blockedPeerRetry = 50
    /// How soon a socket that reported writable but took nothing is tried again (a ROUTER is
    /// writable while the addressed peer is at its high-water mark): rather than spinning.
    static let stalledRetry = 1

    /// Whether poll must not sleep.
    var isZero: Bool { milliseconds == 0 }

    /// Sleep no longer than `bound` milliseconds.
    mutating func atMost(_ bound: Int) {
        milliseconds = milliseconds < 0 ? bound : min(milliseconds, bound)
    }

    /// Do not sleep: there is something to do now.
    mutating func wakeNow() { milliseconds = 0 }

    /// Wake no later than `due` (a timer), seen at `now`.
    mutating func wake(at due: ContinuousClock.Instant, now: ContinuousClock.Instant) {
        atMost(max(0, Self.milliseconds(due - now)))
    }

    /// A socket that was sent on reported its `ZMQ_EVENTS`: readable means read it now; writable
    /// with messages waiting means send again now, or after ``stalledRetry`` when the last try made
    /// no progress.
    mutating func socketReported(readable: Bool, writable: Bool, hasPending: Bool, stalled: Bool) {
        if readable { wakeNow() }
        if writable && hasPending { atMost(stalled ? Self.stalledRetry : 0) }
    }

    /// `duration` in whole milliseconds, rounded up (a poll timeout that wakes early would spin).
    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        let milliseconds = seconds * 1_000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int(clamping: milliseconds)
    }
}
