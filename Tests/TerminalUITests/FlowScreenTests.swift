import Contracts
import Testing

@testable import TerminalUI

@Suite("Register, sign-in and numbers screens", .timeLimit(.minutes(1)))
struct FlowScreenTests {
    @Test("register: per-field results in colour, fields disabled per passwordEnabled/repeatEnabled")
    func register() {
        var screen = FormScreen.register()
        apply(&screen, flag(.passwordEnabled, false), flag(.repeatEnabled, false))
        #expect(
            type(&screen, "ann") == [
                .send(.text(.username, "a")), .send(.text(.username, "an")),
                .send(.text(.username, "ann")),
            ])
        apply(&screen, result(.username, .failed, "用户名长度至少6个字符"))
        var frame = screen.render(context())
        #expect(frame.text[2] == "> 用户名    [ann                             ]")
        #expect(frame.text[3] == "            [x] 用户名长度至少6个字符")
        #expect(frame.text[4] == "  密码      [................................]")
        #expect(span(frame.lines[4], containing: "....")?.style.dim == true)
        // Tab visits the disabled fields too: text typed ahead is kept and sent once enabled.
        press(&screen, .tab)
        #expect(screen.focus == 1)
        #expect(type(&screen, "x").isEmpty)
        #expect(screen.fields[1].unsent)
        #expect(screen.render(context()).text[4] == "> 密码      [*...............................]")
        #expect(
            apply(&screen, result(.username, .ok, "用户名可用"), flag(.passwordEnabled, true)) == [
                .send(.text(.password, "x"))
            ])
        #expect(!screen.fields[1].unsent)
        #expect(type(&screen, "y") == [.send(.text(.password, "xy"))])
        frame = screen.render(context())
        #expect(frame.text[3] == "            [ok] 用户名可用")
        #expect(span(frame.lines[3], containing: "用户名可用")?.style.color == .green)
        #expect(frame.text[4] == "> 密码      [**                              ]")
        #expect(frame.text[6] == "  重复密码  [................................]")
    }

    @Test("register: a validating username shows the spinner; the button and spinner while registering")
    func registering() {
        var screen = FormScreen.register()
        apply(&screen, result(.username, .validating, "正在检查用户名…"))
        #expect(screen.render(context(frame: 1)).text[3] == "            [/] 正在检查用户名…")
        apply(&screen, flag(.registerEnabled, true), flag(.registering, true))
        #expect(screen.render(context()).text[9] == "            < 注册 >  | 请稍候…")
    }

    @Test("register: the alert shows as a banner until a key, which does nothing else")
    func alert() {
        var screen = FormScreen.register()
        apply(&screen, FlowOutput(.alert, code: "register.ok", message: "注册成功", kind: .success))
        var frame = screen.render(context())
        let banner = row(frame, containing: "注册成功")
        #expect(banner?.text == " [ok] 注册成功 ")
        #expect(banner?.spans.first?.style.color == .green)
        #expect(frame.cursor == nil)
        #expect(press(&screen, .character("a")).isEmpty)
        #expect(screen.fields[0].text.isEmpty)
        frame = screen.render(context())
        #expect(row(frame, containing: "注册成功") == nil)
        apply(&screen, FlowOutput(.alert, message: "注册失败", kind: .failure))
        #expect(row(screen.render(context()), containing: "注册失败")?.text == " [!] 注册失败 ")
        #expect(press(&screen, .interrupt) == [.quit])
    }

    @Test("signin: the username result, the button, the alert, and a session opens the heroes")
    func signin() {
        var screen = FormScreen.signin()
        _ = type(&screen, "ann")
        apply(&screen, result(.username, .failed, "用户名不存在"), flag(.loginEnabled, false))
        var frame = screen.render(context())
        #expect(frame.text[2] == "> 用户名  [ann                             ]")
        #expect(frame.text[3] == "          [x] 用户名不存在")
        #expect(frame.text[4] == "  密码    [                                ]")
        #expect(frame.text[6] == "          ( 登录 )")
        press(&screen, .tab)
        #expect(type(&screen, "pw") == [.send(.text(.password, "p")), .send(.text(.password, "pw"))])
        apply(&screen, flag(.loginEnabled, true), flag(.loggingIn, true))
        frame = screen.render(context())
        #expect(frame.text[4] == "> 密码    [**                              ]")
        #expect(frame.text[6] == "          < 登录 >  | 请稍候…")
        let actions = apply(&screen, FlowOutput(.session, name: "ann", token: "t0k"))
        #expect(actions == [.show(.heroes(token: "t0k"))])
    }

    @Test("numbers: a, b, c send their text; the sum or the overflow message shows")
    func numbers() {
        var screen = FormScreen.numbers()
        #expect(type(&screen, "1") == [.send(.text(.a, "1"))])
        press(&screen, .enter)
        #expect(type(&screen, "2") == [.send(.text(.b, "2"))])
        press(&screen, .tab)
        #expect(type(&screen, "x") == [.send(.text(.c, "x"))])
        press(&screen, .tab)
        #expect(screen.focus == 0)
        apply(&screen, FlowOutput(.sum, number: 3))
        var frame = screen.render(context())
        #expect(frame.text[2] == "> a  [1                               ]")
        #expect(frame.text[3] == "  b  [2                               ]")
        #expect(frame.text[4] == "  c  [x                               ]")
        #expect(frame.text[6] == "  和：3")
        #expect(span(frame.lines[6], containing: "3")?.style.color == .green)
        apply(&screen, FlowOutput(.sum, code: "numbers.overflow", message: "数值溢出"))
        frame = screen.render(context())
        #expect(frame.text[6] == "  和：[x] 数值溢出")
        #expect(span(frame.lines[6], containing: "数值溢出")?.style.color == .red)
        #expect(press(&screen, .enter).isEmpty)
    }
}

