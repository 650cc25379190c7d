/// The Prometheus text exposition format, version 0.0.4: what `GET /metrics` answers.
///
/// Each family is written as `# HELP`, `# TYPE` and one line per sample; a histogram's sample as
/// cumulative `_bucket{le="…"}` lines ending with `le="+Inf"`, then `_sum` (seconds) and `_count`.
/// Help text escapes `\` and line feeds; label values also escape `"`. A family whose name is not
/// a valid metric name, or a sample with an invalid label name (or `le` on a histogram), is left
/// out rather than written malformed.
///
/// ```swift
/// let text = Exposition.text([requests, latency])
/// ```
public enum Exposition {
    /// The `Content-Type` of the format.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The families as exposition text, in the order given.
    public static func text(_ families: [MetricFamily]) -> String {
        var output = ""
        output.reserveCapacity(families.count * 256)
        for family in families { write(family, to: &output) }
        return output
    }

    /// Appends `family` to `output`.
    public static func write(_ family: MetricFamily, to output: inout String) {
        guard MetricFamily.isValidName(family.name) else { return }
        output += "# HELP \(family.name) \(escapeHelp(family.help))\n"
        output += "# TYPE \(family.name) \(family.kind.rawValue)\n"
        for sample in family.samples {
            guard sample.labels.pairs.allSatisfy({ Labels.isValidName($0.name) }) else { continue }
            switch sample.value {
            case .number(let value):
                output += family.name
                write(sample.labels, to: &output)
                output += " \(format(value))\n"
            case .histogram(let histogram):
                guard family.kind == .histogram, !sample.labels.pairs.contains(where: { $0.name == "le" })
                else { continue }
                let cumulative = histogram.cumulativeCounts
                for (index, bound) in histogram.bounds.enumerated() {
                    output += "\(family.name)_bucket"
                    write(sample.labels.adding("le", format(bound)), to: &output)
                    output += " \(cumulative[index])\n"
                }
                output += "\(family.name)_bucket"
                write(sample.labels.adding("le", "+Inf"), to: &output)
                output += " \(histogram.count)\n"
                output += "\(family.name)_sum"
                write(sample.labels, to: &output)
                output += " \(format(histogram.sumSeconds))\n"
                output += "\(family.name)_count"
                write(sample.labels, to: &output)
                output += " \(histogram.count)\n"
            }
        }
    }

    /// `{name="value",…}`, or nothing for no labels.
    static func write(_ labels: Labels, to output: inout String) {
        guard !labels.isEmpty else { return }
        output += "{"
        for (index, pair) in labels.pairs.enumerated() {
            if index > 0 { output += "," }
            output += "\(pair.name)=\"\(escapeLabelValue(pair.value))\""
        }
        output += "}"
    }

    /// A number as the format writes it: integers without a fraction, `+Inf`, `-Inf`, `NaN`, else
    /// the shortest text that reads back as the same double.
    public static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 { return String(Int64(value)) }
        return "\(value)"
    }

    /// Help text with `\` and line feeds escaped.
    public static func escapeHelp(_ text: String) -> String {
        guard text.contains(where: { $0 == "\\" || $0 == "\n" }) else { return text }
        var escaped = ""
        for character in text {
            switch character {
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// A label value with `\`, `"` and line feeds escaped.
    public static func escapeLabelValue(_ text: String) -> String {
        guard text.contains(where: { $0 == "\\" || $0 == "\n" || $0 == "\"" }) else { return text }
        var escaped = ""
        for character in text {
            switch character {
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\"": escaped += "\\\""
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
