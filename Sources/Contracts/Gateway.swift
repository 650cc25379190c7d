public import RemoteProtocol

extension Methods {
    /// The gateway's flows (docs/gateway/protocol.md): one channel per screen.
    ///
    /// A client opens a flow with ``FlowParameters``, streams ``FlowInput`` events in (a field's
    /// whole text after each keystroke, or a tap) and receives ``FlowOutput`` events out, already
    /// rendered in the channel's locale. The names each flow takes and sends are
    /// ``FlowInput/Name`` and ``FlowOutput/Name``.
    public enum Flow {
        /// `flow.login`: inputs `phone`, `password`, `loginTap`; outputs `phone`, `password` (field
        /// results), `loginEnabled`, `loggingIn`, `tip`.
        public static let login = FlowMethod("flow.login")
        /// `flow.register`: inputs `username`, `password`, `repeatPassword`, `registerTap`; outputs
        /// `username`, `password`, `repeatPassword`, `passwordEnabled`, `repeatEnabled`,
        /// `registerEnabled`, `registering`, `alert`.
        public static let register = FlowMethod("flow.register")
        /// `flow.signin`: inputs `username`, `password`, `loginTap`; outputs `username`,
        /// `loginEnabled`, `loggingIn`, `alert`, `session`.
        public static let signin = FlowMethod("flow.signin")
        /// `flow.heroes` (needs ``FlowParameters/token``): inputs `searchText`, `page`; outputs
        /// `heroes`, `total`, `error`, `searching`.
        public static let heroes = FlowMethod("flow.heroes")
        /// `flow.numbers`: inputs `a`, `b`, `c`; output `sum`.
        public static let numbers = FlowMethod("flow.numbers")

        /// Every flow, in the order a screen list shows them.
        public static let all = [login, register, signin, heroes, numbers]

        /// Heroes per page on `flow.heroes` (page `n` starts at match `n × heroesPageSize`).
        public static let heroesPageSize = 50
    }

    /// The gateway's commands: the flows as single requests, for scripts that want one answer.
    public enum Command {
        /// `login` ``LoginCommand`` → ``CommandResult``.
        public static let login = RequestMethod<LoginCommand, CommandResult>("login")
        /// `register` ``RegisterCommand`` → ``CommandResult``.
        public static let register = RequestMethod<RegisterCommand, CommandResult>("register")
        /// `signin` ``SigninCommand`` → ``CommandResult``.
        public static let signin = RequestMethod<SigninCommand, CommandResult>("signin")
        /// `heroes.search` ``HeroesCommand`` → ``HeroesCommandResult``.
        public static let heroesSearch = RequestMethod<HeroesCommand, HeroesCommandResult>(
            "heroes.search", retrySafety: .idempotent)

        /// Every command.
        public static let all: [any RemoteMethod] = [login, register, signin, heroesSearch]
    }
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
/// `{"input":"phone","text":"1380013"}`, `{"input":"loginTap"}`. An input that carries a sampled
/// `traceparent` asks for its trace: the gateway follows it with a ``FlowOutput/Name/trace`` output
/// once the work it started is done (docs/gateway/protocol.md, "Traces").
public struct FlowInput: Codable, Sendable, Hashable, CustomStringConvertible {
    /// The inputs the flows take (docs/gateway/protocol.md, the flows' tables); the raw values are
    /// the names on the wire.
    public enum Name: String, Codable, Sendable, Hashable, CaseIterable {
        /// A phone number (`flow.login`).
        case phone
        /// A username (`flow.register`, `flow.signin`).
        case username
        /// A password (`flow.login`, `flow.register`, `flow.signin`).
        case password
        /// The password typed again (`flow.register`).
        case repeatPassword
        /// The search box (`flow.heroes`).
        case searchText
        /// The page to show, a number as text (`flow.heroes`).
        case page
        /// The numbers to add (`flow.numbers`).
        case a, b, c
        /// The login button (`flow.login`, `flow.signin`): a tap.
        case loginTap
        /// The register button (`flow.register`): a tap.
        case registerTap

