public import Reactive
import Synchronization

/// An ``AccountStore`` in memory, for unit tests of the service's logic: answers synchronously, on
/// the caller's thread. Optionally holds every answer until ``release()`` (to test what happens
/// while a store call is in flight).
public final class InMemoryAccountStore: AccountStore {
    private struct State: Sendable {
        var accounts: [String: StoredAccount] = [:]
        var registrationKeys: [String: String] = [:]
        var sessions: [[UInt8]: (accountID: Int64, expiresAt: Int64)] = [:]
        var nextID: Int64 = 1
        var holding = false
        var held: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())

    /// An empty store.
    public init() {}

    /// From now on, answers wait until ``release()``.
    public func hold() { state.withLock { $0.holding = true } }

    /// Delivers the held answers and stops holding.
    public func release() {
        let held = state.withLock { state in
            state.holding = false
            defer { state.held = [] }
            return state.held
        }
        for answer in held { answer() }
    }

    /// The number of answers held now (waiting for ``release()``).
    public var heldCount: Int { state.withLock { $0.held.count } }

    /// The number of accounts.
    public var accountCount: Int { state.withLock { $0.accounts.count } }

    /// The number of sessions stored (live or expired).
    public var sessionCount: Int { state.withLock { $0.sessions.count } }

    private func answer<T: Sendable>(_ work: @escaping @Sendable (inout State) -> T) -> Single<T> {
        Single.create { [self] done in
            let deliver: @Sendable () -> Void = { done(.success(self.state.withLock { work(&$0) })) }
            let now = self.state.withLock { state -> Bool in
                if state.holding { state.held.append(deliver) }
                return !state.holding
            }
            if now { deliver() }
            return Disposables.create()
        }
    }

    public func createAccount(
        username: String, passwordHash: String, createdAt: Int64, registrationKey: String?
    )
        -> Single<AccountCreation>
    {
        answer { state in
            if let existing = state.accounts[username] {
                guard let registrationKey, state.registrationKeys[username] == registrationKey else {
                    return .taken
                }
                return .repeated(id: existing.id)
            }
            let id = state.nextID
            state.nextID += 1
            state.accounts[username] = StoredAccount(id: id, username: username, passwordHash: passwordHash)
            state.registrationKeys[username] = registrationKey
            return .created(id: id)
        }
    }

    public func account(named username: String) -> Single<StoredAccount?> {
        answer { state in state.accounts[username] }
    }

    public func exists(username: String) -> Single<Bool> {
        answer { state in state.accounts[username] != nil }
    }

    public func addSession(digest: [UInt8], accountID: Int64, expiresAt: Int64) -> Single<Void> {
        answer { state in state.sessions[digest] = (accountID, expiresAt) }
    }

    public func session(digest: [UInt8], now: Int64) -> Single<StoredSession?> {
        answer { state in
            guard let session = state.sessions[digest], session.expiresAt > now,
                let account = state.accounts.values.first(where: { $0.id == session.accountID })
            else { return nil }
            return StoredSession(username: account.username, expiresAt: session.expiresAt)
        }
    }

    public func revokeSession(digest: [UInt8], now: Int64) -> Single<Bool> {
        answer { state in
            guard let session = state.sessions.removeValue(forKey: digest) else { return false }
            return session.expiresAt > now
        }
    }

    public func removeExpiredSessions(now: Int64) -> Single<Int> {
        answer { state in
            let expired = state.sessions.filter { $0.value.expiresAt <= now }.map(\.key)
            for digest in expired { state.sessions[digest] = nil }
            return expired.count
        }
    }
}
