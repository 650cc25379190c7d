import Contracts
import Testing

@testable import TerminalUI

/// A sign-in tap's trace, as the gateway reports it.
private let tapTrace = FlowTrace(
    traceID: "4bf92f3577b34da6a3ce929d0e0e4736",
    hops: [
        .init(
            service: "gateway", shard: 0, method: "flow.signin loginTap", startMicros: 0,
            durationMicros: 40_000),
        .init(
            service: "auth", shard: 1, method: "auth.login", startMicros: 2_000, durationMicros: 36_000,
            depth: 1),
        .init(
            service: "auth", method: "argon2id verify", startMicros: 4_000, durationMicros: 24_000, depth: 2),
    ])

@Suite("The trace panel (gateway-cli --trace)", .timeLimit(.minutes(1)))
struct TracePanelTests {
    /// A tracing navigator on the sign-in screen.
    func signin() -> Navigator {
        var navigator = Navigator(endpoint: "e", tracing: true)
        _ = navigator.handle(.character("3"), height: 24)
        return navigator
    }

    @Test("Ctrl-T decodes to the trace key; without --trace it only rings the bell")
    func key() {
        #expect(Key.decode(20, functionKey: false) == .toggleTrace)
        var plain = Navigator(endpoint: "e")
        _ = plain.handle(.character("3"), height: 24)
        #expect(plain.handle(.toggleTrace, height: 24) == [.bell])
        #expect(!plain.showsTrace)
        #expect(!plain.render(context(80, 24, .en)).text[23].contains("Ctrl-T"))
        var menu = Navigator(endpoint: "e", tracing: true)
        // The menu has no channel, so no trace: the bell, and no key in its footer.
        #expect(menu.handle(.toggleTrace, height: 24) == [.bell])
        #expect(!menu.render(context(80, 24, .en)).text.contains { $0.contains("Ctrl-T") })
    }

    @Test("a trace output is the screen's latest trace, never the screen's; other screens keep theirs")
    func latestTracePerScreen() {
        var navigator = signin()
        #expect(navigator.currentTrace == nil)
        var older = tapTrace
        older.traceID = "00000000000000000000000000000001"
        #expect(navigator.apply(FlowOutput(.trace, trace: older), generation: navigator.generation).isEmpty)
        #expect(
            navigator.apply(FlowOutput(.trace, trace: tapTrace), generation: navigator.generation).isEmpty)
        #expect(navigator.currentTrace == tapTrace)
        // A stale channel's trace is dropped like its other outputs.
        #expect(
            navigator.apply(FlowOutput(.trace, trace: older), generation: navigator.generation - 1).isEmpty)
        #expect(navigator.currentTrace == tapTrace)
        _ = navigator.handle(.escape, height: 24)
        _ = navigator.handle(.character("5"), height: 24)
        #expect(navigator.current == .numbers)
        #expect(navigator.currentTrace == nil)
        _ = navigator.handle(.escape, height: 24)
        _ = navigator.handle(.character("3"), height: 24)
        #expect(navigator.currentTrace == tapTrace)
    }

    @Test("80×24: the footer names Ctrl-T; the panel shows the waterfall above it, and hides again")
    func panelAt80x24() {
        var navigator = signin()
        let plain = navigator.render(context(80, 24, .en))
        #expect(plain.text[23] == "Tab/Shift-Tab  Enter  Esc back  Ctrl-C quit  Ctrl-T trace")
        #expect(navigator.handle(.toggleTrace, height: 24).isEmpty)
        let waiting = navigator.render(context(80, 24, .en))
        expectFits(waiting, 80, 24)
        #expect(waiting.text[22].hasPrefix(" No trace yet: type or press a button"))
        _ = navigator.apply(FlowOutput(.trace, trace: tapTrace), generation: navigator.generation)
        let frame = navigator.render(context(80, 24, .en))
        expectFits(frame, 80, 24)
        #expect(
            Array(frame.text[18...23]) == [
                " trace 4bf92f3577b34da6a3ce929d0e0e4736  40.0 ms  3 hops                        ",
                " hop                            start ms   dur ms  0                     40.0 ms",
                " gateway:0 flow.signin loginTap      0.0     40.0  █████████████████████████████",
                "   auth:1 auth.login                 2.0     36.0  ░██████████████████████████",
                "     auth argon2id verify            4.0     24.0  ░░██████████████████",
                "Tab/Shift-Tab  Enter  Esc back  Ctrl-C quit  Ctrl-T trace",
            ])
        // The form above it is untouched, and the bars are coloured.
        #expect(frame.text[0...17] == plain.text[0...17])
        #expect(span(row(frame, containing: "auth.login"), containing: "██")?.style.color == .cyan)
        #expect(navigator.handle(.toggleTrace, height: 24).isEmpty)
        #expect(navigator.render(context(80, 24, .en)) == plain)
    }

    @Test("narrow and short terminals: the panel fits, never wraps, takes at most half the rows")
    func panelWhenSmall() {
        var navigator = signin()
        _ = navigator.handle(.toggleTrace, height: 24)
        _ = navigator.apply(FlowOutput(.trace, trace: tapTrace), generation: navigator.generation)
        let narrow = navigator.render(context(40, 24, .zhHans))
        expectFits(narrow, 40, 24)
        #expect(narrow.text[22] == "     auth argon2id ve…      4.0     24.0")
        #expect(narrow.text[23].hasSuffix("Ctrl-T 追踪") || narrow.text[23].count < 40)
        for (width, height) in [(80, 8), (30, 10), (20, 6), (12, 4), (80, 3)] {
            let frame = navigator.render(context(width, height, .en))
            expectFits(frame, width, height)
        }
        // 9 rows: 7 under the title bar, 4 of them for the panel.
        let short = navigator.render(context(80, 9, .en))
        #expect(short.text[1...3].allSatisfy { !$0.contains("trace 4bf9") })
        #expect(short.text[4].hasPrefix(" trace 4bf9"))
        #expect(short.text[6].hasPrefix(" gateway:0"))
        #expect(short.text[7] == " … 2 more hops")
    }
}
