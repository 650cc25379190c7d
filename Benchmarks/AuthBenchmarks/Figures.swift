import BenchmarkSupport
import Glibc

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

/// CPU time, user and system, in seconds.
struct CPUTime: Sendable {
    /// User-mode seconds.
    var user: Double
    /// Kernel-mode seconds.
    var system: Double

    /// Both.
    var total: Double { user + system }

    /// The time spent since `earlier`.
    func since(_ earlier: CPUTime) -> CPUTime {
        CPUTime(user: user - earlier.user, system: system - earlier.system)
    }

    /// `key=value` extras for `operations` operations in `seconds`: CPU milliseconds per operation,
    /// cores kept busy, and the kernel's share of the time, under `prefix`.
    func extras(prefix: String, operations: Int, seconds: Double) -> [(key: String, value: String)] {
        [
            ("\(prefix)cpu_ms_per_op", fixed(total * 1e3 / Double(max(operations, 1)), 3)),
            ("\(prefix)cpu_busy", fixed(total / seconds, 2)),
            ("\(prefix)sys_share", fixed(total > 0 ? system / total : 0, 2)),
        ]
    }
}

/// This process's CPU time (every thread).
func ownCPUTime() -> CPUTime {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return CPUTime(
        user: Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6,
        system: Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6)
}

/// Another process's CPU time (every thread) from `/proc/<pid>/stat`.
func cpuTime(ofProcess pid: Int32) -> CPUTime? {
    guard let file = fopen("/proc/\(pid)/stat", "r") else { return nil }
    defer { fclose(file) }
    var buffer = [CChar](repeating: 0, count: 4_096)
    guard fgets(&buffer, Int32(buffer.count), file) != nil else { return nil }
    let line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    // The command name (field 2) is in parentheses and may hold spaces: fields 3... follow the last ')'.
    guard let close = line.lastIndex(of: ")") else { return nil }
    let fields = line[line.index(after: close)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else {
        return nil
    }
    let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
    return CPUTime(user: user / ticks, system: system / ticks)
}

