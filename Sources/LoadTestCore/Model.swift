/// How requests are paced.
public enum LoadModel: Sendable, Hashable, CustomStringConvertible {
    /// Open model: `rate` requests per second on a fixed schedule, whatever the replies do; a
    /// request's latency runs from its *scheduled* send time (coordinated omission corrected, as
    /// wrk2 does).
    case open(rate: Double)
    /// Closed model: `concurrency` requests in flight, each reply sending the next; latency runs
    /// from the actual send.
    case closed(concurrency: Int)

    /// `open at 2,000 req/s` or `closed, 64 in flight`.
    public var description: String {
        switch self {
        case .open(let rate): "open model at \(DurationText.significant(rate)) req/s"
        case .closed(let concurrency): "closed model, \(concurrency) in flight"
        }
    }
}

/// The fixed send times of the open model: at a constant rate, request `i` is due `i / rate`
/// seconds after the start; on a ramp (``Ramp``), when the ramp's integral reaches `i`.
///
/// Times come from the index, not from adding intervals, so they do not drift however long the run.
public struct OpenSchedule: Sendable, Hashable {
    /// The first request's time (monotonic nanoseconds).
    public let start: UInt64
    /// The constant rate (requests per second), or 0 for a ramp.
    private let rate: Double
    /// A ramp's pieces, with the requests due before each (empty at a constant rate).
    private let pieces: [Ramp.Piece]
    private let before: [Double]
    private let total: Double

    /// A schedule of `rate` requests per second from `start`, without end.
    public init(start: UInt64, rate: Double) {
        precondition(rate > 0 && rate.isFinite, "the rate must be positive")
        self.start = start
        self.rate = rate
        pieces = []
        before = []
        total = .infinity
    }

    /// A schedule whose rate follows `ramp` (requests per second) from `start`, ending with it.
    public init(start: UInt64, ramp: Ramp) {
        self.start = start
        rate = 0
        pieces = ramp.pieces
        var sum = 0.0
        var before: [Double] = []
        for piece in ramp.pieces {
            before.append(sum)
            sum += (piece.from + piece.to) / 2 * Double(piece.duration) / 1e9
        }
        self.before = before
        total = sum
    }

    /// When request `index` is due (`UInt64.max` past a ramp's last request).
    @inline(__always)
    public func time(of index: Int) -> UInt64 {
        if rate > 0 { return start + UInt64((Double(index) * 1e9 / rate).rounded()) }
        return rampTime(of: Double(index))
    }

    private func rampTime(of index: Double) -> UInt64 {
        guard index < total, !pieces.isEmpty else { return .max }
        // The last piece that starts at or before `index`: pieces without requests are passed over.
        var low = 0
        var high = pieces.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if before[middle] <= index { low = middle } else { high = middle - 1 }
        }
        let piece = pieces[low]
        let local = index - before[low]
        let (from, to) = (piece.from, piece.to)
        let seconds = Double(piece.duration) / 1e9
        // The `local`-th request of a piece whose rate goes linearly from `from` to `to` is due at
        // the τ where from·τ + (to − from)·τ²/(2·seconds) = local; this form of the root is stable
        // for rising, falling and flat pieces.
        let tau: Double
        if local <= 0 {
            tau = 0
        } else if from == to {
            tau = local / from
        } else {
            let root = (from * from + 2 * (to - from) * local / seconds).squareRoot()
            tau = 2 * local / (from + root)
        }
        let offset = min(UInt64((tau * 1e9).rounded()), piece.duration)
        return start + piece.offset + offset
    }

    /// How many requests are due in `nanoseconds` from the start (those with a time strictly before
    /// `start + nanoseconds`).
    public func count(within nanoseconds: UInt64) -> Int {
        var count = Swift.max(0, Int(expected(within: nanoseconds).rounded(.up)) - 2)
        while time(of: count) < start + nanoseconds { count += 1 }
        return count
    }

    /// The requests due in the first `nanoseconds`, as a real number (the rate's integral).
    private func expected(within nanoseconds: UInt64) -> Double {
        if rate > 0 { return Double(nanoseconds) * rate / 1e9 }
        guard !pieces.isEmpty else { return 0 }
        var index = pieces.count - 1
        while index > 0 && pieces[index].offset > nanoseconds { index -= 1 }
        let piece = pieces[index]
        let seconds = Double(piece.duration) / 1e9
        let elapsed =
            Double(Swift.min(nanoseconds - Swift.min(nanoseconds, piece.offset), piece.duration)) / 1e9
        return before[index] + piece.from * elapsed + (piece.to - piece.from) * elapsed * elapsed
            / (2 * seconds)
    }
}

/// What a run does: pacing, duration, warm-up, bounds.
public struct RunPlan: Sendable, Hashable {
    /// The pacing.
    public var model: LoadModel
    /// The measured time, after the warm-up, in nanoseconds.
    public var duration: UInt64
    /// The warm-up before it (requests sent then are not counted), in nanoseconds.
    public var warmup: UInt64
    /// The most requests sent in all (warm-up included); nil: only time bounds the run.
    public var maxRequests: Int?
    /// How long to wait, after the last send, for the replies still out, in nanoseconds.
    public var drainTimeout: UInt64
    /// The stages the load ramps through after the warm-up, starting from the model's rate or
    /// concurrency (which the warm-up keeps); empty for a constant load.
    public var stages: [Stage]

    /// A plan. With `stages`, the measured time is theirs and `duration` is not used.
    public init(
        model: LoadModel, duration: UInt64, warmup: UInt64 = 0, maxRequests: Int? = nil,
        drainTimeout: UInt64 = 15_000_000_000, stages: [Stage] = []
    ) {
        self.model = model
        self.stages = stages
        self.duration = stages.isEmpty ? duration : stages.reduce(0) { $0 + $1.duration }
        self.warmup = warmup
        self.maxRequests = maxRequests
        self.drainTimeout = drainTimeout
    }

    /// The load the model starts from: the open model's rate or the closed model's concurrency.
    public var startValue: Double {
        switch model {
        case .open(let rate): rate
        case .closed(let concurrency): Double(concurrency)
        }
    }

    /// The load over the measured time: the stages from ``startValue``, or one flat piece.
    public var ramp: Ramp {
        Ramp(
            start: startValue,
            stages: stages.isEmpty ? [Stage(name: "run", duration: duration, target: startValue)] : stages)
    }
}

/// How one request ended: a label (`login 200`, `error overloaded`) and whether it counts as an
/// error; for a request made of several interactions (a virtual user's session on a flow), the
/// latency of each output the user waited for, by kind.
public struct Outcome: Sendable, Hashable {
    /// One awaited output: what kind of wait (`keystroke`, `tap`, `screen`) and how long, in
    /// nanoseconds.
    public struct Sample: Sendable, Hashable {
        /// The kind of wait.
        public var kind: String
        /// Its latency.
        public var nanoseconds: UInt64

        /// A sample.
        public init(_ kind: String, _ nanoseconds: UInt64) {
            self.kind = kind
            self.nanoseconds = nanoseconds
        }
    }

    /// The label the report counts by.
    public let label: String
    /// Whether it is an error (a failed call, or an answer the scenario did not expect).
    public let isError: Bool
    /// The latencies to record instead of the request's own (from its send to this outcome); nil
    /// for a single call.
    public let samples: [Sample]?

    /// An outcome.
    public init(_ label: String, isError: Bool, samples: [Sample]? = nil) {
        self.label = label
        self.isError = isError
        self.samples = samples
    }
}
