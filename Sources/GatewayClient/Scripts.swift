public import Contracts
import Foundation
import GatewayMessages

/// The latest value of every output of a flow, by name.
struct LatestOutputs: Sendable, Hashable {
    private var values: [FlowOutput.Name: FlowOutput] = [:]

    subscript(_ name: FlowOutput.Name) -> FlowOutput? { values[name] }

    /// Keeps `output` as its name's latest; one this build does not know is nobody's business.
    mutating func record(_ output: FlowOutput) {
        if let name = output.outputName { values[name] = output }
    }

    /// Whether the field output `name` has a final result for the text `sent`: not `validating`,
    /// and not the initial `empty` when the text sent is not empty.
    func isSettled(_ name: FlowOutput.Name, sent: String) -> Bool {
        guard let state = values[name]?.state, state != .validating else { return false }
        return state != .empty || sent.isEmpty
    }

    /// The rendered messages of the failed fields among `names`, in that order.
    func failureMessages(_ names: [FlowOutput.Name]) -> [String] {
        names.compactMap { name in
            guard let output = values[name], output.state == .failed else { return nil }
            return output.message.flatMap { $0.isEmpty ? nil : $0 }
        }
    }

    /// Whether the flag output `name` is true.
    func isOn(_ name: FlowOutput.Name) -> Bool { values[name]?.value == true }
}

/// `gateway-cli login`: the phone login flow (`flow.login`).
///
/// Sends `phone` and `password`, waits until both field outputs have a final result, then taps
/// `loginTap` once `loginEnabled` is true and waits for `loggingIn` to go true and back to false;
/// the `tip` after the tap is the result (`login.ok` succeeds; `network.error` is unreachable;
/// anything else is refused). When a field is invalid the result is the refusal the `tip` shows
/// (waiting until the tip holds every failed field's message). A device token kept for the phone
/// goes with the channel's parameters, and the one a success answers comes with the result.
public struct LoginScript: FlowScript {
    /// Where the script stands.
    enum Phase: Sendable, Hashable {
        /// The field texts are sent; waiting for their results and the button.
        case filling
        /// `loginTap` is sent; `busy` once `loggingIn` went true; `tip` is the latest tip since.
        case loggingIn(busy: Bool, tip: FlowOutput?)
        /// Finished or failed.
        case done
    }

    public let flow = Methods.Flow.login
    public let parameters: FlowParameters
    private let phone: String
    private let password: String
    private var latest = LatestOutputs()
    private var phase = Phase.filling

    /// Logs in with `phone` and `password`, messages in `locale`, presenting `deviceToken` (from an
    /// earlier login to that account) if given.
    public init(phone: String, password: String, locale: MessageLocale, deviceToken: String? = nil) {
        self.phone = phone
        self.password = password
        parameters = FlowParameters(locale: locale, deviceTokens: deviceToken.map { [phone: $0] })
    }

    public mutating func start() -> [ScriptAction] {
        [.send(.text(.phone, phone)), .send(.text(.password, password))]
    }

    public mutating func receive(_ output: FlowOutput) -> [ScriptAction] {
        latest.record(output)
        switch phase {
        case .done:
            return []
        case .filling:
            if output.outputName == .tip, output.code == .networkError {
                phase = .done
                return [.fail(ScriptFailure(.unreachable, output.message ?? ""))]
            }
            guard latest.isSettled(.phone, sent: phone), latest.isSettled(.password, sent: password) else {
                return []
            }
            if latest[.phone]?.state == .ok, latest[.password]?.state == .ok {
                guard latest.isOn(.loginEnabled) else { return [] }
                phase = .loggingIn(busy: false, tip: nil)
                return [.send(.tap(.loginTap))]
            }
            let tip = latest[.tip]?.message ?? ""
            guard latest.failureMessages([.phone, .password]).allSatisfy({ tip.contains($0) }) else {
                return []
            }
            phase = .done
            return [.finish(ScriptResult(.refused, message: tip))]
        case .loggingIn(var busy, var tip):
            if output.outputName == .loggingIn, output.value == true { busy = true }
            if output.outputName == .tip, output.message?.isEmpty == false { tip = output }
            phase = .loggingIn(busy: busy, tip: tip)
            guard busy, !latest.isOn(.loggingIn), let tip else { return [] }
            phase = .done
            let message = tip.message ?? ""
            switch tip.code {
            case .loginOK?:
                guard let token = tip.token, !token.isEmpty else {
                    return [.fail(ScriptFailure(.protocolError, "login.ok without a token: \(message)"))]
                }
                let issued = tip.deviceToken.map { IssuedDeviceToken(account: tip.name ?? phone, token: $0) }
                return [
                    .finish(ScriptResult(.succeeded, message: message, token: token, deviceToken: issued))
                ]
            case .networkError?:
                return [.fail(ScriptFailure(.unreachable, message))]
            default:
                return [.finish(ScriptResult(.refused, message: message))]
            }
        }
    }
}

