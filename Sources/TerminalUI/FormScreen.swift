public import Contracts

/// The form screens (login, register, sign-in, numbers): text fields, at most one button, and the
/// lines the channel's outputs fill in. Which output drives which widget is the only knowledge it
/// holds (``FlowInput/Name`` and ``FlowOutput/Name``); whether anything is valid is always the
/// gateway's answer.
public struct FormScreen: ScreenModel {
    /// A text field: the input it sends and the outputs that drive it.
    struct FieldSpec: Sendable {
        let input: FlowInput.Name
        let label: String
        let masked: Bool
        /// The output carrying this field's result (`ok`/`empty`/`failed` and a message).
        let resultOutput: FlowOutput.Name?
        /// The flag output that enables this field (enabled until told otherwise).
        let enabledOutput: FlowOutput.Name?
    }

    /// The button: the tap it sends and the flags that drive it.
    struct ButtonSpec: Sendable {
        let input: FlowInput.Name
        let label: String
        let enabledOutput: FlowOutput.Name
        let busyOutput: FlowOutput.Name
    }

    /// A field's state.
    public struct Field: Sendable, Hashable {
        /// The text typed so far.
        public var text = ""
        /// Whether the gateway enables it.
        public var enabled = true
        /// Whether its text was typed while it was not usable and has not been sent yet.
        public var unsent = false
        /// Its last result's state (nil before any).
        public var state: ValidationResult.State?
        /// Its last result's message.
        public var message = ""
    }

    /// A one-shot alert, shown until a key.
    public struct Alert: Sendable, Hashable {
        /// What it reports.
        public var kind: FlowOutput.AlertKind
        /// The rendered message.
        public var message: String
    }

    /// The longest text a field takes, in characters; more is refused with the bell.
    public static let maximumFieldLength = 256

    public let kind: ScreenKind
    let fieldSpecs: [FieldSpec]
    let button: ButtonSpec?

    /// The fields, in order.
    public private(set) var fields: [Field]
    /// The focused widget: a field index, or `fields.count` for the button.
    public private(set) var focus = 0
    /// Whether the gateway enables the button.
    public private(set) var buttonEnabled = false
    /// Whether the button's action is in flight (the spinner).
    public private(set) var busy = false
    /// The tip line (`tip`), empty when nothing shows.
    public private(set) var tip = ""
    /// A line of the client's own under the form, as a catalogue code: why this screen opened
    /// (the sign-in a hero list asked for), nil when there is nothing to say.
    public var note: String?
    /// The sum (`sum`): its number, or its message on overflow.
    public private(set) var sum: FlowOutput?
    /// The alert being shown.
    public private(set) var alert: Alert?

    init(kind: ScreenKind, fields: [FieldSpec], button: ButtonSpec?) {
        self.kind = kind
        self.fieldSpecs = fields
        self.button = button
        self.fields = Array(repeating: Field(), count: fields.count)
    }

    /// Phone login: phone, password (masked), the login button, the tip line.
    public static func login() -> FormScreen {
        FormScreen(
            kind: .login,
            fields: [
                FieldSpec(
                    input: .phone, label: "ui.phone", masked: false, resultOutput: .phone,
                    enabledOutput: nil),
                FieldSpec(
                    input: .password, label: "ui.password", masked: true, resultOutput: .password,
                    enabledOutput: nil),
            ],
            button: ButtonSpec(
                input: .loginTap, label: "ui.login", enabledOutput: .loginEnabled, busyOutput: .loggingIn))
    }

    /// Register: username, password, repeat (each with its result), the register button, the alert.
    public static func register() -> FormScreen {
        FormScreen(
            kind: .register,
            fields: [
                FieldSpec(
                    input: .username, label: "ui.username", masked: false, resultOutput: .username,
                    enabledOutput: nil),
                FieldSpec(
                    input: .password, label: "ui.password", masked: true, resultOutput: .password,
                    enabledOutput: .passwordEnabled),
                FieldSpec(
                    input: .repeatPassword, label: "ui.repeatPassword", masked: true,
                    resultOutput: .repeatPassword, enabledOutput: .repeatEnabled),
            ],
            button: ButtonSpec(
                input: .registerTap, label: "ui.register", enabledOutput: .registerEnabled,
                busyOutput: .registering))
    }

    /// Username sign-in: username (with whether it exists), password, the button, the alert; a
    /// `session` output opens the hero list.
    public static func signin() -> FormScreen {
        FormScreen(
            kind: .signin,
            fields: [
                FieldSpec(
                    input: .username, label: "ui.username", masked: false, resultOutput: .username,
                    enabledOutput: nil),
                FieldSpec(
                    input: .password, label: "ui.password", masked: true, resultOutput: nil,
                    enabledOutput: nil),
            ],
            button: ButtonSpec(
                input: .loginTap, label: "ui.login", enabledOutput: .loginEnabled, busyOutput: .loggingIn))
    }

