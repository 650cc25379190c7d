import Contracts
import TestSupport
import Testing

@testable import TerminalUI

/// The hero list against a reference model: random edits, selection moves and reconnections, with
/// a fake gateway that throttles, de-duplicates and cancels like the real one, and a channel that
/// delays, reorders and duplicates its answers. Whatever happens, no row ever shows a hero that is
/// not the current text's match on that row, and once everything has been answered every row on
/// screen is the current text's match in catalog order, with the right count and no `…` left.
@Suite("Hero list against a reference model", .timeLimit(.minutes(1)))
struct HeroListModelTests {
    @Test(
        "random edits, moves, delays, reordering, duplicates and reconnections converge", arguments: 0..<300)
    func converges(seed: Int) throws {
        var simulation = HeroListSimulation(seed: UInt64(seed))
        try simulation.run()
    }

    /// The steps a user reported: the whole list, `hou`, three quick Backspaces, End, Home.
    @Test("type hou, three Backspaces within 100 ms, End, Home: every row is the whole list's")
    func reportedSteps() throws {
        var simulation = HeroListSimulation(seed: 7, chaos: false)
        try simulation.settle()
        for key in "hou" {
            try simulation.press(.character(key))
            try simulation.advance(by: 400)
        }
        try simulation.settle()
        try simulation.expectConverged()
        for _ in 0..<3 {
            try simulation.press(.backspace)
            try simulation.advance(by: 30)
        }
        try simulation.settle()
        try simulation.expectConverged()
        try simulation.press(.end)
        try simulation.settle()
        try simulation.expectConverged()
        try simulation.press(.home)
        try simulation.settle()
        try simulation.expectConverged()
        #expect(simulation.screen.searchText.isEmpty)
        #expect(simulation.screen.total == HeroListSimulation.catalog.count)
    }
}

struct SimulationFailure: Error, CustomStringConvertible {
    let description: String
}

/// A screen, a channel and a fake gateway on one virtual clock (milliseconds).
struct HeroListSimulation {
    /// 137 names over a few letters, so short searches match many pages and long ones a few rows.
    static let catalog: [String] = {
        var generator = SeededGenerator(seed: 42)
        let letters = Array("hoau")
        return (0..<137).map { index in
            let length = Int.random(in: 2...6, using: &generator)
            let word = String((0..<length).map { _ in letters.randomElement(using: &generator)! })
            return "\(word) \(index)"
        }
    }()

    static let pageSize = 10
    static let height = 24
    static let throttle = 300

    /// What the reference model says: the catalog filtered by `text`, in catalog order.
    static func matches(_ text: String) -> [String] {
        let query = text.lowercased()
        return catalog.filter { query.isEmpty || $0.lowercased().contains(query) }
    }

    enum Event {
        /// An input reaches the gateway of connection `connection`.
        case input(FlowInput, connection: Int)
        /// An output reaches the screen from connection `connection`.
        case output(FlowOutput, connection: Int)
        /// The gateway's throttle window ends.
        case windowEnds(connection: Int, window: Int)
        /// The gateway's search `search` answers.
        case answer(connection: Int, search: Int)
    }

    /// The gateway's side of one connection: the real flow's rules, in plain state.
    struct FakeGateway {
        var windowEnd: Int?
        var window = 0
        var pending: String?
        var query: String?
        var page = 0
        var search = 0
        var searching: (query: String, page: Int)?
    }

    var generator: SeededGenerator
    /// Whether answers are delayed at random, reordered and duplicated and connections dropped.
    let chaos: Bool
    var screen = HeroesScreen(token: "t")
    var gateway = FakeGateway()
    var connection = 0
    var now = 0
    var events: [(time: Int, order: Int, event: Event)] = []
    var order = 0
    /// The time the last input reaches the gateway: inputs keep their order on the channel.
    var lastInputTime = 0

    init(seed: UInt64, chaos: Bool = true) {
        generator = SeededGenerator(seed: seed)
        self.chaos = chaos
        for input in screen.openingInputs { send(input) }
    }

