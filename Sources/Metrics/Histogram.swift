/// A Prometheus-style histogram of durations: a count per bucket with a fixed upper bound, the sum
/// and the count, kept in integer nanoseconds so that recording is a few integer comparisons and
/// additions with no allocation.
///
/// A value is counted in the first bucket whose bound it does not exceed (`le`, "less than or
/// equal"), or in the overflow bucket (`+Inf`) past the last bound. Histograms with the same bounds
/// add bucket by bucket (``add(_:)``), so the shards of a process report one.
///
/// ```swift
/// var latency = DurationHistogram()
/// latency.record(nanoseconds: 180_000)   // 0.18 ms: counted in le="0.00025"
/// ```
public struct DurationHistogram: Sendable, Hashable {
    /// The default bounds, in seconds: 0.05 ms to 10 s, about three per decade, for request latencies
    /// from a cached answer on the same host to a slow password hash behind a queue.
    public static let latencyBounds: [Double] = [
        0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
        2.5, 5, 10,
    ]

    /// The bounds in nanoseconds, ascending.
    public let boundsNanoseconds: [UInt64]
    /// One count per bound, then the overflow bucket's (not cumulative).
    public private(set) var counts: [UInt64]
    /// The sum of the values recorded, in nanoseconds (saturating).
    public private(set) var sumNanoseconds: UInt64 = 0
    /// How many values were recorded.
    public private(set) var count: UInt64 = 0

    /// An empty histogram with `bounds` (seconds, ascending; the default: ``latencyBounds``).
    public init(bounds: [Double] = DurationHistogram.latencyBounds) {
        var nanoseconds = bounds.map { UInt64(($0 * 1e9).rounded()) }
        nanoseconds.sort()
        boundsNanoseconds = nanoseconds
        counts = [UInt64](repeating: 0, count: nanoseconds.count + 1)
    }

    /// The bounds in seconds.
    public var bounds: [Double] { boundsNanoseconds.map { Double($0) / 1e9 } }

    /// The sum in seconds.
    public var sumSeconds: Double { Double(sumNanoseconds) / 1e9 }

    /// Counts one value of `nanoseconds`.
    @inlinable
    public mutating func record(nanoseconds value: UInt64) {
        var index = 0
        let bounds = boundsNanoseconds
        while index < bounds.count, value > bounds[index] { index += 1 }
        record(value, inBucket: index)
    }

    /// Counts one duration (a negative one as zero).
    public mutating func record(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 else { return record(nanoseconds: 0) }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        record(nanoseconds: overflow ? .max : whole &+ UInt64(attoseconds / 1_000_000_000))
    }

    @usableFromInline
    mutating func record(_ value: UInt64, inBucket index: Int) {
        counts[index] &+= 1
        count &+= 1
        let (sum, overflow) = sumNanoseconds.addingReportingOverflow(value)
        sumNanoseconds = overflow ? .max : sum
    }

    /// Adds `other`'s counts (same bounds) to this one's; a histogram of other bounds is ignored.
    public mutating func add(_ other: DurationHistogram) {
        guard other.boundsNanoseconds == boundsNanoseconds else { return }
        for index in counts.indices { counts[index] &+= other.counts[index] }
        count &+= other.count
        let (sum, overflow) = sumNanoseconds.addingReportingOverflow(other.sumNanoseconds)
        sumNanoseconds = overflow ? .max : sum
    }

    /// The cumulative counts, one per bound then `+Inf` (which equals ``count``): what the
    /// exposition's `_bucket` lines carry.
    public var cumulativeCounts: [UInt64] {
        var running: UInt64 = 0
        return counts.map { count in
            running &+= count
            return running
        }
    }
}
