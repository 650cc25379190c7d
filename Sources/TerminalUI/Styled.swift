internal import CNcursesw

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// A colour a renderer may ask for; the painter drops it under `NO_COLOR`.
public enum TextColor: Sendable, Hashable {
    /// A field that is ok, a success alert.
    case green
    /// A failed field, a failure or error alert, an overflow.
    case red
    /// The tip line and busy indicators.
    case yellow
    /// Titles and the selected menu entry.
    case cyan
}

/// How a run of text looks: an optional colour plus attributes that survive `NO_COLOR`.
public struct TextStyle: Sendable, Hashable {
    /// The foreground colour, or nil for the terminal's own.
    public var color: TextColor?
    /// Bold.
    public var bold: Bool
    /// Underlined.
    public var underline: Bool
    /// Reverse video (focus, title bar).
    public var reverse: Bool
    /// Dim (disabled widgets).
    public var dim: Bool

    /// A style; every attribute off by default.
    public init(
        color: TextColor? = nil, bold: Bool = false, underline: Bool = false, reverse: Bool = false,
        dim: Bool = false
    ) {
        self.color = color
        self.bold = bold
        self.underline = underline
        self.reverse = reverse
        self.dim = dim
    }

    /// No colour, no attributes.
    public static let plain = TextStyle()
}

/// A run of text in one style.
public struct TextSpan: Sendable, Hashable {
    /// The text (no control characters).
    public var text: String
    /// Its look.
    public var style: TextStyle

    /// A span.
    public init(_ text: String, _ style: TextStyle = .plain) {
        self.text = text
        self.style = style
    }
}

/// One screen row: spans laid left to right, never wider than the width it was built for.
public struct StyledLine: Sendable, Hashable, CustomStringConvertible {
    /// The spans.
    public var spans: [TextSpan]

    /// A line of `spans`.
    public init(_ spans: [TextSpan] = []) { self.spans = spans }

    /// The text without styles.
    public var text: String { spans.map(\.text).joined() }

    /// The width in terminal columns.
    public var width: Int { TextWidth.of(text) }

    public var description: String { text }
}

/// What a renderer produces: exactly `height` lines, each at most `width` columns, and where the
/// terminal cursor goes (the end of the focused field), if anywhere.
public struct Frame: Sendable, Hashable {
    /// The rows, top to bottom.
    public var lines: [StyledLine]
    /// The cursor's row and column, or nil to hide it.
    public var cursor: Cursor?

    /// A cursor position.
    public struct Cursor: Sendable, Hashable {
        /// The row.
        public var row: Int
        /// The column.
        public var column: Int

        /// A position.
        public init(row: Int, column: Int) {
            self.row = row
            self.column = column
        }
    }

    /// A frame.
    public init(lines: [StyledLine], cursor: Cursor?) {
        self.lines = lines
        self.cursor = cursor
    }

    /// The rows' plain text, for tests and captures.
    public var text: [String] { lines.map(\.text) }
}

/// Display widths of text as the terminal counts them (`wcwidth`): CJK characters take two columns,
/// combining marks none.
public enum TextWidth {
    /// `wcwidth` only knows wide characters under a UTF-8 `LC_CTYPE`; the process's locale (from the
    /// environment) is used when it is UTF-8, else `C.UTF-8`.
    static let localeReady: Bool = {
        setlocale(LC_CTYPE, "")
        if cncurses_codeset_is_utf8() == 0 { setlocale(LC_CTYPE, "C.UTF-8") }
        return cncurses_codeset_is_utf8() != 0
    }()

    /// The columns `scalar` takes: 0 for combining marks and controls, 2 for wide characters.
    public static func of(_ scalar: Unicode.Scalar) -> Int {
        _ = localeReady
        if scalar.value < 0x20 || scalar.value == 0x7F { return 0 }
        if scalar.isASCII { return 1 }
        let width = Int(cncurses_wcwidth(scalar.value))
        if width >= 0 { return width }
        return scalar.properties.generalCategory == .nonspacingMark ? 0 : 1
    }

