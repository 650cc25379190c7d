public import Contracts
internal import GatewayMessages

/// The client's whole state, pure: a stack of screens (the menu at the bottom), the model of the one
/// showing, and which channel generation its outputs must carry. The terminal loop feeds it keys and
/// outputs and carries out the effects it returns.
public struct Navigator: Sendable {
    /// What the terminal loop must do.
    public enum Effect: Sendable, Hashable {
        /// Close the current channel; open one for the screen now showing (if it has a flow).
        case switchChannel
        /// Send an input on the current channel.
        case send(FlowInput)
        /// Ring the bell.
        case bell
        /// Quit the client.
        case quit
    }

    /// The screens from the menu to the one showing.
    public private(set) var stack: [ScreenKind] = [.menu]
    /// The model of the screen showing.
    public private(set) var screen: any ScreenModel = MenuScreen()
    /// Counts screens shown; a channel's outputs carry the generation it was opened for, so an output
    /// that arrives after its screen was left is dropped.
    public private(set) var generation = 0
    /// The token of the last session a sign-in opened (the menu's hero list uses it; without one
    /// the menu's hero entry opens the sign-in).
    public private(set) var lastToken: String?
    /// Why the current channel failed (the transport's or the gateway's error text), nil while it
    /// has not.
    public private(set) var failure: String?
    /// Whether the current channel failed.
    public var unreachable: Bool { failure != nil }
    /// The gateway's endpoint, for the "cannot reach" banner.
    public let endpoint: String
    /// Whether inputs ask for their traces (`gateway-cli --trace`): Ctrl-T then shows the trace
    /// panel, and the footer says so.
    public let tracing: Bool
    /// The latest trace each flow's screen received, by flow name (a screen shown again shows the
    /// last one until its new channel reports one).
    public private(set) var traces: [String: FlowTrace] = [:]
    /// Whether the trace panel is showing (Ctrl-T).
    public private(set) var showsTrace = false

    /// A navigator on the menu; with `tracing`, the trace panel is one Ctrl-T away.
    public init(endpoint: String, tracing: Bool = false) {
        self.endpoint = endpoint
        self.tracing = tracing
    }

    /// The screen showing.
    public var current: ScreenKind { stack[stack.count - 1] }

    /// Handles a key on a screen of `height` rows.
    public mutating func handle(_ key: Key, height: Int) -> [Effect] {
        if key == .interrupt { return [.quit] }
        if key == .resize { return [] }
        if key == .toggleTrace {
            guard tracing, current.flow != nil else { return [.bell] }
            showsTrace.toggle()
            return []
        }
        return perform(screen.handle(key, height: height))
    }

    /// Applies an output of the channel opened for `generation`; stale outputs are dropped. A
    /// `trace` output becomes the screen's latest trace; the screen itself never sees it.
    public mutating func apply(_ output: FlowOutput, generation: Int) -> [Effect] {
        guard generation == self.generation else { return [] }
        if output.outputName == .trace {
            if let trace = output.trace, let flow = current.flow { traces[flow.name] = trace }
            return []
        }
        return perform(screen.apply(output))
    }

    /// The latest trace of the screen showing.
    public var currentTrace: FlowTrace? { current.flow.flatMap { traces[$0.name] } }

    /// Records that the channel opened for `generation` failed with `reason`.
    public mutating func channelFailed(generation: Int, reason: String) {
        if generation == self.generation { failure = reason.replacingControlCharacters() }
    }

    /// The gateway's connection is back: a screen whose channel failed gets a new one (a new
    /// generation, so anything late from the old one is dropped), with what the user had typed.
    /// Nothing happens while the channel is healthy or on a screen without one.
    public mutating func reconnected() -> [Effect] {
        guard failure != nil, current.flow != nil else { return [] }
        generation += 1
        failure = nil
        return [.switchChannel] + screen.resume().map(Effect.send)
    }

    /// The parameters for the current screen's channel.
    public func parameters(locale: MessageLocale) -> FlowParameters {
        FlowParameters(locale: locale, token: current.token)
    }

