/// One finished call or command of a test's load: what it was, how it ended (`Outcome`, the test's
/// own judgement of the answer), when it started and how long it took. Load tests keep these to
/// say afterwards which calls failed, when, and for how long.
public struct TimedRecord<Outcome: Sendable & Equatable>: Sendable {
    /// What was called (a method or command and its argument).
    public let what: String
    /// How it ended.
    public let outcome: Outcome
    /// When it was made.
    public let started: ContinuousClock.Instant
    /// How long it took to end.
    public let took: Duration

    /// A record of a call made at `started` that ended now.
    public init(what: String, outcome: Outcome, started: ContinuousClock.Instant) {
        self.what = what
        self.outcome = outcome
        self.started = started
        self.took = .now - started
    }
}
