import Foundation
import Reactive
import RemoteProtocol
import SQLite
import Synchronization
import Testing

@testable import AuthCore

/// A fresh temporary directory holding the store's database, removed by ``remove()``.
struct TemporaryDatabase {
    let directory: URL
    var path: String { directory.appendingPathComponent("auth.sqlite").path }

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("auth-store-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// Opens the store on this database.
    func open(
        writeQueueCapacity: Int = 4_096, report: @escaping @Sendable (String) -> Void = { _ in }
    ) async throws -> SQLiteAccountStore {
        try await SQLiteAccountStore(
            configuration: .init(path: path, writeQueueCapacity: writeQueueCapacity), report: report)
    }

    /// Another connection to the same file.
    func connection() throws -> Database { try Database(.file(path)) }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

/// Outcomes of Singles subscribed to at once, collected as they arrive.
final class Outcomes<T: Sendable>: Sendable {
    private let results = Mutex<[Int: Result<T, any Error>]>([:])
    private let arrivals: AsyncStream<Void>
    private let arrived: AsyncStream<Void>.Continuation

    init() { (arrivals, arrived) = AsyncStream.makeStream(of: Void.self) }

    /// Subscribes to `single` now, recording its outcome under `index`.
    func subscribe(_ index: Int, _ single: Single<T>) {
        _ = single.subscribe { [self] outcome in
            results.withLock { $0[index] = outcome }
            arrived.yield()
        }
    }

    /// Waits for `count` outcomes (the suite's time limit is the deadline) and returns them all.
    func wait(for count: Int) async -> [Int: Result<T, any Error>] {
        var iterator = arrivals.makeAsyncIterator()
        while results.withLock({ $0.count }) < count { _ = await iterator.next() }
        return results.withLock { $0 }
    }

    /// The outcomes so far.
    var now: [Int: Result<T, any Error>] { results.withLock { $0 } }
}

/// Waits until `condition` holds, yielding between checks, for at most ten seconds.
private func eventually(_ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(10)
    while !condition() {
        if ContinuousClock.now > deadline { return false }
        await Task.yield()
    }
    return true
}

/// The SQLite store on a temporary file: durability, group commit, overload (the contract both stores
/// keep is in AccountStoreContractTests).
@Suite("SQLiteAccountStore", .timeLimit(.minutes(1)))
struct SQLiteAccountStoreTests {
    let digest = [UInt8](repeating: 7, count: 32)

    @Test("a database that cannot be opened fails the initializer")
    func unopenable() async throws {
        let file = try TemporaryDatabase()
        defer { file.remove() }
        let path = file.directory.appendingPathComponent("missing/auth.sqlite").path
        await #expect(throws: SQLiteError.self) {
            _ = try await SQLiteAccountStore(configuration: .init(path: path))
        }
    }

    @Test("data survives close and reopen; the schema is at version 2 and not migrated again")
    func reopen() async throws {
        let file = try TemporaryDatabase()
        defer { file.remove() }
        var store = try await file.open()
        _ = try await store.createAccount(username: "alice1", passwordHash: "$h", createdAt: 0).value
        try await store.addSession(digest: digest, accountID: 1, expiresAt: 100).value
        await store.close()

        store = try await file.open()
        #expect(try await store.account(named: "alice1").value?.passwordHash == "$h")
        #expect(try await store.session(digest: digest, now: 0).value?.username == "alice1")
        #expect(
            try await store.createAccount(username: "alice1", passwordHash: "$x", createdAt: 1).value
                == .taken)
        await store.close()

        #expect(SQLiteAccountStore.migrator.latestVersion == 2)
        let database = try file.connection()
        #expect(try Migrator.version(of: database) == 2)
        #expect(try database.query("PRAGMA journal_mode").first?.get(0, as: String.self) == "wal")
        database.close()
    }

    @Test("writes submitted together are committed in groups, each answered")
    func groupCommit() async throws {
        let file = try TemporaryDatabase()
        defer { file.remove() }
        let store = try await file.open()
        // Another connection holds the write lock, so the writer waits on its first group while the
        // rest queue up behind it.
        let blocker = try file.connection()
        try blocker.execute("BEGIN IMMEDIATE")
        let outcomes = Outcomes<AccountCreation>()
        for index in 0..<200 {
            outcomes.subscribe(
                index, store.createAccount(username: "user\(index)", passwordHash: "$h", createdAt: 0))
        }
        try blocker.execute("COMMIT")
        blocker.close()

        let results = await outcomes.wait(for: 200)
        let ids = Set(
            results.values.compactMap { result -> Int64? in
                if case .success(.created(let id)) = result { return id }
                return nil
            })
        #expect(ids.count == 200)
        let counters = store.counters
        #expect(counters.writes == 200)
        #expect(counters.commits < 200)
        #expect(counters.commits <= 2)
        #expect(counters.largestGroup > 1)
        await store.close()
    }

