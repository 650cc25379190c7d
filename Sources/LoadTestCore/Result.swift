/// Everything a run measured: the latency histogram of the requests sent in the measured window,
/// their outcomes, and throughput second by second.
public struct LoadResult: Sendable {
    /// The scenario, as typed (`login`, `mix:login=80,exists=20`).
    public var scenario: String
    /// The pacing.
    public var model: LoadModel
    /// DEALER connections used.
    public var connections: Int
    /// The measured time, in nanoseconds: from the end of the warm-up to the last send (the
    /// planned duration, or less when `--requests` ran out first).
    public var duration: UInt64
    /// The warm-up before it, in nanoseconds.
    public var warmup: UInt64
    /// Requests sent in the measured window (by their scheduled time in the open model).
    public var sent: Int
    /// Of those, the ones answered (successfully or not) before the run ended.
    public var completed: Int
    /// Requests of the warm-up (not counted anywhere else).
    public var warmupRequests: Int
    /// Requests still unanswered when the drain timeout passed (counted as errors).
    public var unfinished: Int
    /// The latency of every completed measured request, in nanoseconds.
    public var latency: LatencyHistogram
    /// Completed measured requests by outcome label (`login 200`, `error overloaded`).
    public var outcomes: [String: Int]
    /// Completed measured requests that were errors, plus the unfinished ones.
    public var errors: Int
    /// Measured requests completed in each second after the warm-up (by completion time).
    public var perSecond: [Int]
    /// Open model: how late each measured request left the tool after its scheduled time, in
    /// nanoseconds (the tool's own lag, part of every latency). Empty in the closed model.
    public var senderLag: LatencyHistogram
    /// Whether the run was stopped early (``LoadDriver/stop()``, SIGINT).
    public var interrupted = false

    /// An empty result for a run of `model` over `duration` (nanoseconds).
    public init(scenario: String, model: LoadModel, connections: Int, duration: UInt64, warmup: UInt64) {
        self.scenario = scenario
        self.model = model
        self.connections = connections
        self.duration = duration
        self.warmup = warmup
        sent = 0
        completed = 0
        warmupRequests = 0
        unfinished = 0
        latency = LatencyHistogram()
        outcomes = [:]
        errors = 0
        perSecond = []
        senderLag = LatencyHistogram()
    }

    /// The measured window in seconds.
    public var seconds: Double { Double(duration) / 1e9 }

    /// The requested rate (open model), or nil.
    public var requestedRate: Double? {
        if case .open(let rate) = model { return rate }
        return nil
    }

    /// Requests sent per second in the measured window.
    public var sentRate: Double { seconds > 0 ? Double(sent) / seconds : 0 }

    /// Requests answered per second in the measured window.
    public var completedRate: Double { seconds > 0 ? Double(completed) / seconds : 0 }

    /// Errors as a percentage of the measured requests (0 when none were sent).
    public var errorPercent: Double {
        let total = completed + unfinished
        return total == 0 ? 0 : Double(errors) * 100 / Double(total)
    }
}