        /// Whether this input is a tap (it carries no text) rather than a field.
        public var isTap: Bool { self == .loginTap || self == .registerTap }
    }

    /// The input's name on the wire. Any string decodes, so the gateway can answer a name it does
    /// not know with `bad_request` naming it; ``inputName`` is the typed view.
    public var input: String
    /// The field's text; absent for a tap.
    public var text: String?
    /// W3C trace context for the handling of this input (``FlowTrace/newTraceparent(using:)``);
    /// absent for an input that runs in whatever trace the gateway picks.
    public var traceparent: String?

    /// An input event named `input` on the wire; ``text(_:_:)`` and ``tap(_:)`` make the known ones.
    public init(input: String, text: String? = nil, traceparent: String? = nil) {
        self.input = input
        self.text = text
        self.traceparent = traceparent
    }

    /// The input's name, nil for a name no flow takes.
    public var inputName: Name? { Name(rawValue: input) }

    /// A field's text after a keystroke.
    public static func text(_ input: Name, _ text: String) -> FlowInput {
        FlowInput(input: input.rawValue, text: text)
    }

    /// A tap on the button `input`.
    public static func tap(_ input: Name) -> FlowInput { FlowInput(input: input.rawValue) }

    /// This input with `traceparent`.
    public func traced(_ traceparent: String) -> FlowInput {
        var input = self
        input.traceparent = traceparent
        return input
    }

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
/// | an input's trace | `trace` | `{"output":"trace","trace":{"trace_id":"…","hops":[…]}}` |
public struct FlowOutput: Codable, Sendable, Hashable, CustomStringConvertible {
    /// The outputs the flows send (docs/gateway/protocol.md, the flows' tables); the raw values
    /// are the names on the wire.
    public enum Name: String, Codable, Sendable, Hashable, CaseIterable {
        /// The phone's field result (`flow.login`).
        case phone
        /// The username's field result (`flow.register`, `flow.signin`).
        case username
        /// The password's field result (`flow.login`, `flow.register`).
        case password
        /// The repeated password's field result (`flow.register`).
        case repeatPassword
        /// A flag: the login button is enabled (`flow.login`, `flow.signin`).
        case loginEnabled
        /// A flag: a login is in flight (`flow.login`, `flow.signin`).
        case loggingIn
        /// Login's tip line (`flow.login`).
        case tip
        /// A flag: the password field is enabled (`flow.register`).
        case passwordEnabled
        /// A flag: the repeat field is enabled (`flow.register`).
        case repeatEnabled
        /// A flag: the register button is enabled (`flow.register`).
        case registerEnabled
        /// A flag: a registration is in flight (`flow.register`).
        case registering
        /// A one-shot alert (`flow.register`, `flow.signin`).
        case alert
        /// A one-shot session after a sign-in (`flow.signin`).
        case session
        /// A page of heroes (`flow.heroes`).
        case heroes
        /// How many heroes match (`flow.heroes`).
        case total
        /// The heroes' error line (`flow.heroes`).
        case error
        /// A flag: a search is in flight (`flow.heroes`).
        case searching
        /// The sum (`flow.numbers`).
        case sum
        /// The trace of an input that asked for it with a sampled `traceparent` (every flow): sent
        /// once that input's work is done, after the outputs it produced.
        case trace
    }

    /// What an ``alert`` reports.
    public enum AlertKind: String, Codable, Sendable, Hashable, CaseIterable {
        /// It worked.
        case success
        /// The service refused.
        case failure
        /// The call did not complete.
        case error
    }

    /// Which output changed, as named on the wire. Any string decodes, so a client ignores an
    /// output a newer gateway sends; ``outputName`` is the typed view.
    public var output: String
    /// A flag's value.
    public var value: Bool?
    /// A field result's state.
    public var state: ValidationResult.State?
    /// The message's code, for clients that render their own text.
    public var code: MessageCode?
    /// The rendered message.
    public var message: String?
    /// An alert's kind on the wire: `success`, `failure` or `error` (``alertKind`` is the typed
    /// view).
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
    /// The search text a page of heroes answers.
    public var query: String?
    /// The page number a page of heroes answers (from 0).
    public var page: Int?
    /// How many heroes match `query` in all, with a page of heroes.
    public var total: Int?
    /// Heroes per page, with a page of heroes: page `page` starts at match `page × pageSize`.
    public var pageSize: Int?
    /// An input's trace id and hops, with ``Name/trace``.
    public var trace: FlowTrace?
    /// The trace id of the input this output answers, when that input asked for its trace (a
    /// sampled `traceparent`) and the output was sent while the input was being handled
    /// (docs/gateway/protocol.md, "Traces"); the input's ``Name/trace`` output follows.
    public var traceID: String?

