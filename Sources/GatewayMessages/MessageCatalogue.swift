public import Contracts

/// Every text a screen shows, in the three locales (docs/ARCHITECTURE.md §6): the services' message codes, the
/// gateway's own (`login.failed`, `numbers.overflow`, …) and the client's labels (`ui.*`).
///
/// Templates interpolate parameters written `{name}`. A parameter whose value is itself a code in the
/// catalogue (`login.failed`'s `{message}` is the auth service's reason, e.g. `login.wrongPassword`)
/// is rendered as that code's text, so "登录失败 密码错误" comes out whole. A code the catalogue does
/// not know renders as the code itself, never as nothing: a newer service cannot blank a screen.
public struct MessageCatalogue: Sendable {
    /// The catalogue every process uses.
    public static let standard = MessageCatalogue(entries: MessageCatalogue.standardEntries)

    private let entries: [String: [MessageLocale: String]]

    /// A catalogue of `entries`: code → locale → template.
    public init(entries: [String: [MessageLocale: String]]) {
        self.entries = entries
    }

    /// Every code this catalogue has a text for.
    public var codes: [MessageCode] { entries.keys.sorted().map(MessageCode.init(rawValue:)) }

    /// Whether `code` has a text in every locale.
    public func isComplete(_ code: MessageCode) -> Bool {
        guard let texts = entries[code.rawValue] else { return false }
        return MessageLocale.allCases.allSatisfy { texts[$0] != nil }
    }

    /// The template of `code` in `locale`, unfilled; nil when the catalogue does not know it.
    public func template(_ code: MessageCode, in locale: MessageLocale) -> String? {
        entries[code.rawValue]?[locale]
    }

    /// `code` rendered in `locale` with `params` filled in.
    public func render(_ code: MessageCode, _ params: [String: String] = [:], in locale: MessageLocale) -> String {
        guard let template = template(code, in: locale) else { return code.rawValue }
        return fill(template, params, in: locale)
    }

    /// `message` rendered in `locale`.
    public func render(_ message: ScreenMessage, in locale: MessageLocale) -> String {
        render(message.code, message.params, in: locale)
    }

    /// `template` with each `{name}` replaced by `params[name]` (a known code renders as its text); an
    /// unknown parameter stays as written, so a missing value shows instead of vanishing.
    private func fill(_ template: String, _ params: [String: String], in locale: MessageLocale) -> String {
        guard template.contains("{") else { return template }
        var result = ""
        var rest = template[...]
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else { break }
            let name = String(rest[rest.index(after: open)..<close])
            if let value = params[name] {
                result += entries[value] != nil ? render(MessageCode(rawValue: value), in: locale) : value
            } else {
                result += rest[open...close]
            }
            rest = rest[rest.index(after: close)...]
        }
        result += rest
        return result
    }
}

