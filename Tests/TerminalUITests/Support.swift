import Contracts
import Testing

@testable import TerminalUI

/// A render context at `width`×`height` in `locale`.
func context(
    _ width: Int = 80, _ height: Int = 24, _ locale: MessageLocale = .zhHans, colors: Bool = true,
    frame: Int = 0
) -> RenderContext {
    RenderContext(
        width: width, height: height, labels: Labels(locale: locale), colors: colors, spinnerFrame: frame)
}

/// Applies each output in turn, returning the actions they asked for.
@discardableResult
func apply<Screen: ScreenModel>(_ screen: inout Screen, _ outputs: FlowOutput...) -> [ScreenAction] {
    outputs.flatMap { screen.apply($0) }
}

/// Types `text` one character at a time, returning the actions.
func type<Screen: ScreenModel>(_ screen: inout Screen, _ text: String, height: Int = 24) -> [ScreenAction] {
    text.flatMap { screen.handle(.character($0), height: height) }
}

/// Presses each key in turn, returning the actions.
@discardableResult
func press<Screen: ScreenModel>(_ screen: inout Screen, _ keys: Key..., height: Int = 24) -> [ScreenAction] {
    keys.flatMap { screen.handle($0, height: height) }
}

/// A field result output.
func result(_ output: FlowOutput.Name, _ state: ValidationResult.State, _ message: String = "") -> FlowOutput
{
    FlowOutput(output, state: state, message: message)
}

/// The gateway's answer to page `page` of `query`: `heroes`, with `total` matches in all (their
/// count unless given) in pages of `pageSize`.
func answer(
    _ heroes: [FlowHero], query: String = "", page: Int = 0, total: Int? = nil, pageSize: Int = 50
) -> FlowOutput {
    FlowOutput(
        .heroes, heroes: heroes, query: query, page: page, total: total ?? heroes.count, pageSize: pageSize)
}

/// A flag output.
func flag(_ output: FlowOutput.Name, _ value: Bool) -> FlowOutput { FlowOutput(output, value: value) }

/// Checks that `frame` fills exactly `height` rows, none wider than `width`, cursor inside.
func expectFits(
    _ frame: Frame, _ width: Int, _ height: Int, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(frame.lines.count == height, sourceLocation: sourceLocation)
    for line in frame.lines {
        #expect(line.width <= width, "\(line.text)", sourceLocation: sourceLocation)
    }
    if let cursor = frame.cursor {
        #expect(cursor.row < height && cursor.column < width, sourceLocation: sourceLocation)
    }
}

/// The first row containing `text`.
func row(_ frame: Frame, containing text: String) -> StyledLine? {
    frame.lines.first { $0.text.contains(text) }
}

/// The span of `line` containing `text`.
func span(_ line: StyledLine?, containing text: String) -> TextSpan? {
    line?.spans.first { $0.text.contains(text) }
}
