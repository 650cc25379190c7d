public import Contracts

/// The hero list: a search box whose text goes to the gateway after every edit, and every hero that
/// matches, fetched a page at a time as the selection reaches it.
///
/// The screen opens with the empty search (every hero). The gateway answers one page per search
/// (`page` input, page `n` holding matches from `n × pageSize`); the screen keeps the pages it has
/// seen for the current text and asks for the page under the selection whenever the selection
/// moves onto a page other than the one last asked for. A `heroes` output is the answer to the last
/// `page` and `searchText` sent (the gateway cancels each search when a newer one starts), so the
/// page under the selection always ends up showing what the gateway last sent.
public struct HeroesScreen: ScreenModel {
    public let kind: ScreenKind
    /// The search text typed so far.
    public private(set) var searchText = ""
    /// The pages seen for the current text, by page number.
    public private(set) var pages: [Int: [FlowHero]] = [:]
    /// The page last asked for (the gateway starts at 0).
    public private(set) var requestedPage = 0
    /// Whether the answer to the last text or page sent has not arrived yet.
    public private(set) var awaiting = true
    /// The list rows of the last key's screen height.
    private var viewRows = HeroesScreen.listRows(height: 24)
    /// Heroes per page: the gateway's default, or fewer when its first page says so.
    public private(set) var pageSize = Methods.Flow.heroesPageSize
    /// How many heroes match in all (nil before the first answer).
    public private(set) var total: Int?
    /// Whether a search is in flight.
    public private(set) var searching = false
    /// The last search's error message, empty when none.
    public private(set) var error = ""
    /// The selected row, from 0 over every match.
    public private(set) var selection = 0
    /// The first row shown.
    public private(set) var top = 0

    /// The rows around the list: the title bar, a blank row, search, status, and the footer.
    static let fixedRows = 5

    /// A hero list for the session `token`.
    public init(token: String?) { kind = .heroes(token: token) }

    /// The empty search, so the list opens with every hero.
    public var openingInputs: [FlowInput] { [.text(.searchText, "")] }

    /// Keeps the text, the selection and the rows already shown; the new channel starts at page 0,
    /// so the search goes again from there (further pages follow as the answer arrives).
    public mutating func resume() -> [FlowInput] {
        requestedPage = 0
        awaiting = true
        searching = false
        error = ""
        return [.text(.searchText, searchText)]
    }

    /// The number of list rows a screen of `height` rows shows.
    static func listRows(height: Int) -> Int { max(1, height - fixedRows) }

    /// How many rows the list has: every match once the total is known, else the first page.
    public var rowCount: Int {
        if let total { return max(0, total) }
        return pages[0]?.count ?? 0
    }

    /// The hero on `row`, nil while its page has not arrived.
    public func hero(at row: Int) -> FlowHero? {
        guard row >= 0, pageSize > 0, let page = pages[row / pageSize] else { return nil }
        let index = row % pageSize
        return index < page.count ? page[index] : nil
    }

    public mutating func apply(_ output: FlowOutput) -> [ScreenAction] {
        switch output.outputName {
        case .heroes?:
            pages[requestedPage] = output.heroes ?? []
            awaiting = false
            inferPageSize()
            return nextPage()
        case .total?:
            total = output.number
            inferPageSize()
            clampSelection()
            return nextPage()
        case .searching?:
            searching = output.value ?? false
        case .error?:
            error = output.message ?? output.code?.rawValue ?? ""
        default:
            break  // An output this screen does not show: ignored.
        }
        return []
    }

    /// A first page shorter than the total is the gateway's page size (when it is not the default).
    mutating func inferPageSize() {
        guard let first = pages[0], let total, !first.isEmpty, first.count < total,
            first.count < pageSize, pages.count == 1
        else { return }
        pageSize = first.count
    }

