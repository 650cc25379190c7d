import Foundation
import Reactive
import RemoteProtocol
import Synchronization
import TestSupport
import Testing

@testable import AuthCore

/// The stores the contract runs against.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres

    var testDescription: String { rawValue }
}

/// Runs `body` with a store on a fresh database of `backend` (a temp SQLite file, or a throwaway
/// PostgreSQL cluster), then closes the store and removes the database.
func withFreshStore(
    _ backend: Backend, report: @escaping @Sendable (String) -> Void = { _ in },
    _ body: (any AccountStore) async throws -> Void
) async throws {
    switch backend {
    case .sqlite:
        let file = try TemporaryDatabase()
        defer { file.remove() }
        let store = try await file.open(report: report)
        do {
            try await body(store)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    case .postgres:
        let cluster = try await PostgresCluster.start()
        do {
            let store = try await PostgresAccountStore(configuration: .init(url: cluster.url), report: report)
            do {
                try await body(store)
            } catch {
                await store.close()
                throw error
            }
            await store.close()
        } catch {
            await cluster.remove()
            throw error
        }
        await cluster.remove()
    }
}

/// What every ``AccountStore`` that auth-service runs on keeps: SQLite and PostgreSQL alike.
@Suite("AccountStore contract", .timeLimit(.minutes(1)))
struct AccountStoreContractTests {
    let digest = [UInt8](repeating: 7, count: 32)
    /// The wall clock now, in seconds: expiry is checked by the caller's clock (SQLite) or the
    /// database's (PostgreSQL), which agree on this machine to well within the margins used here.
    var now: Int64 { Int64(Date().timeIntervalSince1970) }

    @Test("create, taken by the unique constraint, lookups and exists", arguments: Backend.allCases)
    func accounts(_ backend: Backend) async throws {
        try await withFreshStore(backend) { store in
            guard
                case .created(let alice) = try await store.createAccount(
                    username: "alice1", passwordHash: "$h1", createdAt: 10
                ).value
            else { throw RemoteError(code: .internal, message: "not created") }
            #expect(
                try await store.createAccount(username: "alice1", passwordHash: "$h2", createdAt: 11).value
                    == .taken)
            guard
                case .created(let bob) = try await store.createAccount(
                    username: "bob123", passwordHash: "$h3", createdAt: 12
                ).value
            else { throw RemoteError(code: .internal, message: "not created") }
            #expect(alice != bob)
            #expect(
                try await store.account(named: "alice1").value
                    == StoredAccount(id: alice, username: "alice1", passwordHash: "$h1"))
            #expect(try await store.account(named: "ALICE1").value == nil)
            #expect(try await store.account(named: "nobody").value == nil)
            #expect(try await store.exists(username: "bob123").value)
            #expect(!(try await store.exists(username: "nobody").value))
        }
    }

    @Test("sessions: add, look up until expiry, revoke once, remove the expired", arguments: Backend.allCases)
    func sessions(_ backend: Backend) async throws {
        try await withFreshStore(backend) { store in
            guard
                case .created(let id) = try await store.createAccount(
                    username: "alice1", passwordHash: "$h", createdAt: 0
                ).value
            else { throw RemoteError(code: .internal, message: "not created") }
            let live = now + 3_600
            try await store.addSession(digest: digest, accountID: id, expiresAt: live).value
            #expect(
                try await store.session(digest: digest, now: now).value
                    == StoredSession(username: "alice1", expiresAt: live))
            #expect(try await store.session(digest: [1, 2, 3], now: now).value == nil)
            #expect(try await store.revokeSession(digest: digest, now: now).value)
            #expect(!(try await store.revokeSession(digest: digest, now: now).value))
            #expect(try await store.session(digest: digest, now: now).value == nil)

            for (index, expiry) in [now - 30, now - 20, now + 3_600].enumerated() {
                try await store.addSession(digest: [UInt8(index)], accountID: id, expiresAt: expiry).value
            }
            #expect(try await store.session(digest: [0], now: now).value == nil)  // expired
            // Expired: removed, but not a live session revoked.
            #expect(!(try await store.revokeSession(digest: [0], now: now).value))
            #expect(try await store.removeExpiredSessions(now: now).value == 1)
            #expect(try await store.removeExpiredSessions(now: now).value == 0)
            #expect(try await store.session(digest: [2], now: now).value?.username == "alice1")
        }
    }

    @Test(
        "a write that breaks a constraint fails alone with a storage error and is reported",
        arguments: Backend.allCases)
    func failedWrite(_ backend: Backend) async throws {
        let reports = Mutex<[String]>([])
        try await withFreshStore(backend, report: { message in reports.withLock { $0.append(message) } }) {
            store in
            do {
                try await store.addSession(digest: digest, accountID: 42, expiresAt: now + 100).value
                Issue.record("a session of no account was stored")
            } catch let error as RemoteError {
                #expect(error.code == .internal)
            }
            #expect(reports.withLock { $0.count } == 1)
            guard
                case .created = try await store.createAccount(
                    username: "alice1", passwordHash: "$h", createdAt: 0
                ).value
            else {
                Issue.record("the next write failed too")
                return
            }
        }
    }

    @Test(
        "a registration repeated with its key answers the original account; other keys and none are taken",
        arguments: Backend.allCases)
    func registrationKey(_ backend: Backend) async throws {
        try await withFreshStore(backend) { store in
            let first = try await store.createAccount(
                username: "alice1", passwordHash: "$h1", createdAt: 0, registrationKey: "key-1"
            ).value
            guard case .created(let id) = first else {
                throw RemoteError(code: .internal, message: "not created")
            }
            // The answer was lost; the client sends the same registration again (hashed anew).
            #expect(
                try await store.createAccount(
                    username: "alice1", passwordHash: "$h2", createdAt: 1, registrationKey: "key-1"
                ).value == .repeated(id: id))
            #expect(
                try await store.createAccount(
                    username: "alice1", passwordHash: "$h3", createdAt: 2, registrationKey: "key-2"
                ).value == .taken)
            #expect(
                try await store.createAccount(username: "alice1", passwordHash: "$h4", createdAt: 3).value
                    == .taken)
            // The key belongs to the name it registered: on another name it is an ordinary registration.
            guard
                case .created = try await store.createAccount(
                    username: "bob123", passwordHash: "$h5", createdAt: 4, registrationKey: "key-1"
                ).value
            else { throw RemoteError(code: .internal, message: "not created") }
            #expect(try await store.account(named: "alice1").value?.passwordHash == "$h1")
        }
    }
}
