/// A `--fail-if` condition: `p99<50ms`, `errors<1%`, `max<=2s`, `rate>=950`, on the whole run, or
/// on one stage of a ramp when prefixed with its name: `peak:p99<20ms`.
public struct Threshold: Sendable, Hashable, CustomStringConvertible {
    /// What is compared.
    public enum Metric: Sendable, Hashable {
        /// A latency percentile (`p50`, `p90`, `p99`, `p99.9`, ...), or `min`/`max`/`mean`.
        case latencyPercentile(Double)
        /// The smallest latency.
        case minimum
        /// The largest latency.
        case maximum
        /// The mean latency.
        case mean
        /// Errors as a share of completed requests (`errors<1%`).
        case errorPercent
        /// Errors as a count (`errors<10`).
        case errorCount
        /// Completed requests per second over the measured window (`rate>=950`).
        case throughput
    }

    /// How the metric must compare to the bound to pass.
    public enum Comparison: String, Sendable, Hashable, CaseIterable {
        /// `<`
        case less = "<"
        /// `<=`
        case lessOrEqual = "<="
        /// `>`
        case greater = ">"
        /// `>=`
        case greaterOrEqual = ">="

        func holds(_ value: Double, _ bound: Double) -> Bool {
            switch self {
            case .less: value < bound
            case .lessOrEqual: value <= bound
            case .greater: value > bound
            case .greaterOrEqual: value >= bound
            }
        }
    }

    /// The metric.
    public let metric: Metric
    /// The comparison.
    public let comparison: Comparison
    /// The bound: nanoseconds for latencies, percent or a count for errors, requests per second.
    public let bound: Double
    /// The stage it applies to (`peak` in `peak:p99<20ms`), or nil for the whole run.
    public let stage: String?
    /// The condition as typed.
    public let description: String

    /// Parses a comma-separated list (`p99<50ms,errors<1%`); nil when any part is malformed.
    public static func parseList(_ text: String) -> [Threshold]? {
        var list: [Threshold] = []
        for part in text.split(separator: ",") {
            guard let threshold = Threshold(parsing: String(part).trimmingSpaces) else { return nil }
            list.append(threshold)
        }
        return list.isEmpty ? nil : list
    }

    /// Parses one condition; nil when malformed. Latencies need a unit (`ns`, `us`, `ms`, `s`).
    public init?(parsing typed: String) {
        var text = typed
        var stage: String?
        if let colon = typed.firstIndex(of: ":") {
            let name = String(typed[..<colon]).trimmingSpaces
            guard Stage.isValidName(name) else { return nil }
            stage = name
            text = String(typed[typed.index(after: colon)...])
        }
        // The longest operator first, so that `<=` is not read as `<` followed by `=5ms`.
        let operators: [Comparison] = [.lessOrEqual, .greaterOrEqual, .less, .greater]
        guard let comparison = operators.first(where: { text.contains($0.rawValue) }),
            let range = text.firstRange(of: comparison.rawValue)
        else { return nil }
        let name = String(text[..<range.lowerBound]).trimmingSpaces
        let value = String(text[range.upperBound...]).trimmingSpaces
        let metric: Metric
        let bound: Double
        switch name {
        case "errors":
            if value.hasSuffix("%") {
                guard let percent = Double(value.dropLast()), percent >= 0, percent <= 100 else { return nil }
                (metric, bound) = (.errorPercent, percent)
            } else {
                guard let count = Int(value), count >= 0 else { return nil }
                (metric, bound) = (.errorCount, Double(count))
            }
        case "rate":
            guard let rate = Double(value), rate >= 0, rate.isFinite else { return nil }
            (metric, bound) = (.throughput, rate)
        default:
            guard let nanoseconds = DurationText.nanoseconds(value) else { return nil }
            switch name {
            case "min": metric = .minimum
            case "max": metric = .maximum
            case "mean": metric = .mean
            default:
                guard name.hasPrefix("p"), let percentile = Double(name.dropFirst()),
                    percentile > 0, percentile <= 100
                else { return nil }
                metric = .latencyPercentile(percentile)
            }
            bound = Double(nanoseconds)
        }
        self.metric = metric
        self.comparison = comparison
        self.bound = bound
        self.stage = stage
        self.description = (stage.map { "\($0):" } ?? "") + "\(name)\(comparison.rawValue)\(value)"
    }

    /// The metric's value in `result`: nanoseconds, percent, a count or requests per second.
    public func measured(in result: LoadResult) -> Double {
        switch metric {
        case .latencyPercentile(let percentile): Double(result.latency.value(atPercentile: percentile))
        case .minimum: Double(result.latency.min)
        case .maximum: Double(result.latency.max)
        case .mean: result.latency.mean
        case .errorPercent: result.errorPercent
        case .errorCount: Double(result.errors)
        case .throughput: result.completedRate
        }
    }

    /// The measured value as the condition's unit shows it (`61.2ms`, `0.50%`, `12`).
    public func formatted(_ value: Double) -> String {
        switch metric {
        case .latencyPercentile, .minimum, .maximum, .mean: DurationText.format(UInt64(max(0, value)))
        case .errorPercent: DurationText.significant(value) + "%"
        case .errorCount: String(Int(value))
        case .throughput: DurationText.significant(value) + "/s"
        }
    }

    /// Whether `result` meets the condition.
    public func holds(for result: LoadResult) -> Bool { comparison.holds(measured(in: result), bound) }

    /// The part of `run` the condition looks at: the run, or its stage; nil when it has no such stage.
    public func target(in run: LoadResult) -> LoadResult? {
        guard let stage else { return run }
        return run.stageIndex(named: stage).map { run.stageRun($0) }
    }
}

/// One condition's verdict.
public struct ThresholdVerdict: Sendable, Hashable, Codable {
    /// The condition as typed.
    public let condition: String
    /// The measured value, formatted.
    public let measured: String
    /// Whether it held.
    public let passed: Bool
}

extension Array where Element == Threshold {
    /// Each condition's verdict on `result`.
    /// A condition on a stage the run does not have fails, measured as `no such stage`.
    public func evaluate(_ result: LoadResult) -> [ThresholdVerdict] {
        map { threshold in
            guard let part = threshold.target(in: result) else {
                return ThresholdVerdict(
                    condition: threshold.description, measured: "no such stage", passed: false)
            }
            return ThresholdVerdict(
                condition: threshold.description,
                measured: threshold.formatted(threshold.measured(in: part)),
                passed: threshold.holds(for: part))
        }
    }

    /// The stages the conditions name that `stages` does not have.
    public func unknownStages(in stages: [Stage]) -> [String] {
        compactMap(\.stage).filter { name in !stages.contains { $0.name == name } }
    }
}

extension String {
    var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
