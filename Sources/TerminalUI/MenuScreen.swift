public import Contracts

/// The first screen: the five flows, phone login first. Up/Down choose, Enter (or the entry's digit)
/// opens, Esc or `q` quits.
public struct MenuScreen: ScreenModel {
    public let kind = ScreenKind.menu
    /// The entries, in ``Methods/Flow/all`` order.
    public static let entries: [ScreenKind] = [.login, .register, .signin, .heroes(token: nil), .numbers]
    /// The selected entry.
    public private(set) var selection = 0

    /// The menu, phone login selected.
    public init() {}

    public mutating func apply(_ output: FlowOutput) -> [ScreenAction] { [] }

    public mutating func handle(_ key: Key, height: Int) -> [ScreenAction] {
        let count = Self.entries.count
        switch key {
        case .interrupt, .escape: return [.quit]
        case .character("q"), .character("Q"): return [.quit]
        case .up, .backTab: selection = (selection + count - 1) % count
        case .down, .tab: selection = (selection + 1) % count
        case .home, .pageUp: selection = 0
        case .end, .pageDown: selection = count - 1
        case .enter: return [.show(Self.entries[selection])]
        case .character(let character):
            if let digit = character.wholeNumberValue, (1...count).contains(digit) {
                selection = digit - 1
                return [.show(Self.entries[selection])]
            }
            return [.bell]
        case .backspace, .resize: break
        case .paste: return [.bell]  // Nothing to paste into: pasted text never opens an entry.
        case .unknown, .toggleTrace: return [.bell]
        }
        return []
    }

    public func render(_ context: RenderContext) -> Frame {
        var body: [StyledLine] = [StyledLine()]
        for (index, entry) in Self.entries.enumerated() {
            let selected = index == selection
            var row = LineBuilder(width: context.width)
            row.add(selected ? "> " : "  ", TextStyle(bold: true))
            row.add("\(index + 1)  ")
            row.add(
                context.labels(entry.titleCode),
                TextStyle(color: selected ? context.color(.cyan) : nil, bold: selected, reverse: selected))
            body.append(row.line)
        }
        return Chrome.frame(
            title: "", body: body, cursorRow: nil, cursorColumn: nil, context, keys: "Up/Down  Enter  1-5")
    }
}