extension MessageCatalogue {
    /// The standard texts: §6 of the design, the codes added since, and the client's labels. zh-Hant is
    /// Traditional Chinese as written in Taiwan and Hong Kong (登入, 使用者名稱, 帳戶, 搜尋, 網路), not
    /// zh-Hans converted character by character. `ui.sum` ends with its separator (`Sum: 42`, `和：42`).
    static let standardEntries: [String: [MessageLocale: String]] = [
        // Phone login (§6).
        "phone.format": [.zhHans: "号码格式错误", .zhHant: "號碼格式錯誤", .en: "Phone number format error"],
        "phone.long": [.zhHans: "号码过长", .zhHant: "號碼過長", .en: "Phone number too long"],
        "phone.short": [.zhHans: "号码长度不足", .zhHant: "號碼長度不足", .en: "Phone number too short"],
        "password.short": [.zhHans: "密码长度不足", .zhHant: "密碼長度不足", .en: "Password too short"],
        // Register and sign-in (§6).
        "username.short": [
            .zhHans: "用户名长度至少{n}个字符", .zhHant: "使用者名稱至少需{n}個字元",
            .en: "Username must be at least {n} characters",
        ],
        "username.long": [
            .zhHans: "用户名长度最多{n}个字符", .zhHant: "使用者名稱最多{n}個字元",
            .en: "Username must be at most {n} characters",
        ],
        "username.invalid": [
            .zhHans: "用户名含有不允许的字符", .zhHant: "使用者名稱含有不允許的字元",
            .en: "Username contains characters that are not allowed",
        ],
        "username.exists": [.zhHans: "账户已存在", .zhHant: "帳戶已存在", .en: "Account already exists"],
        "username.available": [.zhHans: "用户名可用", .zhHant: "使用者名稱可用", .en: "Username available"],
        "username.unknown": [.zhHans: "用户名不存在", .zhHant: "使用者名稱不存在", .en: "Username does not exist"],
        "username.checking": [.zhHans: "正在检查用户名…", .zhHant: "正在檢查使用者名稱…", .en: "Checking username…"],
        "username.throttled": [
            .zhHans: "检查过于频繁，请稍后再试", .zhHant: "檢查過於頻繁，請稍後再試",
            .en: "Too many checks; try again shortly",
        ],
        "password.min": [
            .zhHans: "密码长度至少{n}个字符", .zhHant: "密碼至少需{n}個字元",
            .en: "Password must be at least {n} characters",
        ],
        "password.long": [
            .zhHans: "密码长度最多{n}个字节", .zhHant: "密碼最多{n}個位元組",
            .en: "Password must be at most {n} bytes",
        ],
        "password.ok": [.zhHans: "密码可用", .zhHant: "密碼可用", .en: "Password acceptable"],
        "repeat.mismatch": [.zhHans: "两次密码不一样", .zhHant: "兩次輸入的密碼不一致", .en: "The two passwords differ"],
        // Results (§6).
        "login.ok": [
            .zhHans: "登录成功，用户名:{name}，标识符:{token}", .zhHant: "登入成功，使用者名稱:{name}，識別碼:{token}",
            .en: "Login succeeded, user: {name}, token: {token}",
        ],
        "login.failed": [.zhHans: "登录失败 {message}", .zhHant: "登入失敗 {message}", .en: "Login failed: {message}"],
        "login.wrongPassword": [.zhHans: "密码错误", .zhHant: "密碼錯誤", .en: "Wrong password"],
        "login.throttled": [
            .zhHans: "登录失败次数过多，请{retry_after}秒后再试", .zhHant: "登入失敗次數過多，請{retry_after}秒後再試",
            .en: "Too many failed logins; try again in {retry_after} s",
        ],
        "rate.limited": [
            .zhHans: "请求过于频繁，请{retry_after}秒后再试", .zhHant: "請求過於頻繁，請{retry_after}秒後再試",
            .en: "Too many requests; try again in {retry_after} s",
        ],
        "network.error": [.zhHans: "网络或数据解析错误！", .zhHant: "網路或資料解析錯誤！", .en: "Network or data parsing error!"],
        "register.ok": [.zhHans: "注册成功", .zhHant: "註冊成功", .en: "Registration succeeded"],
        "register.failed": [.zhHans: "注册失败", .zhHant: "註冊失敗", .en: "Registration failed"],
        "session.expired": [
            .zhHans: "未登录或会话已失效，请重新登录", .zhHant: "未登入或工作階段已失效，請重新登入",
            .en: "Not signed in, or the session has ended; sign in again",
        ],
        "numbers.overflow": [.zhHans: "数值溢出", .zhHant: "數值溢位", .en: "Number too large"],
        // The client's labels.
        "ui.title": [.zhHans: "响应式登录", .zhHant: "響應式登入", .en: "Reactive login"],
        "ui.login": [.zhHans: "登录", .zhHant: "登入", .en: "Log in"],
        "ui.register": [.zhHans: "注册", .zhHant: "註冊", .en: "Register"],
        "ui.signin": [.zhHans: "用户名登录", .zhHant: "使用者名稱登入", .en: "Sign in"],
        "ui.heroes": [.zhHans: "英雄列表", .zhHant: "英雄列表", .en: "Heroes"],
        "ui.numbers": [.zhHans: "三数相加", .zhHant: "三數相加", .en: "Add numbers"],
        "ui.signinForHeroes": [
            .zhHans: "请先登录，再查看英雄列表", .zhHant: "請先登入，再查看英雄列表", .en: "Sign in to see the heroes",
        ],
        "ui.phone": [.zhHans: "手机号", .zhHant: "手機號碼", .en: "Phone"],
        "ui.username": [.zhHans: "用户名", .zhHant: "使用者名稱", .en: "Username"],
        "ui.password": [.zhHans: "密码", .zhHant: "密碼", .en: "Password"],
        "ui.repeatPassword": [.zhHans: "重复密码", .zhHant: "確認密碼", .en: "Repeat password"],
        "ui.search": [.zhHans: "搜索", .zhHant: "搜尋", .en: "Search"],
        "ui.total": [.zhHans: "共{n}个", .zhHant: "共{n}個", .en: "{n} in all"],
        "ui.sum": [.zhHans: "和：", .zhHant: "和：", .en: "Sum: "],
        "ui.back": [.zhHans: "Esc 返回", .zhHant: "Esc 返回", .en: "Esc back"],
        "ui.quit": [.zhHans: "Ctrl-C 退出", .zhHant: "Ctrl-C 離開", .en: "Ctrl-C quit"],
        "ui.loading": [.zhHans: "请稍候…", .zhHant: "請稍候…", .en: "Please wait…"],
        "ui.traceKey": [.zhHans: "Ctrl-T 追踪", .zhHant: "Ctrl-T 追蹤", .en: "Ctrl-T trace"],
        "ui.traceNone": [
            .zhHans: "还没有追踪：输入或按下按钮后显示", .zhHant: "還沒有追蹤：輸入或按下按鈕後顯示",
            .en: "No trace yet: type or press a button",
        ],
        "ui.unreachable": [
            .zhHans: "无法连接网关 {endpoint}", .zhHant: "無法連線至閘道 {endpoint}", .en: "Cannot reach the gateway at {endpoint}",
        ],
    ]
}
