import Contracts
import Testing

@testable import TerminalUI

@Suite("Login screen", .timeLimit(.minutes(1)))
struct LoginScreenTests {
    @Test("a fresh screen: two empty fields, phone focused, the button disabled")
    func fresh() {
        let frame = FormScreen.login().render(context())
        expectFits(frame, 80, 24)
        #expect(frame.text[0].hasPrefix(" 响应式登录 > 登录 "))
        #expect(frame.text[2] == "> 手机号  [                                ]")
        #expect(frame.text[4] == "  密码    [                                ]")
        #expect(frame.text[7] == "          ( 登录 )")
        #expect(frame.text[23] == "Tab/Shift-Tab  Enter  Esc 返回  Ctrl-C 退出")
        #expect(frame.cursor == Frame.Cursor(row: 2, column: 11))
    }

    @Test("typing sends the whole text after every key; the password is masked")
    func typing() {
        var screen = FormScreen.login()
        #expect(
            type(&screen, "138") == [
                .send(.text(.phone, "1")), .send(.text(.phone, "13")), .send(.text(.phone, "138")),
            ])
        #expect(press(&screen, .backspace) == [.send(.text(.phone, "13"))])
        #expect(press(&screen, .tab).isEmpty)
        #expect(type(&screen, "pw") == [.send(.text(.password, "p")), .send(.text(.password, "pw"))])
        let frame = screen.render(context())
        #expect(frame.text[2] == "  手机号  [13                              ]")
        #expect(frame.text[4] == "> 密码    [**                              ]")
        #expect(!frame.text.joined().contains("pw"))
        #expect(frame.cursor == Frame.Cursor(row: 4, column: 13))
    }

    @Test("field results show [x]/[ok] in red/green; the tip line shows the gateway's text")
    func results() {
        var screen = FormScreen.login()
        apply(
            &screen, result(.phone, .failed, "号码长度不足"), result(.password, .ok),
            FlowOutput(.tip, message: "号码长度不足"))
        let frame = screen.render(context())
        #expect(frame.text[3] == "          [x] 号码长度不足")
        #expect(span(frame.lines[3], containing: "号码长度不足")?.style.color == .red)
        #expect(frame.text[5] == "          [ok] ")
        #expect(span(frame.lines[5], containing: "[ok]")?.style.color == .green)
        #expect(frame.text[9] == "  号码长度不足")
        apply(&screen, FlowOutput(.tip, message: ""))
        #expect(screen.render(context()).text[9] == "")
    }

    @Test("the button's look follows loginEnabled; Enter taps it only while enabled")
    func button() {
        var screen = FormScreen.login()
        press(&screen, .tab, .tab)
        #expect(screen.buttonFocused)
        #expect(press(&screen, .enter) == [.bell])
        var frame = screen.render(context())
        #expect(frame.text[7] == ">         ( 登录 )")
        #expect(span(frame.lines[7], containing: "登录")?.style.dim == true)
        apply(&screen, flag(.loginEnabled, true))
        frame = screen.render(context())
        #expect(frame.text[7] == ">         < 登录 >")
        #expect(span(frame.lines[7], containing: "登录")?.style.reverse == true)
        #expect(frame.cursor == nil)
        #expect(press(&screen, .enter) == [.send(.tap(.loginTap))])
    }

    @Test("the spinner shows while loggingIn, one frame per tick")
    func spinner() {
        var screen = FormScreen.login()
        apply(&screen, flag(.loginEnabled, true), flag(.loggingIn, true))
        #expect(screen.render(context(frame: 0)).text[7] == "          < 登录 >  | 请稍候…")
        #expect(screen.render(context(frame: 1)).text[7] == "          < 登录 >  / 请稍候…")
        #expect(screen.render(context(frame: 2)).text[7] == "          < 登录 >  - 请稍候…")
        apply(&screen, flag(.loggingIn, false))
        #expect(screen.render(context()).text[7] == "          < 登录 >")
    }

    @Test("Tab, Shift-Tab and Enter move the focus round the fields and the button")
    func focus() {
        var screen = FormScreen.login()
        #expect(screen.focus == 0)
        press(&screen, .tab)
        #expect(screen.focus == 1)
        press(&screen, .enter)
        #expect(screen.buttonFocused)
        press(&screen, .tab)
        #expect(screen.focus == 0)
        press(&screen, .backTab)
        #expect(screen.buttonFocused)
        #expect(press(&screen, .character("x")) == [.bell])
    }

    @Test("Esc goes back, Ctrl-C quits, garbage keys ring the bell")
    func escape() {
        var screen = FormScreen.login()
        #expect(press(&screen, .escape) == [.back])
        #expect(press(&screen, .interrupt) == [.quit])
        #expect(press(&screen, .unknown(1)) == [.bell])
        #expect(press(&screen, .resize).isEmpty)
    }

    @Test("a field refuses more than its maximum length, with the bell")
    func oversize() {
        var screen = FormScreen.login()
        _ = type(&screen, String(repeating: "1", count: FormScreen.maximumFieldLength))
        #expect(press(&screen, .character("1")) == [.bell])
        #expect(screen.fields[0].text.count == FormScreen.maximumFieldLength)
        expectFits(screen.render(context()), 80, 24)
    }

    @Test("outputs the screen does not know are ignored")
    func unknownOutput() {
        var screen = FormScreen.login()
        let before = screen.render(context())
        #expect(apply(&screen, FlowOutput(output: "somethingNew", value: true)).isEmpty)
        #expect(screen.render(context()) == before)
    }
}
