import Measuring

extension LoadResult {
    /// A plain SVG image of two panels: latency by percentile (the x axis spaced as HdrHistogram's
    /// plots are, by `1/(1-p)` on a log scale, so 90 %, 99 %, 99.9 % are equally far apart) and
    /// answers per second over time. The ticks of one axis share one format (`0s 5s 10s 15s 20s`,
    /// `0 0.25 0.50 0.75 1.00`), and every label lies inside the image.
    public func svg() -> String {
        let width = 1_000.0
        let height = 360.0
        let panel = (width: 400.0, height: 260.0)
        let left = (x: 70.0, y: 50.0)
        let right = (x: 550.0, y: 50.0)
        var out = svgOpening(
            width: width, height: height,
            title: "auth-loadtest: \(scenario), \(modelDescription), \(DurationText.format(duration))")

        // Left: latency by percentile.
        let maxDepth = 5.0  // up to 99.999 %
        func curve(_ histogram: LatencyHistogram) -> [(Double, Double)] {
            stride(from: 0.0, through: maxDepth, by: 0.05).map { depth -> (Double, Double) in
                let percentile = (1 - pow10(-depth)) * 100
                return (depth, Double(histogram.value(atPercentile: min(percentile, 100))) / 1e6)
            }
        }
        let points = curve(latency)
        // With stages, one curve per stage besides the whole run's.
        let stageCurves = stages.filter { $0.latency.count > 0 }.map { ($0.name, curve($0.latency)) }
        let highest = ([points] + stageCurves.map(\.1)).flatMap { $0.map(\.1) }.max() ?? 1
        let topMilliseconds = niceCeiling(max(highest, Double(latency.max) / 1e6, 0.001))
        out.append(axes(origin: left, size: panel, title: "latency (ms) by percentile"))
        for depth in 0...Int(maxDepth) {
            let x = left.x + Double(depth) / maxDepth * panel.width
            let label = ["0%", "90%", "99%", "99.9%", "99.99%", "99.999%"][depth]
            out.append(tick(x: x, y: left.y + panel.height, label: label, vertical: true))
        }
        let latencyLabels = axisLabels((0...4).map { topMilliseconds * Double($0) / 4 })
        for (step, label) in latencyLabels.enumerated() {
            out.append(
                tick(
                    x: left.x, y: left.y + panel.height * (1 - Double(step) / 4), label: label,
                    vertical: false))
        }
        func polyline(_ points: [(Double, Double)], color: String, width: Double) -> String {
            let path = points.map { depth, value in
                let x = left.x + depth / maxDepth * panel.width
                let y = left.y + panel.height * (1 - value / topMilliseconds)
                return "\(fixed(x, 1)),\(fixed(y, 1))"
            }
            return #"<polyline fill="none" stroke="\#(color)" stroke-width="\#(fixed(width, 1))" "#
                + #"points="\#(path.joined(separator: " "))"/>"#
        }
        for (index, (name, points)) in stageCurves.enumerated() {
            let color = stagePalette[index % stagePalette.count]
            out.append(polyline(points, color: color, width: 1.5))
            out.append(
                #"<text x="\#(left.x + 8)" y="\#(fixed(left.y + 14 + Double(index) * 14, 1))" fill="\#(color)">"#
                    + escape(name) + "</text>")
        }
        out.append(polyline(points, color: "steelblue", width: stageCurves.isEmpty ? 2 : 2.5))

        // Right: answers per second.
        let seconds = max(perSecond.count, 1)
        let plannedTop = stages.map { max($0.from, $0.to) }.max() ?? 0
        let top = niceCeiling(
            max(Double(max(perSecond.max() ?? 1, 1)), requestedRate != nil ? plannedTop : 0) * 1.1)
        out.append(axes(origin: right, size: panel, title: "answered per second"))
        let barWidth = panel.width / Double(seconds)
        for (second, count) in perSecond.enumerated() {
            let barHeight = panel.height * Double(count) / top
            out.append(
                #"<rect x="\#(fixed(right.x + Double(second) * barWidth + 0.5, 1))" "#
                    + #"y="\#(fixed(right.y + panel.height - barHeight, 1))" width="\#(fixed(max(barWidth - 1, 0.5), 1))" "#
                    + #"height="\#(fixed(barHeight, 1))" fill="seagreen"/>"#)
        }
        if !stages.isEmpty {
            // Stage boundaries, named, and in the open model the planned rate's ramp.
            let secondsWide = Double(seconds)
            for (index, stage) in stages.enumerated() {
                let x = right.x + panel.width * min(Double(stage.offset) / 1e9 / secondsWide, 1)
                if index > 0 {
                    out.append(
                        #"<line x1="\#(fixed(x, 1))" y1="\#(right.y)" x2="\#(fixed(x, 1))" y2="\#(right.y + panel.height)" "#
                            + #"stroke="gray" stroke-dasharray="2 3"/>"#)
                }
                out.append(
                    #"<text x="\#(fixed(x + 3, 1))" y="\#(right.y + 12)" font-size="10" "#
                        + #"fill="\#(stagePalette[index % stagePalette.count])">\#(escape(stage.name))</text>"#
                )
            }
            if case .open = model {
                let ramp = stages.flatMap { stage in
                    [(Double(stage.offset), stage.from), (Double(stage.offset + stage.duration), stage.to)]
                }.map { offset, rate in
                    let x = right.x + panel.width * min(offset / 1e9 / secondsWide, 1)
                    let y = right.y + panel.height * (1 - min(rate / top, 1))
                    return "\(fixed(x, 1)),\(fixed(y, 1))"
                }
                out.append(
                    #"<polyline fill="none" stroke="crimson" stroke-dasharray="4 3" points="\#(ramp.joined(separator: " "))"/>"#
                )
            }
        } else if let requestedRate {
            let y = right.y + panel.height * (1 - min(requestedRate / top, 1))
            out.append(
                #"<line x1="\#(right.x)" y1="\#(fixed(y, 1))" x2="\#(right.x + panel.width)" y2="\#(fixed(y, 1))" "#
                    + #"stroke="crimson" stroke-dasharray="4 3"/>"#)
            out.append(
                #"<text x="\#(right.x + panel.width - 4)" y="\#(fixed(y - 4, 1))" text-anchor="end" fill="crimson">"#
                    + "requested \(compact(requestedRate))/s</text>")
        }
        for (step, label) in axisLabels((0...4).map { top * Double($0) / 4 }).enumerated() {
            out.append(
                tick(
                    x: right.x, y: right.y + panel.height * (1 - Double(step) / 4), label: label,
                    vertical: false))
        }
        for (step, label) in axisLabels((0...4).map { Double(seconds) * Double($0) / 4 }).enumerated() {
            out.append(
                tick(
                    x: right.x + panel.width * Double(step) / 4, y: right.y + panel.height,
                    label: label + "s", vertical: true))
        }
        out.append("</svg>")
        return out.joined(separator: "\n") + "\n"
    }

    private func axes(origin: (x: Double, y: Double), size: (width: Double, height: Double), title: String)
        -> String
    {
        let bottom = origin.y + size.height
        return #"<text x="\#(origin.x + size.width / 2)" y="\#(origin.y - 10)" text-anchor="middle">"#
            + escape(title) + "</text>\n"
            + #"<path d="M\#(origin.x),\#(origin.y) V\#(bottom) H\#(origin.x + size.width)" "#
            + #"fill="none" stroke="black"/>"#
    }

    private func tick(x: Double, y: Double, label: String, vertical: Bool) -> String {
        if vertical {
            return
                #"<line x1="\#(fixed(x, 1))" y1="\#(y)" x2="\#(fixed(x, 1))" y2="\#(y + 5)" stroke="black"/>"#
                + "\n"
                + #"<text x="\#(fixed(x, 1))" y="\#(y + 18)" text-anchor="middle">\#(escape(label))</text>"#
        }
        return #"<line x1="\#(x - 5)" y1="\#(fixed(y, 1))" x2="\#(x)" y2="\#(fixed(y, 1))" stroke="black"/>"#
            + "\n"
            + #"<text x="\#(x - 8)" y="\#(fixed(y + 4, 1))" text-anchor="end">\#(escape(label))</text>"#
    }
}

/// The start of every image the tool draws: the root element, a white ground, the title.
func svgOpening(width: Double, height: Double, title: String) -> [String] {
    [
        #"<svg xmlns="http://www.w3.org/2000/svg" width="\#(Int(width))" height="\#(Int(height))" "#
            + #"font-family="sans-serif" font-size="12">"#,
        #"<rect width="100%" height="100%" fill="white"/>"#,
        #"<text x="\#(Int(width / 2))" y="22" text-anchor="middle" font-size="15">"# + escape(title)
            + "</text>",
    ]
}

/// The colours of the stages' curves and labels.
private let stagePalette = ["darkorange", "seagreen", "purple", "crimson", "goldenrod", "teal"]

/// 10^exponent without Foundation.
func pow10(_ exponent: Double) -> Double {
    var result = 1.0
    let whole = Int(exponent.magnitude)
    for _ in 0..<whole { result *= 10 }
    let fraction = exponent.magnitude - Double(whole)
    if fraction > 0 { result *= exp10Fraction(fraction) }
    return exponent < 0 ? 1 / result : result
}

/// 10^x for 0 ≤ x < 1 by a short series of e^(x ln 10).
private func exp10Fraction(_ x: Double) -> Double {
    let y = x * 2.302_585_092_994_046
    var term = 1.0
    var sum = 1.0
    for n in 1...30 {
        term *= y / Double(n)
        sum += term
    }
    return sum
}

/// The smallest of 1, 2, 2.5, 5 × 10^k at or above `value`, for an axis' top.
func niceCeiling(_ value: Double) -> Double {
    var scale = 1.0
    while scale * 10 <= value { scale *= 10 }
    while scale > value { scale /= 10 }
    for step in [1.0, 2, 2.5, 5, 10] where step * scale >= value { return step * scale }
    return 10 * scale
}

/// A short axis label: `0`, `0.25`, `12.5`, `2,500`.
func compact(_ value: Double) -> String {
    if value == 0 { return "0" }
    if value >= 100 { return grouped(value) }
    if value >= 10 { return fixed(value, 1) }
    if value >= 1 { return fixed(value, 2) }
    return fixed(value, 3)
}

/// The labels of one axis' ticks in one format: the fewest decimals (up to 3) that show every value
/// exactly, so `0 5 10 15 20` and `0 1.75 3.50 5.25 7.00`; whole values of 1,000 and more grouped.
func axisLabels(_ values: [Double]) -> [String] {
    func exact(_ value: Double, _ digits: Int) -> Bool {
        let scaled = value * pow10(Double(digits))
        return (scaled - scaled.rounded()).magnitude < 1e-6 * max(1, scaled.magnitude)
    }
    let digits = (0...3).first { digits in values.allSatisfy { exact($0, digits) } } ?? 3
    if digits == 0 {
        return values.map { $0 >= 1_000 ? grouped($0) : fixed($0, 0) }
    }
    return values.map { fixed($0, digits) }
}

/// Text with `&`, `<`, `>` escaped for SVG.
func escape(_ text: String) -> String {
    text.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(">", with: "&gt;")
}
