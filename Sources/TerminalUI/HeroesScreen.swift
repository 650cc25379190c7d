public import Contracts

/// The hero list: a search box whose text goes to the gateway after every edit, and every hero that
/// matches, fetched a page at a time as the selection reaches it.
///
/// The screen opens with the empty search (every hero). The gateway answers one page at a time
/// (`page` input, page `n` holding matches from `n × page_size`), and every answer says which text
/// and page it answers (`query`, `page`, with the text's `total`). The screen files an answer under
/// its own text and page, so rows of a superseded search never show for a newer text, and shows
/// only the current text's pages: the list converges on the current text's matches in catalog
/// order, whatever order the answers come in.
///
/// Besides the current text's pages the screen keeps the pages of the last few texts answered
/// (``HeroesScreen/keptTexts``), never shown for another text: typing back to a text the gateway
/// last searched (which it does not search again, having de-duplicated it) shows that text's answer
/// at once. It asks for the page under the selection whenever it has not arrived, and for the pages
/// of the rows showing once the last page asked for has been answered; a page asked for again is
/// searched again, so a page that never filled (its answer lost) is filled by moving onto it.
public struct HeroesScreen: ScreenModel {
    /// The pages answered for one search text.
    public struct Results: Sendable, Hashable {
        /// How many heroes match the text in all.
        public var total: Int
        /// Heroes per page.
        public var pageSize: Int
        /// The pages answered, by page number.
        public var pages: [Int: [FlowHero]]
    }

    public let kind: ScreenKind
    /// The search text typed so far.
    public private(set) var searchText = ""
    /// The pages answered, by search text: the current text's, and those of the last
    /// ``keptTexts`` texts answered.
    public private(set) var results: [String: Results] = [:]
    /// The texts of `results` other than the current one, the most recently answered last.
    private var answeredTexts: [String] = []
    /// The page last asked for (the gateway starts at 0).
    public private(set) var requestedPage = 0
    /// Whether the answer to the current text's page `requestedPage` is still to come.
    public private(set) var awaiting = true
    /// The list rows of the last key's screen height.
    private var viewRows = HeroesScreen.listRows(height: 24)
    /// Whether a search is in flight.
    public private(set) var searching = false
    /// The last search's error message, empty when none.
    public private(set) var error = ""
    /// The selected row, from 0 over every match.
    public private(set) var selection = 0
    /// The first row shown.
    public private(set) var top = 0

    /// How many texts besides the current one keep their pages.
    public static let keptTexts = 8

    /// The rows around the list: the title bar, a blank row, search, status, and the footer.
    static let fixedRows = 5

    /// A hero list for the session `token`.
    public init(token: String?) { kind = .heroes(token: token) }

    /// The empty search, so the list opens with every hero.
    public var openingInputs: [FlowInput] { [.text(.searchText, "")] }

    /// Keeps the text, the selection and the pages already answered (they are the texts' own); the
    /// new channel starts at page 0, so the search goes again from there (further pages follow as
    /// the answer arrives). Whatever the old channel had in flight is lost with it.
    public mutating func resume() -> [FlowInput] {
        requestedPage = 0
        awaiting = true
        searching = false
        error = ""
        return [.text(.searchText, searchText)]
    }

    /// The number of list rows a screen of `height` rows shows.
    static func listRows(height: Int) -> Int { max(1, height - fixedRows) }

    /// The current text's pages, nil before its first answer.
    public var current: Results? { results[searchText] }

    /// How many heroes match the current text (nil before its first answer).
    public var total: Int? { current?.total }

    /// Heroes per page of the current text's answers (the gateway's default before one).
    public var pageSize: Int { current?.pageSize ?? Methods.Flow.heroesPageSize }

    /// How many rows the list has: every match of the current text once it is answered.
    public var rowCount: Int { max(0, current?.total ?? 0) }

    /// The hero on `row` for the current text, nil while its page has not arrived.
    public func hero(at row: Int) -> FlowHero? {
        guard row >= 0, let current, current.pageSize > 0, let page = current.pages[row / current.pageSize]
        else { return nil }
        let index = row % current.pageSize
        return index < page.count ? page[index] : nil
    }