    mutating func random(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &generator) }

    mutating func schedule(_ event: Event, at time: Int) {
        order += 1
        events.append((time, order, event))
    }

    mutating func send(_ input: FlowInput) {
        lastInputTime = max(lastInputTime, now + (chaos ? random(0...30) : 1))
        schedule(.input(input, connection: connection), at: lastInputTime)
    }

    mutating func perform(_ actions: [ScreenAction]) {
        for case .send(let input) in actions { send(input) }
    }

    mutating func press(_ key: Key) throws {
        perform(screen.handle(key, height: Self.height))
        try expectNothingStale()
    }

    /// The gateway answers: the page, then (like the real flow) the count on its own.
    mutating func deliver(_ output: FlowOutput) {
        let copies = chaos && random(0...9) == 0 ? 2 : 1
        for _ in 0..<copies {
            schedule(.output(output, connection: connection), at: now + (chaos ? random(0...200) : 1))
        }
    }

    mutating func startSearch() {
        guard let query = gateway.query else { return }
        gateway.search += 1
        gateway.searching = (query, gateway.page)
        schedule(.answer(connection: connection, search: gateway.search), at: now + random(5...120))
    }

    mutating func emit(_ text: String) {
        guard text != gateway.query else { return }  // distinctUntilChanged
        gateway.query = text
        startSearch()
    }

    mutating func gatewayReceives(_ input: FlowInput) {
        switch input.inputName {
        case .searchText?:
            let text = input.text ?? ""
            if let end = gateway.windowEnd, now < end {
                gateway.pending = text  // throttled: the latest goes at the window's end
            } else {
                emit(text)
                openWindow()
            }
        case .page?:
            gateway.page = Int(input.text ?? "") ?? 0
            startSearch()
        default:
            break
        }
    }

    mutating func openWindow() {
        gateway.window += 1
        gateway.windowEnd = now + Self.throttle
        schedule(.windowEnds(connection: connection, window: gateway.window), at: now + Self.throttle)
    }

    mutating func step(_ event: Event) throws {
        switch event {
        case .input(let input, let from):
            guard from == connection else { return }  // lost with its connection
            gatewayReceives(input)
        case .windowEnds(let from, let window):
            guard from == connection, window == gateway.window else { return }
            gateway.windowEnd = nil
            if let pending = gateway.pending {
                gateway.pending = nil
                emit(pending)
                openWindow()
            }
        case .answer(let from, let search):
            guard from == connection, search == gateway.search, let (query, page) = gateway.searching else {
                return  // cancelled by a newer search
            }
            gateway.searching = nil
            let matches = Self.matches(query)
            let heroes = matches.enumerated().dropFirst(page * Self.pageSize).prefix(Self.pageSize).map {
                FlowHero(id: $0.offset, name: $0.element, intro: "")
            }
            deliver(
                FlowOutput(
                    .heroes, heroes: Array(heroes), query: query, page: page, total: matches.count,
                    pageSize: Self.pageSize))
            deliver(FlowOutput(.total, number: matches.count))
        case .output(let output, let from):
            guard from == connection else { return }
            perform(screen.apply(output))
        }
        try expectNothingStale()
    }

    /// Runs the events due by `time`, in time order.
    mutating func advance(to time: Int) throws {
        var budget = 100_000
        while let next = events.indices.min(by: {
            (events[$0].time, events[$0].order) < (events[$1].time, events[$1].order)
        }),
            events[next].time <= time
        {
            budget -= 1
            guard budget > 0 else { throw SimulationFailure(description: "no end to the events") }
            let event = events.remove(at: next)
            now = max(now, event.time)
            try step(event.event)
        }
        now = max(now, time)
    }

    mutating func advance(by milliseconds: Int) throws { try advance(to: now + milliseconds) }

    /// Runs until nothing is left to happen.
    mutating func settle() throws {
        try advance(to: now + 1_000_000)
        guard events.isEmpty else { throw SimulationFailure(description: "events left after settling") }
    }

    /// The channel drops: whatever was in flight is lost, a new gateway takes over, and the screen
    /// brings it to where it was.
    mutating func reconnect() {
        connection += 1
        gateway = FakeGateway()
        perform(screen.resume().map { .send($0) })
    }

    /// No row shows a hero that is not the current text's match on that row.
    func expectNothingStale() throws {
        let matches = Self.matches(screen.searchText)
        for row in 0..<screen.rowCount {
            guard let hero = screen.hero(at: row) else { continue }
            guard row < matches.count, hero.name == matches[row] else {
                throw SimulationFailure(
                    description:
                        "row \(row) shows \(hero.name) for \"\(screen.searchText)\", not \(row < matches.count ? matches[row] : "nothing")"
                )
            }
        }
    }

    /// Every row on screen is the current text's match, the count is right, no `…` is left.
    func expectConverged() throws {
        let matches = Self.matches(screen.searchText)
        guard screen.total == matches.count, screen.rowCount == matches.count else {
            throw SimulationFailure(
                description:
                    "\"\(screen.searchText)\": count \(String(describing: screen.total)), expected \(matches.count)"
            )
        }
        let frame = screen.render(context(80, Self.height, .en))
        let listRows = Array(frame.text.dropFirst(4).prefix(Self.height - HeroesScreen.fixedRows))
        let first = screen.top
        let shown = Array(matches.dropFirst(first).prefix(listRows.count))
        for (index, expected) in shown.enumerated() {
            let marker = first + index == screen.selection ? "> " : "  "
            guard listRows[index].hasPrefix(marker + expected + " ") || listRows[index] == marker + expected
            else {
                throw SimulationFailure(
                    description:
                        "\"\(screen.searchText)\" row \(first + index): \(listRows[index]) is not \(expected)"
                )
            }
        }
        guard !listRows.contains(where: { $0.contains("…") }) else {
            throw SimulationFailure(description: "\"\(screen.searchText)\": a row is still …")
        }
        guard frame.text.filter({ $0.hasPrefix(">") }).count == (matches.isEmpty ? 0 : 1) else {
            throw SimulationFailure(description: "more than one focus mark")
        }
    }

    /// A random run: edits, moves, pauses and reconnections, then everything answered; then End and
    /// Home, each answered too.
    mutating func run() throws {
        let steps = random(5...40)
        for _ in 0..<steps {
            try advance(by: random(0...150))
            switch random(0...13) {
            case 0...4:
                if screen.searchText.count < 4 {
                    try press(.character(Array("hoau")[random(0...3)]))
                } else {
                    try press(.backspace)
                }
            case 5...6: try press(.backspace)
            case 7: try press(.down)
            case 8: try press(.pageDown)
            case 9: try press(.end)
            case 10: try press(.home)
            case 11: try press(.up)
            case 12: try press(.paste("ho"))
            default: if chaos { reconnect() }
            }
        }
        try settle()
        try expectConverged()
        try press(.end)
        try settle()
        try expectConverged()
        try press(.home)
        try settle()
        try expectConverged()
    }
}
