import Contracts
import GatewayCore
import Reactive
import RemoteProtocol
import RemoteStreams
import Synchronization

/// A stand-in for the gateway's flows, following the doc comments of `GatewayMethod` and
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
    static func open(_ flow: String, _ parameters: FlowParameters, _ inputs: Observable<FlowInput>)
        -> Observable<FlowOutput>
    {
        guard GatewayMethod.flows.contains(flow) else {
            return .error(RemoteError(code: .unknownMethod, message: "no method \(flow)"))
        }
        if flow == GatewayMethod.heroes,
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
        for flow in GatewayMethod.flows {
            handlers.channel(flow) { (parameters: FlowParameters, inputs: Observable<FlowInput>) in
                open(flow, parameters, inputs).do(onDispose: { onClose?(flow) })
            }
        }
        return handlers
    }
}

/// One fake channel's state.
private struct FlowState {
    let flow: String
    let locale: MessageLocale
    let deviceTokens: [String: String]
    var texts: [String: String] = [:]
    var sent: [String: FlowOutput] = [:]
    var registered: Set<String> = ["taken1", "ann2024"]

    init(flow: String, locale: MessageLocale, deviceTokens: [String: String]) {
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
        _ name: String, _ state: ValidationResult.State, _ code: MessageCode? = nil,
        _ parameters: [String: String] = [:]
    ) -> FlowOutput {
        FlowOutput(output: name, state: state, code: code, message: code.map { render($0, parameters) })
    }

    /// `output` if it differs from the last one sent under its name.
    mutating func changed(_ output: FlowOutput) -> [FlowOutput] {
        guard sent[output.output] != output else { return [] }
        sent[output.output] = output
        return [output]
    }

    mutating func initial() -> [FlowOutput] {
        switch flow {
        case GatewayMethod.login:
            return ["phone", "password"].flatMap { changed(field($0, .empty)) }
                + changed(FlowOutput(output: "loginEnabled", value: false))
                + changed(FlowOutput(output: "loggingIn", value: false))
                + changed(FlowOutput(output: "tip", message: ""))
        case GatewayMethod.register:
            return ["username", "password", "repeatPassword"].flatMap { changed(field($0, .empty)) }
                + ["passwordEnabled", "repeatEnabled", "registerEnabled", "registering"].flatMap {
                    changed(FlowOutput(output: $0, value: false))
                }
        case GatewayMethod.signin:
            return changed(field("username", .empty))
                + changed(FlowOutput(output: "loginEnabled", value: false))
                + changed(FlowOutput(output: "loggingIn", value: false))
        case GatewayMethod.heroes:
            return changed(FlowOutput(output: "heroes", heroes: []))
                + changed(FlowOutput(output: "total", number: 0))
                + changed(FlowOutput(output: "searching", value: false))
                + changed(FlowOutput(output: "error"))
        default:
            return changed(FlowOutput(output: "sum", number: 0))
        }
    }

    mutating func handle(_ input: FlowInput) -> [FlowOutput] {
        if let text = input.text { texts[input.input] = text }
        switch (flow, input.input) {
        case (GatewayMethod.login, "phone"), (GatewayMethod.login, "password"): return loginFields()
        case (GatewayMethod.login, "loginTap"): return login()
        case (GatewayMethod.register, "registerTap"): return register()
        case (GatewayMethod.register, _): return registerFields()
        case (GatewayMethod.signin, "loginTap"): return signin()
        case (GatewayMethod.signin, _): return signinFields()
        case (GatewayMethod.heroes, "searchText"): return search()
        case (GatewayMethod.numbers, _):
            switch NumbersViewModel.sum([texts["a"] ?? "", texts["b"] ?? "", texts["c"] ?? ""]) {
            case .value(let sum): return changed(FlowOutput(output: "sum", number: sum))
            case .overflow:
                return changed(
                    FlowOutput(output: "sum", code: .numbersOverflow, message: render(.numbersOverflow)))
            }
        default: return []
        }
    }

    // MARK: login

    func phoneResult() -> FlowOutput {
        let phone = texts["phone"] ?? ""
        if phone.isEmpty { return field("phone", .empty) }
        if !phone.utf8.allSatisfy({ (48...57).contains($0) }) || phone.count > 15 {
            return field("phone", .failed, .phoneFormat)
        }
        return phone.count < 11 ? field("phone", .failed, .phoneShort) : field("phone", .ok)
    }

    func loginPasswordResult() -> FlowOutput {
        let password = texts["password"] ?? ""
        if password.isEmpty { return field("password", .empty) }
        return password.count < 6 ? field("password", .failed, .passwordShort) : field("password", .ok)
    }

    mutating func loginFields() -> [FlowOutput] {
        let phone = phoneResult()
        let password = loginPasswordResult()
        let tip = [phone, password].compactMap { $0.state == .failed ? $0.message : nil }.joined(
            separator: " ")
        return changed(phone) + changed(password)
            + changed(FlowOutput(output: "loginEnabled", value: phone.state == .ok && password.state == .ok))
            + changed(FlowOutput(output: "tip", message: tip))
    }

