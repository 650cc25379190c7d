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
    /// Which generator of several made it (`--shard I/N`); nil for a lone generator's run or a
    /// merged one.
    public var shard: GeneratorShard?
    /// Each stage's share of the run (`--stages`), in order; empty for a constant load.
    public var stages: [StageResult] = []
    /// For requests made of interactions (virtual users on the gateway's flows): the latencies of
    /// each kind of awaited output (`screen`, `keystroke`, `tap`); ``latency`` holds them all.
    /// Empty for single calls.
    public var latencyByKind: [String: LatencyHistogram] = [:]
    /// Each whole second of the measured window's latencies, summarized (by completion time):
    /// the samples `compare` measures run-to-run noise with. A merged run holds every generator's.
    public var latencySamples: [SecondSample] = []
    /// The capacity search's objective when this is the best step of one (read from a result
    /// file of `--find-capacity`); such runs do not merge.
    public var capacityObjective: String?

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

/// What one stage of a ramp measured: the requests whose (scheduled or actual) send time fell in
/// it, however late their answers came.
public struct StageResult: Sendable {
    /// Its name.
    public var name: String
    /// Where it starts, in nanoseconds after the warm-up.
    public var offset: UInt64
    /// How long it lasts (planned), in nanoseconds.
    public var duration: UInt64
    /// The load at its start: requests per second (open model) or in flight (closed).
    public var from: Double
    /// The load at its end.
    public var to: Double
    /// Requests sent in it.
    public var sent = 0
    /// Of those, the ones answered.
    public var completed = 0
    /// Of those, the ones never answered.
    public var unfinished = 0
    /// Errors: failed calls, unexpected answers and the unanswered.
    public var errors = 0
    /// The latency of its completed requests, in nanoseconds.
    public var latency = LatencyHistogram()
    /// Its completed requests by outcome label.
    public var outcomes: [String: Int] = [:]

    /// A stage with nothing recorded yet.
    public init(name: String, offset: UInt64, duration: UInt64, from: Double, to: Double) {
        self.name = name
        self.offset = offset
        self.duration = duration
        self.from = from
        self.to = to
    }

    /// Its length in seconds.
    public var seconds: Double { Double(duration) / 1e9 }

    /// The open model's requests it plans: the mean of its rates times its length.
    public var planned: Double { (from + to) / 2 * seconds }
}

extension LoadResult {
    /// Stage `index` seen as a run of its own, for its report line and `--fail-if name:…`: its
    /// counts, histogram and outcomes over its length, the open model at its mean planned rate;
    /// its per-second series is the part of the run's that falls in it.
    public func stageRun(_ index: Int) -> LoadResult {
        let stage = stages[index]
        var model = model
        if case .open = model { model = .open(rate: (stage.from + stage.to) / 2) }
        if case .closed = model { model = .closed(concurrency: Int(max(stage.from, stage.to).rounded())) }
        var run = LoadResult(
            scenario: scenario, model: model, connections: connections, duration: stage.duration, warmup: 0)
        run.sent = stage.sent
        run.completed = stage.completed
        run.unfinished = stage.unfinished
        run.errors = stage.errors
        run.latency = stage.latency
        run.outcomes = stage.outcomes
        let first = Int(stage.offset / 1_000_000_000)
        let last = Int((stage.offset + stage.duration + 999_999_999) / 1_000_000_000)
        if first < perSecond.count { run.perSecond = Array(perSecond[first..<min(last, perSecond.count)]) }
        run.interrupted = interrupted
        run.shard = shard
        return run
    }

    /// The stage named `name`'s index.
    public func stageIndex(named name: String) -> Int? { stages.firstIndex { $0.name == name } }
}

/// One second of a run's latencies: how many answers came in it and their percentiles, in
/// nanoseconds.
public struct SecondSample: Sendable, Hashable {
    /// The end of the second, in nanoseconds after the warm-up.
    public var offset: UInt64
    /// Answers in it.
    public var count: UInt64
    /// The median.
    public var p50: UInt64
    /// The 90th percentile.
    public var p90: UInt64
    /// The 99th percentile.
    public var p99: UInt64
    /// The 99.9th percentile.
    public var p999: UInt64
    /// The largest.
    public var max: UInt64

    /// A sample with these figures.
    public init(
        offset: UInt64, count: UInt64, p50: UInt64, p90: UInt64, p99: UInt64, p999: UInt64, max: UInt64
    ) {
        self.offset = offset
        self.count = count
        self.p50 = p50
        self.p90 = p90
        self.p99 = p99
        self.p999 = p999
        self.max = max
    }

    /// The sample of `histogram`, one second's latencies, ending at `offset`.
    public init(offset: UInt64, _ histogram: LatencyHistogram) {
        self.init(
            offset: offset, count: histogram.count, p50: histogram.value(atPercentile: 50),
            p90: histogram.value(atPercentile: 90), p99: histogram.value(atPercentile: 99),
            p999: histogram.value(atPercentile: 99.9), max: histogram.max)
    }
}
