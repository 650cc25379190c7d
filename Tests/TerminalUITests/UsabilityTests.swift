import Contracts
import Dispatch
import Testing

@testable import TerminalUI

#if canImport(Glibc)
    import Glibc
#endif

/// The hero list's paging and columns, typed-ahead fields, Enter from the last field, wrapping,
/// bracketed paste and the UI's wake pipe: each as a user meets it.
@Suite("Paging, columns, typing ahead, paste, wrapping and waking", .timeLimit(.minutes(1)))
struct UsabilityTests {
    static func page(_ number: Int, of total: Int = 151, size: Int = 50, query: String = "") -> FlowOutput {
        let first = number * size
        let heroes = (first..<min(total, first + size)).map {
            FlowHero(id: $0 + 1, name: "hero\($0 + 1)", intro: "intro \($0 + 1)")
        }
        return answer(heroes, query: query, page: number, total: total, pageSize: size)
    }

    @Test("the hero list opens with the empty search, so every hero shows at once")
    func opensWithEveryHero() {
        let screen = HeroesScreen(token: "t")
        #expect(screen.openingInputs == [.text(.searchText, "")])
        #expect(FormScreen.login().openingInputs.isEmpty)
    }

    @Test("End reaches the 151st of 151: the pages under the selection and on screen are fetched")
    func pagingReachesEveryResult() {
        var screen = HeroesScreen(token: "t")
        apply(&screen, Self.page(0))
        #expect(screen.rowCount == 151)
        // End: the last page is asked for, then (once it is in) the page above it on screen.
        #expect(press(&screen, .end) == [.send(.text(.page, "3"))])
        #expect(screen.selection == 150)
        #expect(screen.render(context()).text[22].hasPrefix("> …"))  // until its page arrives
        #expect(apply(&screen, Self.page(3)) == [.send(.text(.page, "2"))])
        #expect(apply(&screen, Self.page(2)).isEmpty)
        let frame = screen.render(context())
        #expect(frame.text[4].hasPrefix("  hero133 "))
        #expect(frame.text[22].hasPrefix("> hero151 "))
        // Down stops at the last; Up onto a page not seen yet asks for it.
        #expect(press(&screen, .down).isEmpty)
        #expect(screen.selection == 150)
        #expect(press(&screen, .pageUp, .pageUp).isEmpty)
        #expect(screen.selection == 112)
        #expect(press(&screen, .pageUp) == [.send(.text(.page, "1"))])
        #expect(screen.selection == 93)
        #expect(apply(&screen, Self.page(1)).isEmpty)
        #expect(screen.render(context()).text[4].hasPrefix("> hero94 "))
        #expect((0..<151).allSatisfy { screen.hero(at: $0)?.id == $0 + 1 })
        // A new text starts over at page 0, asked for with it; nothing of the old text shows.
        #expect(type(&screen, "h") == [.send(.text(.page, "0")), .send(.text(.searchText, "h"))])
        #expect(screen.selection == 0)
        #expect(screen.current == nil)
        #expect(screen.rowCount == 0)
        #expect(screen.render(context()).text[4] == "")
    }

    @Test("a gateway with smaller pages: the answers' page size is the page size")
    func smallerPages() {
        var screen = HeroesScreen(token: "t")
        apply(&screen, Self.page(0, of: 30, size: 10))
        #expect(screen.pageSize == 10)
        #expect(press(&screen, .end) == [.send(.text(.page, "2"))])
    }

    @Test("columns use the terminal's width; a cut name or intro ends in …, CJK measured in columns")
    func columns() {
        var screen = HeroesScreen(token: "t")
        let long = "Aurelion Sol, the Star Forger of the Celestial Dragons"
        apply(
            &screen,
            answer([
                FlowHero(id: 1, name: "Kha'Zix the Voidreaver", intro: "short"),
                FlowHero(id: 2, name: long, intro: String(repeating: "intro ", count: 30)),
                FlowHero(id: 3, name: "蝙蝠侠蝙蝠侠蝙蝠侠蝙蝠侠蝙蝠侠蝙蝠侠蝙蝠侠蝙蝠侠蝙蝠侠蝙蝠侠", intro: "长介绍"),
            ]))
        var frame = screen.render(context(120, 24, .en))
        expectFits(frame, 120, 24)
        // 120 columns: names get up to 58 columns, so the 22-column name shows whole.
        #expect(frame.text[4].hasPrefix("> Kha'Zix the Voidreaver "))
        #expect(frame.text[5].hasPrefix("  " + long + " "))
        #expect(frame.text[5].hasSuffix("…"))
        #expect(frame.lines[5].width == 120)
        #expect(frame.text[6].hasPrefix("  蝙蝠侠蝙蝠侠"))
        #expect(frame.text[6].contains("…"))
        #expect(TextWidth.of(frame.text[6]) <= 120)
        frame = screen.render(context(40, 24, .en))
        expectFits(frame, 40, 24)
        #expect(frame.text[4] == "> Kha'Zix the Voidr…  short")
        #expect(TextWidth.of(frame.text[6]) <= 40)
        #expect(frame.text[6].contains("…"))
    }

