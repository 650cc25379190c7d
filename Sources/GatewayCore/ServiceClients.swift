public import Contracts
public import Reactive

/// What the view models need from the auth service. The ZeroMQ implementation calls
/// `auth-service`; tests use a stub (the demos' stubbed network provider) that answers on a test
/// scheduler. Disposing a call's subscription cancels it (over ZeroMQ: a CANCEL frame).
public protocol AuthServiceClient: Sendable {
    /// `auth.login`.
    func login(_ request: LoginRequest) -> Single<LoginResponse>
    /// `auth.register`.
    func register(_ request: RegisterRequest) -> Single<RegisterResponse>
}

/// What the view models need from the validation service: its `validate.fields` channel, the
/// stream of per-field results the outputs are built from.
public protocol ValidationServiceClient: Sendable {
    /// Opens `validate.fields`: `edits` stream in, results stream out.
    func fields(_ parameters: FieldsParameters, edits: Observable<FieldEdit>) -> Observable<FieldResult>

    /// Emits each time the service can be reached again (over ZeroMQ: a connection to it came up),
    /// so that a broken channel is opened again then instead of after its delay. The default never
    /// emits.
    var recoveries: Observable<Void> { get }
}

extension ValidationServiceClient {
    public var recoveries: Observable<Void> { .never() }
}

/// What the view models need from the hero catalog.
public protocol HeroCatalogClient: Sendable {
    /// `heroes.search`.
    func search(_ request: HeroSearchRequest) -> Single<HeroSearchResponse>
}