    /// The columns `character` takes.
    public static func of(_ character: Character) -> Int {
        character.unicodeScalars.reduce(0) { $0 + of($1) }
    }

    /// The columns `text` takes.
    public static func of(_ text: some StringProtocol) -> Int {
        text.reduce(0) { $0 + of($1) }
    }

    /// The longest prefix of `text` that fits in `columns`; a wide character that would straddle the
    /// edge is left out.
    public static func prefix(_ text: String, fitting columns: Int) -> String {
        var used = 0
        var result = ""
        for character in text {
            let width = of(character)
            if used + width > columns { break }
            used += width
            result.append(character)
        }
        return result
    }

    /// The longest suffix of `text` that fits in `columns` (a field shows the end it is typed at).
    public static func suffix(_ text: String, fitting columns: Int) -> String {
        var used = 0
        var result: [Character] = []
        for character in text.reversed() {
            let width = of(character)
            if used + width > columns { break }
            used += width
            result.append(character)
        }
        return String(result.reversed())
    }

    /// The ellipsis that ends cut text.
    public static let ellipsis = "\u{2026}"

    /// `text` when it fits in `columns`, else its longest prefix that fits with "…" after it (a
    /// wide character that would straddle the edge is left out, so the result may be a column
    /// short).
    public static func truncate(_ text: String, to columns: Int) -> String {
        guard of(text) > columns else { return text }
        let mark = of(ellipsis)
        guard columns >= mark else { return "" }
        return prefix(text, fitting: columns - mark) + ellipsis
    }

    /// `text` broken into rows of at most `columns`: at spaces where it has them, anywhere in a run
    /// wider than a row (CJK text has no spaces). No row is empty unless `text` is.
    public static func wrap(_ text: String, to columns: Int) -> [String] {
        guard columns > 0 else { return [] }
        guard of(text) > columns else { return [text] }
        var rows: [String] = []
        var row = ""
        var rowWidth = 0
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            var word = String(word)
            var wordWidth = of(word)
            if rowWidth > 0, rowWidth + 1 + wordWidth <= columns {
                row += " " + word
                rowWidth += 1 + wordWidth
                continue
            }
            if rowWidth > 0 {
                rows.append(row)
                row = ""
                rowWidth = 0
            }
            while wordWidth > columns {
                var head = prefix(word, fitting: columns)
                if head.isEmpty { head = String(word.prefix(1)) }  // a character wider than a row
                rows.append(head)
                word = String(word.dropFirst(head.count))
                wordWidth = of(word)
            }
            row = word
            rowWidth = wordWidth
        }
        if !row.isEmpty || rows.isEmpty { rows.append(row) }
        return rows
    }

    /// `text` padded with spaces to `columns` (clipped first when longer).
    public static func pad(_ text: String, to columns: Int) -> String {
        let clipped = prefix(text, fitting: columns)
        return clipped + String(repeating: " ", count: max(0, columns - of(clipped)))
    }
}

/// Builds one row from spans, clipping at the width so no row ever overflows.
struct LineBuilder {
    let width: Int
    private(set) var line = StyledLine()
    private(set) var used = 0

    init(width: Int) { self.width = max(0, width) }

    /// Appends `text`, clipped to the room left.
    mutating func add(_ text: String, _ style: TextStyle = .plain) {
        let room = width - used
        guard room > 0, !text.isEmpty else { return }
        // Text from the gateway is shown, never interpreted: a control character (ESC, newline)
        // would move the cursor or take two columns as ^X, so it shows as a space.
        let clipped = TextWidth.prefix(text.replacingControlCharacters(), fitting: room)
        guard !clipped.isEmpty else { return }
        used += TextWidth.of(clipped)
        line.spans.append(TextSpan(clipped, style))
    }

    /// Pads with spaces up to column `column`.
    mutating func pad(to column: Int, _ style: TextStyle = .plain) {
        let target = min(column, width)
        if target > used { add(String(repeating: " ", count: target - used), style) }
    }
}
