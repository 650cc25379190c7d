public import Contracts
public import Reactive
import RemoteProtocol
public import RemoteStreams
import Synchronization

/// Whether an upstream service answers its health, as the gateway's probe last saw it.
///
/// The ZeroMQ clients consult it so that a long-lived channel to a service that went away fails at
/// once (and is reopened by the view model) instead of waiting for its deadline: ZeroMQ reconnects
/// silently, so without a probe a channel to a dead peer would look open until the deadline.
public final class UpstreamLiveness: Sendable {
    private let state: Mutex<Bool>
    private let changes = PublishRelay<Bool>()

    /// A liveness that starts as `reachable` (true until a probe says otherwise).
    public init(reachable: Bool = true) {
        state = Mutex(reachable)
    }

    /// The latest verdict.
    public var isReachable: Bool { state.withLock { $0 } }

    /// Records a probe's verdict; subscribers hear only changes.
    public func set(reachable: Bool) {
        let changed = state.withLock { current -> Bool in
            defer { current = reachable }
            return current != reachable
        }
        if changed { changes.accept(reachable) }
    }

    /// Fails with `unavailable` as soon as the service is (or becomes) unreachable.
    func outage<Element: Sendable>(of service: String) -> Observable<Element> {
        Observable<Element>.create { [self] observer in
            let failure = RemoteError(code: .unavailable, message: "\(service) does not answer its health")
            let subscription = changes.subscribe(onNext: { reachable in
                if !reachable { observer.onError(failure) }
            })
            if !isReachable { observer.onError(failure) }
            return subscription
        }
    }
}

extension Observable where Element: Sendable {
    /// This sequence, failed with the outage's error when `liveness` reports the service gone.
    func failing(on liveness: UpstreamLiveness?, service: String) -> Observable<Element> {
        guard let liveness else { return self }
        return Observable.merge(self, liveness.outage(of: service))
    }
}

/// ``AuthServiceClient`` over ZeroMQ: `auth.login` and `auth.register` requests to auth-service,
/// each within `deadline`. Disposing a call's subscription sends `CANCEL`.
public struct RemoteAuthServiceClient: AuthServiceClient {
    /// The client connected to auth-service.
    public let client: RemoteClient
    /// Each call's deadline.
    public let deadline: Duration

    /// Calls through `client`, each within `deadline`.
    public init(client: RemoteClient, deadline: Duration) {
        self.client = client
        self.deadline = deadline
    }

    public func login(_ request: LoginRequest) -> Single<LoginResponse> {
        client.request(AuthMethod.login, request, as: LoginResponse.self, deadline: deadline)
    }

    public func register(_ request: RegisterRequest) -> Single<RegisterResponse> {
        client.request(AuthMethod.register, request, as: RegisterResponse.self, deadline: deadline)
    }
}

/// ``ValidationServiceClient`` over ZeroMQ: one `validate.fields` channel per call.
///
/// A channel lives as long as the screen, so its deadline (`channelDeadline`) is long; what ends it
/// when validation-service goes away is `liveness` (the gateway's health probe): the channel then
/// fails with `unavailable` at once, and opening one while the service is down fails at once too.
/// Disposing the subscription sends `CANCEL`.
public struct RemoteValidationServiceClient: ValidationServiceClient {
    /// The client connected to validation-service.
    public let client: RemoteClient
    /// The deadline of each channel (the longest a channel may stay open).
    public let channelDeadline: Duration
    /// The probe's verdict on validation-service, if the gateway probes it.
    public let liveness: UpstreamLiveness?

    /// Channels through `client`, each within `channelDeadline`, failed early by `liveness`.
    public init(client: RemoteClient, channelDeadline: Duration, liveness: UpstreamLiveness? = nil) {
        self.client = client
        self.channelDeadline = channelDeadline
        self.liveness = liveness
    }

    public func fields(_ parameters: FieldsParameters, edits: Observable<FieldEdit>) -> Observable<
        FieldResult
    > {
        client.channel(
            ValidationMethod.fields, parameters, input: edits, as: FieldResult.self, deadline: channelDeadline
        )
        .failing(on: liveness, service: "validation-service")
    }
}

/// ``HeroCatalogClient`` over ZeroMQ: `heroes.search` requests to hero-catalog-service.
public struct RemoteHeroCatalogClient: HeroCatalogClient {
    /// The client connected to hero-catalog-service.
    public let client: RemoteClient
    /// Each search's deadline.
    public let deadline: Duration

    /// Searches through `client`, each within `deadline`.
    public init(client: RemoteClient, deadline: Duration) {
        self.client = client
        self.deadline = deadline
    }

    public func search(_ request: HeroSearchRequest) -> Single<HeroSearchResponse> {
        client.request(HeroMethod.search, request, as: HeroSearchResponse.self, deadline: deadline)
    }
}
