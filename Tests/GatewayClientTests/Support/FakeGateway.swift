import Contracts
import GatewayMessages
import Reactive
import RemoteProtocol
import RemoteStreams
import Synchronization

/// A stand-in for the gateway's flows, following the doc comments of `Methods.Flow` and
/// `FlowOutput` closely enough for the client: field results, flags that change, the tip, alerts,
/// sessions, heroes and sums. Every answer is emitted synchronously, in a fixed order.
///
/// Accounts: phone `13800138000` and username `ann2024`, both with password `secret1`; `taken1`
/// is a registered username; `good-token` and the tokens it hands out (`tok-…`) open the hero list.
/// A successful login answers the device token `dev-<name>`, or the one its channel presented for
/// the name with `+` appended (so a test sees that it was presented).
enum FakeGateway {
    static let heroes = ["Superman", "Batman", "Wonder Woman", "Aquaman", "Flash"]

    /// Opens `flow`, like ``GatewayConnection/open(_:_:_:)``.
    static func open(_ flow: FlowMethod, _ parameters: FlowParameters, _ inputs: Observable<FlowInput>)
        -> Observable<FlowOutput>
    {
        guard Methods.Flow.all.contains(flow) else {
            return .error(RemoteError(code: .unknownMethod, message: "no method \(flow.name)"))
        }
        if flow == Methods.Flow.heroes,
            !(parameters.token == "good-token" || parameters.token?.hasPrefix("tok-") == true)
        {
            return .error(RemoteError(code: .unauthenticated, message: "the session has expired"))
        }
        return Observable.create { observer in
            let state = Mutex(
                FlowState(
                    flow: flow, locale: parameters.locale ?? .zhHans,
                    deviceTokens: parameters.deviceTokens ?? [:]))
            for output in state.withLock({ $0.initial() }) { observer.onNext(output) }
            return inputs.subscribe(
                onNext: { input in
                    for output in state.withLock({ $0.handle(input) }) { observer.onNext(output) }
                },
                onError: { observer.onError($0) })
        }
    }

    /// The registered handlers, for a `RemoteServer`.
    static var handlers: RemoteHandlers { handlers(onClose: nil) }

    /// The registered handlers; `onClose` runs with the flow's name when a channel's graph is
    /// disposed on the server (its end, or the client's `CANCEL`).
    static func handlers(onClose: (@Sendable (String) -> Void)?) -> RemoteHandlers {
        var handlers = RemoteHandlers()
        for flow in Methods.Flow.all {
            handlers.handle(flow) { parameters, inputs in
                open(flow, parameters, inputs).do(onDispose: { onClose?(flow.name) })
            }
        }
        return handlers
    }
}

/// One fake channel's state.
private struct FlowState {
    let flow: FlowMethod
    let locale: MessageLocale
    let deviceTokens: [String: String]
    var texts: [FlowInput.Name: String] = [:]
    var sent: [String: FlowOutput] = [:]
    var registered: Set<String> = ["taken1", "ann2024"]

    init(flow: FlowMethod, locale: MessageLocale, deviceTokens: [String: String]) {
        self.flow = flow
        self.locale = locale
        self.deviceTokens = deviceTokens
    }

    /// The device token a login as `name` answers.
    func deviceToken(for name: String) -> String {
        deviceTokens[name].map { $0 + "+" } ?? "dev-\(name)"
    }

    func render(_ code: MessageCode, _ parameters: [String: String] = [:]) -> String {
        MessageCatalogue.standard.render(code, parameters, in: locale)
    }

    func field(
        _ name: FlowOutput.Name, _ state: ValidationResult.State, _ code: MessageCode? = nil,
        _ parameters: [String: String] = [:]
    ) -> FlowOutput {
        FlowOutput(name, state: state, code: code, message: code.map { render($0, parameters) })
    }

    /// `output` if it differs from the last one sent under its name.
    mutating func changed(_ output: FlowOutput) -> [FlowOutput] {
        guard sent[output.output] != output else { return [] }
        sent[output.output] = output
        return [output]
    }

    /// Whether the flag output `name` was last sent true.
    func isOn(_ name: FlowOutput.Name) -> Bool { sent[name.rawValue]?.value == true }