/// `gateway-cli register`: the registration flow (`flow.register`).
///
/// Sends `username`, `password` and `repeatPassword`, waits until the three field outputs have a
/// final result; when all are ok, taps `registerTap` once `registerEnabled` is true and waits for
/// the `alert` (`success` succeeds, `failure` is refused, `error` is unreachable). When a field
/// is invalid the result is a refusal with the failed fields' messages, joined with one space.
public struct RegisterScript: FlowScript {
    enum Phase: Sendable, Hashable {
        /// The field texts are sent; waiting for their results and the button.
        case filling
        /// `registerTap` is sent; waiting for the alert.
        case registering
        /// Finished or failed.
        case done
    }

    public let flow = Methods.Flow.register
    public let parameters: FlowParameters
    /// Each field: the input it is typed into, the output with its result, its text.
    private let fields: [(input: FlowInput.Name, result: FlowOutput.Name, text: String)]
    private var latest = LatestOutputs()
    private var phase = Phase.filling

    /// Registers `username` with `password`, typed again as `repeatPassword`.
    public init(username: String, password: String, repeatPassword: String, locale: MessageLocale) {
        fields = [
            (.username, .username, username), (.password, .password, password),
            (.repeatPassword, .repeatPassword, repeatPassword),
        ]
        parameters = FlowParameters(locale: locale)
    }

    public mutating func start() -> [ScriptAction] {
        fields.map { .send(.text($0.input, $0.text)) }
    }

    public mutating func receive(_ output: FlowOutput) -> [ScriptAction] {
        latest.record(output)
        switch phase {
        case .done:
            return []
        case .filling:
            guard fields.allSatisfy({ latest.isSettled($0.result, sent: $0.text) }) else { return [] }
            if fields.allSatisfy({ latest[$0.result]?.state == .ok }) {
                guard latest.isOn(.registerEnabled) else { return [] }
                phase = .registering
                return [.send(.tap(.registerTap))]
            }
            phase = .done
            let messages = latest.failureMessages(fields.map(\.result))
            return [.finish(ScriptResult(.refused, message: messages.joined(separator: " ")))]
        case .registering:
            guard output.outputName == .alert else { return [] }
            phase = .done
            return [Self.action(forAlert: output)]
        }
    }

    /// `success` → succeeded, `error` → unreachable, anything else → refused.
    static func action(forAlert alert: FlowOutput) -> ScriptAction {
        let message = alert.message ?? ""
        switch alert.alertKind {
        case .success?: return .finish(ScriptResult(.succeeded, message: message, token: alert.token))
        case .error?: return .fail(ScriptFailure(.unreachable, message))
        case .failure?, nil: return .finish(ScriptResult(.refused, message: message))
        }
    }
}

/// `gateway-cli signin`: the username sign-in flow (`flow.signin`).
///
/// Sends `username` and `password`, waits until the username output has a final result; when it
/// is ok, taps `loginTap` once `loginEnabled` is true and waits for the `session` (succeeded, with
/// its token; the message is `login.ok` rendered in the channel's locale) or a non-success
/// `alert` (`failure` refused, `error` unreachable). An unknown username is refused with the
/// username's message. Device tokens go and come as in ``LoginScript``.
public struct SigninScript: FlowScript {
    enum Phase: Sendable, Hashable {
        /// The field texts are sent; waiting for the username's result and the button.
        case filling
        /// `loginTap` is sent; waiting for the session or an alert.
        case signingIn
        /// Finished or failed.
        case done
    }

    public let flow = Methods.Flow.signin
    public let parameters: FlowParameters
    private let username: String
    private let password: String
    private let locale: MessageLocale
    private var latest = LatestOutputs()
    private var phase = Phase.filling

    /// Signs `username` in with `password`, presenting `deviceToken` (from an earlier login to that
    /// account) if given.
    public init(username: String, password: String, locale: MessageLocale, deviceToken: String? = nil) {
        self.username = username
        self.password = password
        self.locale = locale
        parameters = FlowParameters(locale: locale, deviceTokens: deviceToken.map { [username: $0] })
    }

    public mutating func start() -> [ScriptAction] {
        [.send(.text(.username, username)), .send(.text(.password, password))]
    }

