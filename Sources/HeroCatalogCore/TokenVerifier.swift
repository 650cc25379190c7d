public import Contracts
public import Reactive
import RemoteProtocol
public import RemoteStreams
import Synchronization

/// Checks session tokens. A valid token answers its user; an invalid, expired or revoked one fails
/// with `RemoteError` `unauthenticated`; when the check cannot be made, `unavailable`.
public protocol TokenVerifier: Sendable {
    /// Verifies `token`.
    func verify(_ token: String) -> Single<VerifyResponse>
}

/// Verifies tokens with auth-service's `auth.verify`, through a ``RemoteClient``.
///
/// auth-service's `unauthenticated` (and `bad_request`, for a token that is not even well-formed)
/// become `unauthenticated`; every other failure (timeout, no connection, overload, …) becomes
/// `unavailable`, so a caller is never told a token is bad because auth could not be asked.
public struct RemoteTokenVerifier: TokenVerifier {
    private let client: RemoteClient
    private let deadline: Duration

    /// A verifier asking through `client`, each call with `deadline`.
    public init(client: RemoteClient, deadline: Duration = .seconds(2)) {
        self.client = client
        self.deadline = deadline
    }

    public func verify(_ token: String) -> Single<VerifyResponse> {
        client.request(
            Methods.Auth.verify, VerifyRequest(token: token), deadline: deadline
        )
        .catch { error in
            let code = (error as? RemoteError)?.code
            if code == .unauthenticated || code == .badRequest {
                return .error(
                    RemoteError(code: .unauthenticated, message: "invalid or expired session token"))
            }
            return .error(
                RemoteError(code: .unavailable, message: "auth-service cannot verify the token now: \(error)")
            )
        }
    }
}

/// A verifier with a fixed set of valid tokens, for tests and benchmarks.
public final class StubTokenVerifier: TokenVerifier {
    private let state: Mutex<(valid: [String: String], reachable: Bool, calls: Int)>

    /// A verifier that accepts `valid` (token → user name).
    public init(valid: [String: String] = [:]) {
        state = Mutex((valid, true, 0))
    }

    /// Makes `token` valid for `user`.
    public func accept(_ token: String, user: String) { state.withLock { $0.valid[token] = user } }

    /// Makes `token` invalid (as a logout would).
    public func revoke(_ token: String) { _ = state.withLock { $0.valid.removeValue(forKey: token) } }

    /// Whether verifications succeed at all (false: every one fails with `unavailable`).
    public func setReachable(_ reachable: Bool) { state.withLock { $0.reachable = reachable } }

    /// How many verifications were asked for.
    public var calls: Int { state.withLock { $0.calls } }

    public func verify(_ token: String) -> Single<VerifyResponse> {
        let outcome = state.withLock { state -> Result<VerifyResponse, RemoteError> in
            state.calls += 1
            guard state.reachable else {
                return .failure(RemoteError(code: .unavailable, message: "auth is unreachable (stub)"))
            }
            guard let user = state.valid[token] else {
                return .failure(
                    RemoteError(code: .unauthenticated, message: "invalid or expired session token"))
            }
            return .success(VerifyResponse(name: user, expiresAt: Int64.max))
        }
        switch outcome {
        case .success(let response): return .just(response)
        case .failure(let error): return .error(error)
        }
    }
}

/// Remembers valid tokens for a while, so that most calls need no `auth.verify`: a token is trusted
/// for `lifetime` after auth-service last said it was valid, so a revoked token stops working within
/// `lifetime`. Failures are not remembered (a token auth could not check is checked again next time).
public final class CachingTokenVerifier: TokenVerifier {
    private struct Entry {
        let answer: VerifyResponse
        let until: ContinuousClock.Instant
    }

    private let upstream: any TokenVerifier
    private let lifetime: Duration
    private let capacity: Int
    private let now: @Sendable () -> ContinuousClock.Instant
    private let entries = Mutex<[String: Entry]>([:])
    private let counts = Mutex<(hits: Int, misses: Int)>((0, 0))

    /// A cache in front of `upstream` that trusts an answer for `lifetime` (zero: never cached),
    /// holds at most `capacity` tokens, and reads the time from `now`.
    public init(
        _ upstream: any TokenVerifier, lifetime: Duration, capacity: Int = 100_000,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        self.upstream = upstream
        self.lifetime = lifetime
        self.capacity = max(1, capacity)
        self.now = now
    }

    /// Verifications answered from the cache, and those that asked upstream.
    public var statistics: (hits: Int, misses: Int) { counts.withLock { $0 } }

    public func verify(_ token: String) -> Single<VerifyResponse> {
        let time = now()
        let cached = entries.withLock { entries -> VerifyResponse? in
            guard let entry = entries[token] else { return nil }
            if entry.until > time { return entry.answer }
            entries[token] = nil
            return nil
        }
        if let cached {
            counts.withLock { $0.hits += 1 }
            return .just(cached)
        }
        counts.withLock { $0.misses += 1 }
        guard lifetime > .zero else { return upstream.verify(token) }
        return upstream.verify(token).do(onSuccess: { [self] response in
            remember(token, response)
        })
    }

    private func remember(_ token: String, _ answer: VerifyResponse) {
        let time = now()
        let until = time + lifetime
        entries.withLock { entries in
            if entries.count >= capacity {
                entries = entries.filter { $0.value.until > time }
                if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            }
            entries[token] = Entry(answer: answer, until: until)
        }
    }
}