    public mutating func handle(_ key: Key, height: Int) -> [ScreenAction] {
        let rows = Self.listRows(height: height)
        viewRows = rows
        switch key {
        case .interrupt: return [.quit]
        case .escape: return [.back]
        case .up: select(selection - 1, rows: rows)
        case .down: select(selection + 1, rows: rows)
        case .pageUp: select(selection - rows, rows: rows)
        case .pageDown: select(selection + rows, rows: rows)
        case .home: select(0, rows: rows)
        case .end: select(rowCount - 1, rows: rows)
        case .backspace:
            guard !searchText.isEmpty else { return [.bell] }
            searchText.removeLast()
            return searchChanged()
        case .character(let character):
            guard searchText.count < FormScreen.maximumFieldLength else { return [.bell] }
            searchText.append(character)
            return searchChanged()
        case .paste(let text):
            let room = FormScreen.maximumFieldLength - searchText.count
            guard room > 0, !text.isEmpty else { return [.bell] }
            searchText += text.prefix(room)
            return searchChanged()
        case .tab, .backTab, .enter, .resize:
            break
        case .unknown:
            return [.bell]
        }
        return nextPage()
    }

    /// A new text: back to the top of a fresh list, page 0 asked for with the text. The first page
    /// of the old text shows until the new answer replaces it.
    mutating func searchChanged() -> [ScreenAction] {
        var actions: [ScreenAction] = [.send(.text(.searchText, searchText))]
        let first = pages[0]
        pages = [:]
        if let first { pages[0] = first }
        selection = 0
        top = 0
        awaiting = true
        if requestedPage != 0 {
            requestedPage = 0
            actions.insert(.send(.text(.page, "0")), at: 0)
        }
        return actions
    }

    /// The next page to ask for: the first that has not arrived of the page under the selection
    /// and the pages of the rows showing. The selection's page goes at once (a newer page cancels
    /// the search before it at the gateway); the others wait until the last answer is in.
    mutating func nextPage() -> [ScreenAction] {
        guard pageSize > 0, rowCount > 0 else { return [] }
        let selected = selection / pageSize
        let first = max(0, min(top, selection))
        let last = max(first, min(rowCount, first + viewRows) - 1)
        let wanted = [selected] + Array(first / pageSize...last / pageSize)
        guard let missing = wanted.first(where: { pages[$0] == nil }) else { return [] }
        if awaiting && (missing == requestedPage || missing != selected) { return [] }
        requestedPage = missing
        awaiting = true
        return [.send(.text(.page, String(missing)))]
    }

    /// Keeps the selection on a row that exists.
    mutating func clampSelection() {
        selection = max(0, min(selection, rowCount - 1))
        top = max(0, min(top, selection))
    }

    /// Selects `row` (clamped) and scrolls so it shows in `rows` list rows.
    mutating func select(_ row: Int, rows: Int) {
        selection = max(0, min(row, rowCount - 1))
        if selection < top { top = selection }
        if selection >= top + rows { top = selection - rows + 1 }
        top = max(0, min(top, max(0, rowCount - rows)))
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
            status.add(
                TextWidth.truncate("[x] " + error, to: max(0, width - status.used)),
                TextStyle(color: context.color(.red), bold: true))
        }
        body.append(status.line)

        let rows = Self.listRows(height: context.height)
        var first = top
        if selection >= first + rows { first = selection - rows + 1 }
        first = max(0, min(first, selection))
        // The name column is as wide as the widest name seen, up to half of what the row has after
        // the marker and the gap; the intro takes the rest. Whatever does not fit ends in "…".
        let room = max(0, width - 4)
        let widest =
            pages.values.lazy.flatMap { $0 }.map { TextWidth.of($0.name.replacingControlCharacters()) }
            .max() ?? 0
        let nameWidth = max(min(4, room), min(widest, room / 2))
        let introWidth = max(0, room - nameWidth)
        for index in first..<min(rowCount, first + rows) {
            let selected = index == selection
            var row = LineBuilder(width: width)
            row.add(selected ? "> " : "  ", TextStyle(bold: true))
            let style = TextStyle(
                color: selected ? context.color(.cyan) : nil, bold: selected, reverse: selected)
            guard let hero = hero(at: index) else {
                row.add(TextWidth.pad("…", to: nameWidth), style)
                body.append(row.line)
                continue
            }
            let name = TextWidth.truncate(hero.name.replacingControlCharacters(), to: nameWidth)
            row.add(TextWidth.pad(name, to: nameWidth), style)
            row.add("  ")
            row.add(
                TextWidth.truncate(hero.intro.replacingControlCharacters(), to: introWidth),
                TextStyle(dim: !selected))
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
