// What the load generator and every benchmark program measure and print the same way: the
// monotonic clock, the load average, and numbers formatted for reports and side-by-side tables.
import Glibc

/// The monotonic clock (`CLOCK_MONOTONIC`, as the C baseline uses), in nanoseconds.
@inline(__always)
public func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
}

/// The 1, 5 and 15 minute load averages from `/proc/loadavg` (`"0.52 0.61 0.70"`), or `unknown`.
public func loadAverage() -> String {
    guard let file = fopen("/proc/loadavg", "r") else { return "unknown" }
    defer { fclose(file) }
    var buffer = [CChar](repeating: 0, count: 256)
    guard fgets(&buffer, Int32(buffer.count), file) != nil else { return "unknown" }
    let line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return line.split(separator: " ").prefix(3).joined(separator: " ")
}

/// `value` with `digits` decimals (`fixed(3.14159, 2)` is `3.14`).
public func fixed(_ value: Double, _ digits: Int) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    var text = "\(rounded)"
    if let dot = text.firstIndex(of: ".") {
        let decimals = text.distance(from: dot, to: text.endIndex) - 1
        if digits == 0 {
            text = String(text[..<dot])
        } else if decimals < digits {
            text += String(repeating: "0", count: digits - decimals)
        }
    }
    return text
}

/// A number rounded to a whole with thousands separators (`433,869`).
public func grouped(_ value: Double) -> String {
    var digits = Array(String(Int(value.rounded())))
    var index = digits.count - 3
    while index > 0 {
        digits.insert(",", at: index)
        index -= 3
    }
    return String(digits)
}

/// This process's CPU time so far, user and system, in seconds (`getrusage(RUSAGE_SELF)`).
public func processCPUSeconds() -> Double {
    var usage = rusage()
    guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        + Double(usage.ru_stime.tv_sec)
        + Double(usage.ru_stime.tv_usec) / 1e6
}
