public import Contracts
internal import GatewayMessages

/// A key press, decoded from the terminal (see `Terminal`), independent of ncurses.
public enum Key: Sendable, Hashable {
    /// A printable character typed (any script, CJK included).
    case character(Character)
    /// Text pasted (between the terminal's bracketed-paste marks), control characters removed: it
    /// edits the focused field like typing and never navigates.
    case paste(String)
    /// Tab: next widget.
    case tab
    /// Shift-Tab (`KEY_BTAB`): previous widget.
    case backTab
    /// Enter or Return.
    case enter
    /// Esc: back.
    case escape
    /// Backspace (or Delete at the end of a field, which is where the cursor always is).
    case backspace
    /// Arrow up.
    case up
    /// Arrow down.
    case down
    /// Page up.
    case pageUp
    /// Page down.
    case pageDown
    /// Home.
    case home
    /// End.
    case end
    /// Ctrl-C: quit from anywhere.
    case interrupt
    /// Ctrl-T: show or hide the trace panel (`gateway-cli --trace`).
    case toggleTrace
    /// The terminal changed size.
    case resize
    /// A key or control character with no meaning here (ignored, never fatal).
    case unknown(UInt32)
}

/// The screens, and the flow channel each opens.
public enum ScreenKind: Sendable, Hashable {
    /// The list of flows.
    case menu
    /// Phone login (`flow.login`).
    case login
    /// Register (`flow.register`).
    case register
    /// Username sign-in (`flow.signin`).
    case signin
    /// The hero list (`flow.heroes`) for a session token, if there is one.
    case heroes(token: String?)
    /// Adding three numbers (`flow.numbers`).
    case numbers

    /// The channel this screen opens, nil for the menu.
    public var flow: FlowMethod? {
        switch self {
        case .menu: nil
        case .login: Methods.Flow.login
        case .register: Methods.Flow.register
        case .signin: Methods.Flow.signin
        case .heroes: Methods.Flow.heroes
        case .numbers: Methods.Flow.numbers
        }
    }

    /// The session token the channel needs (heroes only).
    public var token: String? {
        if case .heroes(let token) = self { return token }
        return nil
    }

    /// The label code of the screen's title.
    var titleCode: String {
        switch self {
        case .menu: "ui.title"
        case .login: "ui.login"
        case .register: "ui.register"
        case .signin: "ui.signin"
        case .heroes: "ui.heroes"
        case .numbers: "ui.numbers"
        }
    }
}

/// What a screen asks for in answer to a key or an output.
public enum ScreenAction: Sendable, Hashable {
    /// Send this input on the screen's channel.
    case send(FlowInput)
    /// Leave this screen for the one before.
    case back
    /// Show another screen on top of this one.
    case show(ScreenKind)
    /// Quit the client.
    case quit
    /// Ring the terminal bell (a key that does nothing here, a full field).
    case bell
}

/// The client's labels (`ui.*`) in one locale, from the standard catalogue.
public struct Labels: Sendable {
    /// The locale.
    public let locale: MessageLocale

    /// Labels in `locale`.
    public init(locale: MessageLocale) { self.locale = locale }

    /// The text of `code` with `params` filled in.
    public func callAsFunction(_ code: String, _ params: [String: String] = [:]) -> String {
        MessageCatalogue.standard.render(MessageCode(rawValue: code), params, in: locale)
    }
}

/// Everything a renderer needs besides the screen's state.
public struct RenderContext: Sendable {
    /// Columns.
    public var width: Int
    /// Rows.
    public var height: Int
    /// The labels.
    public var labels: Labels
    /// Whether colours may be used (false under `NO_COLOR`).
    public var colors: Bool
    /// The spinner's frame (advanced by the UI thread's clock).
    public var spinnerFrame: Int

    /// A context.
    public init(width: Int, height: Int, labels: Labels, colors: Bool = true, spinnerFrame: Int = 0) {
        self.width = max(0, width)
        self.height = max(0, height)
        self.labels = labels
        self.colors = colors
        self.spinnerFrame = spinnerFrame
    }

    /// The spinner's character for this frame (ASCII, so any terminal shows it).
    public var spinner: String {
        let frames = ["|", "/", "-", "\\"]
        return frames[((spinnerFrame % frames.count) + frames.count) % frames.count]
    }

    /// `color` when colours are on, else nil.
    func color(_ color: TextColor) -> TextColor? { colors ? color : nil }
}

/// One screen's pure model: state from the channel's outputs, keys to inputs and navigation, and a
/// renderer from state to styled lines. No terminal, no threads.
public protocol ScreenModel: Sendable {
    /// Which screen this is.
    var kind: ScreenKind { get }
    /// Applies one output from the screen's channel.
    mutating func apply(_ output: FlowOutput) -> [ScreenAction]
    /// Handles a key on a screen of `height` rows.
    mutating func handle(_ key: Key, height: Int) -> [ScreenAction]
    /// The screen's rows.
    func render(_ context: RenderContext) -> Frame
    /// The inputs sent on the screen's channel as soon as it opens (the hero list's empty search).
    var openingInputs: [FlowInput] { get }
    /// Readies the model for a new channel after its last one failed (the gateway is back): keeps
    /// what the user typed, forgets what the old channel said, and returns the inputs that bring the
    /// new channel to the same place (the texts typed so far).
    mutating func resume() -> [FlowInput]
}

extension ScreenModel {
    public var openingInputs: [FlowInput] { [] }
    public mutating func resume() -> [FlowInput] { openingInputs }
}

extension Chrome {
    /// `text` as a reverse-video banner of as many rows as it needs at `width`: a space either side,
    /// wrapped at spaces (anywhere in CJK text).
    static func banner(_ text: String, _ style: TextStyle, width: Int) -> [StyledLine] {
        TextWidth.wrap(text.replacingControlCharacters(), to: width - 2).map { part in
            var row = LineBuilder(width: width)
            row.add(" " + part + " ", style)
            return row.line
        }
    }
}

/// The rows every screen shares: a title bar on top, a key help line at the bottom, and the body
/// between them (clipped to fit).
enum Chrome {
    /// Lays out `body` under the title bar and above the footer, in exactly `context.height` rows.
    static func frame(
        title: String, body: [StyledLine], cursorRow: Int?, cursorColumn: Int?, _ context: RenderContext,
        keys: String = "Tab/Shift-Tab  Enter"
    ) -> Frame {
        let width = context.width
        let height = context.height
        guard height > 0 else { return Frame(lines: [], cursor: nil) }
        var lines: [StyledLine] = []
        var bar = LineBuilder(width: width)
        let heading = title.isEmpty ? context.labels("ui.title") : context.labels("ui.title") + " > " + title
        bar.add(" " + heading + " ", TextStyle(bold: true, reverse: true))
        bar.pad(to: width, TextStyle(reverse: true))
        lines.append(bar.line)
        let footerRows = height >= 3 ? 1 : 0
        let room = max(0, height - 1 - footerRows)
        lines.append(contentsOf: body.prefix(room))
        while lines.count < height - footerRows { lines.append(StyledLine()) }
        if footerRows == 1 {
            var footer = LineBuilder(width: width)
            footer.add(
                keys + "  " + context.labels("ui.back") + "  " + context.labels("ui.quit"),
                TextStyle(dim: true))
            lines.append(footer.line)
        }
        var cursor: Frame.Cursor?
        if let cursorRow, let cursorColumn, cursorRow < room, cursorColumn < width {
            cursor = Frame.Cursor(row: cursorRow + 1, column: cursorColumn)
        }
        return Frame(lines: Array(lines.prefix(height)), cursor: cursor)
    }
}
