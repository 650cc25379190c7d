import Measuring

/// Two runs side by side (`auth-loadtest compare BASE.json NEW.json`): for the whole run and each
/// stage both have, the rate, latency percentiles and errors of each, their change, and whether the
/// change is beyond the run-to-run noise.
///
/// The noise of a latency or rate figure is judged from the runs' per-second samples (each second's
/// percentile, or its answers): a percentile bootstrap of the ratio of the two runs' per-second
/// means, `resamples` times, seconds drawn with replacement within each run. A change is beyond
/// the noise when the 95 % interval of that ratio excludes 1. Errors are compared as two
/// proportions (a two-sided z-test at 5 %). With fewer than three seconds in either run, no change
/// is called beyond the noise.
public struct RunComparison: Sendable {
    /// What a row measures.
    public enum Metric: String, Sendable, Hashable, CaseIterable {
        /// Answers per second (higher is better).
        case rate
        /// Latency percentiles and maximum (lower is better).
        case p50, p90, p99, p999 = "p99.9", max
        /// Errors as a percentage (lower is better).
        case errors

        /// Whether a rise is an improvement.
        public var higherIsBetter: Bool { self == .rate }

        /// The metrics `--fail-if-slower` holds to: all but the maximum (a single sample) and errors
        /// (which `--fail-if` bounds).
        public var countsForSlower: Bool { self != .max && self != .errors }
    }

    /// One figure of both runs.
    public struct Row: Sendable {
        /// What it measures.
        public var metric: Metric
        /// The base run's value: answers per second, nanoseconds, or percent.
        public var base: Double
        /// The new run's.
        public var new: Double
        /// The 95 % interval of new / base from the samples, when there were enough.
        public var interval: ClosedRange<Double>?
        /// Whether the change is beyond the noise.
        public var beyondNoise: Bool

        /// The relative change, new / base − 1 (0 when both are 0; infinite from 0).
        public var change: Double {
            if base == new { return 0 }
            return base == 0 ? .infinity : new / base - 1
        }

        /// How much worse the new run is, as a fraction (negative when better).
        public var worsening: Double { metric.higherIsBetter ? -change : change }
    }

    /// The whole run, or one stage.
    public struct Part: Sendable {
        /// `whole run` or `stage NAME`.
        public var name: String
        /// Its rows, in ``Metric`` order.
        public var rows: [Row]
    }

    /// The parts: the whole run, then each stage both runs have, in the base run's order.
    public var parts: [Part]
    /// What the runs were (scenario and model), for the header.
    public var baseDescription: String
    /// The new run's.
    public var newDescription: String

    /// Compares `new` with `base`; `seed` makes the bootstrap reproducible.
    public init(base: LoadResult, new: LoadResult, resamples: Int = 2_000, seed: UInt64 = 1) {
        baseDescription = "\(base.scenario), \(base.modelDescription), \(DurationText.format(base.duration))"
        newDescription = "\(new.scenario), \(new.modelDescription), \(DurationText.format(new.duration))"
        var parts = [
            Self.part(
                "whole run", base, new, Self.window(base, nil), Self.window(new, nil), resamples: resamples,
                seed: seed)
        ]
        for (index, stage) in base.stages.enumerated() {
            guard let other = new.stageIndex(named: stage.name) else { continue }
            parts.append(
                Self.part(
                    "stage \(stage.name)", base.stageRun(index), new.stageRun(other),
                    Self.window(base, index),
                    Self.window(new, other), resamples: resamples, seed: seed &+ UInt64(index + 1)))
        }
        self.parts = parts
    }

    /// The per-second samples of a run or one of its stages: latency summaries and answers per
    /// whole second.
    private struct Samples {
        var seconds: [SecondSample]
        var answers: [Double]
    }

    private static func window(_ run: LoadResult, _ stage: Int?) -> Samples {
        let range: ClosedRange<UInt64>
        if let stage {
            let part = run.stages[stage]
            range = (part.offset + 1)...(part.offset + part.duration)
        } else {
            range = 1...Swift.max(1, run.duration)
        }
        // Answers per second: the seconds wholly inside the window.
        let first = Int((range.lowerBound + 999_999_998) / 1_000_000_000)
        let last = Int(range.upperBound / 1_000_000_000)
        let answers = first < last ? run.perSecond.dropFirst(first).prefix(last - first).map(Double.init) : []
        return Samples(seconds: run.latencySamples.filter { range.contains($0.offset) }, answers: answers)
    }