    /// Numbers: a, b, c and their sum.
    public static func numbers() -> FormScreen {
        FormScreen(
            kind: .numbers,
            fields: [FlowInput.Name.a, .b, .c].map {
                FieldSpec(input: $0, label: $0.rawValue, masked: false, resultOutput: nil, enabledOutput: nil)
            },
            button: nil)
    }

    /// How many widgets take focus: the fields and the button.
    var focusCount: Int { fields.count + (button == nil ? 0 : 1) }

    /// Whether the button has the focus.
    public var buttonFocused: Bool { button != nil && focus == fields.count }

    // MARK: Outputs

    public mutating func apply(_ output: FlowOutput) -> [ScreenAction] {
        // An output this screen does not show (a newer gateway's) is ignored, never fatal.
        guard let name = output.outputName else { return [] }
        if let index = fieldSpecs.firstIndex(where: { $0.resultOutput == name }) {
            fields[index].state = output.state
            fields[index].message = output.message ?? ""
            return []
        }
        if let index = fieldSpecs.firstIndex(where: { $0.enabledOutput == name }) {
            fields[index].enabled = output.value ?? false
            return sendTypedAhead()
        }
        if let button, name == button.enabledOutput {
            buttonEnabled = output.value ?? false
            return []
        }
        if let button, name == button.busyOutput {
            busy = output.value ?? false
            return []
        }
        switch name {
        case .tip:
            tip = output.message ?? ""
        case .sum:
            sum = output
        case .alert:
            alert = Alert(
                kind: output.alertKind ?? .error, message: output.message ?? output.code?.rawValue ?? "")
        case .session:
            if kind == .signin, let token = output.token { return [.show(.heroes(token: token))] }
        default:
            break  // An output of another screen: ignored.
        }
        return []
    }

    /// Keeps every text and the focus; clears the verdicts, flags and spinner the old channel set
    /// (the new one sends its own), and returns each typed text, top to bottom, to send again.
    public mutating func resume() -> [FlowInput] {
        var inputs: [FlowInput] = []
        for index in fields.indices {
            let text = fields[index].text
            fields[index] = Field(text: text)
            if !text.isEmpty { inputs.append(.text(fieldSpecs[index].input, text)) }
        }
        buttonEnabled = false
        busy = false
        tip = ""
        sum = nil
        return inputs
    }

    // MARK: Keys

    public mutating func handle(_ key: Key, height: Int) -> [ScreenAction] {
        if alert != nil {
            switch key {
            case .interrupt: return [.quit]
            case .resize: return []
            default:
                alert = nil  // The key that dismisses the alert does nothing else.
                return []
            }
        }
        switch key {
        case .interrupt: return [.quit]
        case .escape: return [.back]
        case .tab, .down: moveFocus(by: 1)
        case .backTab, .up: moveFocus(by: -1)
        case .enter:
            if let button, buttonFocused {
                return buttonEnabled ? [.send(.tap(button.input))] : [.bell]
            }
            // Enter on the last field taps the button when the gateway enables it.
            if let button, focus == fields.count - 1, buttonEnabled {
                return [.send(.tap(button.input))]
            }
            moveFocus(by: 1)
        case .backspace:
            return edit { text in
                guard !text.isEmpty else { return false }
                text.removeLast()
                return true
            }
        case .character(let character):
            return edit { text in
                guard text.count < Self.maximumFieldLength else { return false }
                text.append(character)
                return true
            }
        case .paste(let pasted):
            return edit { text in
                let room = Self.maximumFieldLength - text.count
                guard room > 0, !pasted.isEmpty else { return false }
                text += pasted.prefix(room)
                return true
            }
        case .resize, .pageUp, .pageDown, .home, .end:
            break
        case .unknown, .toggleTrace:
            return [.bell]
        }
        return []
    }

    /// Whether field `index` takes input now: the gateway enables it and every field above it that
    /// the gateway can disable is usable too (the form fills top to bottom, so a field under a
    /// disabled one is disabled as well, whatever its own flag says).
    public func usable(_ index: Int) -> Bool {
        guard index >= 0, index < fields.count else { return false }
        for earlier in 0...index where !fields[earlier].enabled { return false }
        return true
    }

    /// Moves the focus `step` widgets on, cycling through every field (a field that is not usable
    /// yet still takes the focus, so text typed ahead lands where the user expects).
    mutating func moveFocus(by step: Int) {
        guard focusCount > 0 else { return }
        focus = ((focus + step) % focusCount + focusCount) % focusCount
    }

    /// Edits the focused field; sends its whole text when the field is usable, else keeps it until
    /// the gateway enables the field. Rings the bell when the text cannot change.
    mutating func edit(_ change: (inout String) -> Bool) -> [ScreenAction] {
        guard focus < fields.count else { return [.bell] }
        guard change(&fields[focus].text) else { return [.bell] }
        guard usable(focus) else {
            fields[focus].unsent = true
            return []
        }
        fields[focus].unsent = false
        return [.send(.text(fieldSpecs[focus].input, fields[focus].text))]
    }