    @Test("truncate and wrap measure columns: ellipsis, CJK, spaces, words wider than a row")
    func truncateAndWrap() {
        #expect(TextWidth.truncate("abcdef", to: 6) == "abcdef")
        #expect(TextWidth.truncate("abcdefg", to: 6) == "abcde…")
        #expect(TextWidth.truncate("蝙蝠侠", to: 5) == "蝙蝠…")
        #expect(TextWidth.truncate("蝙蝠侠", to: 4) == "蝙…")
        #expect(TextWidth.truncate("abc", to: 0) == "")
        #expect(
            TextWidth.wrap("Login succeeded, token: abcdefghij", to: 12) == [
                "Login", "succeeded,", "token:", "abcdefghij",
            ])
        #expect(TextWidth.wrap("aa bb cc", to: 5) == ["aa bb", "cc"])
        #expect(TextWidth.wrap("0123456789abc", to: 5) == ["01234", "56789", "abc"])
        #expect(TextWidth.wrap("登录成功用户令牌", to: 5) == ["登录", "成功", "用户", "令牌"])
        #expect(TextWidth.wrap("", to: 5) == [""])
        #expect(TextWidth.wrap("abc", to: 0).isEmpty)
    }

    @Test("register: the password and Tab before the repeat field is enabled keep the typed text")
    func typedAhead() {
        var screen = FormScreen.register()
        apply(&screen, flag(.passwordEnabled, false), flag(.repeatEnabled, false))
        _ = type(&screen, "zhangsan")
        press(&screen, .tab)
        #expect(type(&screen, "123456").isEmpty)  // kept: the password field is not enabled yet
        press(&screen, .tab)
        #expect(screen.focus == 2)
        #expect(type(&screen, "123456").isEmpty)
        #expect(!type(&screen, "").contains(.bell))
        // The gateway enables the fields one after the other: each sends what was typed ahead.
        #expect(
            apply(&screen, result(.username, .ok), flag(.passwordEnabled, true)) == [
                .send(.text(.password, "123456"))
            ])
        #expect(
            apply(&screen, result(.password, .ok), flag(.repeatEnabled, true)) == [
                .send(.text(.repeatPassword, "123456"))
            ])
        apply(&screen, flag(.registerEnabled, true))
        // Enter on the last field taps the enabled button.
        #expect(press(&screen, .enter) == [.send(.tap(.registerTap))])
    }

    @Test("after a registration the password field is disabled, and so is the repeat field under it")
    func cascade() {
        var screen = FormScreen.register()
        apply(&screen, flag(.passwordEnabled, true), flag(.repeatEnabled, true))
        #expect(screen.usable(1) && screen.usable(2))
        apply(&screen, result(.username, .failed, "用户名已存在"), flag(.passwordEnabled, false))
        #expect(!screen.usable(1))
        #expect(!screen.usable(2))
        let frame = screen.render(context())
        #expect(frame.text[4].hasSuffix("[................................]"))
        #expect(frame.text[6].hasSuffix("[................................]"))
        #expect(span(frame.lines[6], containing: "....")?.style.dim == true)
    }

    @Test("Enter on the last field taps the button only when enabled, else moves to it")
    func enterOnLastField() {
        var screen = FormScreen.login()
        press(&screen, .tab)
        #expect(press(&screen, .enter).isEmpty)
        #expect(screen.buttonFocused)
        press(&screen, .backTab)
        apply(&screen, flag(.loginEnabled, true))
        #expect(press(&screen, .enter) == [.send(.tap(.loginTap))])
        #expect(screen.focus == 1)
        // Not on the first field: Enter there moves on.
        press(&screen, .backTab)
        #expect(press(&screen, .enter).isEmpty)
        #expect(screen.focus == 1)
        // Numbers has no button: Enter moves round.
        var numbers = FormScreen.numbers()
        press(&numbers, .enter, .enter)
        #expect(numbers.focus == 2)
    }

    static func keys(_ text: String) -> [Key] {
        text.unicodeScalars.map { Key.decode($0.value, functionKey: false) }
    }

    @Test("bracketed paste: pasted Esc, [3 and newlines are text; a lone Esc and unknown sequences")
    func paste() {
        var decoder = KeyDecoder()
        var out = Self.keys("\u{1B}[200~ab\u{1B}[3\ncd\u{1B}[201~").flatMap { decoder.feed($0) }
        #expect(out == [.paste("ab[3cd")])
        #expect(!decoder.holding)
        // A lone Esc is an Esc once nothing follows.
        #expect(decoder.feed(.escape).isEmpty)
        #expect(decoder.idle() == [.escape])
        // Esc then a key: both.
        out = Self.keys("\u{1B}x").flatMap { decoder.feed($0) }
        #expect(out == [.escape, .character("x")])
        // A sequence ncurses did not know: one unknown key, nothing typed.
        out = Self.keys("\u{1B}[99;5uZ").flatMap { decoder.feed($0) }
        #expect(out == [.unknown(27), .character("Z")])
        // A paste split across reads hands over what it has at each idle.
        out = Self.keys("\u{1B}[200~中文").flatMap { decoder.feed($0) } + decoder.idle()
        out += Self.keys("字\u{1B}[201~").flatMap { decoder.feed($0) }
        #expect(out == [.paste("中文"), .paste("字")])
        // Function keys decoded inside a paste are not text.
        #expect(decoder.feed(.escape).isEmpty)
        out = Self.keys("[200~a").flatMap { decoder.feed($0) }
        out += decoder.feed(.up) + Self.keys("\u{1B}[201~").flatMap { decoder.feed($0) }
        #expect(out == [.paste("a")])
    }

    @Test("a paste edits the focused field once; the menu and hero list never navigate on it")
    func pasteIntoScreens() {
        var login = FormScreen.login()
        #expect(press(&login, .paste("138[3")) == [.send(.text(.phone, "138[3"))])
        #expect(login.focus == 0)
        var heroes = HeroesScreen(token: "t")
        #expect(press(&heroes, .paste("bat")) == [.send(.text(.searchText, "bat"))])
        var menu = MenuScreen()
        #expect(press(&menu, .paste("3")) == [.bell])
        var navigator = Navigator(endpoint: "e")
        #expect(navigator.handle(.paste("\u{1B}3"), height: 24) == [.bell])
        #expect(navigator.current == .menu)
    }

    @Test("80x24: the login tip with a token wraps whole; the cannot-reach banner wraps above the footer")
    func wrapping() {
        var login = FormScreen.login()
        let token = "tok-" + String(repeating: "0123456789abcdef", count: 6)
        apply(
            &login, FlowOutput(.tip, message: "Login succeeded, user: 13800138000, token: " + token))
        let frame = login.render(context(80, 24, .en))
        expectFits(frame, 80, 24)
        let text = frame.text.joined(separator: "\n")
        #expect(text.contains("Login succeeded, user: 13800138000, token:"))
        #expect(frame.text.contains("  " + String(token.prefix(78))))
        #expect(frame.text.contains("  " + String(token.dropFirst(78))))

        var navigator = Navigator(endpoint: "tcp://127.0.0.1:5560")
        _ = navigator.handle(.enter, height: 24)
        navigator.channelFailed(
            generation: navigator.generation,
            reason: "unavailable: no connection to tcp://127.0.0.1:5560 within the connect timeout (2 s)")
        let failed = navigator.render(context(80, 24, .en))
        expectFits(failed, 80, 24)
        #expect(failed.text[21].hasPrefix(" [!] Cannot reach the gateway at tcp://127.0.0.1:5560"))
        #expect(failed.text[22].contains("timeout (2 s))"))
        #expect(failed.text[23].hasPrefix("Tab/Shift-Tab"))
        // A tiny screen: the banner takes at most half the rows and ends in … when cut.
        let small = navigator.render(context(30, 6, .en))
        expectFits(small, 30, 6)
        #expect(small.text[3].hasPrefix(" [!]"))
        #expect(small.text[4].hasSuffix("… "))
    }

    @Test("an output wakes the waiting UI thread at once, without waiting out a timeout")
    func wakePipe() throws {
        let wake = try #require(WakePipe())
        let queue = OutputQueue(wake: wake)
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)  // stands in for the terminal: never readable
        defer {
            close(ends[0])
            close(ends[1])
        }
        DispatchQueue.global().async { queue.push(.failed(generation: 1, reason: "x")) }
        let start = DispatchTime.now().uptimeNanoseconds
        wake.wait(for: ends[0], milliseconds: 20_000)
        let waited = (DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
        #expect(waited < 10_000)
        #expect(queue.drain().count == 1)
        // Emptied by the wait: the next one waits for its timeout (here: none).
        wake.wait(for: ends[0], milliseconds: 0)
    }
}
