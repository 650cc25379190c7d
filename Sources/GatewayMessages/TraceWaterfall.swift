public import Contracts

/// A flow input's trace as a waterfall of plain text lines, for a terminal: a heading, a column
/// heading, then one row per hop, ordered by start (deeper first among hops that start together) and
/// indented two spaces per depth, with the hop's service, shard and method, its start offset and
/// duration in milliseconds, and a bar placed and scaled on the trace's whole span.
///
/// ```
/// trace 4bf92f3577b34da6a3ce929d0e0e4736  51.2 ms  3 hops
/// hop                             start ms   dur ms  0                       51.2 ms
/// gateway:0 flow.signin loginTap       0.0     51.2  ██████████████████████████████
///   auth:1 auth.login                  0.3     50.2  ░█████████████████████████████
/// ```
///
/// Pure: the same trace and size give the same lines. No line is wider than `width` columns (labels
/// are cut with `…`; below 48 columns the bars go, below 30 the start column too) and there are at
/// most `height` lines (the hops that do not fit are counted on a last `… N more hops` line).
public enum TraceWaterfall {
    /// The lines for `trace` in `width` × `height`; `title` replaces the `trace <id>` heading's
    /// first word when given (e.g. the input's name).
    public static func lines(_ trace: FlowTrace, width: Int, height: Int, title: String? = nil) -> [String] {
        guard width > 0, height > 0 else { return [] }
        let total = trace.spanMicros
        let plural = trace.hops.count == 1 ? "hop" : "hops"
        let heading =
            (title.map { $0 + " " } ?? "trace ") + trace.traceID + "  " + milliseconds(total) + " ms  "
            + "\(trace.hops.count) \(plural)"
        var out = [fit(heading, width)]
        guard height > 1 else { return out }

        let origin = trace.hops.map(\.startMicros).min() ?? 0
        let rows = trace.hops.enumerated().sorted { left, right in
            if left.element.startMicros != right.element.startMicros {
                return left.element.startMicros < right.element.startMicros
            }
            if left.element.depth != right.element.depth { return left.element.depth < right.element.depth }
            return left.offset < right.offset
        }.map(\.element)
        let labels = rows.map(label)

        let numbers = 9  // " " + 8 digits
        let showsStart = width >= 30
        let fixed = showsStart ? 2 * numbers : numbers
        let showsBars = width >= 48
        let longest = labels.map(\.count).max() ?? 3
        let labelWidth: Int
        let barWidth: Int
        if showsBars {
            labelWidth = max(3, min(longest, (width - fixed - 2) * 3 / 5))
            barWidth = width - fixed - 2 - labelWidth
        } else {
            labelWidth = max(1, width - fixed)
            barWidth = 0
        }

        var header = pad("hop", labelWidth)
        if showsStart { header += leftPad("start ms", numbers) }
        header += leftPad("dur ms", numbers)
        if showsBars {
            let end = milliseconds(total) + " ms"
            header += "  " + "0" + leftPad(end, barWidth - 1)
        }
        out.append(fit(header, width))

        let room = height - out.count
        let shown = rows.count <= room ? rows.count : max(0, room - 1)
        for index in 0..<shown {
            let hop = rows[index]
            var row = pad(cut(labels[index], labelWidth), labelWidth)
            if showsStart { row += leftPad(milliseconds(hop.startMicros), numbers) }
            row += leftPad(milliseconds(hop.durationMicros), numbers)
            if showsBars {
                row += "  " + bar(hop, origin: origin, total: total, width: barWidth)
            }
            out.append(fit(row, width))
        }
        if shown < rows.count {
            let hidden = rows.count - shown
            out.append(fit("… \(hidden) more \(hidden == 1 ? "hop" : "hops")", width))
        }
        return out
    }

    /// `gateway:0 flow.signin loginTap`, indented by depth, with the outcome when it is not `ok`.
    static func label(_ hop: FlowTrace.Hop) -> String {
        let indent = String(repeating: " ", count: 2 * min(hop.depth, 8))
        let service = hop.service + (hop.shard.map { ":\($0)" } ?? "")
        let outcome = hop.outcome == "ok" ? "" : " [\(hop.outcome)]"
        return indent + service + " " + hop.method + outcome
    }

    /// The hop's bar in `width` columns: `░` before it starts, `█` while it runs, spaces after.
    static func bar(_ hop: FlowTrace.Hop, origin: Int, total: Int, width: Int) -> String {
        guard width > 0 else { return "" }
        let start = hop.startMicros - origin
        var first = total > 0 ? start * width / total : 0
        var last = total > 0 ? (start + hop.durationMicros) * width / total : width
        first = min(max(0, first), width - 1)
        last = min(max(first + 1, last), width)
        return String(repeating: "░", count: first) + String(repeating: "█", count: last - first)
            + String(repeating: " ", count: width - last)
    }

    /// Microseconds as milliseconds with one decimal: `0.3`, `51.2`, `12034.0`.
    public static func milliseconds(_ micros: Int) -> String {
        let tenths = (max(0, micros) + 50) / 100
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// `text` cut to `width` characters, ending with `…` when it was longer.
    static func cut(_ text: String, _ width: Int) -> String {
        guard text.count > width else { return text }
        guard width > 1 else { return String(text.prefix(width)) }
        return String(text.prefix(width - 1)) + "…"
    }

    /// `text` cut to `width`, without trailing spaces.
    static func fit(_ text: String, _ width: Int) -> String {
        var line = cut(text, width)
        while line.last == " " { line.removeLast() }
        return line
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    static func leftPad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }
}
