public import Contracts
public import Dispatch
public import GatewayMessages
public import Reactive

/// The phone login flow (docs/ARCHITECTURE.md §2.1), the demos' login ViewModel: phone, password and taps in;
/// whether the button is enabled, the spinner and the tip line out.
///
/// ```
/// phone ────┬─ edits ─ validate.fields ─ scan(fields) ─┬─ loginEnabled, phoneResult, passwordResult
/// password ─┤                                          │
///           └─ keystrokes ─────────────────────── merge(fields, keystrokes, logins) ─ scan(tip) ─ tip
/// loginTap ─ withLatestFrom(phone, password, loginEnabled) ─ flatMapLatest(auth.login) ─┬─ loggingIn
///                                                                          (logins) ────┘
/// ```
///
/// - Field results come from the validation service's `validate.fields` channel (password purpose
///   `login`); a field nobody has typed in is `empty`.
/// - `tip` lists the failure messages of the phone, then the password (then `network.error` when
///   the channel broke). A login's result replaces the tip until the next keystroke.
/// - A broken validation channel is opened again after `reopenAfter`, and the latest texts are
///   validated again: the outputs recover by themselves when the service returns.
/// - `loginEnabled` iff both fields are valid. A tap while disabled is ignored.
/// - A tap logs in with the latest phone (as the username) and password, presenting the client's
///   device token for that name if it has one. A newer tap disposes the older login (latest wins),
///   which cancels it at the auth service.
/// - `loggingIn` is true from a tap until the latest login answers, fails or is cancelled.
/// - No output ever fails: errors become messages.
public struct LoginViewModel: Sendable {
    /// What the screen feeds in: each field's whole text after every keystroke, and the taps.
    public struct Input: Sendable {
        /// The phone field's text.
        public var phone: Observable<String>
        /// The password field's text.
        public var password: Observable<String>
        /// The login button's taps.
        public var loginTap: Observable<Void>

        /// Inputs from the three streams.
        public init(phone: Observable<String>, password: Observable<String>, loginTap: Observable<Void>) {
            self.phone = phone
            self.password = password
            self.loginTap = loginTap
        }
    }

    /// What the screen binds to.
    public struct Output: Sendable {
        /// The phone field's latest result (for its colour and message).
        public let phoneResult: Driver<ValidationResult>
        /// The password field's latest result.
        public let passwordResult: Driver<ValidationResult>
        /// Whether the login button is enabled: both fields valid.
        public let loginEnabled: Driver<Bool>
        /// The spinner: true from a tap until the latest login answers, fails or is cancelled.
        public let loggingIn: Driver<Bool>
        /// The tip line's messages, in order (join them with ``ScreenMessage/joined(_:rendering:)``).
        public let tip: Driver<[ScreenMessage]>
    }

    /// `login.failed {message}`: the auth service refused; `message` is its code.
    public static let loginFailed: MessageCode = .loginFailed

    private let validation: any ValidationServiceClient
    private let auth: any AuthServiceClient
    private let client: String?
    private let deviceTokens: [String: String]
    private let scheduler: any SchedulerType
    private let reopenAfter: RxTimeInterval

    /// A view model over `validation` and `auth`, for the end client `client` (passed on for the
    /// services' per-client limits), which keeps `deviceTokens` by account name. Timers run on
    /// `scheduler` (the gateway's loop scheduler; a `TestScheduler` in tests). A broken validation channel is
    /// opened again `reopenAfter` later.
    public init(
        validation: any ValidationServiceClient, auth: any AuthServiceClient, client: String? = nil,
        deviceTokens: [String: String] = [:], scheduler: any SchedulerType,
        reopenAfter: RxTimeInterval = .seconds(1)
    ) {
        self.validation = validation
        self.auth = auth
        self.client = client
        self.deviceTokens = deviceTokens
        self.scheduler = scheduler
        self.reopenAfter = reopenAfter
    }

    /// Builds the outputs for `input`. Nothing runs until an output is subscribed; each output
    /// shares one subscription to what it is built from.
    ///
    /// The outputs deliver where ``SharingScheduler/make()`` says when they are built: the gateway
    /// and the tests build them inside `SharingScheduler.mock(scheduler:)`, with the scheduler the
    /// flow's graph runs on.
    public func transform(_ input: Input) -> Output {
        build(input)
    }