    public mutating func receive(_ output: FlowOutput) -> [ScriptAction] {
        latest.record(output)
        switch phase {
        case .done:
            return []
        case .filling:
            if output.outputName == .alert, output.alertKind == .error {
                phase = .done
                return [.fail(ScriptFailure(.unreachable, output.message ?? ""))]
            }
            guard latest.isSettled(.username, sent: username) else { return [] }
            guard latest[.username]?.state == .ok else {
                phase = .done
                return [.finish(ScriptResult(.refused, message: latest[.username]?.message ?? ""))]
            }
            guard latest.isOn(.loginEnabled) else { return [] }
            phase = .signingIn
            return [.send(.tap(.loginTap))]
        case .signingIn:
            if output.outputName == .session, let token = output.token {
                phase = .done
                let name = output.name ?? username
                let message = MessageCatalogue.standard.render(
                    .loginOK, ["name": name, "token": token], in: locale)
                let issued = output.deviceToken.map { IssuedDeviceToken(account: name, token: $0) }
                return [
                    .finish(ScriptResult(.succeeded, message: message, token: token, deviceToken: issued))
                ]
            }
            guard output.outputName == .alert, output.alertKind != .success else { return [] }
            phase = .done
            return [RegisterScript.action(forAlert: output)]
        }
    }
}

/// `gateway-cli heroes`: the hero list (`flow.heroes`, with a session token).
///
/// Sends `page` (when asked: the user's page `n` from 1 is the flow's `n - 1`) and `searchText`,
/// then waits for the `heroes` answer that says it answers this text and page (any other is
/// dropped) and for `searching` to go false after it. Succeeds with the heroes' names as lines and
/// `ui.total` (the answer's `total`) as the message; an `error` output (`network.error`) received by
/// then is unreachable, `session.expired` refused (so the flow sends `error` before `searching`).
public struct HeroesScript: FlowScript {
    enum Phase: Sendable, Hashable {
        /// Waiting for the answer to this text and page.
        case waiting
        /// The answer came; waiting for the search to end.
        case answered(FlowOutput)
        /// Finished or failed.
        case done
    }

    public let flow = Methods.Flow.heroes
    public let parameters: FlowParameters
    private let query: String
    private let page: Int?
    private let locale: MessageLocale
    private var latest = LatestOutputs()
    private var phase = Phase.waiting

    /// Searches `query` (empty lists every hero), on `page` (from 1) when given.
    public init(token: String, query: String, page: Int? = nil, locale: MessageLocale) {
        self.query = query
        self.page = page
        self.locale = locale
        parameters = FlowParameters(locale: locale, token: token)
    }

    /// The flow's page number this script asks for.
    private var flowPage: Int { (page ?? 1) - 1 }

    public mutating func start() -> [ScriptAction] {
        (page.map { [.send(.text(.page, String($0 - 1)))] } ?? []) + [.send(.text(.searchText, query))]
    }

    public mutating func receive(_ output: FlowOutput) -> [ScriptAction] {
        latest.record(output)
        switch phase {
        case .done:
            return []
        case .waiting:
            if output.outputName == .heroes, output.query == query, output.page == flowPage {
                phase = .answered(output)
            }
            return []
        case .answered(let answer):
            guard output.outputName == .searching, output.value == false else { return [] }
            phase = .done
            if let error = latest[.error], let message = error.message, !message.isEmpty {
                // The real gateway refuses a stale token with this output, not with an `ERROR`.
                let kind: ScriptFailure.Kind = error.code == .sessionExpired ? .refused : .unreachable
                return [.fail(ScriptFailure(kind, message))]
            }
            let heroes = answer.heroes ?? []
            let total = answer.total ?? heroes.count
            let message = MessageCatalogue.standard.render("ui.total", ["n": String(total)], in: locale)
            return [.finish(ScriptResult(.succeeded, message: message, lines: heroes.map(\.name)))]
        }
    }
}

/// `gateway-cli numbers`: adds three numbers (`flow.numbers`).
///
/// Sends `a`, `b` and `c` and waits until `sum` reflects all three: the sum the gateway computes
/// for these texts (``NumbersSum``, the flow's rule, used only to recognise the answer). Succeeds
/// with the number; an overflow is refused with its message.
public struct NumbersScript: FlowScript {
    public let flow = Methods.Flow.numbers
    public let parameters: FlowParameters
    private let texts: [String]
    private let expected: NumbersSum
    private var done = false

    /// Adds `a`, `b` and `c` (texts: unreadable ones count as 0).
    public init(a: String, b: String, c: String, locale: MessageLocale) {
        texts = [a, b, c]
        expected = NumbersSum.of(texts)
        parameters = FlowParameters(locale: locale)
    }

    public mutating func start() -> [ScriptAction] {
        zip([FlowInput.Name.a, .b, .c], texts).map { .send(.text($0, $1)) }
    }

    public mutating func receive(_ output: FlowOutput) -> [ScriptAction] {
        guard !done, output.outputName == .sum else { return [] }
        switch expected {
        case .value(let value):
            guard output.number == value else { return [] }
            done = true
            return [.finish(ScriptResult(.succeeded, message: String(value)))]
        case .overflow:
            guard output.number == nil, output.code == NumbersSum.overflowCode else { return [] }
            done = true
            return [.finish(ScriptResult(.refused, message: output.message ?? ""))]
        }
    }
}
