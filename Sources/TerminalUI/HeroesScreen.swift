public import Contracts

/// The hero list: a search box whose text goes to the gateway after every edit, and the page of
/// heroes it answers with, scrolled with Up/Down/PgUp/PgDn.
public struct HeroesScreen: ScreenModel {
    public let kind: ScreenKind
    /// The search text typed so far.
    public private(set) var searchText = ""
    /// The current page, as the gateway rendered it.
    public private(set) var heroes: [FlowHero] = []
    /// How many heroes match in all (nil before the first answer).
    public private(set) var total: Int?
    /// Whether a search is in flight.
    public private(set) var searching = false
    /// The last search's error message, empty when none.
    public private(set) var error = ""
    /// The selected row.
    public private(set) var selection = 0
    /// The first row shown.
    public private(set) var top = 0

    /// The rows around the list: the title bar, a blank row, search, status, and the footer.
    static let fixedRows = 5

    /// A hero list for the session `token`.
    public init(token: String?) { kind = .heroes(token: token) }

    /// The number of list rows a screen of `height` rows shows.
    static func listRows(height: Int) -> Int { max(1, height - fixedRows) }

    public mutating func apply(_ output: FlowOutput) -> [ScreenAction] {
        switch output.output {
        case "heroes":
            heroes = output.heroes ?? []
            selection = 0
            top = 0
        case "total":
            total = output.number
        case "searching":
            searching = output.value ?? false
        case "error":
            error = output.message ?? output.code?.rawValue ?? ""
        default:
            break  // An output this screen does not show: ignored.
        }
        return []
    }

    public mutating func handle(_ key: Key, height: Int) -> [ScreenAction] {
        let rows = Self.listRows(height: height)
        switch key {
        case .interrupt: return [.quit]
        case .escape: return [.back]
        case .up: select(selection - 1, rows: rows)
        case .down: select(selection + 1, rows: rows)
        case .pageUp: select(selection - rows, rows: rows)
        case .pageDown: select(selection + rows, rows: rows)
        case .home: select(0, rows: rows)
        case .end: select(heroes.count - 1, rows: rows)
        case .backspace:
            guard !searchText.isEmpty else { return [.bell] }
            searchText.removeLast()
            return [.send(.text("searchText", searchText))]
        case .character(let character):
            guard searchText.count < FormScreen.maximumFieldLength else { return [.bell] }
            searchText.append(character)
            return [.send(.text("searchText", searchText))]
        case .tab, .backTab, .enter, .resize:
            break
        case .unknown:
            return [.bell]
        }
        return []
    }

    /// Selects `row` (clamped) and scrolls so it shows in `rows` list rows.
    mutating func select(_ row: Int, rows: Int) {
        selection = max(0, min(row, heroes.count - 1))
        if selection < top { top = selection }
        if selection >= top + rows { top = selection - rows + 1 }
        top = max(0, min(top, max(0, heroes.count - rows)))
    }

    public func render(_ context: RenderContext) -> Frame {
        let labels = context.labels
        let width = context.width
        var body: [StyledLine] = [StyledLine()]

        var search = LineBuilder(width: width)
        search.add("> ", TextStyle(bold: true))
        let label = labels("ui.search")
        search.add(label + "  ")
        let boxColumn = 2 + TextWidth.of(label) + 2
        let boxWidth = max(4, min(32, width - boxColumn - 2))
        let visible = TextWidth.suffix(searchText, fitting: boxWidth - 1)
        search.add("[")
        search.add(TextWidth.pad(visible, to: boxWidth), TextStyle(underline: true))
        search.add("]")
        if searching {
            search.add("  " + context.spinner + " ", TextStyle(color: context.color(.yellow), bold: true))
            search.add(labels("ui.loading"), TextStyle(color: context.color(.yellow)))
        }
        body.append(search.line)

        var status = LineBuilder(width: width)
        status.add("  ")
        if let total { status.add(labels("ui.total", ["n": String(total)]), TextStyle(bold: true)) }
        if !error.isEmpty {
            status.add("  ")
            status.add("[x] " + error, TextStyle(color: context.color(.red), bold: true))
        }
        body.append(status.line)

        let rows = Self.listRows(height: context.height)
        var first = top
        if selection >= first + rows { first = selection - rows + 1 }
        first = max(0, min(first, selection))
        let nameWidth = min(16, max(4, width / 4))
        for index in first..<min(heroes.count, first + rows) {
            let hero = heroes[index]
            let selected = index == selection
            var row = LineBuilder(width: width)
            row.add(selected ? "> " : "  ", TextStyle(bold: true))
            let style = TextStyle(
                color: selected ? context.color(.cyan) : nil, bold: selected, reverse: selected)
            row.add(TextWidth.pad(hero.name, to: nameWidth), style)
            row.add("  ")
            row.add(hero.intro, TextStyle(dim: !selected))
            body.append(row.line)
        }

        return Chrome.frame(
            title: labels(kind.titleCode), body: body, cursorRow: 1,
            cursorColumn: min(width - 1, boxColumn + 1 + TextWidth.of(visible)), context,
            keys: "Up/Down  PgUp/PgDn")
    }
}

extension String {
    /// The text with C0/C1 controls (newline, ESC, DEL, …) shown as spaces, so one row stays one row
    /// and nothing from the gateway reaches the terminal as a control sequence.
    func replacingControlCharacters() -> String {
        guard unicodeScalars.contains(where: \.isControl) else { return self }
        return String(String.UnicodeScalarView(unicodeScalars.map { $0.isControl ? " " : $0 }))
    }
}

extension Unicode.Scalar {
    /// A C0 or C1 control character, or DEL.
    var isControl: Bool { value < 0x20 || (0x7F...0x9F).contains(value) }
}
