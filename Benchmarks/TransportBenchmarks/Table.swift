import Measuring

/// The side-by-side table: one row per contender, for each in-flight setting its round trips per
/// second, p50 and p99 (µs), the process's CPU time per round trip (µs, every thread) and its rate's
/// ratio to the first row's, (1).
func table(_ rows: [(label: String, results: [Measurement])]) -> String {
    let labelWidth = rows.map(\.label.count).max() ?? 0
    let columns = [("rt/s", 9), ("p50 µs", 8), ("p99 µs", 8), ("CPU µs", 7), ("×(1)", 6)]
    let groupWidth = columns.reduce(0) { $0 + $1.1 + 1 }
    func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(0, width - text.count))
        return left ? text + padding : padding + text
    }
    var lines: [String] = []
    lines.append(
        pad("", labelWidth, left: true)
            + Budget.inFlightSettings.map { " |" + pad("\($0) in flight", groupWidth - 1) }.joined())
    lines.append(
        pad("", labelWidth, left: true)
            + Budget.inFlightSettings.map { _ in
                " |" + columns.map { pad($0.0, $0.1) }.joined(separator: " ")
            }.joined())
    let baseline = rows.first?.results ?? []
    for row in rows {
        var line = pad(row.label, labelWidth, left: true)
        for (index, result) in row.results.enumerated() {
            let ratio = index < baseline.count ? result.rate / baseline[index].rate : 0
            line +=
                " |" + pad(grouped(result.rate), 9) + " " + pad(fixed(result.p50, 1), 8) + " "
                + pad(fixed(result.p99, 1), 8) + " " + pad(fixed(result.cpuPerRoundTrip, 2), 7) + " "
                + pad(fixed(ratio, 2), 6)
        }
        lines.append(line)
    }
    return lines.joined(separator: "\n")
}

