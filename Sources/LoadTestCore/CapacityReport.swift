public import Foundation
import Measuring

extension CapacityResult {
    /// The search's report: the answer, then the curve, one line per step in the order they ran.
    public func report() -> String {
        var lines: [String] = []
        let scenario = steps.first?.run.scenario ?? ""
        if let capacity {
            let bracket = missed.map { " (\(rateText($0)) req/s missed it)" } ?? " (no step missed it)"
            lines.append(
                "auth-loadtest: capacity of \(scenario) for '\(objective)': \(rateText(capacity)) req/s\(bracket)"
            )
        } else {
            lines.append("auth-loadtest: capacity of \(scenario) for '\(objective)': no rate tried met it")
        }
        if boundReached {
            lines.append(
                "  the time bound (--duration) ended the search before the interval was within "
                    + "\(fixed(precision * 100, 0)) %")
        }
        let header = [
            "step", "phase", "rate/s", "sent/s", "answered/s", "p50", "p99", "errors", "tool cpu", "verdict",
        ]
        let rows: [[String]] = steps.enumerated().map { index, step in
            let run = step.run
            var verdict = step.passed ? "met" : "MISSED"
            let missedConditions = step.verdicts.filter { !$0.passed }.map {
                "\($0.condition) (\($0.measured))"
            }
            if !step.passed {
                verdict +=
                    ": " + (missedConditions + [step.shortfall].compactMap { $0 }).joined(separator: ", ")
            }
            return [
                "\(index + 1)", step.phase.rawValue, rateText(step.rate), fixed(run.sentRate, 1),
                fixed(run.completedRate, 1),
                DurationText.format(run.latency.value(atPercentile: 50)),
                DurationText.format(run.latency.value(atPercentile: 99)), "\(fixed(run.errorPercent, 2)) %",
                "\(fixed(step.cpuPercent, 0)) %", verdict,
            ]
        }
        let table = [header] + rows
        lines.append("  curve")
        lines += tableLines(table)
        return lines.joined(separator: "\n") + "\n"
    }

    /// The run the result file's main members describe: the best step's, else the first step's.
    public var representativeRun: LoadResult? { best?.run ?? steps.first?.run }

    /// The `capacity` member of the result file.
    var jsonPart: JSONReport.CapacityPart {
        JSONReport.CapacityPart(
            objective: objective, rate: capacity, missedRate: missed, precision: precision,
            boundReached: boundReached,
            steps: steps.map { step in
                JSONReport.CapacityPart.Step(
                    rate: step.rate, phase: step.phase.rawValue, passed: step.passed,
                    shortfall: step.shortfall,
                    sentRate: step.run.sentRate, completedRate: step.run.completedRate,
                    p50Milliseconds: DurationText.milliseconds(step.run.latency.value(atPercentile: 50)),
                    p99Milliseconds: DurationText.milliseconds(step.run.latency.value(atPercentile: 99)),
                    errorPercent: step.run.errorPercent, cpuPercent: step.cpuPercent, verdicts: step.verdicts)
            })
    }

    /// The result file (`--json`): the best step's run as the main members, and the whole search
    /// under `capacity`; `verdicts` are the `--fail-if` conditions' on that run.
    public func json(verdicts: [ThresholdVerdict] = []) throws -> Data {
        guard let run = representativeRun else { return Data() }
        return try run.json(verdicts: verdicts, capacity: jsonPart)
    }

