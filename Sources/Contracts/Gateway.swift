/// The gateway's methods and their bodies (docs/gateway/protocol.md), shared by the gateway,
/// `gateway-cli` and the tests.
///
/// A client opens one channel per screen (`flow.*`, parameters ``FlowParameters``), streams
/// ``FlowInput`` events in (a field's whole text after each keystroke, or a tap) and receives
/// ``FlowOutput`` events out, already rendered in the channel's locale. Scripts that want one answer
/// use the request/response commands instead.
public enum GatewayMethod {
    /// `flow.login` (channel): inputs `phone`, `password`, `loginTap`; outputs `phone`, `password`
    /// (field results), `loginEnabled`, `loggingIn`, `tip`.
    public static let login = "flow.login"
    /// `flow.register` (channel): inputs `username`, `password`, `repeatPassword`, `registerTap`;
    /// outputs `username`, `password`, `repeatPassword`, `passwordEnabled`, `repeatEnabled`,
    /// `registerEnabled`, `registering`, `alert`.
    public static let register = "flow.register"
    /// `flow.signin` (channel): inputs `username`, `password`, `loginTap`; outputs `username`,
    /// `loginEnabled`, `loggingIn`, `alert`, `session`.
    public static let signin = "flow.signin"
    /// `flow.heroes` (channel, needs ``FlowParameters/token``): input `searchText` (and `page`);
    /// outputs `heroes`, `total`, `searching`, `error`.
    public static let heroes = "flow.heroes"
    /// `flow.numbers` (channel): inputs `a`, `b`, `c`; output `sum`.
    public static let numbers = "flow.numbers"

    /// Every flow channel, in the order a screen list shows them.
    public static let flows = [login, register, signin, heroes, numbers]

    /// `login` (request) ``LoginCommand`` → ``CommandResult``.
    public static let loginCommand = "login"
    /// `register` (request) ``RegisterCommand`` → ``CommandResult``.
    public static let registerCommand = "register"
    /// `signin` (request) ``SigninCommand`` → ``CommandResult``.
    public static let signinCommand = "signin"
    /// `heroes.search` (request) ``HeroesCommand`` → ``HeroesCommandResult``.
    public static let heroesSearch = "heroes.search"
}

/// A language the gateway renders messages in (docs/ARCHITECTURE.md §6).
public enum MessageLocale: String, Codable, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Simplified Chinese: the original demos' wording.
    case zhHans = "zh-Hans"
    /// Traditional Chinese.
    case zhHant = "zh-Hant"
    /// English.
    case en

    public var description: String { rawValue }
}

/// The parameters of every `flow.*` channel.
public struct FlowParameters: Codable, Sendable, Hashable {
    /// The language of every rendered message on the channel (default `zh-Hans`).
    public var locale: MessageLocale?
    /// A session token from a sign-in; `flow.heroes` needs one.
    public var token: String?
    /// The device tokens the client keeps, by account name (`flow.login`, `flow.signin`): a login
    /// presents the one for the name it logs in as (``LoginRequest/deviceToken``). At most
    /// ``maximumDeviceTokens``.
    public var deviceTokens: [String: String]?

    /// The most device tokens a channel takes.
    public static let maximumDeviceTokens = 64

    /// Parameters for a channel in `locale`.
    public init(locale: MessageLocale? = nil, token: String? = nil, deviceTokens: [String: String]? = nil) {
        self.locale = locale
        self.token = token
        self.deviceTokens = deviceTokens
    }

    enum CodingKeys: String, CodingKey {
        case locale, token, deviceTokens = "device_tokens"
    }
}

/// One input event on a flow channel: a field's whole text after a keystroke, or a tap.
///
/// `{"input":"phone","text":"1380013"}`, `{"input":"loginTap"}`.
public struct FlowInput: Codable, Sendable, Hashable, CustomStringConvertible {
    /// The input's name, e.g. `phone`, `password`, `loginTap` (see ``GatewayMethod``).
    public var input: String
    /// The field's text; absent for a tap.
    public var text: String?

    /// An input event.
    public init(input: String, text: String? = nil) {
        self.input = input
        self.text = text
    }

