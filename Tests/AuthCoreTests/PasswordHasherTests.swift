import Argon2
import Sodium
import Testing

@testable import AuthCore

@Suite("PasswordHashingPool running the Swift Argon2id", .timeLimit(.minutes(1)))
struct PasswordHasherTests {
    let password = Array("correct horse battery staple".utf8)

    @Test("--argon2: auto picks our kernel only where it beats libsodium; swift and libsodium are obeyed")
    func choice() {
        #expect(Argon2Choice.auto.resolve(kernels: [.portable]).implementation == .libsodium)
        #expect(Argon2Choice.auto.resolve(kernels: [.portable, .avx2]).implementation == .swift(.avx2))
        #expect(
            Argon2Choice.auto.resolve(kernels: [.portable, .avx2, .avx512]).implementation == .swift(.avx512))
        #expect(Argon2Choice.swift.resolve(kernels: [.portable]).implementation == .swift(.portable))
        #expect(Argon2Choice.libsodium.resolve(kernels: [.portable, .avx2]).implementation == .libsodium)
        #expect(Argon2Choice.auto.resolve(kernels: [.portable]).reason.contains("no kernel faster"))
    }

    @Test("each worker owns a workspace; its strings verify with libsodium and libsodium's with it")
    func interoperates() async throws {
        let kernel = Argon2Kernel.fastest
        let pool = try PasswordHashingPool(
            workers: 2, queueCapacity: 8, implementation: .swift(kernel), cost: .test)
        #expect(pool.hashingSetup.implementation == .swift(kernel))
        #expect(pool.hashingSetup.workspaceBytes >= 8 * 1024)
        #expect(pool.hashingSetup.residentBytes == 2 * pool.hashingSetup.workspaceBytes)
        let ours = try await pool.hash(password: password, cost: .test)
        #expect(Argon2id.verify(password: password, against: ours))
        let theirs = try Argon2id.hash(password: password, cost: .test)
        #expect(try await pool.verify(password: password, against: theirs))
        #expect(try await !pool.verify(password: password + [0], against: theirs))
        #expect(try await !pool.verify(password: password, against: "$argon2id$v=19$m=8,t=1,p=1$bad"))
        // The malformed string is refused before any hashing.
        #expect(pool.counters.ownHashes == 3 && pool.counters.libsodiumHashes == 0)
        await pool.shutdown()
    }

    @Test("a string whose cost exceeds the workspace is verified by libsodium, and counted as such")
    func largerCostFallsBack() async throws {
        let pool = try PasswordHashingPool(
            workers: 1, queueCapacity: 4, implementation: .swift(.fastest), cost: .test)
        let larger = try Argon2id.hash(
            password: password, cost: Argon2id.Cost(opsLimit: 1, memLimit: 64 * 1024))
        #expect(try await pool.verify(password: password, against: larger))
        #expect(try await !pool.verify(password: [], against: larger))
        #expect(pool.counters.libsodiumHashes == 2 && pool.counters.ownHashes == 0)
        await pool.shutdown()
    }

    @Test("libsodium's pool holds no workspace")
    func libsodiumPool() async throws {
        let pool = try PasswordHashingPool(
            workers: 2, queueCapacity: 4, implementation: .libsodium, cost: .owasp)
        #expect(pool.hashingSetup == HashingSetup(implementation: .libsodium, workspaceBytes: 0, workers: 2))
        let stored = try await pool.hash(password: password, cost: .test)
        #expect(try await pool.verify(password: password, against: stored))
        #expect(pool.counters.libsodiumHashes == 2)
        await pool.shutdown()
    }
}
