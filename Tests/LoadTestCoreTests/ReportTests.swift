import Foundation
import Testing

@testable import LoadTestCore

@Suite("the report, the JSON and the SVG", .timeLimit(.minutes(1)))
struct ReportTests {
    private func sample() -> LoadResult {
        var result = LoadResult(
            scenario: "mix:login=80,exists=20", model: .open(rate: 1_000), connections: 4,
            duration: 2_000_000_000, warmup: 1_000_000_000)
        for index in 0..<1_990 as Range<UInt64> { result.latency.record(1_000_000 + index * 1_000) }
        result.sent = 2_000
        result.completed = 1_990
        result.unfinished = 10
        result.errors = 15
        result.warmupRequests = 1_000
        result.outcomes = ["login 200": 1_590, "exists ok": 395, "error overloaded": 5]
        result.perSecond = [990, 1_000]
        for _ in 0..<2_000 { result.senderLag.record(60_000) }
        return result
    }

    @Test("the text report has every figure an engineer looks for")
    func text() throws {
        let verdicts = try #require(Threshold.parseList("p99<50ms,errors<0.5%")).evaluate(sample())
        let report = sample().report(verdicts: verdicts)
        for expected in [
            "mix:login=80,exists=20", "open model at 1000 req/s", "2,000 sent", "1,990 answered",
            "10 unanswered", "requested 1000.0/s: 100.0 % sent, 99.5 % answered", "min 1.00ms", "p50 ",
            "p90 ", "p99 ", "p99.9 ", "max 2.99ms", "errors     15 (0.75 %)", "login 200", "error overloaded",
            "answered per second: 990 1,000", "sender     lag p50 60.0µs", "pass  p99<50ms",
            "FAIL  errors<0.5%",
        ] {
            #expect(report.contains(expected), "missing \(expected) in:\n\(report)")
        }
    }

    @Test("--json holds the run, the percentiles, the histogram and the verdicts")
    func json() throws {
        let verdicts = try #require(Threshold.parseList("p99<50ms")).evaluate(sample())
        let data = try sample().json(verdicts: verdicts)
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let document = try decoder.decode(JSONReport.self, from: data)
        #expect(document.sent == 2_000)
        #expect(document.completed == 1_990)
        #expect(document.model == "open")
        #expect(document.requestedRate == 1_000)
        #expect(document.histogram.map(\.count).reduce(0, +) == 1_990)
        #expect(document.latencyMilliseconds.min == 1)
        #expect(document.latencyMilliseconds.percentiles.contains { $0.percentile == 99.9 })
        #expect(document.perSecond == [990, 1_000])
        #expect(document.senderLagMilliseconds?.max == 0.06)
        #expect(document.thresholds.first?.passed == true)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"per_second\""))
        #expect(text.contains("\"latency_milliseconds\""))
    }

    @Test("--svg: one format per axis, and every label inside the image")
    func svgLabels() throws {
        var result = sample()
        result.perSecond = Array(repeating: 1_000, count: 20)
        let svg = result.svg()
        let seconds = ["0s", "5s", "10s", "15s", "20s"]
        for label in seconds { #expect(svg.contains(">\(label)</text>"), "no tick \(label)") }
        #expect(!svg.contains(">5.00s<") && !svg.contains(">10.0s<"))
        #expect(axisLabelsOf(svg, endingWith: "s") == seconds)
        let widthText = try #require(svg.firstMatch(of: /width="([0-9.]+)"/)?.1)
        let width = try #require(Double(widthText))
        // A label of n characters at 12 px is at most 7n px wide (sans-serif digits are about 6.7).
        let labels = /<text x="([0-9.\-]+)"[^>]*text-anchor="(middle|end)"[^>]*>([^<]*)<\/text>/
        for match in svg.matches(of: labels) {
            let x = try #require(Double(match.1))
            let extent = 7.0 * Double(match.3.count)
            let (low, high) = match.2 == "middle" ? (x - extent / 2, x + extent / 2) : (x - extent, x)
            #expect(low >= 0 && high <= width, "\(match.3) at x \(x) leaves the \(width) px image")
        }
        #expect(axisLabels([0, 1.75, 3.5, 5.25, 7]) == ["0.00", "1.75", "3.50", "5.25", "7.00"])
        #expect(axisLabels([0, 0.625, 1.25, 1.875, 2.5]) == ["0.000", "0.625", "1.250", "1.875", "2.500"])
        #expect(axisLabels([0, 500, 1_000, 1_500, 2_000]) == ["0", "500", "1,000", "1,500", "2,000"])
    }

    /// The labels of the time axis: the texts that end with `suffix` and are a number before it.
    private func axisLabelsOf(_ svg: String, endingWith suffix: String) -> [String] {
        svg.matches(of: />([0-9.,]+)s<\/text>/).map { String($0.1) + suffix }
    }

    @Test("--svg is one plain SVG document with both panels")
    func svg() {
        let svg = sample().svg()
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.hasSuffix("</svg>\n"))
        #expect(svg.contains("latency (ms) by percentile"))
        #expect(svg.contains("answered per second"))
        #expect(svg.contains("<polyline"))
        #expect(svg.components(separatedBy: "<rect x=").count - 1 == 2)
        #expect(svg.contains(">99.9%<") && svg.contains(">99.999%<"))
        #expect(!svg.contains("nan") && !svg.contains("inf"))
    }
}
