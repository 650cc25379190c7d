public import Contracts
public import Reactive
import RemoteProtocol
public import RemoteStreams

/// Where usernames are looked up: auth-service's `auth.exists` in the service, a stub in tests.
///
/// Disposing the returned `Single` before it answers cancels the lookup (over the wire, a `CANCEL`
/// frame that makes auth-service dispose its work).
public protocol UsernameDirectory: Sendable {
    /// Whether an account named `username` exists; `client` names the end client for the
    /// directory's rate limit. Fails with a ``RemoteError`` (`rate_limited`, `timeout`,
    /// `unavailable`, …) when there is no answer.
    func exists(_ username: String, client: String?) -> Single<Bool>

    /// Emits each time the directory can be reached again (over ZeroMQ: a connection to
    /// auth-service came up). A live check whose lookup found the directory unreachable looks the
    /// name up again then. The default never emits.
    var recoveries: Observable<Void> { get }
}

extension UsernameDirectory {
    public var recoveries: Observable<Void> { .never() }
}

/// The directory behind a ``RemoteClient`` connected to auth-service.
public struct RemoteUsernameDirectory: UsernameDirectory {
    /// The client connected to auth-service.
    public let client: RemoteClient
    /// The deadline of each lookup (sent with the request; the client fails the call when it
    /// passes).
    public let deadline: Duration

    /// A directory asking auth-service through `client`, each lookup within `deadline`.
    public init(client: RemoteClient, deadline: Duration) {
        self.client = client
        self.deadline = deadline
    }

    public func exists(_ username: String, client end: String?) -> Single<Bool> {
        let client = self.client
        let deadline = self.deadline
        return Single.deferred {
            // Every connection to auth-service lost and none back: unreachable at once (the check
            // looks the name up again at the next recovery) rather than after the deadline.
            if client.isCutOff {
                return .error(RemoteError(code: .unavailable, message: "auth-service is not connected"))
            }
            return client.request(
                Methods.Auth.exists, ExistsRequest(username: username, client: end),
                deadline: deadline
            ).map(\.exists)
        }
    }

    /// Each connection to auth-service that comes up (on the client's loop thread).
    public var recoveries: Observable<Void> {
        client.connectionChanges.filter(\.isUp).map { _ in () }
    }
}

/// How a failed lookup is shown: never as available and never as taken.
public enum LookupFailure {
    /// `username.throttled` when auth-service refused the check for its rate limit; `network.error`
    /// for everything else (unreachable, timed out, overloaded, unreadable answer).
    public static func result(for error: any Error) -> ValidationResult {
        if let remote = error as? RemoteError, remote.code == .rateLimited {
            return .failed(.usernameThrottled)
        }
        return .failed(.networkError)
    }

    /// True when `error` means auth-service could not be reached or did not answer in time.
    public static func isUnreachable(_ error: any Error) -> Bool {
        guard let remote = error as? RemoteError else { return error is RxError }
        return remote.code == .unavailable || remote.code == .timeout
    }
}