    /// A field's text after a keystroke.
    public static func text(_ input: String, _ text: String) -> FlowInput { FlowInput(input: input, text: text) }

    /// A tap on the button `input`.
    public static func tap(_ input: String) -> FlowInput { FlowInput(input: input) }

    public var description: String { text.map { "\(input)=\($0)" } ?? input }
}

/// A hero as a flow renders it: its name and introduction in the channel's locale.
public struct FlowHero: Codable, Sendable, Hashable {
    /// The hero's id in the catalog.
    public var id: Int
    /// The name in the channel's locale (another locale's when the catalog lacks it).
    public var name: String
    /// The introduction in the channel's locale.
    public var intro: String

    /// A rendered hero.
    public init(id: Int, name: String, intro: String) {
        self.id = id
        self.name = name
        self.intro = intro
    }
}

/// One output event on a flow channel: the new value of one output, rendered in the channel's
/// locale. Only the members that output uses are present:
///
/// | output kind | members | example |
/// |---|---|---|
/// | a field's result | `state`, `code`, `message` | `{"output":"phone","state":"failed","code":"phone.short","message":"号码长度不足"}` |
/// | a flag (enabled, spinner) | `value` | `{"output":"loginEnabled","value":true}` |
/// | a text line (`tip`) | `message` (empty when nothing shows) | `{"output":"tip","message":""}` |
/// | a one-shot alert | `kind`, `code`, `message` | `{"output":"alert","kind":"success","code":"register.ok","message":"注册成功"}` |
/// | a session | `name`, `token`, `device_token` | `{"output":"session","name":"ann","token":"…","device_token":"…"}` |
/// | a hero page | `heroes` | `{"output":"heroes","heroes":[{"id":1,"name":"…","intro":"…"}]}` |
/// | a count | `number` | `{"output":"total","number":151}` |
/// | a sum | `number`, or `code` and `message` on overflow | `{"output":"sum","number":6}` |
public struct FlowOutput: Codable, Sendable, Hashable, CustomStringConvertible {
    /// Which output changed, e.g. `tip`.
    public var output: String
    /// A flag's value.
    public var value: Bool?
    /// A field result's state.
    public var state: ValidationResult.State?
    /// The message's code, for clients that render their own text.
    public var code: MessageCode?
    /// The rendered message.
    public var message: String?
    /// An alert's kind: `success`, `failure` or `error`.
    public var kind: String?
    /// A session's user name.
    public var name: String?
    /// A session's token.
    public var token: String?
    /// The device token of a successful login (with `token`): keep it for the account `name`.
    public var deviceToken: String?
    /// A page of heroes.
    public var heroes: [FlowHero]?
    /// A count or a sum.
    public var number: Int?

    /// An output event; set the members its kind uses.
    public init(
        output: String, value: Bool? = nil, state: ValidationResult.State? = nil, code: MessageCode? = nil,
        message: String? = nil, kind: String? = nil, name: String? = nil, token: String? = nil,
        deviceToken: String? = nil, heroes: [FlowHero]? = nil, number: Int? = nil
    ) {
        self.output = output
        self.value = value
        self.state = state
        self.code = code
        self.message = message
        self.kind = kind
        self.name = name
        self.token = token
        self.deviceToken = deviceToken
        self.heroes = heroes
        self.number = number
    }

    enum CodingKeys: String, CodingKey {
        case output, value, state, code, message, kind, name, token, deviceToken = "device_token", heroes
        case number
    }

    /// E.g. `tip: 号码长度不足` or `loginEnabled: true`.
    public var description: String {
        var parts: [String] = []
        if let value { parts.append(String(value)) }
        if let state { parts.append(state.rawValue) }
        if let kind { parts.append(kind) }
        if let code { parts.append(code.rawValue) }
        if let message { parts.append(message) }
        if let name { parts.append(name) }
        if let number { parts.append(String(number)) }
        if let heroes { parts.append("\(heroes.count) heroes") }
        return "\(output): \(parts.joined(separator: " "))"
    }
}

/// `login`'s parameters: the phone login flow as one call.
public struct LoginCommand: Codable, Sendable, Hashable {
    /// The phone number (the account's username).
    public var phone: String
    /// The password.
    public var password: String
    /// The language of the answer's message (default `zh-Hans`).
    public var locale: MessageLocale?
    /// The device token an earlier login to this account answered, if the client kept one.
    public var deviceToken: String?

