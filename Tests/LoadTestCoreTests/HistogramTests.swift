import LoadTestCore
import Testing

/// The exact value at `percentile` of `sorted` with the histogram's rank rule: the smallest value
/// that at least `percentile` % of the values are at or below.
private func exactPercentile(_ sorted: [UInt64], _ percentile: Double) -> UInt64 {
    let rank = max(1, Int((percentile / 100 * Double(sorted.count)).rounded(.up)))
    return sorted[min(rank, sorted.count) - 1]
}

/// `count` latencies spread over six decades (1 µs to 1 s), log-uniform, from a seeded generator.
private func samples(count: Int, seed: UInt64) -> [UInt64] {
    var generator = SplitMix64(seed: seed)
    return (0..<count).map { _ in
        let exponent = Double(generator.next() % 1_000_000) / 1_000_000 * 6  // 0...6 decades
        var value = 1_000.0
        var remaining = exponent
        while remaining >= 1 {
            value *= 10
            remaining -= 1
        }
        return UInt64(value * (1 + remaining * 9))  // within the decade, roughly uniform
    }
}

@Suite("LatencyHistogram against exact percentiles", .timeLimit(.minutes(1)))
struct HistogramTests {
    @Test("every percentile is within 1/128 of the exact one, for several seeds")
    func percentilesAgainstExact() {
        for seed in [1, 2, 3, 42, 2026] as [UInt64] {
            let values = samples(count: 50_000, seed: seed)
            var histogram = LatencyHistogram()
            for value in values { histogram.record(value) }
            let sorted = values.sorted()
            #expect(histogram.count == UInt64(values.count))
            #expect(histogram.min == sorted[0])
            #expect(histogram.max == sorted[sorted.count - 1])
            for percentile in [0.1, 1, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 100] {
                let exact = exactPercentile(sorted, percentile)
                let measured = histogram.value(atPercentile: percentile)
                // The bucket's highest value: never below the exact one, above it by under 1/128.
                #expect(measured >= exact, "p\(percentile) seed \(seed)")
                #expect(
                    Double(measured - exact) <= Double(exact) / 128 + 1,
                    "p\(percentile) seed \(seed): \(measured) vs exact \(exact)")
            }
        }
    }

    @Test("small values are exact; the mean is exact")
    func smallValuesExact() {
        var histogram = LatencyHistogram()
        for value in 1...200 as ClosedRange<UInt64> { histogram.record(value) }
        #expect(histogram.value(atPercentile: 50) == 100)
        #expect(histogram.value(atPercentile: 99) == 198)
        #expect(histogram.value(atPercentile: 0) == 1)
        #expect(histogram.value(atPercentile: 100) == 200)
        #expect(histogram.mean == 100.5)
    }

    @Test("merging equals recording everything in one")
    func mergeEqualsOne() {
        let values = samples(count: 20_000, seed: 7)
        var whole = LatencyHistogram()
        var parts = [LatencyHistogram(), LatencyHistogram(), LatencyHistogram()]
        for (index, value) in values.enumerated() {
            whole.record(value)
            parts[index % 3].record(value)
        }
        var merged = LatencyHistogram()
        for part in parts { merged.merge(part) }
        #expect(merged == whole)
        #expect(merged.buckets.map(\.count).reduce(0, +) == UInt64(values.count))
    }

    @Test("empty, one value, and the extremes of the range")
    func edges() {
        var histogram = LatencyHistogram()
        #expect(histogram.value(atPercentile: 99) == 0)
        #expect(histogram.count == 0)
        histogram.record(12_345_678)
        #expect(histogram.value(atPercentile: 1) == 12_345_678)
        #expect(histogram.value(atPercentile: 99.9) == 12_345_678)
        histogram.record(UInt64.max)
        histogram.record(0)
        #expect(histogram.max == UInt64.max)
        #expect(histogram.min == 0)
        #expect(histogram.value(atPercentile: 100) == UInt64.max)
    }
}