    /// The current screen's rows, with the "cannot reach the gateway" banner when its channel failed
    /// and, with tracing on a flow's screen, the trace key in the footer and the trace panel when it
    /// is showing.
    public func render(_ context: RenderContext) -> Frame {
        var frame = screen.render(context)
        if tracing, current.flow != nil, context.height >= 3, let footer = frame.lines.last {
            var line = LineBuilder(width: context.width)
            line.add(
                footer.text.trimmingSuffixSpaces() + "  " + context.labels("ui.traceKey"),
                TextStyle(dim: true))
            frame.lines[frame.lines.count - 1] = line.line
        }
        var bottom = context.height - 1
        if let failure, context.height >= 3 {
            // Wrapped above the footer, at most half the rows under the title bar.
            let text = context.labels("ui.unreachable", ["endpoint": endpoint])
            var banner = Chrome.banner(
                "[!] " + text + (failure.isEmpty ? "" : " (" + failure + ")"),
                TextStyle(color: context.color(.red), bold: true, reverse: true), width: context.width)
            let room = max(1, (context.height - 2) / 2)
            if banner.count > room {
                banner = Array(banner.prefix(room))
                var last = LineBuilder(width: context.width)
                let text = banner[room - 1].text.trimmingSuffixSpaces()
                last.add(
                    " "
                        + TextWidth.prefix(
                            String(text.dropFirst()),
                            fitting: context.width - 2 - TextWidth.of(TextWidth.ellipsis))
                        + TextWidth.ellipsis + " ",
                    TextStyle(color: context.color(.red), bold: true, reverse: true))
                banner[room - 1] = last.line
            }
            let first = context.height - 1 - banner.count
            for (offset, line) in banner.enumerated() { frame.lines[first + offset] = line }
            if let row = frame.cursor?.row, row >= first, row < context.height - 1 { frame.cursor = nil }
            bottom = first
        }
        if tracing, showsTrace, current.flow != nil, context.height >= 4 {
            let panel = TracePanel.lines(currentTrace, bottom - 1, context)
            let first = bottom - panel.count
            for (offset, line) in panel.enumerated() { frame.lines[first + offset] = line }
            if let row = frame.cursor?.row, row >= first, row < bottom { frame.cursor = nil }
        }
        return frame
    }

    mutating func perform(_ actions: [ScreenAction]) -> [Effect] {
        var effects: [Effect] = []
        for action in actions {
            switch action {
            case .send(let input): effects.append(.send(input))
            case .bell: effects.append(.bell)
            case .quit: effects.append(.quit)
            case .back:
                guard stack.count > 1 else {
                    effects.append(.quit)
                    continue
                }
                stack.removeLast()
                show(current)
                effects.append(.switchChannel)
                effects += screen.openingInputs.map(Effect.send)
            case .show(let kind):
                var kind = kind
                var note: String?
                if case .heroes(let token) = kind {
                    if let token {
                        lastToken = token
                    } else if let lastToken {
                        kind = .heroes(token: lastToken)
                    } else {
                        // The hero list needs a session: without one, sign in first (its session
                        // then opens the list), and the sign-in says so.
                        kind = .signin
                        note = "ui.signinForHeroes"
                    }
                }
                stack.append(kind)
                show(kind)
                if let note, var form = screen as? FormScreen {
                    form.note = note
                    screen = form
                }
                effects.append(.switchChannel)
                effects += screen.openingInputs.map(Effect.send)
            }
        }
        return effects
    }

    /// Shows a fresh model of `kind` (a screen shown again starts over with a new channel).
    mutating func show(_ kind: ScreenKind) {
        generation += 1
        failure = nil
        switch kind {
        case .menu: screen = MenuScreen()
        case .login: screen = FormScreen.login()
        case .register: screen = FormScreen.register()
        case .signin: screen = FormScreen.signin()
        case .heroes(let token): screen = HeroesScreen(token: token)
        case .numbers: screen = FormScreen.numbers()
        }
    }
}

extension String {
    /// The text without the spaces at its end.
    func trimmingSuffixSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}

/// The trace panel: the screen's latest trace as a waterfall (``TraceWaterfall``), under a
/// reverse-video heading, in at most half the rows under the title bar.
enum TracePanel {
    /// The panel's rows for `trace` (nil: not yet one) with at most `available` rows.
    static func lines(_ trace: FlowTrace?, _ available: Int, _ context: RenderContext) -> [StyledLine] {
        let width = context.width
        let room = min(available, max(3, available / 2 + 1))
        guard room > 0 else { return [] }
        let heading = TextStyle(bold: true, reverse: true)
        guard let trace else {
            var row = LineBuilder(width: width)
            row.add(" " + context.labels("ui.traceNone"), heading)
            row.pad(to: width, heading)
            return [row.line]
        }
        let text = TraceWaterfall.lines(trace, width: width - 1, height: room)
        return text.enumerated().map { index, line in
            var row = LineBuilder(width: width)
            switch index {
            case 0:
                row.add(" " + line, heading)
                row.pad(to: width, heading)
            case 1:
                row.add(" " + line, TextStyle(dim: true))
            default:
                // The bar in colour, the label and numbers plain.
                let cut = line.firstIndex { $0 == "█" || $0 == "░" } ?? line.endIndex
                row.add(" " + String(line[..<cut]))
                let bar = String(line[cut...])
                let solid = bar.firstIndex(of: "█") ?? bar.endIndex
                row.add(String(bar[..<solid]), TextStyle(dim: true))
                row.add(String(bar[solid...]), TextStyle(color: context.color(.cyan)))
            }
            return row.line
        }
    }
}