@Suite("Heroes and menu screens", .timeLimit(.minutes(1)))
struct HeroesAndMenuTests {
    static let heroes = (1...50).map { FlowHero(id: $0, name: "英雄\($0)", intro: "intro \($0)\nsecond line") }

    @Test("the list, total, searching indicator and error")
    func render() {
        var screen = HeroesScreen(token: "t")
        apply(
            &screen, answer(Self.heroes, total: 151),
            flag(.searching, true))
        var frame = screen.render(context())
        expectFits(frame, 80, 24)
        #expect(frame.text[0].hasPrefix(" 响应式登录 > 英雄列表 "))
        // One focus mark: the cursor is in the search box, "> " marks the selected row only.
        #expect(frame.text[2] == "  搜索  [                                ]  | 请稍候…")
        #expect(frame.text[3] == "  共151个")
        #expect(frame.text[4] == "> 英雄1   intro 1 second line")
        #expect(frame.text[22] == "  英雄19  intro 19 second line")
        #expect(frame.cursor == Frame.Cursor(row: 2, column: 9))
        apply(
            &screen, flag(.searching, false),
            FlowOutput(.error, code: "network.error", message: "网络或数据解析错误！"))
        frame = screen.render(context())
        #expect(frame.text[2] == "  搜索  [                                ]")
        #expect(frame.text[3] == "  共151个  [x] 网络或数据解析错误！")
        #expect(frame.text.filter { $0.hasPrefix(">") }.count == 1)
    }

    @Test("Up/Down/PgUp/PgDn scroll with the selection always showing")
    func scrolling() {
        var screen = HeroesScreen(token: "t")
        apply(&screen, answer(Self.heroes))
        press(&screen, .pageDown)
        #expect(screen.selection == 19)
        #expect(screen.render(context()).text[22].hasPrefix("> 英雄20 "))
        press(&screen, .down)
        #expect(screen.selection == 20)
        #expect(screen.render(context()).text[4].hasPrefix("  英雄3 "))
        press(&screen, .end)
        #expect(screen.selection == 49)
        #expect(screen.render(context()).text[22].hasPrefix("> 英雄50 "))
        press(&screen, .down)
        #expect(screen.selection == 49)
        press(&screen, .pageUp, .up)
        #expect(screen.selection == 29)
        press(&screen, .home, .up)
        #expect(screen.selection == 0)
        #expect(screen.render(context()).text[4].hasPrefix("> 英雄1 "))
        // A new search text resets the selection.
        press(&screen, .down)
        _ = type(&screen, "a")
        apply(&screen, answer(Array(Self.heroes.prefix(2)), query: "a"))
        #expect(screen.selection == 0)
        press(&screen, .pageDown)
        #expect(screen.selection == 1)
    }

    @Test("typing sends searchText; Esc goes back")
    func search() {
        var screen = HeroesScreen(token: "t")
        #expect(type(&screen, "蝙蝠") == [.send(.text(.searchText, "蝙")), .send(.text(.searchText, "蝙蝠"))])
        #expect(press(&screen, .backspace) == [.send(.text(.searchText, "蝙"))])
        #expect(screen.render(context()).text[2] == "  搜索  [蝙                              ]")
        #expect(screen.render(context()).cursor == Frame.Cursor(row: 2, column: 11))
        #expect(press(&screen, .escape) == [.back])
        apply(&screen, answer([], query: "蝙"))
        #expect(press(&screen, .down).isEmpty)
    }

    @Test("the menu lists the five flows, phone login first; Enter or a digit opens one")
    func menu() {
        var menu = MenuScreen()
        let frame = menu.render(context(80, 24, .en))
        #expect(frame.text[0].hasPrefix(" Reactive login "))
        #expect(
            Array(frame.text[2...6]) == [
                "> 1  Log in", "  2  Register", "  3  Sign in", "  4  Heroes", "  5  Add numbers",
            ])
        #expect(press(&menu, .enter) == [.show(.login)])
        #expect(press(&menu, .down, .down, .enter) == [.show(.signin)])
        #expect(press(&menu, .character("5")) == [.show(.numbers)])
        #expect(press(&menu, .character("9")) == [.bell])
        #expect(press(&menu, .escape) == [.quit])
        #expect(press(&menu, .character("q")) == [.quit])
        #expect(MenuScreen.entries.map(\.flow) == Methods.Flow.all)
    }
}