    mutating func initial() -> [FlowOutput] {
        switch flow {
        case Methods.Flow.login:
            return [FlowOutput.Name.phone, .password].flatMap { changed(field($0, .empty)) }
                + changed(FlowOutput(.loginEnabled, value: false))
                + changed(FlowOutput(.loggingIn, value: false))
                + changed(FlowOutput(.tip, message: ""))
        case Methods.Flow.register:
            return [FlowOutput.Name.username, .password, .repeatPassword].flatMap {
                changed(field($0, .empty))
            }
                + [FlowOutput.Name.passwordEnabled, .repeatEnabled, .registerEnabled, .registering].flatMap {
                    changed(FlowOutput($0, value: false))
                }
        case Methods.Flow.signin:
            return changed(field(.username, .empty))
                + changed(FlowOutput(.loginEnabled, value: false))
                + changed(FlowOutput(.loggingIn, value: false))
        case Methods.Flow.heroes:
            return changed(FlowOutput(.heroes, heroes: []))
                + changed(FlowOutput(.total, number: 0))
                + changed(FlowOutput(.searching, value: false))
                + changed(FlowOutput(.error))
        default:
            return changed(FlowOutput(.sum, number: 0))
        }
    }

    mutating func handle(_ input: FlowInput) -> [FlowOutput] {
        if let text = input.text, let name = input.inputName { texts[name] = text }
        switch (flow, input.inputName) {
        case (Methods.Flow.login, .phone?), (Methods.Flow.login, .password?): return loginFields()
        case (Methods.Flow.login, .loginTap?): return login()
        case (Methods.Flow.register, .registerTap?): return register()
        case (Methods.Flow.register, _): return registerFields()
        case (Methods.Flow.signin, .loginTap?): return signin()
        case (Methods.Flow.signin, _): return signinFields()
        case (Methods.Flow.heroes, .searchText?): return search()
        case (Methods.Flow.numbers, _):
            switch NumbersSum.of([texts[.a] ?? "", texts[.b] ?? "", texts[.c] ?? ""]) {
            case .value(let sum): return changed(FlowOutput(.sum, number: sum))
            case .overflow:
                return changed(
                    FlowOutput(.sum, code: .numbersOverflow, message: render(.numbersOverflow)))
            }
        default: return []
        }
    }

    // MARK: login

    func phoneResult() -> FlowOutput {
        let phone = texts[.phone] ?? ""
        if phone.isEmpty { return field(.phone, .empty) }
        if !phone.utf8.allSatisfy({ (48...57).contains($0) }) || phone.count > 15 {
            return field(.phone, .failed, .phoneFormat)
        }
        return phone.count < 11 ? field(.phone, .failed, .phoneShort) : field(.phone, .ok)
    }

    func loginPasswordResult() -> FlowOutput {
        let password = texts[.password] ?? ""
        if password.isEmpty { return field(.password, .empty) }
        return password.count < 6 ? field(.password, .failed, .passwordShort) : field(.password, .ok)
    }

    mutating func loginFields() -> [FlowOutput] {
        let phone = phoneResult()
        let password = loginPasswordResult()
        let tip = [phone, password].compactMap { $0.state == .failed ? $0.message : nil }.joined(
            separator: " ")
        return changed(phone) + changed(password)
            + changed(FlowOutput(.loginEnabled, value: phone.state == .ok && password.state == .ok))
            + changed(FlowOutput(.tip, message: tip))
    }

    mutating func login() -> [FlowOutput] {
        guard isOn(.loginEnabled) else { return [] }
        let phone = texts[.phone] ?? ""
        let tip: FlowOutput
        if phone == "13800138000", texts[.password] == "secret1" {
            tip = FlowOutput(
                .tip, code: .loginOK,
                message: render(.loginOK, ["name": phone, "token": "tok-\(phone)"]),
                name: phone, token: "tok-\(phone)", deviceToken: deviceToken(for: phone))
        } else if phone == "13900139000" {
            tip = FlowOutput(.tip, code: .networkError, message: render(.networkError))
        } else {
            tip = FlowOutput(
                .tip, code: .loginFailed,
                message: render(.loginFailed, ["message": render(.loginWrongPassword)]))
        }
        return changed(FlowOutput(.loggingIn, value: true)) + changed(tip)
            + changed(FlowOutput(.loggingIn, value: false))
    }

