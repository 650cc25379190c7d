/// One schema change: the version it brings the database to and how to get there.
public struct Migration: Sendable {
    /// The schema version after this migration (positive; stored in `PRAGMA user_version`).
    public let version: Int
    /// Applies the change; runs inside the migration's transaction.
    let apply: @Sendable (Database) throws -> Void

    /// A migration that runs an SQL script (see ``Database/execute(_:)``). The script must not open
    /// or end transactions itself.
    public init(version: Int, sql: String) {
        self.init(version: version) { database in try database.execute(sql) }
    }

    /// A migration that runs Swift code with the database (for changes that need data reshaped).
    /// The closure must not open or end transactions itself.
    public init(version: Int, _ apply: @escaping @Sendable (Database) throws -> Void) {
        self.version = version
        self.apply = apply
    }
}

/// Why ``Migrator/migrate(_:)`` did not bring a database to the latest version.
public enum MigrationError: Error, Sendable, CustomStringConvertible {
    /// The database was written by a newer binary: its schema version is above every known one.
    /// Nothing was changed; running older code against it could corrupt its data.
    case databaseIsNewer(databaseVersion: Int, latestKnown: Int)
    /// The migration to `version` threw `underlying`; its transaction was rolled back, so the
    /// database is at the previous version, with earlier migrations applied.
    case failed(version: Int, underlying: any Error)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .databaseIsNewer(let databaseVersion, let latestKnown):
            "the database has schema version \(databaseVersion); this program knows up to \(latestKnown)"
        case .failed(let version, let underlying):
            "migration to schema version \(version) failed: \(underlying)"
        }
    }
}

/// Brings a database's schema to the latest version, one migration at a time.
///
/// The version lives in the database itself (`PRAGMA user_version`, 0 for a new file). Each pending
/// migration runs in its own `IMMEDIATE` transaction together with the version update, so a crash or
/// a failing migration leaves the database at the last completed version. Migrating again is a no-op,
/// and two processes migrating one file at once apply each migration once.
///
/// ```swift
/// let migrator = Migrator([
///     Migration(version: 1, sql: "CREATE TABLE account (id INTEGER PRIMARY KEY, username TEXT UNIQUE)"),
///     Migration(version: 2, sql: "ALTER TABLE account ADD COLUMN created_at INTEGER"),
/// ])
/// try migrator.migrate(database)
/// ```
public struct Migrator: Sendable {
    /// The migrations, in increasing version order.
    public let migrations: [Migration]

    /// Creates a migrator. Versions must be positive, fit `PRAGMA user_version` (32 bits) and
    /// strictly increase (a programming error otherwise, which stops the program).
    public init(_ migrations: [Migration]) {
        let versions = migrations.map(\.version)
        precondition(zip([0] + versions, versions).allSatisfy(<), "versions must be positive and increase")
        precondition((versions.last ?? 0) <= Int(Int32.max), "versions must fit in 32 bits")
        self.migrations = migrations
    }

    /// The version the migrations bring a database to (0 without migrations).
    public var latestVersion: Int { migrations.last?.version ?? 0 }

    /// The schema version recorded in `database` (`PRAGMA user_version`).
    public static func version(of database: Database) throws(SQLiteError) -> Int {
        try database.query("PRAGMA user_version").first?.get(0) ?? 0
    }

    /// Applies every migration above the database's version, in order, and returns the versions
    /// applied (empty when the schema was already current). Call it outside any transaction.
    ///
    /// - Throws: ``MigrationError/databaseIsNewer(databaseVersion:latestKnown:)`` before changing
    ///   anything when the database is ahead of this program;
    ///   ``MigrationError/failed(version:underlying:)`` when a migration throws (the ones before it
    ///   stay applied); ``SQLiteError`` when a transaction cannot begin or commit.
    @discardableResult
    public func migrate(_ database: Database) throws -> [Int] {
        let latest = latestVersion
        let initial = try Self.version(of: database)
        guard initial <= latest else {
            throw MigrationError.databaseIsNewer(databaseVersion: initial, latestKnown: latest)
        }
        var applied: [Int] = []
        for migration in migrations where migration.version > initial {
            let didApply = try database.transaction(.immediate) { () throws -> Bool in
                // Read again under the write lock: another process may have migrated meanwhile.
                let current = try Self.version(of: database)
                guard current <= latest else {
                    throw MigrationError.databaseIsNewer(databaseVersion: current, latestKnown: latest)
                }
                guard current < migration.version else { return false }
                do {
                    try migration.apply(database)
                } catch {
                    throw MigrationError.failed(version: migration.version, underlying: error)
                }
                try database.execute("PRAGMA user_version = \(migration.version)")
                return true
            }
            if didApply { applied.append(migration.version) }
        }
        return applied
    }
}