    /// A login.
    public init(phone: String, password: String, locale: MessageLocale? = nil, deviceToken: String? = nil) {
        self.phone = phone
        self.password = password
        self.locale = locale
        self.deviceToken = deviceToken
    }

    enum CodingKeys: String, CodingKey {
        case phone, password, locale, deviceToken = "device_token"
    }
}

/// `register`'s parameters.
public struct RegisterCommand: Codable, Sendable, Hashable {
    /// The new account's username.
    public var username: String
    /// Its password.
    public var password: String
    /// The password typed again (default: the same as `password`).
    public var repeatPassword: String?
    /// The language of the answer's message.
    public var locale: MessageLocale?

    /// A registration.
    public init(username: String, password: String, repeatPassword: String? = nil, locale: MessageLocale? = nil) {
        self.username = username
        self.password = password
        self.repeatPassword = repeatPassword
        self.locale = locale
    }

    enum CodingKeys: String, CodingKey {
        case username, password, repeatPassword = "repeat_password", locale
    }
}

/// `signin`'s parameters.
public struct SigninCommand: Codable, Sendable, Hashable {
    /// The username.
    public var username: String
    /// The password.
    public var password: String
    /// The language of the answer's message.
    public var locale: MessageLocale?
    /// The device token an earlier login to this account answered, if the client kept one.
    public var deviceToken: String?

    /// A sign-in.
    public init(
        username: String, password: String, locale: MessageLocale? = nil, deviceToken: String? = nil
    ) {
        self.username = username
        self.password = password
        self.locale = locale
        self.deviceToken = deviceToken
    }

    enum CodingKeys: String, CodingKey {
        case username, password, locale, deviceToken = "device_token"
    }
}

/// What `login`, `register` and `signin` answer: whether it worked and the message a screen shows.
///
/// A refusal (invalid field, wrong password, taken username) is a result with `ok` false, not an
/// ERROR frame; ERROR frames are for the call itself (bad parameters, overload, a deadline).
public struct CommandResult: Codable, Sendable, Hashable {
    /// Whether the login or registration succeeded.
    public var ok: Bool
    /// The message's code.
    public var code: MessageCode
    /// The message rendered in the requested locale.
    public var message: String
    /// The user name, on a successful login or sign-in.
    public var name: String?
    /// The session token, on a successful login or sign-in.
    public var token: String?
    /// The device token, on a successful login or sign-in: keep it for the account `name` and send
    /// it with the next login to it.
    public var deviceToken: String?

    /// A result.
    public init(
        ok: Bool, code: MessageCode, message: String, name: String? = nil, token: String? = nil,
        deviceToken: String? = nil
    ) {
        self.ok = ok
        self.code = code
        self.message = message
        self.name = name
        self.token = token
        self.deviceToken = deviceToken
    }

    enum CodingKeys: String, CodingKey {
        case ok, code, message, name, token, deviceToken = "device_token"
    }
}

/// `heroes.search`'s parameters.
public struct HeroesCommand: Codable, Sendable, Hashable {
    /// A session token from `login` or `signin`.
    public var token: String
    /// The text to look for in the names; empty or absent lists every hero.
    public var query: String?
    /// How many matches to skip (default 0).
    public var offset: Int?
    /// How many to return at most (default 50).
    public var limit: Int?
    /// The language of the names.
    public var locale: MessageLocale?

    /// A search.
    public init(token: String, query: String? = nil, offset: Int? = nil, limit: Int? = nil, locale: MessageLocale? = nil) {
        self.token = token
        self.query = query
        self.offset = offset
        self.limit = limit
        self.locale = locale
    }
}

/// `heroes.search`'s answer: one page, rendered in the requested locale.
public struct HeroesCommandResult: Codable, Sendable, Hashable {
    /// How many heroes match in all.
    public var total: Int
    /// This page.
    public var heroes: [FlowHero]

    /// A page.
    public init(total: Int, heroes: [FlowHero]) {
        self.total = total
        self.heroes = heroes
    }
}
