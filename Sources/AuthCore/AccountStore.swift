public import Reactive

/// An account as stored.
public struct StoredAccount: Sendable, Hashable {
    /// The row id.
    public let id: Int64
    /// The normalized username.
    public let username: String
    /// The argon2id PHC string.
    public let passwordHash: String

    /// An account.
    public init(id: Int64, username: String, passwordHash: String) {
        self.id = id
        self.username = username
        self.passwordHash = passwordHash
    }
}

/// A live session, found by its token's digest.
public struct StoredSession: Sendable, Hashable {
    /// The account's username.
    public let username: String
    /// When it expires, in seconds since 1970.
    public let expiresAt: Int64

    /// A session.
    public init(username: String, expiresAt: Int64) {
        self.username = username
        self.expiresAt = expiresAt
    }
}

/// What creating an account did.
public enum AccountCreation: Sendable, Hashable {
    /// Created (and durable when the store says so) with this id.
    case created(id: Int64)
    /// The username was taken: the store's unique constraint refused it.
    case taken
    /// The username was taken by an earlier registration with the same registration key: this is
    /// a repeat of that registration (its answer was lost), which stays the one account, `id`.
    case repeated(id: Int64)
}

/// Where accounts and sessions live. Every call answers once, as a `Single`, on the store's own
/// thread; a store that cannot take more work fails the call with `overloaded` at once.
///
/// Writes (``createAccount(username:passwordHash:createdAt:registrationKey:)``, ``addSession(digest:accountID:expiresAt:)``,
/// ``revokeSession(digest:)``) answer only once they are committed, so an acknowledged registration
/// survives a crash.
public protocol AccountStore: Sendable {
    /// Creates an account; `.taken` when the username exists, `.repeated` when it exists because
    /// of an earlier call with the same non-nil `registrationKey` (the key is stored with the
    /// account).
    func createAccount(username: String, passwordHash: String, createdAt: Int64, registrationKey: String?)
        -> Single<AccountCreation>
    /// The account named `username`, if any.
    func account(named username: String) -> Single<StoredAccount?>
    /// Whether an account named `username` exists.
    func exists(username: String) -> Single<Bool>
    /// Stores a session: a token's digest, its account and its expiry.
    func addSession(digest: [UInt8], accountID: Int64, expiresAt: Int64) -> Single<Void>
    /// The session with this token digest if it has not expired at `now` (a store shared by several
    /// processes may use its own clock instead: ``PostgresAccountStore``).
    func session(digest: [UInt8], now: Int64) -> Single<StoredSession?>
    /// Revokes a session; true when a live one was removed.
    func revokeSession(digest: [UInt8], now: Int64) -> Single<Bool>
    /// Deletes sessions that expired before `now`; answers how many.
    func removeExpiredSessions(now: Int64) -> Single<Int>
}

extension AccountStore {
    /// Creates an account without a registration key.
    public func createAccount(username: String, passwordHash: String, createdAt: Int64) -> Single<
        AccountCreation
    > {
        createAccount(
            username: username, passwordHash: passwordHash, createdAt: createdAt, registrationKey: nil)
    }
}
