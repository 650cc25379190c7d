public import Contracts
public import Dispatch
public import GatewayMessages
public import Reactive

/// The register screen (docs/ARCHITECTURE.md §2.2): three fields validated live over `validate.fields`
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

    /// The flow's `validate.fields` purposes, for the end client `client`: every field with the
    /// register rules (the `register` command checks with them too).
    static func fieldsParameters(client: String?) -> FieldsParameters {
        FieldsParameters(usernamePurpose: .register, passwordPurpose: .register, client: client)
    }

    /// A one-shot message for the screen (the alert every flow uses).
    public typealias Alert = ScreenAlert

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

    /// Builds the outputs from `input`, the validation channel and the auth service, for the end
    /// client `client`. A broken validation channel is opened again `reopenAfter` later on
    /// `scheduler` (nil: the scheduler the outputs deliver on, ``SharingScheduler/make()``).
    public init(
        input: Input, validation: any ValidationServiceClient, auth: any AuthServiceClient,
        client: String? = nil, scheduler: (any SchedulerType)? = nil,
        reopenAfter: RxTimeInterval = .seconds(1)
    ) {
        let scheduler = scheduler ?? SharingScheduler.make()
        // Replayed, so a reopened channel is sent the latest texts again.
        let usernameText = input.username.share(replay: 1)
        let passwordText = input.password.share(replay: 1)
        let repeatText = input.repeatPassword.share(replay: 1)
        let edits = Observable<FieldEdit>.merge(
            usernameText.map { FieldEdit(field: .username, text: $0) },
            passwordText.map { FieldEdit(field: .password, text: $0) },
            repeatText.map { FieldEdit(field: .repeat, text: $0) }
        )
        let parameters = Self.fieldsParameters(client: client)
        let verdicts = FieldChannel.verdicts(
            FieldChannel.updates(
                validation: validation, parameters: parameters, edits: edits, reopenAfter: reopenAfter,
                scheduler: scheduler),
            fields: [.username, .password, .repeat]
        ).share(replay: 1)
        // Feedback from the registrations to the gate of the next tap: whether one is in flight and
        // the name last registered (the relays are written only by `steps`, below).
        let busy = BehaviorRelay(value: false)
        let registered = PublishRelay<String>()
        let username = Observable.merge(
            verdicts.map { $0[.username] ?? .empty }.distinctUntilChanged(),
            registered.map { ValidationResult.failed(.usernameExists, ["name": $0]) }
        ).share(replay: 1)
        let password = verdicts.map { $0[.password] ?? .empty }.distinctUntilChanged().share(replay: 1)
        let repeatPassword = verdicts.map { $0[.repeat] ?? .empty }.distinctUntilChanged().share(replay: 1)
        let allValid = Observable.combineLatest(username, password, repeatPassword) {
            $0.isValid && $1.isValid && $2.isValid
        }
        let gate = Observable.combineLatest(usernameText, passwordText, allValid, busy.asObservable()) {
            RegisterGate(username: $0, password: $1, enabled: $2 && !$3)
        }
        // A tap while disabled is ignored; each accepted tap cancels nothing (the button is disabled
        // while a registration is in flight).
        let steps = input.registerTap.withLatestFrom(gate)
            .filter(\.enabled)
            .flatMapLatest { gate -> Observable<Step> in
                auth.register(
                    RegisterRequest(
                        username: gate.username, password: gate.password, client: client,
                        requestID: RegisterRequest.newRequestID())
                )
                .asObservable()
                .map { Step.finished(gate.username, $0) }
                .catchAndReturn(.failed)
                .startWith(.started)
            }
            .do(onNext: { step in
                switch step {
                case .started: busy.accept(true)
                case .failed: busy.accept(false)
                case .finished(_, let response):
                    // The name first, so the button does not flash enabled in between.
                    if response.statusCode / 100 == 2 { registered.accept(response.username) }
                    busy.accept(false)
                }
            })
            .share(replay: 0)
        let registering = busy.asObservable().distinctUntilChanged().share(replay: 1)
        let passwordEnabled = username.map { $0.isValid }.distinctUntilChanged()
        let repeatEnabled = password.map { $0.isValid }.distinctUntilChanged()
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

/// What a register tap registers, and whether the button was enabled.
private struct RegisterGate: Sendable {
    var username: String
    var password: String
    var enabled: Bool
}

/// A one-shot message for a screen: the outcome of a registration or a sign-in.
public struct ScreenAlert: Sendable, Hashable, CustomStringConvertible {
    /// What kind of outcome the message reports (an alert output's `kind`).
    public typealias Kind = FlowOutput.AlertKind

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

    /// The message it shows.
    public var message: ScreenMessage { ScreenMessage(code, params) }

    /// E.g. `success register.ok name=ann`.
    public var description: String { "\(kind.rawValue) \(message)" }
}
