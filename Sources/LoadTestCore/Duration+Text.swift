import Measuring

/// Durations as the tool reads and prints them: nanoseconds in, `12.3ms` out.
public enum DurationText {
    /// Parses a number with a unit, `ns`, `us` (or `µs`), `ms`, `s`, `m`, to nanoseconds: `250ms`,
    /// `1.5s`, `800us`. Nil when malformed or negative.
    public static func nanoseconds(_ text: String) -> UInt64? {
        let units: [(suffix: String, scale: Double)] = [
            ("ns", 1), ("us", 1e3), ("µs", 1e3), ("ms", 1e6), ("s", 1e9), ("m", 60e9),
        ]
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            let number = text.dropLast(suffix.count)
            // "ms" also ends in "s": only take a unit whose number parses.
            guard let value = Double(number), value >= 0, value.isFinite else { continue }
            let nanoseconds = value * scale
            guard nanoseconds < 9e18 else { return nil }
            return UInt64(nanoseconds.rounded())
        }
        return nil
    }

    /// `duration` in nanoseconds (a negative one as 0).
    public static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        return UInt64(seconds) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
    }

    /// `nanoseconds` in the most readable unit with three significant digits: `812µs`, `12.3ms`,
    /// `1.50s`.
    public static func format(_ nanoseconds: UInt64) -> String {
        let value = Double(nanoseconds)
        if value < 1e3 { return "\(nanoseconds)ns" }
        if value < 1e6 { return significant(value / 1e3) + "µs" }
        if value < 1e9 { return significant(value / 1e6) + "ms" }
        return significant(value / 1e9) + "s"
    }

    /// Milliseconds with three decimals, for tables and JSON.
    public static func milliseconds(_ nanoseconds: UInt64) -> Double {
        (Double(nanoseconds) / 1e3).rounded() / 1e3
    }

    /// Three significant digits: `1.23`, `12.3`, `123`.
    static func significant(_ value: Double) -> String {
        let digits = value < 10 ? 2 : value < 100 ? 1 : 0
        return fixed(value, digits)
    }
}
