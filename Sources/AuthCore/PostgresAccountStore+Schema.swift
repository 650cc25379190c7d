import Postgres

extension PostgresAccountStore {
    /// The key of the advisory lock migrations run under.
    public static let migrationLock: Int64 = 0x524C_6F67_696E_0001
    /// The key of the advisory lock the expired-session sweep runs under.
    public static let sweepLock: Int64 = 0x524C_6F67_696E_0002

    /// The schema's migrations, by version: each runs once, in a transaction with its row in
    /// `schema_migrations`.
    public static let migrations: [(version: Int, sql: String)] = [
        (
            1,
            """
            CREATE TABLE accounts (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                username text NOT NULL UNIQUE,
                password_hash text NOT NULL,
                created_at bigint NOT NULL,
                registration_key text
            );
            CREATE TABLE sessions (
                digest bytea PRIMARY KEY,
                account_id bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                expires_at bigint NOT NULL
            );
            CREATE INDEX sessions_by_expiry ON sessions (expires_at);
            CREATE INDEX sessions_by_account ON sessions (account_id);
            """
        ),
        (2, PostgresLoginThrottle.schema),
        (3, PostgresLoginThrottle.policySchema),
    ]

    static let createAccount = PreparedStatement(
        "auth_create_account",
        """
        WITH inserted AS (
            INSERT INTO accounts (username, password_hash, created_at, registration_key)
            VALUES ($1, $2, $3, $4) ON CONFLICT (username) DO NOTHING RETURNING id)
        SELECT id, true FROM inserted
        UNION ALL
        SELECT id, false FROM accounts
        WHERE username = $1 AND registration_key = $4 AND NOT EXISTS (SELECT 1 FROM inserted)
        """)
    static let registered = PreparedStatement(
        "auth_registered", "SELECT id FROM accounts WHERE username = $1 AND registration_key = $2")
    static let account = PreparedStatement(
        "auth_account", "SELECT id, password_hash FROM accounts WHERE username = $1")
    static let exists = PreparedStatement(
        "auth_exists", "SELECT EXISTS (SELECT 1 FROM accounts WHERE username = $1)")
    static let addSession = PreparedStatement(
        "auth_add_session",
        """
        INSERT INTO sessions (digest, account_id, expires_at) VALUES ($1, $2, $3)
        ON CONFLICT (digest) DO UPDATE SET account_id = excluded.account_id, expires_at = excluded.expires_at
        """)
    static let session = PreparedStatement(
        "auth_session",
        """
        SELECT accounts.username, sessions.expires_at FROM sessions
        JOIN accounts ON accounts.id = sessions.account_id
        WHERE sessions.digest = $1 AND sessions.expires_at > extract(epoch FROM now())
        """)
    static let revokeSession = PreparedStatement(
        "auth_revoke_session",
        """
        WITH removed AS (DELETE FROM sessions WHERE digest = $1 RETURNING expires_at)
        SELECT coalesce(bool_or(expires_at > extract(epoch FROM now())), false) FROM removed
        """)
    static let removeExpired = PreparedStatement(
        "auth_remove_expired",
        """
        WITH sweeper AS (SELECT pg_try_advisory_xact_lock(\(sweepLock)) AS held),
        removed AS (
            DELETE FROM sessions
            WHERE expires_at <= extract(epoch FROM now()) AND (SELECT held FROM sweeper)
            RETURNING 1)
        SELECT count(*) FROM removed
        """)
}