    /// An output event named `output` on the wire; set the members its kind uses.
    public init(
        output: String, value: Bool? = nil, state: ValidationResult.State? = nil, code: MessageCode? = nil,
        message: String? = nil, kind: String? = nil, name: String? = nil, token: String? = nil,
        deviceToken: String? = nil, heroes: [FlowHero]? = nil, number: Int? = nil, query: String? = nil,
        page: Int? = nil, total: Int? = nil, pageSize: Int? = nil, trace: FlowTrace? = nil
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
        self.query = query
        self.page = page
        self.total = total
        self.pageSize = pageSize
        self.trace = trace
    }

    /// The output `output`; set the members its kind uses.
    public init(
        _ output: Name, value: Bool? = nil, state: ValidationResult.State? = nil, code: MessageCode? = nil,
        message: String? = nil, kind: AlertKind? = nil, name: String? = nil, token: String? = nil,
        deviceToken: String? = nil, heroes: [FlowHero]? = nil, number: Int? = nil, query: String? = nil,
        page: Int? = nil, total: Int? = nil, pageSize: Int? = nil, trace: FlowTrace? = nil
    ) {
        self.init(
            output: output.rawValue, value: value, state: state, code: code, message: message,
            kind: kind?.rawValue, name: name, token: token, deviceToken: deviceToken, heroes: heroes,
            number: number, query: query, page: page, total: total, pageSize: pageSize, trace: trace)
    }

    /// Which output changed, nil for a name this build does not know.
    public var outputName: Name? { Name(rawValue: output) }

    /// An alert's kind, nil when absent or unknown.
    public var alertKind: AlertKind? { kind.flatMap(AlertKind.init(rawValue:)) }

