import LoadTestCore
import Testing

@Suite("scenarios, thresholds, durations and the open schedule", .timeLimit(.minutes(1)))
struct ParsingTests {
    @Test("single scenarios and mixes parse; malformed ones do not")
    func scenarios() throws {
        for kind in RequestKind.allCases {
            #expect(Scenario(parsing: kind.rawValue)?.kinds == [kind])
        }
        let mix = try #require(Scenario(parsing: "mix:login=80,exists=15,register=5"))
        #expect(mix.kinds == [.login, .exists, .register])
        #expect(mix.weights.map(\.weight) == [80, 15, 5])
        #expect(mix.description == "mix:login=80,exists=15,register=5")
        for bad in [
            "", "logon", "mix:", "mix:login", "mix:login=0", "mix:login=-1", "mix:login=80,login=20",
            "mix:login=80,", "mix:nope=1", "mix:login=x",
        ] {
            #expect(Scenario(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test("a mix draws each kind in proportion to its weight")
    func mixProportions() throws {
        let mix = try #require(Scenario(parsing: "mix:login=80,exists=15,register=5"))
        var counts: [RequestKind: Int] = [:]
        for index in 0..<100_000 as Range<UInt64> {
            counts[mix.kind(for: SplitMix64.value(seed: 9, index: index)), default: 0] += 1
        }
        #expect(abs((counts[.login] ?? 0) - 80_000) < 1_000)
        #expect(abs((counts[.exists] ?? 0) - 15_000) < 1_000)
        #expect(abs((counts[.register] ?? 0) - 5_000) < 1_000)
    }

    @Test("durations with units")
    func durations() {
        #expect(DurationText.nanoseconds("50ms") == 50_000_000)
        #expect(DurationText.nanoseconds("1.5s") == 1_500_000_000)
        #expect(DurationText.nanoseconds("800us") == 800_000)
        #expect(DurationText.nanoseconds("2m") == 120_000_000_000)
        #expect(DurationText.nanoseconds("7ns") == 7)
        #expect(DurationText.nanoseconds("50") == nil)
        #expect(DurationText.nanoseconds("-1ms") == nil)
        #expect(DurationText.format(812_000) == "812µs")
        #expect(DurationText.format(12_340_000) == "12.3ms")
        #expect(DurationText.format(1_500_000_000) == "1.50s")
    }

    @Test("--fail-if lists parse and evaluate against a result")
    func thresholds() throws {
        let list = try #require(Threshold.parseList("p99<50ms,errors<1%"))
        #expect(list.count == 2)
        #expect(list[0].metric == .latencyPercentile(99))
        #expect(list[0].comparison == .less)
        #expect(list[0].bound == 50_000_000)
        #expect(list[1].metric == .errorPercent)
        #expect(list[1].bound == 1)
        let more = try #require(Threshold.parseList("p99.9<=2s, max<3s,errors<10,rate>=900,mean<1ms"))
        #expect(more.map(\.comparison) == [.lessOrEqual, .less, .less, .greaterOrEqual, .less])
        #expect(more[0].metric == .latencyPercentile(99.9))
        #expect(more[2].metric == .errorCount)
        #expect(more[3].metric == .throughput)
        for bad in ["", "p99", "p99<50", "p0<1ms", "p101<1ms", "errors<101%", "speed<1ms", "p99=5ms"] {
            #expect(Threshold.parseList(bad) == nil, "\(bad)")
        }

        var result = LoadResult(
            scenario: "login", model: .open(rate: 100), connections: 1, duration: 1_000_000_000, warmup: 0)
        for _ in 0..<98 { result.latency.record(10_000_000) }
        for _ in 0..<2 { result.latency.record(80_000_000) }
        result.sent = 100
        result.completed = 100
        result.errors = 2
        let verdicts = list.evaluate(result)
        #expect(verdicts.map(\.passed) == [false, false])
        #expect(verdicts[0].measured == "80.0ms")
        #expect(verdicts[1].measured == "2.00%")
        let lenient = try #require(Threshold.parseList("p98<50ms,errors<5%,rate>=100"))
        let passed = lenient.evaluate(result).map { $0.passed }
        #expect(passed == [true, true, true])
    }

    @Test("the open schedule's times come from the index and do not drift")
    func openSchedule() {
        let schedule = OpenSchedule(start: 1_000, rate: 3)
        #expect(schedule.time(of: 0) == 1_000)
        #expect(schedule.time(of: 1) == 1_000 + 333_333_333)
        #expect(schedule.time(of: 3) == 1_000 + 1_000_000_000)
        #expect(schedule.time(of: 3_000_000) == 1_000 + 1_000_000_000_000_000)
        #expect(schedule.count(within: 1_000_000_000) == 3)
        #expect(schedule.count(within: 1_000_000_001) == 4)
        #expect(OpenSchedule(start: 0, rate: 20_000).count(within: 2_000_000_000) == 40_000)
    }
}