    // MARK: register

    mutating func registerFields() -> [FlowOutput] {
        let username = texts[.username] ?? ""
        let password = texts[.password] ?? ""
        let repeated = texts[.repeatPassword] ?? ""
        var outputs: [FlowOutput] = []
        let usernameResult: FlowOutput
        if username.isEmpty {
            usernameResult = field(.username, .empty)
        } else if username.count < 6 {
            usernameResult = field(.username, .failed, .usernameShort, ["n": "6"])
        } else {
            outputs += changed(field(.username, .validating, .usernameChecking))
            usernameResult =
                registered.contains(username)
                ? field(.username, .failed, .usernameExists) : field(.username, .ok, .usernameAvailable)
        }
        let passwordResult =
            password.isEmpty
            ? field(.password, .empty)
            : password.count < 6
                ? field(.password, .failed, .passwordMin, ["n": "6"]) : field(.password, .ok, .passwordOK)
        let repeatResult =
            repeated.isEmpty
            ? field(.repeatPassword, .empty)
            : repeated == password
                ? field(.repeatPassword, .ok) : field(.repeatPassword, .failed, .repeatMismatch)
        let all = [usernameResult, passwordResult, repeatResult]
        return outputs + changed(usernameResult) + changed(passwordResult) + changed(repeatResult)
            + changed(FlowOutput(.passwordEnabled, value: usernameResult.state == .ok))
            + changed(FlowOutput(.repeatEnabled, value: passwordResult.state == .ok))
            + changed(FlowOutput(.registerEnabled, value: all.allSatisfy { $0.state == .ok }))
    }

    mutating func register() -> [FlowOutput] {
        guard isOn(.registerEnabled), let username = texts[.username] else { return [] }
        registered.insert(username)
        return changed(FlowOutput(.registering, value: true))
            + changed(
                FlowOutput(.alert, code: .registerOK, message: render(.registerOK), kind: .success))
            + changed(FlowOutput(.registering, value: false)) + registerFields()
    }

    // MARK: sign-in

    mutating func signinFields() -> [FlowOutput] {
        let username = texts[.username] ?? ""
        var outputs: [FlowOutput] = []
        let result: FlowOutput
        if username.isEmpty {
            result = field(.username, .empty)
        } else {
            outputs += changed(field(.username, .validating, .usernameChecking))
            result =
                registered.contains(username)
                ? field(.username, .ok, .usernameExists) : field(.username, .failed, .usernameUnknown)
        }
        let enabled = result.state == .ok && !(texts[.password] ?? "").isEmpty
        return outputs + changed(result) + changed(FlowOutput(.loginEnabled, value: enabled))
    }

    mutating func signin() -> [FlowOutput] {
        guard isOn(.loginEnabled), let username = texts[.username] else { return [] }
        let answer =
            texts[.password] == "secret1"
            ? FlowOutput(
                .session, name: username, token: "tok-\(username)",
                deviceToken: deviceToken(for: username))
            : FlowOutput(
                .alert, code: .loginWrongPassword, message: render(.loginWrongPassword),
                kind: .failure)
        return changed(FlowOutput(.loggingIn, value: true)) + [answer]
            + changed(FlowOutput(.loggingIn, value: false))
    }

    // MARK: heroes

    mutating func search() -> [FlowOutput] {
        let text = texts[.searchText] ?? ""
        let query = text.lowercased()
        let number = texts[.page].flatMap { Int($0) } ?? 0
        let size = Methods.Flow.heroesPageSize
        let matches = FakeGateway.heroes.enumerated().filter {
            query.isEmpty || $0.element.lowercased().contains(query)
        }
        let page = matches.dropFirst(number * size).prefix(size).map {
            FlowHero(id: $0.offset + 1, name: $0.element, intro: "")
        }
        // Every answer is sent, saying the text and page it answers, as the real gateway does.
        return changed(FlowOutput(.searching, value: true))
            + [
                FlowOutput(
                    .heroes, heroes: Array(page), query: text, page: number, total: matches.count,
                    pageSize: size)
            ]
            + changed(FlowOutput(.total, number: matches.count))
            + changed(FlowOutput(.searching, value: false))
    }
}
