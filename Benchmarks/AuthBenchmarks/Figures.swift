import Glibc
import Measuring

/// The figures of one measured run.
struct Figures: Sendable {
    /// Operations completed in the measured run.
    var count: Int
    /// Wall time of the measured run, in seconds.
    var seconds: Double
    /// Median latency in milliseconds (nil where it means nothing).
    var p50: Double?
    /// 99th percentile latency in milliseconds.
    var p99: Double?
    /// Extra `key=value` fields for the `RESULT` line and the table's notes, in order.
    var extras: [(key: String, value: String)] = []

    /// Operations per second.
    var rate: Double { Double(count) / seconds }

    /// Figures from every operation's latency (nanoseconds, any order) and the run's wall time; the
    /// percentile is the element at `(n - 1) * q / 100` of the sorted list (as in bench-transport).
    init(latencies: [UInt64], elapsedNanoseconds: UInt64) {
        let sorted = latencies.sorted()
        count = sorted.count
        seconds = Double(elapsedNanoseconds) / 1e9
        let last = sorted.count - 1
        p50 = sorted.isEmpty ? nil : Double(sorted[last * 50 / 100]) / 1e6
        p99 = sorted.isEmpty ? nil : Double(sorted[last * 99 / 100]) / 1e6
    }

    /// The machine-readable line.
    func resultLine(row: String) -> String {
        var line = "RESULT row=\(row) count=\(count) seconds=\(fixed(seconds, 3)) rate=\(fixed(rate, 1))"
        if let p50, let p99 { line += " p50_ms=\(fixed(p50, 3)) p99_ms=\(fixed(p99, 3))" }
        for (key, value) in extras { line += " \(key)=\(value)" }
        return line
    }
}
