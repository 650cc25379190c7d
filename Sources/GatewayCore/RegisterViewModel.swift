public import Contracts
public import Reactive

/// The register screen (DESIGN §2.2): three fields validated live over `validate.fields`
/// (purposes `register`), gated enabling, and a register button that calls `auth.register`.
///
/// Outputs carry message codes, never text, and never fail: a transport error becomes an
/// ``Alert`` with `network.error`.
public struct RegisterViewModel: Sendable {
    /// What the screen feeds in.
    public struct Input: Sendable {
        /// The username as typed.
        public var username: Observable<String>
        /// The password as typed.
        public var password: Observable<String>
        /// The password typed again.
        public var repeatPassword: Observable<String>
        /// Taps on the register button.
        public var registerTap: Observable<Void>

        /// An input.
        public init(
            username: Observable<String>, password: Observable<String>,
            repeatPassword: Observable<String>, registerTap: Observable<Void>
        ) {
            self.username = username
            self.password = password
            self.repeatPassword = repeatPassword
            self.registerTap = registerTap
        }
    }

    /// A one-shot message for the screen.
    public struct Alert: Sendable, Hashable {
        /// What kind of outcome the message reports.
        public enum Kind: String, Sendable, Hashable {
            /// The account was made.
            case success
            /// The service refused.
            case failure
            /// The call did not complete.
            case error
        }

        /// The outcome.
        public var kind: Kind
        /// The message.
        public var code: MessageCode
        /// The message's parameters.
        public var params: [String: String]

        /// An alert.
        public init(kind: Kind, code: MessageCode, params: [String: String] = [:]) {
            self.kind = kind
            self.code = code
            self.params = params
        }
    }

    /// What the screen binds to.
    public struct Output: Sendable {
        /// The username's verdict (becomes `username.exists` once registered).
        public var username: Driver<ValidationResult>
        /// The password's verdict.
        public var password: Driver<ValidationResult>
        /// The repeated password's verdict.
        public var repeatPassword: Driver<ValidationResult>
        /// The password field is enabled only while the username is ok.
        public var passwordEnabled: Driver<Bool>
        /// The repeat field is enabled only while the password is ok.
        public var repeatEnabled: Driver<Bool>
        /// The register button is enabled only while all three are ok (and not registering).
        public var registerEnabled: Driver<Bool>
        /// A registration is in flight.
        public var registering: Driver<Bool>
        /// The outcome of each registration.
        public var alert: Signal<Alert>
    }

    /// One registration's progress.
    enum Step: Sendable {
        case started
        case finished(String, RegisterResponse)
        case failed
    }

    /// The outputs.
    public let output: Output

    /// Builds the outputs from `input`, the validation channel and the auth service.
    public init(
        input: Input, validation: any ValidationServiceClient, auth: any AuthServiceClient,
        client: String? = nil
    ) {
        let edits = Observable<FieldEdit>.merge(
            input.username.map { FieldEdit(field: .username, text: $0) },
            input.password.map { FieldEdit(field: .password, text: $0) },
            input.repeatPassword.map { FieldEdit(field: .repeat, text: $0) }
        )
        let parameters = FieldsParameters(
            usernamePurpose: .register, passwordPurpose: .register, client: client)
        let results = validation.fields(parameters, edits: edits)
            .catchAndReturn(FieldResult(field: .username, result: .failed(.networkError)))
            .share(replay: 0)
        func verdicts(_ field: Field) -> Observable<ValidationResult> {
            results.filter { $0.field == field }.map { $0.result }.startWith(.empty)
        }
        let credentials = Observable.combineLatest(input.username, input.password) { ($0, $1) }
        let password = verdicts(.password).share(replay: 1)
        let repeatPassword = verdicts(.repeat).share(replay: 1)
        // Each tap (while enabled) cancels the registration before it.
        let steps = RegisterSteps.steps(
            tap: input.registerTap, credentials: credentials, auth: auth, client: client)
        let registered: Observable<ValidationResult> = steps.compactMap { step in
            if case .finished(_, let response) = step, response.statusCode / 100 == 2 {
                return .failed(.usernameExists, ["name": response.username])
            }
            return nil
        }
        let username = Observable.merge(verdicts(.username), registered).share(replay: 1)
        let registering = steps.map { step -> Bool in
            if case .started = step { return true }
            return false
        }.startWith(false).distinctUntilChanged().share(replay: 1)
        let passwordEnabled = username.map { $0.isValid }.distinctUntilChanged()
        let repeatEnabled = password.map { $0.isValid }.distinctUntilChanged()
        let allValid = Observable.combineLatest(username, password, repeatPassword) {
            $0.isValid && $1.isValid && $2.isValid
        }
        let registerEnabled = Observable.combineLatest(allValid, registering) { $0 && !$1 }
            .distinctUntilChanged()
        let alert: Observable<Alert> = steps.compactMap { step in
            switch step {
            case .started: return nil
            case .failed: return Alert(kind: .error, code: .networkError)
            case .finished(_, let response):
                let kind: Alert.Kind = response.statusCode / 100 == 2 ? .success : .failure
                return Alert(kind: kind, code: response.message, params: ["name": response.username])
            }
        }
        output = Output(
            username: username.asDriver(onErrorJustReturn: .failed(.networkError)),
            password: password.asDriver(onErrorJustReturn: .failed(.networkError)),
            repeatPassword: repeatPassword.asDriver(onErrorJustReturn: .failed(.networkError)),
            passwordEnabled: passwordEnabled.asDriver(onErrorJustReturn: false),
            repeatEnabled: repeatEnabled.asDriver(onErrorJustReturn: false),
            registerEnabled: registerEnabled.asDriver(onErrorJustReturn: false),
            registering: registering.asDriver(onErrorJustReturn: false),
            alert: alert.asSignal(onErrorJustReturn: Alert(kind: .error, code: .networkError))
        )
    }
}

/// Builds the registration steps stream.
enum RegisterSteps {
    static func steps(
        tap: Observable<Void>, credentials: Observable<(String, String)>, auth: any AuthServiceClient,
        client: String?
    ) -> Observable<RegisterViewModel.Step> {
        tap.withLatestFrom(credentials)
            .flatMapLatest { pair -> Observable<RegisterViewModel.Step> in
                auth.register(RegisterRequest(username: pair.0, password: pair.1, client: client))
                    .asObservable()
                    .map { RegisterViewModel.Step.finished(pair.0, $0) }
                    .catchAndReturn(.failed)
                    .startWith(.started)
            }
            .share(replay: 0)
    }
}
