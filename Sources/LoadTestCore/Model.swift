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

/// The fixed send times of the open model: request `i` is due `i / rate` seconds after the start.
///
/// Times come from the index, not from adding intervals, so they do not drift however long the run.
public struct OpenSchedule: Sendable, Hashable {
    /// The first request's time (monotonic nanoseconds).
    public let start: UInt64
    /// Requests per second.
    public let rate: Double

    /// A schedule of `rate` requests per second from `start`.
    public init(start: UInt64, rate: Double) {
        precondition(rate > 0 && rate.isFinite, "the rate must be positive")
        self.start = start
        self.rate = rate
    }

    /// When request `index` is due.
    @inline(__always)
    public func time(of index: Int) -> UInt64 {
        start + UInt64((Double(index) * 1e9 / rate).rounded())
    }

    /// How many requests are due in `nanoseconds` from the start (those with a time strictly before
    /// `start + nanoseconds`).
    public func count(within nanoseconds: UInt64) -> Int {
        let estimate = Int((Double(nanoseconds) * rate / 1e9).rounded(.up))
        var count = Swift.max(0, estimate - 2)
        while time(of: count) < start + nanoseconds { count += 1 }
        return count
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

    /// A plan.
    public init(
        model: LoadModel, duration: UInt64, warmup: UInt64 = 0, maxRequests: Int? = nil,
        drainTimeout: UInt64 = 15_000_000_000
    ) {
        self.model = model
        self.duration = duration
        self.warmup = warmup
        self.maxRequests = maxRequests
        self.drainTimeout = drainTimeout
    }
}

/// How one request ended: a label (`login 200`, `error overloaded`) and whether it counts as an
/// error.
public struct Outcome: Sendable, Hashable {
    /// The label the report counts by.
    public let label: String
    /// Whether it is an error (a failed call, or an answer the scenario did not expect).
    public let isError: Bool

    /// An outcome.
    public init(_ label: String, isError: Bool) {
        self.label = label
        self.isError = isError
    }
}
