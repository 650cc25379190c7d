public import Contracts
import GatewayMessages
public import Reactive
import RemoteProtocol
public import RemoteStreams

/// The account commands: `login`, `signin` and `register`, the login, sign-in and register flows as
/// single requests. Each checks its fields over `validate.fields` with the rules (purposes) of the
/// flow it stands for, then makes one call to the auth service, whose answer reads as that flow's
/// message. `login` and `signin` are one login: they differ only in the field the account is named
/// by and the flow whose messages they answer with (``CommandLogin``).
public struct AccountCommandRoutes: GatewayRoutes {
    private let environment: GatewayEnvironment

    init(_ environment: GatewayEnvironment) { self.environment = environment }

    /// Registers `login`, `register` and `signin`.
    public func register(into handlers: inout RemoteHandlers) {
        let counters = environment.counters
        handlers.handle(Methods.Command.login) { [self] command, call in
            counters.counted(Methods.Command.login, login(command, client: call.peer))
        }
        handlers.handle(Methods.Command.register) { [self] command, call in
            counters.counted(Methods.Command.register, register(command, client: call.peer))
        }
        handlers.handle(Methods.Command.signin) { [self] command, call in
            counters.counted(Methods.Command.signin, signin(command, client: call.peer))
        }
    }

    /// `login`: the phone and password checked with the phone login flow's rules, then
    /// `auth.login`; the answer reads as that flow's tip.
    public func login(_ command: LoginCommand, client: String?) -> Single<CommandResult> {
        logIn(
            .phone, name: command.phone, password: command.password, deviceToken: command.deviceToken,
            locale: command.locale, client: client)
    }

    /// `signin`: the username checked (it must exist) and the password checked with the sign-in
    /// flow's rules, then `auth.login`; a refusal reads `login.wrongPassword` whether or not the
    /// user exists.
    public func signin(_ command: SigninCommand, client: String?) -> Single<CommandResult> {
        logIn(
            .username, name: command.username, password: command.password,
            deviceToken: command.deviceToken, locale: command.locale, client: client)
    }

    /// `register`: the three fields checked with the register flow's rules (the username looked
    /// up), then `auth.register`.
    public func register(_ command: RegisterCommand, client: String?) -> Single<CommandResult> {
        let renderer = environment.renderer(command.locale)
        let auth = environment.auth
        let edits = [
            FieldEdit(field: .username, text: command.username),
            FieldEdit(field: .password, text: command.password),
            FieldEdit(field: .repeat, text: command.repeatPassword ?? command.password),
        ]
        return checked(
            edits, parameters: RegisterViewModel.fieldsParameters(client: client), renderer: renderer
        ) {
            auth.register(
                RegisterRequest(
                    username: command.username, password: command.password, client: client,
                    requestID: RegisterRequest.newRequestID())
            )
            .map { response in
                let message = ScreenMessage(response.message, ["name": response.username])
                return CommandResult(
                    ok: response.statusCode / 100 == 2, code: message.code, message: renderer.text(message))
            }
        }
    }

    /// The one login behind `login` and `signin`: `name` (in the field `login` names) and
    /// `password` checked with the flow's rules, then `auth.login` presenting `deviceToken`; a
    /// successful answer carries the user's name, session token and device token.
    private func logIn(
        _ login: CommandLogin, name: String, password: String, deviceToken: String?,
        locale: MessageLocale?, client: String?
    ) -> Single<CommandResult> {
        let renderer = environment.renderer(locale)
        let auth = environment.auth
        let edits = [FieldEdit(field: login.field, text: name), FieldEdit(field: .password, text: password)]
        return checked(edits, parameters: login.fieldsParameters(client: client), renderer: renderer) {
            auth.login(
                LoginRequest(username: name, password: password, client: client, deviceToken: deviceToken)
            )
            .map { response in
                let (ok, message) = login.answer(response)
                return CommandResult(
                    ok: ok, code: message.code, message: renderer.text(message),
                    name: ok ? response.user?.name : nil, token: ok ? response.user?.userToken : nil,
                    deviceToken: ok ? response.user?.deviceToken : nil)
            }
        }
    }

    /// Checks `edits` over `validate.fields`; the first failing field (in `edits`' order) is the
    /// answer, else `call` runs. Empty or oversize fields are `bad_request`; a check or call that
    /// fails is `network.error`.
    private func checked(
        _ edits: [FieldEdit], parameters: FieldsParameters, renderer: FlowRenderer,
        then call: @escaping @Sendable () -> Single<CommandResult>
    ) -> Single<CommandResult> {
        let maximumTextBytes = environment.settings.maximumTextBytes
        for edit in edits {
            if edit.text.isEmpty || edit.text.utf8.count > maximumTextBytes {
                return .error(
                    RemoteError(
                        code: .badRequest,
                        message: "\(edit.field.rawValue) must be 1 to \(maximumTextBytes) bytes"))
            }
        }
        let wanted = edits.map(\.field)
        let networkError = CommandResult(
            ok: false, code: .networkError, message: renderer.text(ScreenMessage(.networkError)))
        return environment.validation.fields(parameters, edits: .from(edits))
            .scan([Field: ValidationResult]()) { results, answer in
                var next = results
                next[answer.field] = answer.result
                return next
            }
            .filter { results in wanted.allSatisfy { results[$0].map { $0.state != .validating } ?? false } }
            .take(1)
            .asSingle()
            .timeout(environment.settings.checkTimeout, scheduler: environment.scheduler)
            .flatMap { results -> Single<CommandResult> in
                for field in wanted {
                    guard let result = results[field], !result.isValid else { continue }
                    let message = ScreenMessage(result.code ?? .networkError, result.params)
                    return .just(
                        CommandResult(ok: false, code: message.code, message: renderer.text(message)))
                }
                return call().catchAndReturn(networkError)
            }
            .catchAndReturn(networkError)
    }
}

/// Which flow a login command stands for: it names the field the account is typed in, the rules
/// the fields are checked with and the message an answer of `auth.login` reads as, all the flow's
/// own.
enum CommandLogin: Sendable {
    /// `login`: the phone login flow (``LoginViewModel``).
    case phone
    /// `signin`: the sign-in flow (``SigninViewModel``).
    case username

    /// The field the account's name is typed in.
    var field: Field {
        switch self {
        case .phone: .phone
        case .username: .username
        }
    }

    /// The flow's `validate.fields` purposes.
    func fieldsParameters(client: String?) -> FieldsParameters {
        switch self {
        case .phone: LoginViewModel.fieldsParameters(client: client)
        case .username: SigninViewModel.fieldsParameters(client: client)
        }
    }

    /// Whether `response` is a successful login, and the message the flow shows for it.
    func answer(_ response: LoginResponse) -> (ok: Bool, message: ScreenMessage) {
        switch self {
        case .phone:
            let message = LoginViewModel.message(for: response)
            return (message.code == .loginOK, message)
        case .username:
            let alert = SigninViewModel.alert(for: response)
            return (alert.kind == .success, alert.message)
        }
    }
}