    enum CodingKeys: String, CodingKey {
        case output, value, state, code, message, kind, name, token, deviceToken = "device_token", heroes
        case number, query, page, total, pageSize = "page_size", trace, traceID = "trace_id"
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
        if let query, let page { parts.append("for \"\(query)\" page \(page)") }
        if let total { parts.append("(\(total) in all)") }
        if let trace { parts.append("\(trace.traceID) \(trace.hops.count) hops") }
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
    public init(
        username: String, password: String, repeatPassword: String? = nil, locale: MessageLocale? = nil
    ) {
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
    public init(
        token: String, query: String? = nil, offset: Int? = nil, limit: Int? = nil,
        locale: MessageLocale? = nil
    ) {
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

/// What `flow.numbers` sends as `sum` for its texts: their sum, or `numbers.overflow`. The rule is
/// the flow's contract, so a client can tell the gateway's answer for the texts it sent.
///
/// - Each text is read as a decimal integer (an optional sign, ASCII digits; surrounding spaces and
///   tabs are ignored). Unreadable text, including an empty field, counts as 0.
/// - A number that does not fit in `Int`, or a sum that does not, is ``overflow``.
public enum NumbersSum: Sendable, Hashable, CustomStringConvertible {
    /// The sum.
    case value(Int)
    /// A number or the sum is out of `Int`'s range.
    case overflow

    /// `numbers.overflow`: the numbers or their sum are too large.
    public static let overflowCode: MessageCode = .numbersOverflow

    /// The sum of `texts`, each read with ``parse(_:)``.
    public static func of(_ texts: [String]) -> NumbersSum {
        var total = 0
        for text in texts {
            guard case .value(let value) = parse(text) else { return .overflow }
            let (next, overflowed) = total.addingReportingOverflow(value)
            if overflowed { return .overflow }
            total = next
        }
        return .value(total)
    }

    /// `text` as an integer: 0 when unreadable, ``overflow`` when it is a well-formed integer out of
    /// `Int`'s range.
    public static func parse(_ text: String) -> NumbersSum {
        let trimmed = text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }
        let digits = String(trimmed.reversed())
        if let value = Int(digits) { return .value(value) }
        let unsigned = digits.first == "-" || digits.first == "+" ? digits.dropFirst() : Substring(digits)
        let wellFormed = !unsigned.isEmpty && unsigned.allSatisfy { $0.isASCII && $0.isNumber }
        return wellFormed ? .overflow : .value(0)
    }

    /// The number, or `numbers.overflow`.
    public var description: String {
        switch self {
        case .value(let value): String(value)
        case .overflow: Self.overflowCode.rawValue
        }
    }
}

// MARK: Direct JSON codings (docs/transport/json.md, "Direct codings"): one line per stored property.

extension MessageLocale: JSONFieldValue {}

extension FlowParameters: JSONBody {
    public static let jsonFields = JSONFields<Self>(
        blank: FlowParameters(),
        [.field("locale", \.locale), .field("token", \.token), .field("device_tokens", \.deviceTokens)])
}

extension FlowInput: JSONBody {
    public static let jsonFields = JSONFields<Self>(
        blank: FlowInput(input: ""),
        [.field("input", \.input), .field("text", \.text), .field("traceparent", \.traceparent)])
}

extension FlowHero: JSONBody {
    public static let jsonFields = JSONFields<Self>(
        blank: FlowHero(id: 0, name: "", intro: ""),
        [.field("id", \.id), .field("name", \.name), .field("intro", \.intro)])
}

extension FlowOutput: JSONBody {
    public static let jsonFields = JSONFields<Self>(
        blank: FlowOutput(output: ""),
        [
            .field("output", \.output), .field("value", \.value), .field("state", \.state),
            .field("code", \.code), .field("message", \.message), .field("kind", \.kind),
            .field("name", \.name), .field("token", \.token), .field("device_token", \.deviceToken),
            .field("heroes", \.heroes), .field("number", \.number), .field("query", \.query),
            .field("page", \.page), .field("total", \.total), .field("page_size", \.pageSize),
            .field("trace", \.trace), .field("trace_id", \.traceID),
        ])
}

extension LoginCommand: JSONBody {
    public static let jsonFields = JSONFields<Self>(
        blank: LoginCommand(phone: "", password: ""),
        [
            .field("phone", \.phone), .field("password", \.password), .field("locale", \.locale),
            .field("device_token", \.deviceToken),
        ])
}

extension RegisterCommand: JSONBody {
    public static let jsonFields = JSONFields<Self>(
        blank: RegisterCommand(username: "", password: ""),
        [
            .field("username", \.username), .field("password", \.password),
            .field("repeat_password", \.repeatPassword), .field("locale", \.locale),
        ])
}

extension SigninCommand: JSONBody {
    public static let jsonFields = JSONFields<Self>(
        blank: SigninCommand(username: "", password: ""),
        [
            .field("username", \.username), .field("password", \.password), .field("locale", \.locale),
            .field("device_token", \.deviceToken),
        ])
}

extension CommandResult: JSONBody {
    public static let jsonFields = JSONFields<Self>(
        blank: CommandResult(ok: false, code: "", message: ""),
        [
            .field("ok", \.ok), .field("code", \.code), .field("message", \.message), .field("name", \.name),
            .field("token", \.token), .field("device_token", \.deviceToken),
        ])
}

extension HeroesCommand: JSONBody {
    public static let jsonFields = JSONFields<Self>(
        blank: HeroesCommand(token: ""),
        [
            .field("token", \.token), .field("query", \.query), .field("offset", \.offset),
            .field("limit", \.limit), .field("locale", \.locale),
        ])
}

extension HeroesCommandResult: JSONBody {
    public static let jsonFields = JSONFields<Self>(
        blank: HeroesCommandResult(total: 0, heroes: []),
        [.field("total", \.total), .field("heroes", \.heroes)])
}
