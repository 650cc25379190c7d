public import Contracts
public import Dispatch
public import Reactive

/// The sign-in screen (docs/ARCHITECTURE.md §2.3): the username is checked live (purpose `signin`), the login
/// button is enabled while the password is non-empty and the username exists, and each tap cancels
/// the login before it. A refused login says `login.wrongPassword` whether or not the user exists.
public struct SigninViewModel: Sendable {
    /// What the screen feeds in.
    public struct Input: Sendable {
        /// The username as typed.
        public var username: Observable<String>
        /// The password as typed.
        public var password: Observable<String>
        /// Taps on the login button.
        public var loginTap: Observable<Void>

        /// An input.
        public init(username: Observable<String>, password: Observable<String>, loginTap: Observable<Void>) {
            self.username = username
            self.password = password
            self.loginTap = loginTap
        }
    }

    /// What the screen binds to.
    public struct Output: Sendable {
        /// Whether the username exists (live).
        public var usernameResult: Driver<ValidationResult>
        /// The login button is enabled.
        public var loginEnabled: Driver<Bool>
        /// A login is in flight.
        public var loggingIn: Driver<Bool>
        /// The outcome of each login (reuses the register screen's alert shape).
        public var alert: Signal<ScreenAlert>
        /// The session token after each successful login.
        public var session: Signal<String>
        /// The signed-in user (name and token) after each successful login.
        public var user: Signal<LoginResponse.User>
    }

    enum Step: Sendable {
        case started
        case finished(LoginResponse)
        case failed
    }

    /// The outputs.
    public let output: Output

    /// Builds the outputs from `input`, the validation channel and the auth service, for the end
    /// client `client`, which keeps `deviceTokens` by account name (a login presents the one for
    /// its username). A broken validation channel is opened again `reopenAfter` later on
    /// `scheduler` (nil: the scheduler the outputs deliver on, ``SharingScheduler/make()``).
    public init(
        input: Input, validation: any ValidationServiceClient, auth: any AuthServiceClient,
        client: String? = nil, deviceTokens: [String: String] = [:], scheduler: (any SchedulerType)? = nil,
        reopenAfter: RxTimeInterval = .seconds(1)
    ) {
        let scheduler = scheduler ?? SharingScheduler.make()
        // Replayed, so a reopened channel is sent the latest username again.
        let usernameText = input.username.share(replay: 1)
        let passwordText = input.password.share(replay: 1)
        let edits = usernameText.map { FieldEdit(field: .username, text: $0) }
        let parameters = Self.fieldsParameters(client: client)
        let usernameResult = FieldChannel.verdicts(
            FieldChannel.updates(
                validation: validation, parameters: parameters, edits: edits, reopenAfter: reopenAfter,
                scheduler: scheduler),
            fields: [.username]
        )
        .map { $0[.username] ?? .empty }
        .distinctUntilChanged()
        .share(replay: 1)
        // Whether a login is in flight, written only by `steps` (the gate of the next tap).
        let busy = BehaviorRelay(value: false)
        let ready = Observable.combineLatest(usernameResult, passwordText.startWith("")) {
            username, password in
            username.isValid && !password.isEmpty
        }
        let gate = Observable.combineLatest(usernameText, passwordText, ready, busy.asObservable()) {
            SigninGate(username: $0, password: $1, enabled: $2 && !$3)
        }
        // A tap while disabled (fields not ready, or a login in flight) is ignored.
        let steps = input.loginTap.withLatestFrom(gate)
            .filter(\.enabled)
            .flatMapLatest { gate -> Observable<Step> in
                auth.login(
                    LoginRequest(
                        username: gate.username, password: gate.password, client: client,
                        deviceToken: deviceTokens[gate.username])
                )
                .asObservable()
                .map { Step.finished($0) }
                .catchAndReturn(.failed)
                .startWith(.started)
            }
            .do(onNext: { step in
                if case .started = step { busy.accept(true) } else { busy.accept(false) }
            })
            .share(replay: 0)
        let loggingIn = busy.asObservable().distinctUntilChanged().share(replay: 1)
        let loginEnabled = Observable.combineLatest(ready, loggingIn) { $0 && !$1 }.distinctUntilChanged()
        let alert: Observable<ScreenAlert> = steps.compactMap { step in
            switch step {
            case .started: return nil
            case .failed: return .init(kind: .error, code: .networkError)
            case .finished(let response): return Self.alert(for: response)
            }
        }
        let session: Observable<LoginResponse.User> = steps.compactMap { step in
            if case .finished(let response) = step, response.statusCode / 100 == 2 { return response.user }
            return nil
        }
        output = Output(
            usernameResult: usernameResult.asDriver(onErrorJustReturn: .failed(.networkError)),
            loginEnabled: loginEnabled.asDriver(onErrorJustReturn: false),
            loggingIn: loggingIn.asDriver(onErrorJustReturn: false),
            alert: alert.asSignal(onErrorJustReturn: .init(kind: .error, code: .networkError)),
            session: session.map(\.userToken).asSignal(onErrorSignalWith: .empty()),
            user: session.asSignal(onErrorSignalWith: .empty())
        )
    }
}

extension SigninViewModel {
    /// The flow's `validate.fields` purposes, for the end client `client`: the username must exist,
    /// a password is checked with the login rules (the `signin` command checks with them too).
    static func fieldsParameters(client: String?) -> FieldsParameters {
        FieldsParameters(usernamePurpose: .signin, passwordPurpose: .login, client: client)
    }

    /// The alert an answer from `auth.login` shows: `login.ok` (with `name` and `token`),
    /// `login.throttled` (with `retry_after`), else `login.wrongPassword` whatever the reason.
    public static func alert(for response: LoginResponse) -> ScreenAlert {
        if response.statusCode / 100 == 2, let user = response.user {
            return ScreenAlert(
                kind: .success, code: .loginOK, params: ["name": user.name, "token": user.userToken])
        }
        if response.statusCode / 100 == 2 { return ScreenAlert(kind: .error, code: .networkError) }
        if response.message == .loginThrottled {
            let params = response.retryAfter.map { ["retry_after": String($0)] } ?? [:]
            return ScreenAlert(kind: .failure, code: .loginThrottled, params: params)
        }
        return ScreenAlert(kind: .failure, code: .loginWrongPassword)
    }
}

/// What a login tap sends, and whether the button was enabled.
private struct SigninGate: Sendable {
    var username: String
    var password: String
    var enabled: Bool
}
