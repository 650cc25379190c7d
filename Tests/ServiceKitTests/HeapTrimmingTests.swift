import Testing

@testable import ServiceKit

/// When the host gives freed heap memory back: only after a burst of frees, once per burst.
@Suite(.timeLimit(.minutes(1)))
struct HeapTrimmingTests {
    private let trimming = HeapTrimming(interval: .seconds(1), threshold: 100)

    @Test func theFirstCheckOnlyRecords() {
        #expect(trimming.check(free: 5_000, baseline: nil) == .init(baseline: 5_000, trims: false))
    }

    @Test func aBurstOfFreesTrims() {
        #expect(trimming.check(free: 1_100, baseline: 1_000) == .init(baseline: 1_100, trims: true))
    }

    @Test func lessThanTheThresholdDoesNot() {
        #expect(trimming.check(free: 1_099, baseline: 1_000) == .init(baseline: 1_000, trims: false))
    }

    @Test func reuseLowersTheBaseline() {
        // Memory taken again from the free lists: the next burst is measured from the low point.
        let lower = trimming.check(free: 400, baseline: 1_000)
        #expect(lower == .init(baseline: 400, trims: false))
        #expect(trimming.check(free: 500, baseline: lower.baseline).trims)
    }
}
