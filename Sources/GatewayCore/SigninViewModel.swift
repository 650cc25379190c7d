public import Contracts
public import Reactive

/// The sign-in screen (DESIGN §2.3): the username is checked live (purpose `signin`), the login
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
        public var alert: Signal<RegisterViewModel.Alert>
        /// The session token after each successful login.
        public var session: Signal<String>
    }

    enum Step: Sendable {
        case started
        case finished(LoginResponse)
        case failed
    }

    /// The outputs.
    public let output: Output

    /// Builds the outputs from `input`, the validation channel and the auth service.
    public init(
        input: Input, validation: any ValidationServiceClient, auth: any AuthServiceClient,
        client: String? = nil
    ) {
        let edits = input.username.map { FieldEdit(field: .username, text: $0) }
        let parameters = FieldsParameters(usernamePurpose: .signin, passwordPurpose: .login, client: client)
        let usernameResult = validation.fields(parameters, edits: edits)
            .filter { $0.field == .username }
            .map { $0.result }
            .catchAndReturn(.failed(.networkError))
            .startWith(.empty)
            .share(replay: 1)
        let credentials = Observable.combineLatest(input.username, input.password) { ($0, $1) }
        let steps = input.loginTap.withLatestFrom(credentials)
            .flatMapLatest { pair -> Observable<Step> in
                auth.login(LoginRequest(username: pair.0, password: pair.1, client: client))
                    .asObservable()
                    .map { Step.finished($0) }
                    .catchAndReturn(.failed)
                    .startWith(.started)
            }
            .share(replay: 0)
        let loggingIn = steps.map { step -> Bool in
            if case .started = step { return true }
            return false
        }.startWith(false).distinctUntilChanged().share(replay: 1)
        let loginEnabled = Observable.combineLatest(
            usernameResult, input.password.startWith(""), loggingIn
        ) { username, password, busy in
            username.isValid && !password.isEmpty && !busy
        }.distinctUntilChanged()
        let alert: Observable<RegisterViewModel.Alert> = steps.compactMap { step in
            switch step {
            case .started: return nil
            case .failed: return .init(kind: .error, code: .networkError)
            case .finished(let response) where response.statusCode / 100 == 2:
                return .init(kind: .success, code: response.message)
            case .finished(let response) where response.message == .loginThrottled:
                let params = response.retryAfter.map { ["seconds": String($0)] } ?? [:]
                return .init(kind: .failure, code: .loginThrottled, params: params)
            case .finished:
                return .init(kind: .failure, code: .loginWrongPassword)
            }
        }
        let session: Observable<String> = steps.compactMap { step in
            if case .finished(let response) = step, response.statusCode / 100 == 2 {
                return response.user?.userToken
            }
            return nil
        }
        output = Output(
            usernameResult: usernameResult.asDriver(onErrorJustReturn: .failed(.networkError)),
            loginEnabled: loginEnabled.asDriver(onErrorJustReturn: false),
            loggingIn: loggingIn.asDriver(onErrorJustReturn: false),
            alert: alert.asSignal(onErrorJustReturn: .init(kind: .error, code: .networkError)),
            session: session.asSignal(onErrorSignalWith: .empty())
        )
    }
}
