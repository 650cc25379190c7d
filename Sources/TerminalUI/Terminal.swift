internal import CNcursesw

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// The ncursesw screen: paints frames and reads keys. Not thread-safe (ncurses is not): created,
/// used and closed by the UI thread alone, so it is deliberately not `Sendable`.
final class Terminal {
    /// Colour pairs, one per ``TextColor``.
    private static let pairs: [TextColor: Int16] = [.green: 1, .red: 2, .yellow: 3, .cyan: 4]

    private let screen: OpaquePointer
    /// Whether colours are painted (the terminal has them and `NO_COLOR` is not set).
    let colors: Bool
    private var closed = false

    /// Starts curses on the process's terminal; nil when `$TERM` is unusable.
    init?(wantColors: Bool) {
        // ncursesw decodes and measures text with LC_CTYPE (only that category is set, so the CLI's
        // number formatting is untouched); a non-UTF-8 environment locale (often plain "C") would
        // turn every CJK label into escapes, so C.UTF-8 stands in for it.
        setlocale(LC_CTYPE, "")
        if cncurses_codeset_is_utf8() == 0 { setlocale(LC_CTYPE, "C.UTF-8") }
        guard let screen = cncurses_newterm() else { return nil }
        self.screen = screen
        raw()  // Ctrl-C arrives as a key, so it quits the same way from every screen.
        noecho()
        nonl()
        keypad(cncurses_stdscr(), true)
        set_escdelay(25)
        cncurses_timeout(0)
        // Bracketed paste: pasted text arrives between marks, so it is typed, never obeyed.
        cncurses_write_raw("\u{1B}[?2004h")
        var colors = false
        if wantColors && has_colors() {
            start_color()
            use_default_colors()
            let foregrounds: [TextColor: Int16] = [
                .green: Int16(COLOR_GREEN), .red: Int16(COLOR_RED), .yellow: Int16(COLOR_YELLOW),
                .cyan: Int16(COLOR_CYAN),
            ]
            for (color, pair) in Self.pairs { init_pair(pair, foregrounds[color] ?? -1, -1) }
            colors = true
        }
        self.colors = colors
    }

    deinit { close() }

    /// The screen's columns and rows.
    var size: (width: Int, height: Int) { (Int(cncurses_columns()), Int(cncurses_rows())) }

    /// Paints `frame` (ncurses sends only what changed).
    func paint(_ frame: Frame) {
        for (row, line) in frame.lines.enumerated() {
            cncurses_move(Int32(row), 0)
            cncurses_set_attributes(cncurses_a_normal())
            cncurses_clear_to_eol()
            var column = 0
            for span in line.spans {
                cncurses_set_attributes(attributes(span.style))
                cncurses_put(Int32(row), Int32(column), span.text)
                column += TextWidth.of(span.text)
            }
            cncurses_set_attributes(cncurses_a_normal())
        }
        if let cursor = frame.cursor {
            curs_set(1)
            cncurses_move(Int32(cursor.row), Int32(cursor.column))
        } else {
            curs_set(0)
        }
        refresh()
    }

    /// The next key already waiting (ncurses' own buffer included), or nil when none is; never
    /// waits except for the rest of an escape sequence (`ESCDELAY`, 25 ms). The UI loop waits with
    /// poll(2) on standard input and its wake pipe instead.
    func readKey() -> Key? {
        var code: wint_t = 0
        let result = cncurses_get_wch(&code)
        if result == ERR { return nil }
        return Key.decode(UInt32(code), functionKey: result == KEY_CODE_YES)
    }

    /// Rings the bell.
    func bell() { beep() }

    /// Restores the terminal (idempotent).
    func close() {
        guard !closed else { return }
        closed = true
        cncurses_write_raw("\u{1B}[?2004l")
        curs_set(1)
        endwin()
        delscreen(screen)
    }

    private func attributes(_ style: TextStyle) -> attr_t {
        var value = cncurses_a_normal()
        if style.bold { value |= cncurses_a_bold() }
        if style.underline { value |= cncurses_a_underline() }
        if style.reverse { value |= cncurses_a_reverse() }
        if style.dim { value |= cncurses_a_dim() }
        if colors, let color = style.color, let pair = Self.pairs[color] {
            value |= cncurses_color_pair(pair)
        }
        return value
    }
}

extension Key {
    /// Decodes what `get_wch` returned: a function key code, or a character (controls included).
    static func decode(_ code: UInt32, functionKey: Bool) -> Key {
        if functionKey {
            switch Int32(code) {
            case KEY_UP: return .up
            case KEY_DOWN: return .down
            case KEY_PPAGE: return .pageUp
            case KEY_NPAGE: return .pageDown
            case KEY_HOME: return .home
            case KEY_END: return .end
            case KEY_BTAB: return .backTab
            case KEY_ENTER: return .enter
            case KEY_BACKSPACE, KEY_DC: return .backspace
            case KEY_RESIZE: return .resize
            default: return .unknown(code)
            }
        }
        switch code {
        case 3: return .interrupt
        case 20: return .toggleTrace
        case 9: return .tab
        case 10, 13: return .enter
        case 27: return .escape
        case 8, 127: return .backspace
        case 0..<32, 0x80..<0xA0: return .unknown(code)
        default:
            guard let scalar = Unicode.Scalar(code) else { return .unknown(code) }
            return .character(Character(scalar))
        }
    }
}
