import LoadTestCore
import Testing

/// A 10-second run whose every second's latencies are `scale` times a jittered base, `rate`
/// answers a second, `errors` of them errors.
func syntheticRun(scale: Double, rate: Int = 500, errors: Int = 0, seed: UInt64 = 1, stages: [Stage] = [])
    -> LoadResult
{
    var run = LoadResult(
        scenario: "exists", model: .open(rate: Double(rate)), connections: 1, duration: 10_000_000_000,
        warmup: 0)
    var generator = SplitMix64(seed: seed)
    var offset: UInt64 = 0
    for stage in stages {
        run.stages.append(
            StageResult(name: stage.name, offset: offset, duration: stage.duration, from: 1, to: 1))
        offset += stage.duration
    }
    for second in 0..<10 {
        var histogram = LatencyHistogram()
        for _ in 0..<rate {
            // 1–3 ms, with a second-to-second wobble of ±10 %.
            let wobble = 0.9 + Double(second % 3) * 0.1
            let value = (1_000_000 + Double(generator.next() % 2_000_000)) * wobble * scale
            histogram.record(UInt64(value))
        }
        run.latency.merge(histogram)
        let end = UInt64(second + 1) * 1_000_000_000
        run.latencySamples.append(SecondSample(offset: end, histogram))
        run.perSecond.append(rate + Int(generator.next() % 5))
        if let index = run.stages.lastIndex(where: { $0.offset < end }) {
            run.stages[index].latency.merge(histogram)
            run.stages[index].sent += rate
            run.stages[index].completed += rate
        }
    }
    run.sent = 10 * rate
    run.completed = 10 * rate
    run.errors = errors
    return run
}

@Suite("compare: side by side, with the noise of the per-second samples", .timeLimit(.minutes(1)))
struct CompareTests {
    @Test("two runs of one distribution differ within the noise; a 20 % slower one is beyond it")
    func noise() {
        let base = syntheticRun(scale: 1, seed: 1)
        let same = RunComparison(base: base, new: syntheticRun(scale: 1, seed: 2))
        let whole = same.parts[0]
        #expect(whole.name == "whole run")
        #expect(whole.rows.map(\.metric) == RunComparison.Metric.allCases)
        for row in whole.rows where row.metric != .max {
            #expect(!row.beyondNoise, "\(row.metric): \(row.interval.map { "\($0)" } ?? "")")
        }
        #expect(same.slower(by: 0.05).isEmpty)

        let slower = RunComparison(base: base, new: syntheticRun(scale: 1.2, seed: 3))
        let p99 = slower.parts[0].rows.first { $0.metric == .p99 }
        #expect(p99?.beyondNoise == true)
        #expect(p99.map { abs($0.change - 0.2) < 0.05 } == true)
        #expect(slower.slower(by: 0.05).map(\.row.metric).contains(.p50))
        #expect(slower.slower(by: 0.5).isEmpty)
        let report = slower.report(baseName: "a.json", newName: "b.json", bound: 0.05)
        #expect(report.contains("WORSE"))
        #expect(report.contains("FAIL  whole run: p50"))
        // And the other way round it is better, and nothing fails.
        let faster = RunComparison(base: syntheticRun(scale: 1.2, seed: 3), new: base)
        #expect(faster.slower(by: 0.05).isEmpty)
        #expect(faster.report(baseName: "b", newName: "a").contains("better"))
    }

    @Test("a run compared with itself: no change, an interval of exactly 1")
    func itself() {
        let run = syntheticRun(scale: 1)
        let comparison = RunComparison(base: run, new: run)
        for row in comparison.parts[0].rows {
            #expect(row.change == 0)
            #expect(!row.beyondNoise)
        }
    }

    @Test("the bootstrap is reproducible and needs three seconds a side")
    func bootstrap() {
        let a = syntheticRun(scale: 1, seed: 4)
        let b = syntheticRun(scale: 1.1, seed: 5)
        let first = RunComparison(base: a, new: b, seed: 9).parts[0].rows.map(\.interval)
        let again = RunComparison(base: a, new: b, seed: 9).parts[0].rows.map(\.interval)
        #expect(first == again)
        var short = a
        short.latencySamples = Array(short.latencySamples.prefix(2))
        short.perSecond = Array(short.perSecond.prefix(2))
        let rows = RunComparison(base: short, new: b).parts[0].rows
        #expect(rows.allSatisfy { $0.interval == nil && ($0.metric == .errors || !$0.beyondNoise) })
        #expect(
            RunComparison(base: short, new: b).report(baseName: "a", newName: "b").contains("too few seconds")
        )
    }

    @Test("errors differ beyond the noise by a two-proportion test")
    func errors() {
        let clean = syntheticRun(scale: 1, errors: 0)
        let fewMore = RunComparison(base: clean, new: syntheticRun(scale: 1, errors: 2))
        #expect(fewMore.parts[0].rows.last?.beyondNoise == false)
        let many = RunComparison(base: clean, new: syntheticRun(scale: 1, errors: 200))
        #expect(many.parts[0].rows.last?.beyondNoise == true)
        #expect(many.parts[0].rows.last?.metric == .errors)
    }

    @Test("stages both runs have are compared one by one, with their own seconds")
    func stages() throws {
        let stages = try #require(Stage.parseList("warm=4s:1,peak=6s:1"))
        let base = syntheticRun(scale: 1, seed: 1, stages: stages)
        var new = syntheticRun(scale: 1, seed: 2, stages: stages)
        new.stages.removeFirst()
        let comparison = RunComparison(base: base, new: new)
        #expect(comparison.parts.map(\.name) == ["whole run", "stage peak"])
        let peak = comparison.parts[1].rows.first { $0.metric == .p50 }
        #expect(peak?.interval != nil)
    }
}
