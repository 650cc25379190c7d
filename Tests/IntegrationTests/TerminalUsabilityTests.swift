import Contracts
import Foundation
import Testing

/// The interactive client as a user meets it in a real pseudo-terminal (tmux, 80x24, against the
/// four servers): paste, Enter from the last field, typing ahead in the register form, the hero
/// list opening whole and scrolling to its last hero, and the wrapped cannot-reach banner.
@Suite(
    "end to end: paste, typing ahead and the whole hero list in tmux", .timeLimit(.minutes(2)),
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed (needed to drive a terminal)"))
struct TerminalUsabilityTests {
    static func lines(_ screen: String) -> [String] {
        screen.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
    }

    static func start(_ stack: GatewayStack, connection: [String]? = nil) async throws -> TmuxSession {
        let command =
            "unset GATEWAY_CLI_ENDPOINT GATEWAY_CLI_SERVER_KEY GATEWAY_CLI_CURVE GATEWAY_CLI_LANG; "
            + "HOME=\(shellQuoted(stack.cliStateHome)) XDG_STATE_HOME=\(shellQuoted(stack.cliStateHome)) "
            + ([try Binaries.path("gateway-cli")] + (connection ?? stack.cliConnection) + ["--lang", "en"])
            .map(shellQuoted).joined(separator: " ")
            + "; echo \"gateway-cli exited $?\"; exec cat"
        return try await TmuxSession.start(command, in: stack.directory)
    }

    /// Runs `body` on a fresh client, with the last screen in the error when it fails.
    static func session(
        connection: (@Sendable (GatewayStack) -> [String])? = nil,
        _ body: @Sendable (GatewayStack, TmuxSession) async throws -> Void
    ) async throws {
        try await SharedGatewayStack.flows.with { stack in
            let tmux = try await start(stack, connection: connection?(stack))
            do {
                try await body(stack, tmux)
            } catch {
                let screen = (try? await tmux.screen()) ?? "(no screen)"
                await tmux.kill()
                throw SupportError("\(error)\nlast screen:\n\(screen)")
            }
            await tmux.kill()
        }
    }

    /// Pastes `text` the way a terminal does once the client asked for bracketed paste.
    static func paste(_ tmux: TmuxSession, _ text: String) async throws {
        try await tmux.run(["set-buffer", "-b", "paste", "--", text])
        try await tmux.run(["paste-buffer", "-p", "-d", "-b", "paste", "-t", "main"])
    }

    @Test("pasted Esc and [3 are text: the menu stays put, the sign-in fields take them as characters")
    func pasteSigninAndHeroes() async throws {
        try await Self.session { stack, tmux in
            let name = "u" + randomDigits(9)
            try await stack.register(name)
            try await tmux.waitForScreen("the menu") { Self.lines($0).first == "Reactive login" }
            // A paste on the menu is not keys: the menu stays, no sign-in screen opens.
            try await Self.paste(tmux, "\u{1B}[3x")
            try await tmux.press("3")
            try await tmux.waitFor("Reactive login > Sign in")
            try await Self.paste(tmux, name)
            try await tmux.press("Tab")
            try await Self.paste(tmux, "secr\u{1B}[3et1")
            try await tmux.waitForScreen("the enabled button") { $0.contains("< Log in >") }
            let typed = try await tmux.screen()
            #expect(typed.contains("[\(name) "), "\(typed)")
            // The pasted Esc was dropped, the rest typed: "secr[3et1" is nine characters.
            #expect(typed.contains("[********* "), "\(typed)")
        }
    }

    /// Registers a user, signs in on the terminal and returns the catalog's answer to `query` (all
    /// of it, in English), asked over the gateway's command, and the session token.
    static func signInToHeroes(_ stack: GatewayStack, _ tmux: TmuxSession) async throws -> (
        token: String, search: @Sendable (String) async throws -> HeroesCommandResult
    ) {
        let name = "u" + randomDigits(9)
        try await stack.register(name)
        let signed = try await stack.client.request(
            Methods.Command.signin, SigninCommand(username: name, password: "secret1")
        ).value
        let token = try #require(signed.token)
        let client = stack.client
        let search: @Sendable (String) async throws -> HeroesCommandResult = { query in
            try await client.request(
                Methods.Command.heroesSearch,
                HeroesCommand(token: token, query: query, offset: 0, limit: 500, locale: .en)
            ).value
        }
        try await tmux.waitForScreen("the menu") { Self.lines($0).first == "Reactive login" }
        try await tmux.press("3")
        try await tmux.waitFor("Reactive login > Sign in")
        try await tmux.type(name)
        try await tmux.press("Tab")
        try await tmux.type("secret1")
        try await tmux.waitForScreen("the enabled button") { $0.contains("< Log in >") }
        try await tmux.press("Enter")  // on the last field: taps the enabled button
        return (token, search)
    }

    /// The hero list's rows on `screen`: the lines between the count and the key help, without the
    /// selection mark, and the index of the selected one.
    static func heroRows(_ screen: String) -> (rows: [String], selected: Int?) {
        let all = lines(screen)
        guard let status = all.firstIndex(where: { $0.hasSuffix(" in all") || $0.contains(" in all  ") })
        else {
            return ([], nil)
        }
        var rows: [String] = []
        var selected: Int?
        for line in all[(status + 1)...] {
            if line.isEmpty || line.contains("Up/Down") { break }
            if line.hasPrefix("> ") { selected = rows.count }
            rows.append(line.hasPrefix("> ") ? String(line.dropFirst(2)) : line)
        }
        return (rows, selected)
    }

    /// Whether `rows` show exactly `heroes`, in order, each row starting with its hero's name (or
    /// as much of it as the name column holds before its "…").
    static func show(_ rows: [String], _ heroes: some Collection<FlowHero>) -> Bool {
        rows.count == heroes.count
            && zip(rows, heroes).allSatisfy { row, hero in
                row.hasPrefix(hero.name + " ") || row == hero.name
                    || (row.split(separator: "…", maxSplits: 1).first.map {
                        $0.count >= 8 && hero.name.hasPrefix($0)
                    }
                        ?? false)
            }
    }

    @Test("the hero list opens with every hero; End shows the last of them, past the first page")
    func wholeHeroList() async throws {
        try await Self.session { stack, tmux in
            let (_, search) = try await Self.signInToHeroes(stack, tmux)
            let all = try await search("")
            #expect(all.total > 50, "the catalog has more than one page")
            let last = try #require(all.heroes.last)
            // No typing: the whole list at once.
            let opened = try await tmux.waitForScreen("every hero") {
                $0.contains("\(all.total) in all") && Self.heroRows($0).selected == 0
            }
            let first = try #require(all.heroes.first)
            #expect(opened.contains(first.name), "\(opened)")
            try await tmux.press("End")
            let end = try await tmux.waitForScreen("the last hero selected") { screen in
                Self.lines(screen).contains { $0.hasPrefix("> " + String(last.name.prefix(8))) }
                    && !Self.lines(screen).contains("…")
            }
            #expect(end.contains("\(all.total) in all"), "\(end)")
            // At 120 columns the name column widens to the widest name (up to half the row): the
            // last hero's name shows whole, and its intro whole or ending in "…".
            try await tmux.run(["resize-window", "-t", "main", "-x", "120", "-y", "24"])
            let wide = try await tmux.waitForScreen("the last hero at 120 columns") { screen in
                Self.lines(screen).contains { $0.hasPrefix("> " + last.name + " ") }
            }
            let row = try #require(Self.lines(wide).first { $0.hasPrefix("> " + last.name + " ") })
            #expect(row.hasSuffix(last.intro) || row.hasSuffix("…"), "\(wide)")
        }
    }

    @Test("hou, then three Backspaces within 100 ms: the whole list again in catalog order, End and Home too")
    func deletedSearchShowsTheWholeList() async throws {
        try await Self.session { stack, tmux in
            let (_, search) = try await Self.signInToHeroes(stack, tmux)
            let all = try await search("")
            let hou = try await search("hou")
            #expect(hou.total > 0 && hou.total < all.total, "\(hou)")
            try await tmux.waitForScreen("every hero") {
                $0.contains("\(all.total) in all") && Self.heroRows($0).selected == 0
            }
            let rows = Self.heroRows(try await tmux.screen()).rows.count
            #expect(rows > 2 && rows < all.total, "a screen holds part of the list")

            try await tmux.type("hou")
            try await tmux.waitForScreen("the matches of hou") { screen in
                screen.contains("\(hou.total) in all") && Self.show(Self.heroRows(screen).rows, hou.heroes)
            }
            // One send-keys: the three Backspaces arrive together, well within the 300 ms
            // throttle, so the searches for "ho" and "h" are superseded while in flight.
            try await tmux.press("BSpace", "BSpace", "BSpace")
            try await tmux.waitForScreen("the whole list from its first hero") { screen in
                let (shown, selected) = Self.heroRows(screen)
                return screen.contains("\(all.total) in all") && selected == 0
                    && Self.show(shown, all.heroes.prefix(rows))
            }
            try await tmux.press("End")
            try await tmux.waitForScreen("the last page, the last hero selected") { screen in
                let (shown, selected) = Self.heroRows(screen)
                return selected == rows - 1 && Self.show(shown, all.heroes.suffix(rows))
            }
            try await tmux.press("Home")
            let home = try await tmux.waitForScreen("the first page again") { screen in
                let (shown, selected) = Self.heroRows(screen)
                return selected == 0 && Self.show(shown, all.heroes.prefix(rows))
            }
            #expect(!Self.lines(home).contains("…"), "\(home)")
        }
    }

    @Test("register: typed ahead of the gateway's enabling, password and repeat are kept and sent")
    func registerTypedAhead() async throws {
        try await Self.session { _, tmux in
            try await tmux.waitForScreen("the menu") { Self.lines($0).first == "Reactive login" }
            try await tmux.press("2")
            try await tmux.waitFor("Reactive login > Register")
            // All in one go, before the gateway has said the username is ok.
            let name = "u" + randomDigits(9)
            try await tmux.type(name)
            try await tmux.press("Tab")
            try await tmux.type("secret1")
            try await tmux.press("Tab")
            try await tmux.type("secret1")
            let screen = try await tmux.waitForScreen("the enabled register button") {
                $0.contains("< Register >")
            }
            #expect(screen.contains("[******* "), "\(screen)")
            try await tmux.press("Enter")  // on the last field: taps the enabled button
            try await tmux.waitFor("Registration succeeded")
        }
    }

    @Test("80x24: the cannot-reach banner wraps above the key help, its reason whole")
    func unreachableBannerWraps() async throws {
        // Nothing listens on port 1: the channel fails after the 2 s connect timeout.
        try await Self.session(connection: {
            ["--endpoint", "tcp://127.0.0.1:1", "--server-key", $0.gatewayKeyFile]
        }) { _, tmux in
            try await tmux.waitForScreen("the menu") { Self.lines($0).first == "Reactive login" }
            try await tmux.press("1")
            // A capture can catch the terminal mid-frame: wait for the key help below the banner.
            let screen = try await tmux.waitForScreen("the banner above the key help") { screen in
                let rows = Self.lines(screen)
                guard let first = rows.firstIndex(where: { $0.hasPrefix("[!] Cannot reach the gateway at") })
                else { return false }
                return rows[first...].contains { $0.hasPrefix("Tab/Shift-Tab") }
            }
            #expect(screen.contains("[!] Cannot reach the gateway at tcp://127.0.0.1:1"), "\(screen)")
            let rows = Self.lines(screen)
            let first = try #require(rows.firstIndex { $0.hasPrefix("[!] Cannot reach the gateway") })
            let footer = try #require(rows.lastIndex { $0.hasPrefix("Tab/Shift-Tab") })
            let banner = rows[first..<footer].joined(separator: " ")
            #expect(banner.contains("(") && banner.hasSuffix(")"), "\(screen)")
            #expect(!banner.contains("…"), "\(screen)")
        }
    }
}