    /// Sends the text typed ahead into fields that have just become usable, top to bottom.
    mutating func sendTypedAhead() -> [ScreenAction] {
        var actions: [ScreenAction] = []
        for index in fields.indices where fields[index].unsent && usable(index) {
            fields[index].unsent = false
            actions.append(.send(.text(fieldSpecs[index].input, fields[index].text)))
        }
        return actions
    }

    // MARK: Rendering

    public func render(_ context: RenderContext) -> Frame {
        let labels = context.labels
        let width = context.width
        let labelWidth = fieldSpecs.map { TextWidth.of(labels($0.label)) }.max() ?? 0
        let boxColumn = 2 + labelWidth + 2
        let boxWidth = max(4, min(32, width - boxColumn - 2))
        var body: [StyledLine] = [StyledLine()]
        var cursorRow: Int?
        var cursorColumn: Int?

        for (index, spec) in fieldSpecs.enumerated() {
            let field = fields[index]
            let enabled = usable(index)
            let focused = focus == index
            var row = LineBuilder(width: width)
            row.add(focused ? "> " : "  ", TextStyle(bold: true))
            row.add(
                TextWidth.pad(labels(spec.label), to: labelWidth),
                TextStyle(bold: focused, dim: !enabled))
            row.add("  ")
            let shown = spec.masked ? String(repeating: "*", count: field.text.count) : field.text
            let visible = TextWidth.suffix(shown, fitting: boxWidth - 1)
            let fill = enabled ? " " : "."
            row.add("[", TextStyle(dim: !enabled))
            row.add(visible, TextStyle(underline: focused, dim: !enabled))
            let pad = String(repeating: fill, count: max(0, boxWidth - TextWidth.of(visible)))
            row.add(pad, TextStyle(underline: focused, dim: !enabled))
            row.add("]", TextStyle(dim: !enabled))
            if focused {
                cursorRow = body.count
                cursorColumn = boxColumn + 1 + TextWidth.of(visible)
            }
            body.append(row.line)
            if spec.resultOutput != nil {
                var result = LineBuilder(width: width)
                result.pad(to: boxColumn)
                switch field.state {
                case .ok:
                    result.add("[ok] ", TextStyle(color: context.color(.green), bold: true))
                    result.add(field.message, TextStyle(color: context.color(.green)))
                case .failed:
                    result.add("[x] ", TextStyle(color: context.color(.red), bold: true))
                    result.add(field.message, TextStyle(color: context.color(.red)))
                case .validating:
                    result.add(
                        "[" + context.spinner + "] ", TextStyle(color: context.color(.yellow), bold: true))
                    result.add(field.message, TextStyle(color: context.color(.yellow)))
                case .empty, nil:
                    if !field.message.isEmpty { result.add(field.message) }
                }
                body.append(result.line)
            }
        }

        if let button {
            body.append(StyledLine())
            var row = LineBuilder(width: width)
            let focused = buttonFocused
            row.add(focused ? "> " : "  ", TextStyle(bold: true))
            row.pad(to: boxColumn)
            let label = labels(button.label)
            if buttonEnabled {
                row.add(
                    "< " + label + " >", TextStyle(color: context.color(.cyan), bold: true, reverse: focused))
            } else {
                row.add("( " + label + " )", TextStyle(underline: focused, dim: true))
            }
            if busy {
                row.add("  " + context.spinner + " ", TextStyle(color: context.color(.yellow), bold: true))
                row.add(labels("ui.loading"), TextStyle(color: context.color(.yellow)))
            }
            body.append(row.line)
        }

        if let note {
            body.append(StyledLine())
            var row = LineBuilder(width: width)
            row.add("  ")
            row.add(labels(note), TextStyle(color: context.color(.cyan)))
            body.append(row.line)
        }

        if let sum {
            body.append(StyledLine())
            var row = LineBuilder(width: width)
            row.add("  ")
            // `ui.sum` carries its own separator: `Sum: 42`, `和：42`.
            row.add(labels("ui.sum"), TextStyle(bold: true))
            row.pad(to: boxColumn)
            if let number = sum.number {
                row.add(String(number), TextStyle(color: context.color(.green), bold: true))
            } else {
                row.add(
                    "[x] " + (sum.message ?? sum.code?.rawValue ?? ""),
                    TextStyle(color: context.color(.red), bold: true))
            }
            body.append(row.line)
        }

        if !tip.isEmpty {
            body.append(StyledLine())
            // Wrapped, so a long tip (a token) shows whole at any width.
            for part in TextWidth.wrap(tip.replacingControlCharacters(), to: width - 2) {
                var row = LineBuilder(width: width)
                row.add("  ")
                row.add(part, TextStyle(color: context.color(.yellow), bold: true))
                body.append(row.line)
            }
        }

        if let alert {
            body.append(StyledLine())
            let good = alert.kind == .success
            let style = TextStyle(color: context.color(good ? .green : .red), bold: true, reverse: true)
            body += Chrome.banner((good ? "[ok] " : "[!] ") + alert.message, style, width: width)
        }

        return Chrome.frame(
            title: labels(kind.titleCode), body: body, cursorRow: alert == nil ? cursorRow : nil,
            cursorColumn: cursorColumn, context)
    }
}
