import Metrics
import Testing

@Suite("Exposition: the Prometheus text format 0.0.4", .timeLimit(.minutes(1)))
struct ExpositionTests {
    @Test("a counter with labels: HELP, TYPE and one line per sample, in order")
    func counter() {
        var family = MetricFamily("reactive_login_requests_total", .counter, help: "Calls finished.")
        family.add(3, ["method": "auth.login", "code": "ok"])
        family.add(1, ["method": "auth.login", "code": "timeout"])
        #expect(
            Exposition.text([family]) == """
                # HELP reactive_login_requests_total Calls finished.
                # TYPE reactive_login_requests_total counter
                reactive_login_requests_total{method="auth.login",code="ok"} 3
                reactive_login_requests_total{method="auth.login",code="timeout"} 1

                """)
    }

    @Test("label values escape backslash, double quote and line feed; help escapes backslash and line feed")
    func escaping() {
        var family = MetricFamily("x_total", .counter, help: "a \\ b\nc \"quoted\"")
        family.add(1, ["path": "C:\\dir \"q\"\nnext"])
        #expect(
            Exposition.text([family]) == """
                # HELP x_total a \\\\ b\\nc "quoted"
                # TYPE x_total counter
                x_total{path="C:\\\\dir \\"q\\"\\nnext"} 1

                """)
        #expect(Exposition.escapeLabelValue("plain") == "plain")
    }

    @Test("a histogram: cumulative _bucket lines with le, +Inf, _sum in seconds and _count")
    func histogram() {
        var histogram = DurationHistogram(bounds: [0.001, 0.01, 0.1])
        histogram.record(nanoseconds: 500_000)  // 0.5 ms
        histogram.record(nanoseconds: 1_000_000)  // exactly 1 ms: le="0.001"
        histogram.record(nanoseconds: 20_000_000)  // 20 ms
        histogram.record(.seconds(3))  // past the last bound
        var family = MetricFamily("d_seconds", .histogram, help: "Durations.")
        family.add(histogram, ["method": "m"])
        #expect(
            Exposition.text([family]) == """
                # HELP d_seconds Durations.
                # TYPE d_seconds histogram
                d_seconds_bucket{method="m",le="0.001"} 2
                d_seconds_bucket{method="m",le="0.01"} 2
                d_seconds_bucket{method="m",le="0.1"} 3
                d_seconds_bucket{method="m",le="+Inf"} 4
                d_seconds_sum{method="m"} 3.0215
                d_seconds_count{method="m"} 4

                """)
    }

    @Test("numbers: integers plainly, fractions shortest, infinities and NaN by name")
    func numbers() {
        #expect(Exposition.format(10) == "10")
        #expect(Exposition.format(-3) == "-3")
        #expect(Exposition.format(0.00005) == "5e-05")
        #expect(Exposition.format(0.25) == "0.25")
        #expect(Exposition.format(.infinity) == "+Inf")
        #expect(Exposition.format(-.infinity) == "-Inf")
        #expect(Exposition.format(.nan) == "NaN")
        #expect(Exposition.format(1e300) == "1e+300")
    }

    @Test("invalid names are left out rather than written malformed")
    func invalidNames() {
        var bad = MetricFamily("1bad name", .counter, help: "x")
        bad.add(1)
        var badLabel = MetricFamily("good_total", .counter, help: "x")
        badLabel.add(1, ["bad-label": "v"])
        badLabel.add(2, ["__reserved": "v"])
        badLabel.add(3, ["ok": "v"])
        var histogramWithLE = MetricFamily("h_seconds", .histogram, help: "x")
        histogramWithLE.add(DurationHistogram(), ["le": "1"])
        let text = Exposition.text([bad, badLabel, histogramWithLE])
        #expect(!text.contains("1bad"))
        #expect(!text.contains("bad-label") && !text.contains("__reserved"))
        #expect(text.contains("good_total{ok=\"v\"} 3"))
        #expect(!text.contains("h_seconds_bucket"))
        #expect(MetricFamily.isValidName("a:b_c9") && !MetricFamily.isValidName("") && !MetricFamily.isValidName("a-b"))
        #expect(Labels.isValidName("_x") && !Labels.isValidName("9x") && !Labels.isValidName("a:b"))
    }

    @Test("the default latency bounds run from 0.05 ms to 10 s, ascending")
    func latencyBounds() {
        let bounds = DurationHistogram.latencyBounds
        #expect(bounds.first == 0.000_05 && bounds.last == 10)
        #expect(bounds == bounds.sorted() && Set(bounds).count == bounds.count)
        #expect(DurationHistogram().bounds == bounds)
    }
}

@Suite("DurationHistogram and MetricsRegistry", .timeLimit(.minutes(1)))
struct RegistryTests {
    @Test("histograms of the same bounds add bucket by bucket; others are not mixed in")
    func addHistograms() {
        var left = DurationHistogram(bounds: [0.001, 0.01])
        left.record(nanoseconds: 100)
        var right = DurationHistogram(bounds: [0.001, 0.01])
        right.record(nanoseconds: 5_000_000)
        right.record(nanoseconds: 50_000_000)
        left.add(right)
        #expect(left.counts == [1, 1, 1] && left.count == 3 && left.cumulativeCounts == [1, 2, 3])
        #expect(left.sumNanoseconds == 55_000_100)
        left.add(DurationHistogram(bounds: [1]))
        #expect(left.count == 3)
        var negative = DurationHistogram()
        negative.record(.milliseconds(-5))
        #expect(negative.counts[0] == 1 && negative.sumNanoseconds == 0)
    }

    @Test("families of one name from several collectors merge; samples with equal labels sum")
    func merges() async {
        let registry = MetricsRegistry()
        for shard in 0..<3 {
            registry.register {
                var requests = MetricFamily("r_total", .counter, help: "r")
                requests.add(shard + 1, ["code": "ok"])
                requests.add(1, ["code": "shard\(shard)"])
                var latency = DurationHistogram()
                latency.record(nanoseconds: 1_000)
                var duration = MetricFamily("d_seconds", .histogram, help: "d")
                duration.add(latency)
                return [requests, duration]
            }
        }
        registry.register(now: { [.gauge("g", help: "g", value: 2)] })
        let families = await registry.collect()
        #expect(families.map(\.name) == ["r_total", "d_seconds", "g"])
        let requests = families[0]
        #expect(requests.samples.first { $0.labels == ["code": "ok"] }?.value == .number(6))
        #expect(requests.samples.count == 4)
        guard case .histogram(let merged) = families[1].samples[0].value else {
            Issue.record("not a histogram")
            return
        }
        #expect(merged.count == 3)
    }

    @Test("a family registered again under another kind is not merged into the first")
    func kindMismatch() async {
        let registry = MetricsRegistry()
        registry.register(now: { [.counter("x", help: "x", value: 1)] })
        registry.register(now: { [.gauge("x", help: "x", value: 5)] })
        let families = await registry.collect()
        #expect(families.count == 1 && families[0].samples[0].value == .number(1))
    }
}
