import Contracts
import Reactive
import Testing

@testable import TerminalUI

@Suite("Navigation, layout, colours and keys", .timeLimit(.minutes(1)))
struct NavigationAndLayoutTests {
    @Test("a session opens the heroes with its token; Esc comes back to a fresh sign-in; stale outputs drop")
    func sessionToHeroes() {
        var navigator = Navigator(endpoint: "tcp://127.0.0.1:5560")
        #expect(navigator.current == .menu)
        #expect(navigator.handle(.character("3"), height: 24) == [.switchChannel])
        #expect(navigator.current == .signin)
        #expect(navigator.parameters(locale: .en) == FlowParameters(locale: .en, token: nil))
        let signinGeneration = navigator.generation
        #expect(navigator.handle(.character("a"), height: 24) == [.send(.text(.username, "a"))])
        let effects = navigator.apply(
            FlowOutput(.session, name: "ann", token: "t0k"), generation: signinGeneration)
        // The hero list opens with the empty search: every hero.
        #expect(effects == [.switchChannel, .send(.text(.searchText, ""))])
        #expect(navigator.current == .heroes(token: "t0k"))
        #expect(navigator.parameters(locale: .zhHans) == FlowParameters(locale: .zhHans, token: "t0k"))
        #expect(navigator.stack == [.menu, .signin, .heroes(token: "t0k")])
        // An output still in flight from the sign-in channel is dropped.
        #expect(
            navigator.apply(answer([], total: 9), generation: signinGeneration).isEmpty)
        #expect(
            navigator.apply(
                answer((1...7).map { FlowHero(id: $0, name: "h\($0)", intro: "") }),
                generation: navigator.generation
            ).isEmpty)
        #expect(navigator.render(context()).text[3] == "  共7个")
        #expect(navigator.handle(.escape, height: 24) == [.switchChannel])
        #expect(navigator.current == .signin)
        #expect(navigator.render(context()).text[2] == "> 用户名  [                                ]")
        #expect(navigator.handle(.escape, height: 24) == [.switchChannel])
        #expect(navigator.current == .menu)
        // The menu's hero list reuses the last session's token.
        #expect(
            navigator.handle(.character("4"), height: 24) == [.switchChannel, .send(.text(.searchText, ""))])
        #expect(navigator.current == .heroes(token: "t0k"))
        #expect(navigator.handle(.interrupt, height: 24) == [.quit])
        #expect(navigator.handle(.resize, height: 24).isEmpty)
    }

    @Test("without a session the hero entry opens a sign-in that says why; the menu's own sign-in does not")
    func heroesNeedSession() {
        var navigator = Navigator(endpoint: "e")
        #expect(navigator.handle(.character("4"), height: 24) == [.switchChannel])
        #expect(navigator.current == .signin)
        #expect(navigator.stack == [.menu, .signin])
        let note = "  Sign in to see the heroes"
        #expect(navigator.render(context(80, 24, .en)).text.contains(note))
        #expect(navigator.render(context()).text.contains("  请先登录，再查看英雄列表"))
        // Typing keeps the note; the sign-in chosen from the menu has none.
        _ = navigator.handle(.character("a"), height: 24)
        #expect(navigator.render(context(80, 24, .en)).text.contains(note))
        #expect(navigator.handle(.escape, height: 24) == [.switchChannel])
        #expect(navigator.handle(.character("3"), height: 24) == [.switchChannel])
        #expect(navigator.current == .signin)
        #expect(!navigator.render(context(80, 24, .en)).text.contains(note))
    }

    @Test("Esc on the menu quits; a failed channel shows the cannot-reach banner")
    func unreachable() {
        var navigator = Navigator(endpoint: "tcp://gw:5560")
        _ = navigator.handle(.enter, height: 24)
        navigator.channelFailed(generation: navigator.generation - 1, reason: "old")
        #expect(!navigator.unreachable)
        navigator.channelFailed(generation: navigator.generation, reason: "")
        var frame = navigator.render(context(80, 24, .en))
        #expect(frame.text[22] == " [!] Cannot reach the gateway at tcp://gw:5560 ")
        navigator.channelFailed(generation: navigator.generation, reason: "timed out\n")
        frame = navigator.render(context(80, 24, .en))
        #expect(frame.text[22] == " [!] Cannot reach the gateway at tcp://gw:5560 (timed out ) ")
        #expect(frame.lines[22].spans.first?.style.color == .red)
        _ = navigator.handle(.escape, height: 24)
        #expect(!navigator.unreachable)
        #expect(navigator.handle(.escape, height: 24) == [.quit])
    }

    static let screens: [any ScreenModel] = {
        var login = FormScreen.login()
        apply(&login, result(.phone, .failed, "号码长度不足"), FlowOutput(.tip, message: "号码长度不足 密码长度不足"))
        var register = FormScreen.register()
        apply(
            &register, result(.username, .ok, "用户名可用"),
            FlowOutput(.alert, message: "注册成功", kind: .success))
        var heroes = HeroesScreen(token: "t")
        apply(
            &heroes,
            answer(
                (1...50).map {
                    FlowHero(
                        id: $0, name: String(repeating: "蝙蝠侠", count: $0 % 5 + 1),
                        intro: String(repeating: "长介绍", count: 30))
                }, total: 60))
        var numbers = FormScreen.numbers()
        apply(&numbers, FlowOutput(.sum, number: Int.max))
        return [MenuScreen(), login, register, FormScreen.signin(), heroes, numbers]
    }()

    @Test(
        "every screen fits 80x24, 40x12, 120x40 and degenerate sizes",
        arguments: [
            (80, 24), (40, 12), (120, 40), (20, 5), (1, 1), (0, 0), (3, 2),
        ])
    func sizes(width: Int, height: Int) {
        for locale in MessageLocale.allCases {
            for var screen in Self.screens {
                expectFits(screen.render(context(width, height, locale)), width, height)
                _ = screen.handle(.pageDown, height: height)
                _ = screen.handle(.character("长"), height: height)
                expectFits(screen.render(context(width, height, locale)), width, height)
            }
        }
    }

    @Test("NO_COLOR: no colours anywhere, the [ok]/[x] markers and attributes still show state")
    func noColor() {
        var screen = FormScreen.register()
        apply(
            &screen, result(.username, .ok, "用户名可用"), result(.password, .failed, "密码长度至少6个字符"),
            FlowOutput(.alert, message: "注册失败", kind: .failure))
        let frame = screen.render(context(colors: false))
        #expect(frame.lines.allSatisfy { $0.spans.allSatisfy { $0.style.color == nil } })
        #expect(frame.text[3] == "            [ok] 用户名可用")
        #expect(frame.text[5] == "            [x] 密码长度至少6个字符")
        #expect(span(frame.lines[5], containing: "[x]")?.style.bold == true)
        #expect(row(frame, containing: "注册失败")?.text == " [!] 注册失败 ")
        #expect(frame.text[9] == "            ( 注册 )")
        for screen in Self.screens {
            let lines = screen.render(context(colors: false)).lines
            #expect(lines.allSatisfy { $0.spans.allSatisfy { $0.style.color == nil } })
        }
    }

    @Test("CJK text is measured in columns: labels align, wide characters never straddle the edge")
    func cjkWidth() {
        #expect(TextWidth.of("英雄") == 4)
        #expect(TextWidth.of("abc") == 3)
        #expect(TextWidth.of("e\u{301}") == 1)
        #expect(TextWidth.prefix("英雄列表", fitting: 5) == "英雄")
        #expect(TextWidth.suffix("英雄列表", fitting: 5) == "列表")
        #expect(TextWidth.pad("密码", to: 6) == "密码  ")
        // zh-Hans labels are 3 and 2 characters wide but 6 and 4 columns: the boxes line up.
        var screen = FormScreen.signin()
        _ = type(&screen, "张三")
        let frame = screen.render(context(40, 12))
        #expect(frame.text[2] == "> 用户名  [张三                        ]")
        #expect(frame.text[4] == "  密码    [                            ]")
        #expect(frame.lines[2].width == 40)
        #expect(frame.cursor == Frame.Cursor(row: 2, column: 15))
        let narrow = FormScreen.register().render(context(13, 6))
        for line in narrow.lines { #expect(line.width <= 13) }
        #expect(narrow.text[0] == " 响应式登录 >")
    }

    @Test("control characters from the gateway show as spaces, never reach the terminal")
    func controlCharacters() {
        var screen = FormScreen.login()
        apply(&screen, FlowOutput(.tip, message: "a\u{1B}[2Jb\nc\u{9B}d"))
        let frame = screen.render(context())
        #expect(frame.text[9] == "  a [2Jb c d")
        let all = frame.lines.flatMap(\.spans).map(\.text).joined()
        #expect(!all.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
    }

    @Test("keys decode from get_wch: controls, CJK, function keys, garbage")
    func decode() {
        #expect(Key.decode(3, functionKey: false) == .interrupt)
        #expect(Key.decode(9, functionKey: false) == .tab)
        #expect(Key.decode(13, functionKey: false) == .enter)
        #expect(Key.decode(10, functionKey: false) == .enter)
        #expect(Key.decode(27, functionKey: false) == .escape)
        #expect(Key.decode(127, functionKey: false) == .backspace)
        #expect(Key.decode(0x4E2D, functionKey: false) == .character("中"))
        #expect(Key.decode(1, functionKey: false) == .unknown(1))
        #expect(Key.decode(0x85, functionKey: false) == .unknown(0x85))
        #expect(Key.decode(0xD800, functionKey: false) == .unknown(0xD800))
        #expect(Key.decode(0o541, functionKey: true) == .backTab)  // KEY_BTAB
        #expect(Key.decode(0o632, functionKey: true) == .resize)  // KEY_RESIZE
        #expect(Key.decode(0o403, functionKey: true) == .up)  // KEY_UP
        #expect(Key.decode(0o777, functionKey: true) == .unknown(0o777))
    }

    @Test("outputs bound from other threads reach the UI queue whole and in order")
    func outputQueue() async {
        let queue = OutputQueue()
        let sink = Binder(queue) { queue, item in queue.push(item) }
        // Four channels, each delivering serially (as a channel does) from its own thread.
        let subjects = (0..<4).map { _ in PublishSubject<FlowOutput>() }
        let subscriptions = subjects.map { subject in
            subject.map { OutputQueue.Item.output($0, generation: 1) }
                .catchAndReturn(.failed(generation: 1, reason: "")).bind(to: sink)
        }
        await withTaskGroup(of: Void.self) { group in
            for (thread, subject) in subjects.enumerated() {
                group.addTask {
                    for number in 0..<100 { subject.onNext(FlowOutput(output: "t\(thread)", number: number)) }
                }
            }
        }
        subjects[0].onError(CancellationError())
        var seen: [String: [Int]] = [:]
        var failed = 0
        for item in queue.drain() {
            switch item {
            case .output(let output, _): seen[output.output, default: []].append(output.number ?? -1)
            case .failed: failed += 1
            case .reconnected: Issue.record("no connection event was pushed")
            }
        }
        #expect(seen.count == 4)
        #expect(seen.values.allSatisfy { $0 == Array(0..<100) })
        #expect(failed == 1)
        #expect(queue.drain().isEmpty)
        for subscription in subscriptions { subscription.dispose() }
    }
}
