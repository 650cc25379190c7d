import Contracts
import GatewayMessages
import Testing

@Suite("MessageCatalogue", .timeLimit(.minutes(1)))
struct MessageCatalogueTests {
    let catalogue = MessageCatalogue.standard

    /// Every code a service or view model can send, in all three locales.
    static let sentCodes: [MessageCode] = [
        .phoneFormat, .phoneShort, .passwordShort, .usernameShort, .usernameLong, .usernameInvalid,
        .usernameExists, .usernameAvailable, .usernameUnknown, .usernameChecking, .usernameThrottled,
        .passwordMin, .passwordLong, .passwordOK, .repeatMismatch, .loginOK, .loginFailed,
        .loginWrongPassword, .loginThrottled, .rateLimited, .networkError, .registerOK, .registerFailed,
        .sessionExpired, .numbersOverflow,
    ]

    @Test(arguments: sentCodes)
    func everyCodeIsInEveryLocale(_ code: MessageCode) {
        #expect(catalogue.isComplete(code), "\(code) lacks a locale")
    }

    @Test func everyEntryIsInEveryLocale() {
        for code in catalogue.codes { #expect(catalogue.isComplete(code), "\(code) lacks a locale") }
    }

    @Test func theDesignsTextsAreExact() {
        #expect(catalogue.render(.phoneFormat, in: .zhHans) == "号码格式错误")
        #expect(catalogue.render(.usernameShort, ["n": "6"], in: .zhHans) == "用户名长度至少6个字符")
        #expect(catalogue.render(.usernameShort, ["n": "6"], in: .en) == "Username must be at least 6 characters")
        #expect(catalogue.render(.networkError, in: .zhHant) == "網路或資料解析錯誤！")
        #expect(
            catalogue.render(.loginOK, ["name": "ann", "token": "t0k"], in: .zhHans) == "登录成功，用户名:ann，标识符:t0k")
    }

    @Test func tooManyDigitsAndAnUnknownTokenSayWhatHappened() {
        #expect(catalogue.render(.phoneLong, in: .en) == "Phone number too long")
        #expect(catalogue.render(.phoneLong, in: .zhHans) == "号码过长")
        #expect(catalogue.render(.phoneLong, in: .zhHant) == "號碼過長")
        #expect(catalogue.render(.sessionExpired, in: .en) == "Not signed in, or the session has ended; sign in again")
        #expect(catalogue.render(.sessionExpired, in: .zhHant) == "未登入或工作階段已失效，請重新登入")
    }

    /// zh-Hant is written as in Taiwan and Hong Kong, not zh-Hans converted character by character.
    @Test func traditionalChineseUsesItsOwnWords() {
        let converted = ["登錄", "用戶名", "賬戶", "搜索", "標識符", "網絡", "數據", "字符", "字節", "網關"]
        for code in catalogue.codes {
            let text = catalogue.template(code, in: .zhHant) ?? ""
            for word in converted { #expect(!text.contains(word), "\(code.rawValue): \(text) has \(word)") }
        }
        #expect(catalogue.render("ui.search", in: .zhHant) == "搜尋")
        #expect(catalogue.render("ui.sum", in: .en) + "42" == "Sum: 42")
    }

    @Test func aParameterThatIsACodeRendersAsItsText() {
        let failed = ScreenMessage(.loginFailed, ["message": MessageCode.loginWrongPassword.rawValue])
        #expect(catalogue.render(failed, in: .zhHans) == "登录失败 密码错误")
        #expect(catalogue.render(failed, in: .zhHant) == "登入失敗 密碼錯誤")
        #expect(catalogue.render(failed, in: .en) == "Login failed: Wrong password")
    }

    @Test func unknownCodesAndParametersStayVisible() {
        #expect(catalogue.render("brand.new", in: .en) == "brand.new")
        #expect(catalogue.render(.usernameShort, in: .en) == "Username must be at least {n} characters")
        #expect(catalogue.render(.loginFailed, ["message": "plain words"], in: .en) == "Login failed: plain words")
    }
}