    @Test("in one group, a duplicate and a failing write fail alone; the others commit")
    func failuresInAGroup() async throws {
        let file = try TemporaryDatabase()
        defer { file.remove() }
        let store = try await file.open()
        let blocker = try file.connection()
        try blocker.execute("BEGIN IMMEDIATE")
        let first = Outcomes<AccountCreation>()
        first.subscribe(0, store.createAccount(username: "first1", passwordHash: "$h", createdAt: 0))
        #expect(await eventually { store.writer.queued == 0 })  // taken, and waiting for the lock

        let accounts = Outcomes<AccountCreation>()
        let sessions = Outcomes<Void>()
        accounts.subscribe(0, store.createAccount(username: "alice1", passwordHash: "$a", createdAt: 0))
        sessions.subscribe(0, store.addSession(digest: digest, accountID: 999, expiresAt: 100))  // no account
        accounts.subscribe(1, store.createAccount(username: "alice1", passwordHash: "$b", createdAt: 0))
        accounts.subscribe(2, store.createAccount(username: "carol1", passwordHash: "$c", createdAt: 0))
        #expect(store.writer.queued == 4)
        try blocker.execute("COMMIT")
        blocker.close()

        _ = await first.wait(for: 1)
        let results = await accounts.wait(for: 3)
        let session = await sessions.wait(for: 1)
        #expect(try results[0]?.get() == .created(id: 2))
        #expect(try results[1]?.get() == .taken)
        #expect(try results[2]?.get() == .created(id: 3))
        #expect((try? session[0]?.get()) == nil)
        #expect(store.counters.commits == 2)
        #expect(store.counters.largestGroup == 4)
        #expect(try await store.account(named: "alice1").value?.passwordHash == "$a")
        #expect(try await store.exists(username: "carol1").value)
        await store.close()
    }

    @Test("a full write queue answers overloaded at once")
    func overloaded() async throws {
        let file = try TemporaryDatabase()
        defer { file.remove() }
        let store = try await file.open(writeQueueCapacity: 2)
        let blocker = try file.connection()
        try blocker.execute("BEGIN IMMEDIATE")
        let outcomes = Outcomes<AccountCreation>()
        outcomes.subscribe(0, store.createAccount(username: "user00", passwordHash: "$h", createdAt: 0))
        #expect(await eventually { store.writer.queued == 0 })  // the writer holds it, waiting
        outcomes.subscribe(1, store.createAccount(username: "user01", passwordHash: "$h", createdAt: 0))
        outcomes.subscribe(2, store.createAccount(username: "user02", passwordHash: "$h", createdAt: 0))
        outcomes.subscribe(3, store.createAccount(username: "user03", passwordHash: "$h", createdAt: 0))
        // Answered synchronously, before the lock is released.
        let refused = try #require(outcomes.now[3])
        #expect(throws: SQLiteAccountStore.overloaded) { try refused.get() }
        #expect(outcomes.now.count == 1)
        try blocker.execute("COMMIT")
        blocker.close()

        let results = await outcomes.wait(for: 4)
        for index in 0..<3 { #expect((try? results[index]?.get()) != nil) }
        #expect(!(try await store.exists(username: "user03").value))
        await store.close()
    }

    @Test("close commits the queued writes first; afterwards calls are refused")
    func closeCommitsQueued() async throws {
        let file = try TemporaryDatabase()
        defer { file.remove() }
        var store = try await file.open()
        let outcomes = Outcomes<AccountCreation>()
        for index in 0..<50 {
            outcomes.subscribe(
                index, store.createAccount(username: "user\(index)xx", passwordHash: "$h", createdAt: 0))
        }
        await store.close()
        let results = outcomes.now  // every write was answered before close returned
        #expect(results.count == 50)
        #expect(results.values.allSatisfy { (try? $0.get()) != nil })
        await #expect(throws: SQLiteAccountStore.overloaded) {
            try await store.createAccount(username: "late-user", passwordHash: "$h", createdAt: 0).value
        }

        store = try await file.open()
        for index in 0..<50 { #expect(try await store.exists(username: "user\(index)xx").value) }
        await store.close()
    }
}
