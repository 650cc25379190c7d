import Sodium
import Testing

@testable import Argon2

@Suite("Argon2id in Swift against RFC 9106 and libsodium", .timeLimit(.minutes(1)))
struct Argon2idTests {
    @Test(
        "RFC 9106, 5.3: the Argon2id test vector (m=32 KiB, t=3, p=4, secret, associated data)",
        arguments: Argon2Kernel.supported)
    func rfcVector(kernel: Argon2Kernel) throws {
        let workspace = try Argon2Workspace(memoryKiB: 32, kernel: kernel)
        let tag = try workspace.hash(
            password: [UInt8](repeating: 1, count: 32), salt: [UInt8](repeating: 2, count: 16),
            parameters: Argon2Parameters(passes: 3, memoryKiB: 32, lanes: 4), tagLength: 32,
            secret: [UInt8](repeating: 3, count: 8), associatedData: [UInt8](repeating: 4, count: 12))
        #expect(hex(tag) == "0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659")
    }

    @Test(
        "the reference implementation's PHC vector verifies; a wrong password does not",
        arguments: Argon2Kernel.supported)
    func referenceString(kernel: Argon2Kernel) throws {
        let workspace = try Argon2Workspace(memoryKiB: 256, kernel: kernel)
        let vector = "$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4"
        #expect(try workspace.verify(password: Array("password".utf8), against: vector))
        #expect(try !workspace.verify(password: Array("passwore".utf8), against: vector))
    }

    @Test(
        "raw output equals libsodium's crypto_pwhash over random passwords, salts and costs",
        arguments: Argon2Kernel.supported)
    func rawMatchesLibsodium(kernel: Argon2Kernel) throws {
        let workspace = try Argon2Workspace(memoryKiB: 256, kernel: kernel)
        var generator = SystemRandomNumberGenerator()
        let rounds = kernel == .portable ? 500 : 3000
        for _ in 0..<rounds {
            let password = randomBytes(Int.random(in: 0...80, using: &generator), &generator)
            let salt = randomBytes(16, &generator)
            let passes = UInt32.random(in: 1...3, using: &generator)
            let memory = UInt32.random(in: 8...256, using: &generator)
            let length = Int.random(in: 16...100, using: &generator)
            let expected = try Argon2id.derive(
                length: length, password: password, salt: salt,
                cost: Argon2id.Cost(opsLimit: UInt64(passes), memLimit: Int(memory) * 1024))
            let tag = try workspace.hash(
                password: password, salt: salt,
                parameters: Argon2Parameters(passes: passes, memoryKiB: memory),
                tagLength: length)
            #expect(tag == expected, "m=\(memory) t=\(passes) length \(length)")
        }
    }

    @Test(
        "PHC strings: each side verifies the other's, ours re-encode libsodium's byte for byte",
        arguments: Argon2Kernel.supported)
    func stringsBothWays(kernel: Argon2Kernel) throws {
        let workspace = try Argon2Workspace(memoryKiB: 128, kernel: kernel)
        var generator = SystemRandomNumberGenerator()
        let rounds = kernel == .portable ? 300 : 1500
        for _ in 0..<rounds {
            let password = randomBytes(Int.random(in: 0...64, using: &generator), &generator)
            var wrong = password
            if wrong.isEmpty {
                wrong = [0]
            } else {
                wrong[Int.random(in: wrong.indices, using: &generator)] ^= 1
            }
            let cost = try Argon2id.Cost(
                opsLimit: UInt64.random(in: 1...3, using: &generator),
                memLimit: Int.random(in: 8...128, using: &generator) * 1024)
            // libsodium's string, checked here.
            let theirs = try Argon2id.hash(password: password, cost: cost)
            #expect(try workspace.verify(password: password, against: theirs))
            #expect(try !workspace.verify(password: wrong, against: theirs))
            let parsed = try PHCString(parsing: theirs)
            #expect(parsed.description == theirs)
            let again = try workspace.hash(
                password: password, salt: parsed.salt, parameters: parsed.parameters)
            #expect(
                PHCString(parameters: parsed.parameters, salt: parsed.salt, tag: again).description == theirs)
            // Ours, checked by libsodium.
            let ours = try workspace.hashString(
                password: password,
                parameters: Argon2Parameters(passes: UInt32(cost.opsLimit), memoryKiB: UInt32(cost.memoryKiB))
            )
            #expect(Argon2id.verify(password: password, against: ours))
            #expect(!Argon2id.verify(password: wrong, against: ours))
        }
    }

    @Test("several lanes: libsodium verifies our p>1 strings", arguments: [UInt32(2), 3, 4, 8])
    func lanes(_ lanes: UInt32) throws {
        let workspace = try Argon2Workspace(memoryKiB: 256)
        let password = Array("correct horse".utf8)
        let stored = try workspace.hashString(
            password: password,
            parameters: Argon2Parameters(passes: 2, memoryKiB: 8 * lanes + 12, lanes: lanes))
        #expect(Argon2id.verify(password: password, against: stored))
        #expect(!Argon2id.verify(password: Array("correct horsf".utf8), against: stored))
        #expect(try workspace.verify(password: password, against: stored))
    }

    @Test("the memory is zero after every hash, and a hash that does not fit throws insufficientMemory")
    func wipedAndBounded() throws {
        let workspace = try Argon2Workspace(memoryKiB: 64)
        _ = try workspace.hashString(
            password: Array("secret".utf8), parameters: Argon2Parameters(passes: 2, memoryKiB: 64))
        #expect(workspace.isWiped)
        #expect {
            try workspace.hashString(password: [], parameters: Argon2Parameters(passes: 1, memoryKiB: 68))
        } throws: { ($0 as? Argon2Error)?.code == .insufficientMemory }
    }

    @Test(
        "OWASP's production cost (m=19456 KiB, t=2): libsodium's strings verify here and ours there",
        .timeLimit(.minutes(2)))
    func productionCost() throws {
        let workspace = try Argon2Workspace(memoryKiB: 19456)
        let cost = Argon2id.Cost.owasp
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<4 {
            let password = randomBytes(Int.random(in: 6...40, using: &generator), &generator)
            let theirs = try Argon2id.hash(password: password, cost: cost)
            #expect(try workspace.verify(password: password, against: theirs))
            let ours = try workspace.hashString(password: password, parameters: .owasp)
            #expect(ours.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
            #expect(Argon2id.verify(password: password, against: ours))
            #expect(!Argon2id.verify(password: password + [1], against: ours))
        }
    }
}

func randomBytes(_ count: Int, _ generator: inout SystemRandomNumberGenerator) -> [UInt8] {
    (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
}