    mutating func login() -> [FlowOutput] {
        guard sent["loginEnabled"]?.value == true else { return [] }
        let phone = texts["phone"] ?? ""
        let tip: FlowOutput
        if phone == "13800138000", texts["password"] == "secret1" {
            tip = FlowOutput(
                output: "tip", code: .loginOK,
                message: render(.loginOK, ["name": phone, "token": "tok-\(phone)"]),
                name: phone, token: "tok-\(phone)", deviceToken: deviceToken(for: phone))
        } else if phone == "13900139000" {
            tip = FlowOutput(output: "tip", code: .networkError, message: render(.networkError))
        } else {
            tip = FlowOutput(
                output: "tip", code: .loginFailed,
                message: render(.loginFailed, ["message": render(.loginWrongPassword)]))
        }
        return changed(FlowOutput(output: "loggingIn", value: true)) + changed(tip)
            + changed(FlowOutput(output: "loggingIn", value: false))
    }

    // MARK: register

    mutating func registerFields() -> [FlowOutput] {
        let username = texts["username"] ?? ""
        let password = texts["password"] ?? ""
        let repeated = texts["repeatPassword"] ?? ""
        var outputs: [FlowOutput] = []
        let usernameResult: FlowOutput
        if username.isEmpty {
            usernameResult = field("username", .empty)
        } else if username.count < 6 {
            usernameResult = field("username", .failed, .usernameShort, ["n": "6"])
        } else {
            outputs += changed(field("username", .validating, .usernameChecking))
            usernameResult =
                registered.contains(username)
                ? field("username", .failed, .usernameExists) : field("username", .ok, .usernameAvailable)
        }
        let passwordResult =
            password.isEmpty
            ? field("password", .empty)
            : password.count < 6
                ? field("password", .failed, .passwordMin, ["n": "6"]) : field("password", .ok, .passwordOK)
        let repeatResult =
            repeated.isEmpty
            ? field("repeatPassword", .empty)
            : repeated == password
                ? field("repeatPassword", .ok) : field("repeatPassword", .failed, .repeatMismatch)
        let all = [usernameResult, passwordResult, repeatResult]
        return outputs + changed(usernameResult) + changed(passwordResult) + changed(repeatResult)
            + changed(FlowOutput(output: "passwordEnabled", value: usernameResult.state == .ok))
            + changed(FlowOutput(output: "repeatEnabled", value: passwordResult.state == .ok))
            + changed(FlowOutput(output: "registerEnabled", value: all.allSatisfy { $0.state == .ok }))
    }

    mutating func register() -> [FlowOutput] {
        guard sent["registerEnabled"]?.value == true, let username = texts["username"] else { return [] }
        registered.insert(username)
        return changed(FlowOutput(output: "registering", value: true))
            + changed(
                FlowOutput(output: "alert", code: .registerOK, message: render(.registerOK), kind: "success"))
            + changed(FlowOutput(output: "registering", value: false)) + registerFields()
    }

    // MARK: sign-in

    mutating func signinFields() -> [FlowOutput] {
        let username = texts["username"] ?? ""
        var outputs: [FlowOutput] = []
        let result: FlowOutput
        if username.isEmpty {
            result = field("username", .empty)
        } else {
            outputs += changed(field("username", .validating, .usernameChecking))
            result =
                registered.contains(username)
                ? field("username", .ok, .usernameExists) : field("username", .failed, .usernameUnknown)
        }
        let enabled = result.state == .ok && !(texts["password"] ?? "").isEmpty
        return outputs + changed(result) + changed(FlowOutput(output: "loginEnabled", value: enabled))
    }

    mutating func signin() -> [FlowOutput] {
        guard sent["loginEnabled"]?.value == true, let username = texts["username"] else { return [] }
        let answer =
            texts["password"] == "secret1"
            ? FlowOutput(
                output: "session", name: username, token: "tok-\(username)",
                deviceToken: deviceToken(for: username))
            : FlowOutput(
                output: "alert", code: .loginWrongPassword, message: render(.loginWrongPassword),
                kind: "failure")
        return changed(FlowOutput(output: "loggingIn", value: true)) + [answer]
            + changed(FlowOutput(output: "loggingIn", value: false))
    }

    // MARK: heroes

    mutating func search() -> [FlowOutput] {
        let query = (texts["searchText"] ?? "").lowercased()
        let matches = FakeGateway.heroes.enumerated().filter {
            query.isEmpty || $0.element.lowercased().contains(query)
        }
        let page = matches.map { FlowHero(id: $0.offset + 1, name: $0.element, intro: "") }
        return changed(FlowOutput(output: "searching", value: true))
            + changed(FlowOutput(output: "heroes", heroes: page))
            + changed(FlowOutput(output: "total", number: page.count))
            + changed(FlowOutput(output: "searching", value: false))
    }
}
