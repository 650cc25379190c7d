public import Contracts
public import Reactive
import RemoteProtocol
public import RemoteStreams
import Synchronization

/// Whether an upstream service answers its health, as the gateway's probe last saw it.
///
/// A service that stops or is killed ends its channels by itself: the ``RemoteClient`` sees the
/// connection drop and fails them with `unavailable`. The liveness covers a service that keeps its
/// connections but stops answering (hung): when the probe's verdict turns to unreachable, the
/// ZeroMQ clients fail their open long-lived channels, and the view models reopen them.
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

    /// Fails with `unavailable` when the verdict turns to unreachable. A verdict that already was
    /// unreachable does not fail a new subscriber (it may be stale: a service that just returned
    /// answers the channel before the next probe round says so).
    func outage<Element: Sendable>(of service: String) -> Observable<Element> {
        Observable<Element>.create { [self] observer in
            let failure = RemoteError(code: .unavailable, message: "\(service) does not answer its health")
            return changes.subscribe(onNext: { reachable in
                if !reachable { observer.onError(failure) }
            })
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
        client.request(Methods.Auth.login, request, deadline: deadline)
    }

    public func register(_ request: RegisterRequest) -> Single<RegisterResponse> {
        client.request(Methods.Auth.register, request, deadline: deadline)
    }
}

/// ``ValidationServiceClient`` over ZeroMQ: one `validate.fields` channel per call.
///
/// A channel lives as long as the screen, so its deadline (`channelDeadline`) is long. What ends it
/// when validation-service goes away is the lost connection (the client fails the channel with
/// `unavailable` at once), or `liveness` (the gateway's health probe) turning to unreachable for a
/// service that keeps its connection but stops answering. While every connection is lost, a new
/// channel fails at once with `unavailable`; ``recoveries`` tells when one is back. A channel opened
/// before the first connection is up waits for it. Disposing the subscription sends `CANCEL`.
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
        let client = self.client
        let channelDeadline = self.channelDeadline
        return Observable.deferred {
            // Every connection lost and none back: the screen says so at once, and the flow opens
            // the channel again when one comes back (`recoveries`).
            if client.isCutOff {
                return .error(RemoteError(code: .unavailable, message: "validation-service is not connected"))
            }
            return client.channel(
                Methods.Validation.fields, parameters, input: edits,
                deadline: channelDeadline)
        }
        .failing(on: liveness, service: "validation-service")
    }

    /// Each connection to validation-service that comes up (on the client's loop thread).
    public var recoveries: Observable<Void> {
        client.connectionChanges.filter(\.isUp).map { _ in () }
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
        client.request(Methods.Heroes.search, request, deadline: deadline)
    }
}