    public mutating func apply(_ output: FlowOutput) -> [ScreenAction] {
        switch output.outputName {
        case .heroes?:
            return answer(output)
        case .searching?:
            searching = output.value ?? false
        case .error?:
            error = output.message ?? output.code?.rawValue ?? ""
        default:
            break  // `total` (the answers carry their own) and outputs this screen does not show.
        }
        return []
    }

    /// Files a search's answer under its text and page. An answer that does not say what it
    /// answers (the empty page before the first search) is not filed.
    mutating func answer(_ output: FlowOutput) -> [ScreenAction] {
        guard let query = output.query, let page = output.page, page >= 0 else { return [] }
        let heroes = output.heroes ?? []
        let total = max(0, output.total ?? heroes.count)
        let pageSize = max(1, output.pageSize ?? Methods.Flow.heroesPageSize)
        if var kept = results[query], kept.total == total, kept.pageSize == pageSize {
            kept.pages[page] = heroes
            results[query] = kept
        } else {
            // The text's first answer, or the catalog changed under it: its other pages are stale.
            results[query] = Results(total: total, pageSize: pageSize, pages: [page: heroes])
        }
        guard query == searchText else {
            keep(query)
            return []
        }
        if page == requestedPage { awaiting = false }
        clampSelection()
        return nextPage()
    }

    /// Marks `text` the most recently answered of the kept texts, forgetting the oldest beyond
    /// ``keptTexts`` (never the current text's).
    mutating func keep(_ text: String) {
        answeredTexts.removeAll { $0 == text }
        answeredTexts.append(text)
        while answeredTexts.count > Self.keptTexts {
            let oldest = answeredTexts.removeFirst()
            if oldest != searchText { results[oldest] = nil }
        }
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
            let previous = searchText
            searchText.removeLast()
            return searchChanged(from: previous)
        case .character(let character):
            guard searchText.count < FormScreen.maximumFieldLength else { return [.bell] }
            let previous = searchText
            searchText.append(character)
            return searchChanged(from: previous)
        case .paste(let text):
            let room = FormScreen.maximumFieldLength - searchText.count
            guard room > 0, !text.isEmpty else { return [.bell] }
            let previous = searchText
            searchText += text.prefix(room)
            return searchChanged(from: previous)
        case .tab, .backTab, .enter, .resize:
            break
        case .unknown, .toggleTrace:
            return [.bell]
        }
        return nextPage()
    }

    /// A new text: back to the top of its list, page 0 asked for with the text. Nothing of another
    /// text shows: the list is the new text's pages if it has some, else empty until they come.
    mutating func searchChanged(from previous: String) -> [ScreenAction] {
        var actions: [ScreenAction] = [.send(.text(.searchText, searchText))]
        if results[previous] != nil { keep(previous) }
        answeredTexts.removeAll { $0 == searchText }
        selection = 0
        top = 0
        if requestedPage != 0 {
            requestedPage = 0
            actions.insert(.send(.text(.page, "0")), at: 0)
        }
        awaiting = current?.pages[0] == nil
        return actions + nextPage()
    }

    /// The next page to ask for: the first that has not arrived of the page under the selection
    /// and the pages of the rows showing. The selection's page goes at once (a newer page cancels
    /// the search before it at the gateway); the others wait until the last answer is in.
    mutating func nextPage() -> [ScreenAction] {
        guard let current, current.pageSize > 0, rowCount > 0 else { return [] }
        let selected = selection / current.pageSize
        let first = max(0, min(top, selection))
        let last = max(first, min(rowCount, first + viewRows) - 1)
        let wanted = [selected] + Array(first / current.pageSize...last / current.pageSize)
        guard let missing = wanted.first(where: { current.pages[$0] == nil }) else { return [] }
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

        // The search box is marked by the cursor, the selected row by "> ": one mark each.
        var search = LineBuilder(width: width)
        search.add("  ")
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
        let shown = current?.pages ?? [:]
        let widest =
            shown.values.lazy.flatMap { $0 }.map { TextWidth.of($0.name.replacingControlCharacters()) }
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