    private static func part(
        _ name: String, _ base: LoadResult, _ new: LoadResult, _ baseSamples: Samples, _ newSamples: Samples,
        resamples: Int, seed: UInt64
    ) -> Part {
        var rows: [Row] = []
        for (offset, metric) in Metric.allCases.enumerated() {
            let seed = seed &* 31 &+ UInt64(offset)
            switch metric {
            case .rate:
                let interval = bootstrap(
                    baseSamples.answers, newSamples.answers, resamples: resamples, seed: seed)
                rows.append(
                    Row(
                        metric: metric, base: base.completedRate, new: new.completedRate, interval: interval,
                        beyondNoise: interval.map { !$0.contains(1) } ?? false))
            case .errors:
                rows.append(
                    Row(
                        metric: metric, base: base.errorPercent, new: new.errorPercent, interval: nil,
                        beyondNoise: proportionsDiffer(
                            base.errors, base.completed + base.unfinished, new.errors,
                            new.completed + new.unfinished)))
            default:
                let pick: (SecondSample) -> Double = { sample in
                    switch metric {
                    case .p50: Double(sample.p50)
                    case .p90: Double(sample.p90)
                    case .p99: Double(sample.p99)
                    case .p999: Double(sample.p999)
                    default: Double(sample.max)
                    }
                }
                let whole: (LoadResult) -> Double = { run in
                    switch metric {
                    case .p50: Double(run.latency.value(atPercentile: 50))
                    case .p90: Double(run.latency.value(atPercentile: 90))
                    case .p99: Double(run.latency.value(atPercentile: 99))
                    case .p999: Double(run.latency.value(atPercentile: 99.9))
                    default: Double(run.latency.max)
                    }
                }
                let interval = bootstrap(
                    baseSamples.seconds.filter { $0.count > 0 }.map(pick),
                    newSamples.seconds.filter { $0.count > 0 }.map(pick), resamples: resamples, seed: seed)
                rows.append(
                    Row(
                        metric: metric, base: whole(base), new: whole(new), interval: interval,
                        beyondNoise: interval.map { !$0.contains(1) } ?? false))
            }
        }
        return Part(name: name, rows: rows)
    }

    /// The 95 % percentile-bootstrap interval of mean(new) / mean(base), or nil with fewer than
    /// three samples on a side or a base mean of 0.
    static func bootstrap(_ base: [Double], _ new: [Double], resamples: Int, seed: UInt64) -> ClosedRange<
        Double
    >? {
        guard base.count >= 3, new.count >= 3, base.reduce(0, +) > 0 else { return nil }
        var generator = SplitMix64(seed: seed)
        func resampledMean(_ values: [Double]) -> Double {
            var sum = 0.0
            for _ in values.indices { sum += values[Int(generator.next() % UInt64(values.count))] }
            return sum / Double(values.count)
        }
        var ratios: [Double] = []
        ratios.reserveCapacity(resamples)
        for _ in 0..<resamples {
            let denominator = resampledMean(base)
            let numerator = resampledMean(new)
            ratios.append(denominator > 0 ? numerator / denominator : .infinity)
        }
        ratios.sort()
        let low = ratios[Int(Double(resamples - 1) * 0.025)]
        let high = ratios[Int((Double(resamples - 1) * 0.975).rounded(.up))]
        return low...high
    }

    /// Whether `a` errors of `n` and `b` of `m` differ at 5 % (pooled two-proportion z-test).
    static func proportionsDiffer(_ a: Int, _ n: Int, _ b: Int, _ m: Int) -> Bool {
        guard n > 0, m > 0 else { return false }
        let pooled = Double(a + b) / Double(n + m)
        let spread = (pooled * (1 - pooled) * (1 / Double(n) + 1 / Double(m))).squareRoot()
        guard spread > 0 else { return false }
        return abs(Double(a) / Double(n) - Double(b) / Double(m)) / spread > 1.96
    }

    /// The rows (with their part's name) whose new value is worse by more than `bound` (0.05 for
    /// 5 %) and beyond the noise, among the metrics ``Metric/countsForSlower``.
    public func slower(by bound: Double) -> [(part: String, row: Row)] {
        parts.flatMap { part in
            part.rows.filter { $0.metric.countsForSlower && $0.beyondNoise && $0.worsening > bound }.map {
                (part.name, $0)
            }
        }
    }

    /// The comparison as a table per part; with `bound`, the verdict of `--fail-if-slower`.
    public func report(baseName: String, newName: String, bound: Double? = nil) -> String {
        var lines = [
            "auth-loadtest compare",
            "  base  \(baseName): \(baseDescription)",
            "  new   \(newName): \(newDescription)",
        ]
        for part in parts {
            lines.append("  \(part.name)")
            let header = ["", "base", "new", "change", "95 % interval", "verdict"]
            let rows: [[String]] = part.rows.map { row in
                let format: (Double) -> String = { value in
                    switch row.metric {
                    case .rate: return fixed(value, 1) + "/s"
                    case .errors: return fixed(value, 2) + " %"
                    default: return DurationText.format(UInt64(Swift.max(0, value)))
                    }
                }
                let change =
                    row.change.isFinite
                    ? (row.change >= 0 ? "+" : "") + fixed(row.change * 100, 1) + " %" : "new"
                let interval =
                    row.interval.map {
                        "\(fixed(($0.lowerBound - 1) * 100, 1)) … \(fixed(($0.upperBound - 1) * 100, 1)) %"
                    } ?? (row.metric == .errors ? "(z-test)" : "too few seconds")
                let verdict: String
                if !row.beyondNoise {
                    verdict = "within noise"
                } else {
                    verdict = row.worsening > 0 ? "WORSE" : "better"
                }
                return [row.metric.rawValue, format(row.base), format(row.new), change, interval, verdict]
            }
            lines += tableLines([header] + rows)
        }
        if let bound {
            let slower = slower(by: bound)
            if slower.isEmpty {
                lines.append(
                    "  pass  no figure is more than \(fixed(bound * 100, 1)) % worse beyond the noise")
            } else {
                for (part, row) in slower {
                    lines.append(
                        "  FAIL  \(part): \(row.metric.rawValue) \(fixed(row.worsening * 100, 1)) % worse (over \(fixed(bound * 100, 1)) %, beyond the noise)"
                    )
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
