public import Foundation
import Measuring

/// The percentiles the report and the JSON list.
public let reportedPercentiles: [Double] = [50, 90, 99, 99.9]

extension LoadResult {
    /// The report, as wrk2 and vegeta users expect it: the run, rates, latency distribution,
    /// outcomes and throughput over time.
    public func report(verdicts: [ThresholdVerdict] = []) -> String {
        var lines: [String] = []
        let warm = warmup > 0 ? " after a \(DurationText.format(warmup)) warm-up" : ""
        lines.append(
            "auth-loadtest: \(scenario), \(modelDescription), \(DurationText.format(duration))\(warm), "
                + "\(connections) connection\(connections == 1 ? "" : "s")"
                + (shard.map { ", generator \($0) (--shard)" } ?? ""))
        if interrupted {
            lines.append("  INTERRUPTED: stopped after \(DurationText.format(duration)) of the measured time")
        }
        var rates = "  requests   \(grouped(Double(sent))) sent, \(grouped(Double(completed))) answered"
        if unfinished > 0 { rates += ", \(grouped(Double(unfinished))) unanswered" }
        lines.append(rates)
        var rate = "  rate       sent \(fixed(sentRate, 1))/s, answered \(fixed(completedRate, 1))/s"
        if let requestedRate, requestedRate > 0 {
            rate +=
                " (requested \(fixed(requestedRate, 1))/s: \(fixed(sentRate / requestedRate * 100, 1)) % sent,"
                + " \(fixed(completedRate / requestedRate * 100, 1)) % answered)"
        }
        lines.append(rate)
        if requestedRate != nil, senderLag.count > 0 {
            lines.append(
                "  sender     lag p50 \(DurationText.format(senderLag.value(atPercentile: 50)))  "
                    + "p99 \(DurationText.format(senderLag.value(atPercentile: 99)))  "
                    + "max \(DurationText.format(senderLag.max)) (the tool's own lateness, part of the latencies)"
            )
        }
        lines.append(
            "  latency    min \(DurationText.format(latency.min))  "
                + reportedPercentiles.map {
                    "p\(percentileName($0)) \(DurationText.format(latency.value(atPercentile: $0)))"
                }.joined(separator: "  ")
                + "  max \(DurationText.format(latency.max))  mean \(DurationText.format(UInt64(latency.mean)))"
        )
        for (kind, histogram) in latencyByKind.sorted(by: { $0.key < $1.key }) {
            lines.append(
                "    \(kind.padding(toLength: 9, withPad: " ", startingAt: 0)) \(grouped(Double(histogram.count))) waits  "
                    + reportedPercentiles.map {
                        "p\(percentileName($0)) \(DurationText.format(histogram.value(atPercentile: $0)))"
                    }.joined(separator: "  ") + "  max \(DurationText.format(histogram.max))")
        }
        lines.append(
            "  errors     \(grouped(Double(errors))) (\(fixed(errorPercent, 2)) %)"
                + (warmupRequests > 0
                    ? "; \(grouped(Double(warmupRequests))) warm-up requests not counted" : ""))
        lines.append("  outcomes")
        for (label, count) in outcomes.sorted(by: {
            $0.value > $1.value || ($0.value == $1.value && $0.key < $1.key)
        }) {
            lines.append(
                "    \(label.padding(toLength: 24, withPad: " ", startingAt: 0)) \(grouped(Double(count)))")
        }
        if unfinished > 0 {
            lines.append(
                "    \("unanswered".padding(toLength: 24, withPad: " ", startingAt: 0)) \(grouped(Double(unfinished)))"
            )
        }
        lines.append("  answered per second: " + perSecond.map { grouped(Double($0)) }.joined(separator: " "))
        if !stages.isEmpty { lines += stageLines() }
        if !verdicts.isEmpty {
            lines.append("  thresholds")
            for verdict in verdicts {
                lines.append(
                    "    \(verdict.passed ? "pass" : "FAIL")  \(verdict.condition) (measured \(verdict.measured))"
                )
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The model, with a ramp's shape: `open model ramping 0 → 100 → 2,000 → 0 req/s (mean 1,033 req/s)`.
    public var modelDescription: String {
        guard let first = stages.first else { return model.description }
        let values = ([first.from] + stages.map(\.to)).map { grouped($0) }.joined(separator: " → ")
        switch model {
        case .open(let rate): return "open model ramping \(values) req/s (mean \(grouped(rate)) req/s)"
        case .closed: return "closed model ramping \(values) in flight"
        }
    }

    /// The stages' table: each one's time, load, rates, percentiles and errors.
    private func stageLines() -> [String] {
        let unit: String
        if case .open = model { unit = "/s" } else { unit = " in flight" }
        let rows: [[String]] = stages.indices.map { index in
            let stage = stages[index]
            let run = stageRun(index)
            return [
                stage.name,
                "\(stage.offset == 0 ? "0s" : DurationText.format(stage.offset))–\(DurationText.format(stage.offset + stage.duration))",
                "\(grouped(stage.from))→\(grouped(stage.to))\(unit)", fixed(run.sentRate, 1),
                fixed(run.completedRate, 1),
            ]
                + reportedPercentiles.map { DurationText.format(stage.latency.value(atPercentile: $0)) }
                + [
                    DurationText.format(stage.latency.max),
                    "\(grouped(Double(stage.errors))) (\(fixed(run.errorPercent, 2)) %)",
                ]
        }
        let header =
            ["stage", "time", "load", "sent/s", "answered/s"]
            + reportedPercentiles.map { "p\(percentileName($0))" }
            + ["max", "errors"]
        let table = [header] + rows
        return ["  stages"] + tableLines(table)
    }

    /// The result as JSON (`--json FILE`): the run, counts, rates, latency percentiles in
    /// milliseconds, the histogram's non-empty buckets, outcomes, throughput per second and the
    /// thresholds' verdicts.
    public func json(verdicts: [ThresholdVerdict] = []) throws -> Data {
        try json(verdicts: verdicts, capacity: nil)
    }

    /// The result file, with a capacity search's curve when it came from one.
    func json(verdicts: [ThresholdVerdict], capacity: JSONReport.CapacityPart?) throws -> Data {
        var document = JSONReport(
            format: JSONReport.formatName, formatVersion: JSONReport.currentVersion,
            scenario: scenario,
            model: { if case .open = model { "open" } else { "closed" } }(),
            requestedRate: requestedRate,
            concurrency: { if case .closed(let concurrency) = model { concurrency } else { nil } }(),
            connections: connections,
            durationSeconds: seconds,
            warmupSeconds: Double(warmup) / 1e9,
            sent: sent, completed: completed, unfinished: unfinished, warmupRequests: warmupRequests,
            sentRate: sentRate, completedRate: completedRate,
            errors: errors, errorPercent: errorPercent,
            latencyMilliseconds: JSONReport.Latency(latency),
            histogram: JSONReport.buckets(latency),
            latencyNanoseconds: JSONReport.Exact(latency),
            senderLagHistogram: senderLag.count == 0 ? nil : JSONReport.buckets(senderLag),
            senderLagNanoseconds: senderLag.count == 0 ? nil : JSONReport.Exact(senderLag),
            durationNanoseconds: duration, warmupNanoseconds: warmup,
            outcomes: outcomes,
            perSecond: perSecond,
            interrupted: interrupted,
            shard: shard?.description,
            senderLagMilliseconds: senderLag.count == 0
                ? nil
                : JSONReport.Lag(
                    p50: DurationText.milliseconds(senderLag.value(atPercentile: 50)),
                    p99: DurationText.milliseconds(senderLag.value(atPercentile: 99)),
                    max: DurationText.milliseconds(senderLag.max)),
            thresholds: verdicts)
        document.capacity = capacity
        if !latencyByKind.isEmpty {
            document.interactions = latencyByKind.mapValues {
                JSONReport.Interaction(
                    latencyMilliseconds: JSONReport.Latency($0), histogram: JSONReport.buckets($0),
                    latencyNanoseconds: JSONReport.Exact($0))
            }
        }
        if !latencySamples.isEmpty {
            document.perSecondLatency = latencySamples.map {
                JSONReport.Second(
                    offsetNanoseconds: $0.offset, count: $0.count, p50Nanoseconds: $0.p50,
                    p90Nanoseconds: $0.p90,
                    p99Nanoseconds: $0.p99, p999Nanoseconds: $0.p999, maxNanoseconds: $0.max)
            }
        }
        if !stages.isEmpty {
            document.stages = stages.indices.map { index in
                let stage = stages[index]
                let run = stageRun(index)
                return JSONReport.StagePart(
                    name: stage.name, offsetNanoseconds: stage.offset, durationNanoseconds: stage.duration,
                    from: stage.from, to: stage.to, sent: stage.sent, completed: stage.completed,
                    unfinished: stage.unfinished, errors: stage.errors, errorPercent: run.errorPercent,
                    sentRate: run.sentRate, completedRate: run.completedRate,
                    latencyMilliseconds: JSONReport.Latency(stage.latency),
                    histogram: JSONReport.buckets(stage.latency),
                    latencyNanoseconds: JSONReport.Exact(stage.latency), outcomes: stage.outcomes)
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return try encoder.encode(document)
    }
}

/// A table's rows as lines, `indent` first, each column as wide as its widest cell and two spaces
/// apart (the last column not padded).
func tableLines(_ table: [[String]], indent: String = "    ") -> [String] {
    let columns = table.map(\.count).max() ?? 0
    let widths = (0..<columns).map { column in
        table.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0
    }
    return table.map { row in
        indent
            + row.enumerated().map { column, cell in
                column == row.count - 1
                    ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
    }
}

/// `99.9` → `99.9`, `50` → `50`.
func percentileName(_ percentile: Double) -> String {
    percentile == percentile.rounded() ? String(Int(percentile)) : String(percentile)
}

/// The `--json` document.
public struct JSONReport: Codable, Sendable {
    /// A point of the percentile curve.
    public struct Point: Codable, Sendable {
        /// The percentile (0...100).
        public var percentile: Double
        /// The latency there, in milliseconds.
        public var value: Double
    }

    /// The latency summary, in milliseconds.
    public struct Latency: Codable, Sendable {
        /// The smallest.
        public var min: Double
        /// The mean.
        public var mean: Double
        /// The largest.
        public var max: Double
        /// The curve.
        public var percentiles: [Point]

        /// The percentiles every result file lists.
        static let listed = [0.0, 50, 75, 90, 95, 99, 99.9, 99.99, 100]

        init(_ histogram: LatencyHistogram) {
            min = DurationText.milliseconds(histogram.min)
            mean = DurationText.milliseconds(UInt64(histogram.mean))
            max = DurationText.milliseconds(histogram.max)
            percentiles = Self.listed.map {
                Point(percentile: $0, value: DurationText.milliseconds(histogram.value(atPercentile: $0)))
            }
        }
    }

    /// One kind of awaited output's latencies.
    public struct Interaction: Codable, Sendable {
        /// The summary and curve, in milliseconds.
        public var latencyMilliseconds: Latency
        /// The histogram's non-empty buckets.
        public var histogram: [Bucket]
        /// Its exact count, min, max and sum.
        public var latencyNanoseconds: Exact
    }

    /// One second's latency summary, in nanoseconds.
    public struct Second: Codable, Sendable {
        /// The end of the second after the warm-up.
        public var offsetNanoseconds: UInt64
        /// Answers in it.
        public var count: UInt64
        /// The median.
        public var p50Nanoseconds: UInt64
        /// The 90th percentile.
        public var p90Nanoseconds: UInt64
        /// The 99th percentile.
        public var p99Nanoseconds: UInt64
        /// The 99.9th percentile.
        public var p999Nanoseconds: UInt64
        /// The largest.
        public var maxNanoseconds: UInt64
    }

    /// A capacity search (`--find-capacity`).
    public struct CapacityPart: Codable, Sendable {
        /// One step of the search.
        public struct Step: Codable, Sendable {
            /// The rate asked for.
            public var rate: Double
            /// `coarse` or `bisection`.
            public var phase: String
            /// Whether it met the objective and kept up.
            public var passed: Bool
            /// Why it did not keep up, if it did not.
            public var shortfall: String?
            /// Requests sent per second.
            public var sentRate: Double
            /// Requests answered per second.
            public var completedRate: Double
            /// The median latency, in milliseconds.
            public var p50Milliseconds: Double
            /// The 99th percentile, in milliseconds.
            public var p99Milliseconds: Double
            /// Errors as a percentage.
            public var errorPercent: Double
            /// The tool's CPU as a share of one core, in percent.
            public var cpuPercent: Double
            /// The objective's verdicts.
            public var verdicts: [ThresholdVerdict]
        }

        /// The objective, as typed.
        public var objective: String
        /// The highest rate that met it (absent when none did).
        public var rate: Double?
        /// The lowest rate above it that missed (absent when none did).
        public var missedRate: Double?
        /// The relative interval width at which the bisection stops.
        public var precision: Double
        /// Whether the time bound ended the search first.
        public var boundReached: Bool
        /// The steps in the order they ran.
        public var steps: [Step]
    }

    /// A histogram's non-empty buckets.
    static func buckets(_ histogram: LatencyHistogram) -> [Bucket] {
        histogram.buckets.map { Bucket(nanoseconds: $0.value, count: $0.count) }
    }

    /// One stage of a ramp (`--stages`).
    public struct StagePart: Codable, Sendable {
        /// Its name.
        public var name: String
        /// Where it starts after the warm-up, in nanoseconds.
        public var offsetNanoseconds: UInt64
        /// Its length, in nanoseconds.
        public var durationNanoseconds: UInt64
        /// The load at its start: requests per second (open model) or in flight (closed).
        public var from: Double
        /// The load at its end.
        public var to: Double
        /// Requests sent in it.
        public var sent: Int
        /// Of those, the ones answered.
        public var completed: Int
        /// Of those, the ones never answered.
        public var unfinished: Int
        /// Errors, the unanswered included.
        public var errors: Int
        /// Errors as a percentage of its requests.
        public var errorPercent: Double
        /// Requests sent per second.
        public var sentRate: Double
        /// Requests answered per second.
        public var completedRate: Double
        /// The latency summary and curve, in milliseconds.
        public var latencyMilliseconds: Latency
        /// The histogram's non-empty buckets.
        public var histogram: [Bucket]
        /// The histogram's exact count, min, max and sum.
        public var latencyNanoseconds: Exact
        /// Answered requests by outcome label.
        public var outcomes: [String: Int]
    }

    /// The open model's sender lag, in milliseconds.
    public struct Lag: Codable, Sendable {
        /// The median.
        public var p50: Double
        /// The 99th percentile.
        public var p99: Double
        /// The largest.
        public var max: Double
    }

    /// A histogram bucket: its highest equivalent value and count.
    public struct Bucket: Codable, Sendable {
        /// The bucket's highest value, in nanoseconds.
        public var nanoseconds: UInt64
        /// Values recorded in it.
        public var count: UInt64
    }

    /// A histogram's exact count, minimum, maximum and sum, in nanoseconds: with its buckets, all a
    /// merge needs to rebuild it counter for counter.
    public struct Exact: Codable, Sendable {
        /// Values recorded.
        public var count: UInt64
        /// The smallest.
        public var min: UInt64
        /// The largest.
        public var max: UInt64
        /// Their sum (saturating).
        public var sum: UInt64

        init(_ histogram: LatencyHistogram) {
            count = histogram.count
            min = histogram.min
            max = histogram.max
            sum = histogram.sum
        }
    }

    /// What `format` holds in every result file of this tool.
    public static let formatName = "auth-loadtest"
    /// The version of the document this build writes. Version 2 added `shard`, `stages` and
    /// `capacity`, all optional: a version 1 file reads as a version 2 file without them.
    public static let currentVersion = 2
    /// The versions this build reads.
    public static let readableVersions = 1...currentVersion

    /// Always `auth-loadtest`: tells this tool's result files from other JSON.
    public var format: String
    /// The document's version (``currentVersion``); `merge` and `compare` read only their own.
    public var formatVersion: Int
    /// The scenario as typed.
    public var scenario: String
    /// `open` or `closed`.
    public var model: String
    /// The open model's requested rate (absent in the closed model).
    public var requestedRate: Double?
    /// The closed model's requests in flight (absent in the open model).
    public var concurrency: Int?
    /// DEALER connections used.
    public var connections: Int
    /// The measured window, in seconds.
    public var durationSeconds: Double
    /// The warm-up before it, in seconds.
    public var warmupSeconds: Double
    /// Requests sent in the measured window.
    public var sent: Int
    /// Of those, the ones answered.
    public var completed: Int
    /// Of those, the ones never answered (errors).
    public var unfinished: Int
    /// Requests of the warm-up, not counted elsewhere.
    public var warmupRequests: Int
    /// Requests sent per second.
    public var sentRate: Double
    /// Requests answered per second.
    public var completedRate: Double
    /// Errors: failed calls, unexpected answers and unanswered requests.
    public var errors: Int
    /// Errors as a percentage of the measured requests.
    public var errorPercent: Double
    /// The latency summary and percentile curve, in milliseconds.
    public var latencyMilliseconds: Latency
    /// The histogram's non-empty buckets.
    public var histogram: [Bucket]
    /// The histogram's exact count, min, max and sum.
    public var latencyNanoseconds: Exact
    /// The open model's sender-lag histogram's non-empty buckets (absent in the closed model).
    public var senderLagHistogram: [Bucket]?
    /// Its exact count, min, max and sum.
    public var senderLagNanoseconds: Exact?
    /// The measured window, in nanoseconds (exact).
    public var durationNanoseconds: UInt64
    /// The warm-up, in nanoseconds (exact).
    public var warmupNanoseconds: UInt64
    /// Answered requests by outcome label.
    public var outcomes: [String: Int]
    /// Answers in each second after the warm-up.
    public var perSecond: [Int]
    /// Whether the run was stopped early (SIGINT).
    public var interrupted: Bool
    /// `I/N` for generator I of N (`--shard`); absent for a lone or merged run.
    public var shard: String?
    /// Each stage of a ramp (`--stages`); absent for a constant load.
    public var stages: [StagePart]?
    /// A capacity search's answer and curve (`--find-capacity`); the run above is its best step's.
    public var capacity: CapacityPart?
    /// Each whole second's latency summary (the samples of `compare`'s noise estimate).
    public var perSecondLatency: [Second]?
    /// Sessions on the gateway's flows: each kind of awaited output's latencies (`screen`,
    /// `keystroke`, `tap`), which together make the main histogram.
    public var interactions: [String: Interaction]?
    /// The open model's sender lag (absent in the closed model).
    public var senderLagMilliseconds: Lag?
    /// Each `--fail-if` condition's verdict.
    public var thresholds: [ThresholdVerdict]
}
