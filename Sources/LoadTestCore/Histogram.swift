/// A latency histogram in the manner of HdrHistogram: log-linear buckets whose width grows with the
/// value, so every recorded value is kept to within 1/128 of itself (better than two significant
/// digits) from 1 ns to 2^63 ns, in a fixed 7,424 counters.
///
/// Values below 256 have a counter each; above, each power of two is split into 128 equal
/// sub-buckets. Recording is O(1) with no allocation; merging adds counters; a percentile walks the
/// counters once. The exact minimum, maximum and sum are kept beside the counters.
public struct LatencyHistogram: Sendable, Hashable {
    /// Sub-buckets per power of two above the linear range (the relative error is 1/this).
    public static let subBucketHalfCount = 128
    private static let subBucketCount = 256
    private static let counterCount = 256 + 56 * 128

    private var counts: [UInt64]
    /// How many values were recorded.
    public private(set) var count: UInt64 = 0
    /// The smallest value recorded (0 when empty).
    public private(set) var min: UInt64 = 0
    /// The largest value recorded (0 when empty).
    public private(set) var max: UInt64 = 0
    /// The sum of the recorded values (for the mean), saturating.
    public private(set) var sum: UInt64 = 0

    /// An empty histogram.
    public init() {
        counts = [UInt64](repeating: 0, count: Self.counterCount)
    }

    /// The counter index of `value`.
    @inline(__always)
    static func index(of value: UInt64) -> Int {
        if value < UInt64(subBucketCount) { return Int(value) }
        let width = 64 - value.leadingZeroBitCount  // 9 or more
        let shift = width - 8
        let sub = Int(value >> UInt64(shift))  // 128...255
        return subBucketCount + (shift - 1) * subBucketHalfCount + (sub - subBucketHalfCount)
    }

    /// The smallest and largest values that share counter `index`.
    static func range(of index: Int) -> (lowest: UInt64, highest: UInt64) {
        if index < subBucketCount { return (UInt64(index), UInt64(index)) }
        let above = index - subBucketCount
        let shift = above / subBucketHalfCount + 1
        let sub = UInt64(above % subBucketHalfCount + subBucketHalfCount)
        let lowest = sub << UInt64(shift)
        return (lowest, lowest + (UInt64(1) << UInt64(shift)) - 1)
    }

    /// Records `value` once.
    @inline(__always)
    public mutating func record(_ value: UInt64) {
        counts[Self.index(of: value)] &+= 1
        if count == 0 || value < min { min = value }
        if value > max { max = value }
        count += 1
        let (total, overflow) = sum.addingReportingOverflow(value)
        sum = overflow ? UInt64.max : total
    }

    /// Adds every value of `other`.
    public mutating func merge(_ other: LatencyHistogram) {
        guard other.count > 0 else { return }
        for index in other.counts.indices where other.counts[index] != 0 {
            counts[index] &+= other.counts[index]
        }
        if count == 0 || other.min < min { min = other.min }
        if other.max > max { max = other.max }
        count += other.count
        let (total, overflow) = sum.addingReportingOverflow(other.sum)
        sum = overflow ? UInt64.max : total
    }

    /// The mean of the recorded values (0 when empty).
    public var mean: Double { count == 0 ? 0 : Double(sum) / Double(count) }

    /// The value at `percentile` (0...100): the smallest recorded value, to within the histogram's
    /// resolution, that at least `percentile` % of the values are at or below. As HdrHistogram
    /// does, the bucket's highest equivalent value is returned, clamped to the exact min and max;
    /// 0 gives the minimum, 100 the maximum. 0 when empty.
    public func value(atPercentile percentile: Double) -> UInt64 {
        guard count > 0 else { return 0 }
        let clamped = Swift.min(Swift.max(percentile, 0), 100)
        let rank = Swift.max(1, UInt64((clamped / 100 * Double(count)).rounded(.up)))
        if rank >= count { return max }
        var seen: UInt64 = 0
        for index in counts.indices {
            seen += counts[index]
            if seen >= rank {
                return Swift.min(Swift.max(Self.range(of: index).highest, min), max)
            }
        }
        return max
    }

    /// The percentile curve for a plot: for each of `percentiles`, the value at it.
    public func values(atPercentiles percentiles: [Double]) -> [UInt64] {
        percentiles.map { value(atPercentile: $0) }
    }

    /// A histogram rebuilt from its ``buckets`` and its exact ``min``, ``max`` and ``sum``, as a
    /// result file carries them: the same histogram that wrote them, counter for counter. nil when
    /// they cannot come from one (a value that is not a bucket's highest, buckets out of order, a
    /// zero count, min or max outside the buckets).
    public init?(buckets: [(value: UInt64, count: UInt64)], min: UInt64, max: UInt64, sum: UInt64) {
        self.init()
        var previous = -1
        for bucket in buckets {
            let index = Self.index(of: bucket.value)
            guard bucket.count > 0, index > previous, Self.range(of: index).highest == bucket.value else {
                return nil
            }
            let (total, overflow) = count.addingReportingOverflow(bucket.count)
            guard !overflow else { return nil }
            counts[index] = bucket.count
            count = total
            previous = index
        }
        guard let first = buckets.first, let last = buckets.last else {
            guard min == 0, max == 0, sum == 0 else { return nil }
            return
        }
        guard Self.index(of: min) == Self.index(of: first.value),
            Self.index(of: max) == Self.index(of: last.value),
            min <= max
        else { return nil }
        self.min = min
        self.max = max
        self.sum = sum
    }

    /// The non-empty counters as (highest equivalent value, count) pairs in increasing order, for
    /// the JSON result.
    public var buckets: [(value: UInt64, count: UInt64)] {
        counts.indices.compactMap { index in
            counts[index] == 0 ? nil : (Self.range(of: index).highest, counts[index])
        }
    }
}
