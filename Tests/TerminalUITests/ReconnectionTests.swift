import Contracts
import Testing

@testable import TerminalUI

/// The gateway comes back: a screen whose channel failed gets a new channel by itself, with what
/// the user had typed, and forgets what the old channel had said.
@Suite("A failed screen comes back with its text when the gateway returns", .timeLimit(.minutes(1)))
struct ReconnectionTests {
    @Test("register: a new channel generation, every typed text sent again top to bottom, old verdicts gone")
    func formComesBack() {
        var navigator = Navigator(endpoint: "ipc:///tmp/gateway.sock")
        _ = navigator.handle(.down, height: 24)
        #expect(navigator.handle(.enter, height: 24) == [.switchChannel])
        let opened = navigator.generation
        for key in "ann".map(Key.character) + [.tab] + "secret1".map(Key.character) {
            _ = navigator.handle(key, height: 24)
        }
        _ = navigator.apply(
            FlowOutput(output: "username", state: .failed, message: "Username already taken"),
            generation: opened)
        _ = navigator.apply(FlowOutput(output: "registerEnabled", value: true), generation: opened)
        navigator.channelFailed(generation: opened, reason: "unavailable: the connection was lost")
        #expect(navigator.unreachable)

        let effects = navigator.reconnected()
        #expect(
            effects == [
                .switchChannel, .send(.text(.username, "ann")), .send(.text(.password, "secret1")),
            ])
        #expect(navigator.generation == opened + 1)
        #expect(!navigator.unreachable)
        let screen = try? #require(navigator.screen as? FormScreen)
        #expect(screen?.fields.map(\.text) == ["ann", "secret1", ""])
        #expect(screen?.fields.allSatisfy { $0.state == nil && $0.message.isEmpty } == true)
        #expect(screen?.buttonEnabled == false)
        #expect(screen?.focus == 1)
        // Late outputs of the failed channel are dropped; the new channel's are shown.
        #expect(
            navigator.apply(FlowOutput(output: "registerEnabled", value: true), generation: opened).isEmpty)
        #expect((navigator.screen as? FormScreen)?.buttonEnabled == false)
        _ = navigator.apply(FlowOutput(output: "registerEnabled", value: true), generation: opened + 1)
        #expect((navigator.screen as? FormScreen)?.buttonEnabled == true)
    }

    @Test("a healthy channel, or the menu, is left alone when a connection comes up")
    func healthyScreensStay() {
        var navigator = Navigator(endpoint: "e")
        #expect(navigator.reconnected().isEmpty)  // the menu has no channel
        _ = navigator.handle(.enter, height: 24)
        let generation = navigator.generation
        #expect(navigator.reconnected().isEmpty)
        #expect(navigator.generation == generation)
    }

    @Test("the hero list searches its text again from page 0, keeping the rows it showed")
    func heroListComesBack() {
        var screen = HeroesScreen(token: "t")
        apply(&screen, UsabilityTests.page(0))
        _ = press(&screen, .end)
        apply(&screen, UsabilityTests.page(3), UsabilityTests.page(2))
        _ = press(&screen, .character("h"))
        apply(&screen, UsabilityTests.page(0, of: 120, query: "h"))
        apply(&screen, FlowOutput(output: "error", message: "network error"))
        #expect(screen.resume() == [.text(.searchText, "h")])
        #expect(screen.requestedPage == 0)
        #expect(screen.awaiting)
        #expect(screen.error.isEmpty)
        #expect(screen.hero(at: 0) != nil)
    }
}