    /// The curve as an SVG image: p50 and p99 by rate (met in green, missed in red), and errors and
    /// the tool's CPU by rate.
    public func svg() -> String {
        let width = 1_000.0
        let height = 360.0
        let panel = (width: 400.0, height: 260.0)
        let left = (x: 70.0, y: 50.0)
        let right = (x: 550.0, y: 50.0)
        let ordered = steps.sorted { $0.rate < $1.rate }
        let topRate = niceCeiling(max(ordered.last?.rate ?? 1, 1))
        let topLatency = niceCeiling(
            max(ordered.map { Double($0.run.latency.value(atPercentile: 99)) / 1e6 }.max() ?? 1, 0.001))
        let topPercent = niceCeiling(
            max(ordered.map { max($0.run.errorPercent, $0.cpuPercent) }.max() ?? 1, 1))
        let answer = capacity.map { "\(rateText($0)) req/s" } ?? "none"
        var out = svgOpening(
            width: width, height: height,
            title:
                "auth-loadtest: capacity of \(steps.first?.run.scenario ?? "") for '\(objective)': \(answer)")
        func point(_ origin: (x: Double, y: Double), _ rate: Double, _ value: Double, _ top: Double) -> (
            Double, Double
        ) {
            (origin.x + panel.width * rate / topRate, origin.y + panel.height * (1 - min(value / top, 1)))
        }
        func series(
            _ origin: (x: Double, y: Double), _ top: Double, _ color: String, dashed: Bool = false,
            _ value: (CapacityStep) -> Double
        ) -> [String] {
            let points = ordered.map { point(origin, $0.rate, value($0), top) }
            let path = points.map { "\(fixed($0.0, 1)),\(fixed($0.1, 1))" }.joined(separator: " ")
            var lines = [
                #"<polyline fill="none" stroke="\#(color)" stroke-width="1.5" "#
                    + (dashed ? #"stroke-dasharray="4 3" "# : "") + #"points="\#(path)"/>"#
            ]
            for (step, (x, y)) in zip(ordered, points) {
                lines.append(
                    #"<circle cx="\#(fixed(x, 1))" cy="\#(fixed(y, 1))" r="3.5" fill="\#(step.passed ? "seagreen" : "crimson")"/>"#
                )
            }
            return lines
        }
        func frame(_ origin: (x: Double, y: Double), _ title: String, _ top: Double, unit: String) {
            let bottom = origin.y + panel.height
            out.append(
                #"<text x="\#(origin.x + panel.width / 2)" y="\#(origin.y - 10)" text-anchor="middle">\#(escape(title))</text>"#
            )
            out.append(
                #"<path d="M\#(origin.x),\#(origin.y) V\#(bottom) H\#(origin.x + panel.width)" fill="none" stroke="black"/>"#
            )
            for (step, label) in axisLabels((0...4).map { top * Double($0) / 4 }).enumerated() {
                let y = origin.y + panel.height * (1 - Double(step) / 4)
                out.append(
                    #"<line x1="\#(origin.x - 5)" y1="\#(fixed(y, 1))" x2="\#(origin.x)" y2="\#(fixed(y, 1))" stroke="black"/>"#
                )
                out.append(
                    #"<text x="\#(origin.x - 8)" y="\#(fixed(y + 4, 1))" text-anchor="end">\#(escape(label + unit))</text>"#
                )
            }
            for (step, label) in axisLabels((0...4).map { topRate * Double($0) / 4 }).enumerated() {
                let x = origin.x + panel.width * Double(step) / 4
                out.append(
                    #"<line x1="\#(fixed(x, 1))" y1="\#(bottom)" x2="\#(fixed(x, 1))" y2="\#(bottom + 5)" stroke="black"/>"#
                )
                out.append(
                    #"<text x="\#(fixed(x, 1))" y="\#(bottom + 18)" text-anchor="middle">\#(escape(label))</text>"#
                )
            }
            out.append(
                #"<text x="\#(origin.x + panel.width / 2)" y="\#(bottom + 36)" text-anchor="middle">requests per second</text>"#
            )
        }
        frame(left, "latency (ms): p99 solid, p50 dashed", topLatency, unit: "")
        out += series(left, topLatency, "steelblue") { Double($0.run.latency.value(atPercentile: 99)) / 1e6 }
        out += series(left, topLatency, "steelblue", dashed: true) {
            Double($0.run.latency.value(atPercentile: 50)) / 1e6
        }
        frame(right, "errors (red) and the tool's CPU (gray), % ", topPercent, unit: "")
        out += series(right, topPercent, "crimson") { $0.run.errorPercent }
        out += series(right, topPercent, "gray") { $0.cpuPercent }
        if let capacity {
            for origin in [left, right] {
                let x = origin.x + panel.width * capacity / topRate
                out.append(
                    #"<line x1="\#(fixed(x, 1))" y1="\#(origin.y)" x2="\#(fixed(x, 1))" y2="\#(origin.y + panel.height)" stroke="seagreen" stroke-dasharray="2 3"/>"#
                )
            }
        }
        out.append("</svg>")
        return out.joined(separator: "\n") + "\n"
    }
}

/// A rate as the curve shows it: whole and grouped from 100 up (`2,500`), one decimal below (`37.5`).
func rateText(_ rate: Double) -> String { rate >= 100 ? grouped(rate) : fixed(rate, 1) }