    private func build(_ input: Input) -> Output {
        let phone = input.phone.share(replay: 1)
        let password = input.password.share(replay: 1)
        let edits = Observable.merge(
            phone.map { FieldEdit(field: .phone, text: $0) },
            password.map { FieldEdit(field: .password, text: $0) })
        let parameters = Self.fieldsParameters(client: client)
        let fields = FieldChannel.updates(
            validation: validation, parameters: parameters, edits: edits, reopenAfter: reopenAfter,
            scheduler: scheduler
        )
        .scan(LoginFields()) { $0.updated($1) }
        .startWith(LoginFields())
        .asDriver(onErrorJustReturn: LoginFields(unreachable: true))
        let loginEnabled = fields.map(\.valid).distinctUntilChanged()

        let auth = self.auth
        let client = self.client
        let deviceTokens = self.deviceTokens
        let credentials = Observable.combineLatest(phone, password, loginEnabled.asObservable()) {
            Credentials(phone: $0, password: $1, enabled: $2)
        }
        let logins = input.loginTap.withLatestFrom(credentials)
            .filter(\.enabled)
            .flatMapLatest { credentials in
                auth.login(
                    LoginRequest(
                        username: credentials.phone, password: credentials.password, client: client,
                        deviceToken: deviceTokens[credentials.phone])
                )
                .asObservable()
                .map { LoginEvent.answered(Self.message(for: $0)) }
                .catch { _ in .just(.answered(ScreenMessage(.networkError))) }
                .startWith(.started)
            }
            .share()
        let loggingIn = logins.map(\.isStarted)
            .startWith(false)
            .asDriver(onErrorJustReturn: false)
            .distinctUntilChanged()

        let keystrokes = Observable.merge(
            phone.map { _ in TipEvent.keystroke }, password.map { _ in .keystroke })
        let tip = Observable.merge(
            fields.asObservable().map { TipEvent.fields($0.messages) },
            keystrokes,
            logins.compactMap(\.answer).map(TipEvent.login)
        )
        .scan(TipState()) { $0.updated($1) }
        .map(\.shown)
        .startWith([])
        .distinctUntilChanged()
        .asDriver(onErrorJustReturn: [])

        return Output(
            phoneResult: fields.map(\.phone).distinctUntilChanged(),
            passwordResult: fields.map(\.password).distinctUntilChanged(),
            loginEnabled: loginEnabled, loggingIn: loggingIn, tip: tip)
    }

    /// The flow's `validate.fields` purposes, for the end client `client`: the phone checked as a
    /// sign-in name, the password with the login rules (the `login` command checks with them too).
    static func fieldsParameters(client: String?) -> FieldsParameters {
        FieldsParameters(usernamePurpose: .signin, passwordPurpose: .login, client: client)
    }

    /// The message an answer from `auth.login` shows (`login.ok` carries the device token as the
    /// parameter `device_token`, which no text shows).
    static func message(for response: LoginResponse) -> ScreenMessage {
        switch response.statusCode {
        case 200:
            guard let user = response.user else { return ScreenMessage(.networkError) }
            var params = ["name": user.name, "token": user.userToken]
            params["device_token"] = user.deviceToken
            return ScreenMessage(.loginOK, params)
        case 429:
            return ScreenMessage(.loginThrottled, ["retry_after": String(response.retryAfter ?? 0)])
        default:
            return ScreenMessage(loginFailed, ["message": response.message.rawValue])
        }
    }
}

/// The latest result of each field (a value, folded by `scan`: no state outside the stream).
private struct LoginFields: Sendable, Hashable {
    var phone = ValidationResult.empty
    var password = ValidationResult.empty
    /// The validation channel broke and has not answered since: nothing is valid and the tip says
    /// so.
    var unreachable = false

    var valid: Bool { !unreachable && phone.isValid && password.isValid }

    /// The failure messages of the phone, then the password, then the channel.
    var messages: [ScreenMessage] {
        var messages = [phone, password].compactMap { result -> ScreenMessage? in
            guard result.state == .failed, let code = result.code else { return nil }
            return ScreenMessage(code, result.params)
        }
        if unreachable { messages.append(ScreenMessage(.networkError)) }
        return messages
    }

    func updated(_ update: FieldChannel.Update) -> LoginFields {
        var next = self
        switch update {
        case .unreachable:
            next.unreachable = true
        case .result(let answer):
            next.unreachable = false
            switch answer.field {
            case .phone: next.phone = answer.result
            case .password: next.password = answer.result
            case .username, .repeat: break
            }
        }
        return next
    }
}

/// The phone, password and enabled state a tap logs in with.
private struct Credentials: Sendable {
    var phone: String
    var password: String
    var enabled: Bool
}

/// A login's progress: started by a tap, then answered (unless a newer tap cancelled it).
private enum LoginEvent: Sendable {
    case started
    case answered(ScreenMessage)

    var isStarted: Bool {
        if case .started = self { return true }
        return false
    }

    var answer: ScreenMessage? {
        if case .answered(let message) = self { return message }
        return nil
    }
}

/// What moves the tip line.
private enum TipEvent: Sendable {
    case fields([ScreenMessage])
    case keystroke
    case login(ScreenMessage)
}

/// The tip line: the fields' messages, unless a login result shows (until the next keystroke).
private struct TipState: Sendable {
    var fields: [ScreenMessage] = []
    var login: ScreenMessage?

    var shown: [ScreenMessage] { login.map { [$0] } ?? fields }

    func updated(_ event: TipEvent) -> TipState {
        var next = self
        switch event {
        case .fields(let messages): next.fields = messages
        case .keystroke: next.login = nil
        case .login(let message): next.login = message
        }
        return next
    }
}
