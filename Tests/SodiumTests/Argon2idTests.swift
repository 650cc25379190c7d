import Sodium
import Testing

@Suite("Argon2id", .timeLimit(.minutes(1)))
struct Argon2idTests {
    let password = Array("correct horse battery staple".utf8)

    @Test("hash and verify round trip at the test cost; a wrong password is false")
    func roundTrip() throws {
        let stored = try Argon2id.hash(password: password, cost: .test)
        #expect(Argon2id.verify(password: password, against: stored))
        #expect(!Argon2id.verify(password: Array("correct horse battery stapl".utf8), against: stored))
        #expect(!Argon2id.verify(password: [], against: stored))
    }

    @Test("two hashes of one password differ (fresh salt) and both verify")
    func freshSalt() throws {
        let first = try Argon2id.hash(password: password, cost: .test)
        let second = try Argon2id.hash(password: password, cost: .test)
        #expect(first != second)
        #expect(Argon2id.verify(password: password, against: second))
    }

    @Test("an empty password hashes and verifies")
    func emptyPassword() throws {
        let stored = try Argon2id.hash(password: [], cost: .test)
        #expect(Argon2id.verify(password: [], against: stored))
        #expect(!Argon2id.verify(password: [0], against: stored))
    }

    @Test("one round trip at OWASP's cost, in the standard PHC format")
    func owaspRoundTrip() throws {
        let stored = try Argon2id.hash(password: password, cost: .owasp)
        #expect(stored.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
        #expect(Argon2id.verify(password: password, against: stored))
        #expect(try Argon2id.cost(of: stored) == .owasp)
    }

    @Test("the PHC string: prefix, 16-byte salt, 32-byte hash, and its cost parsed back")
    func phcFormat() throws {
        let stored = try Argon2id.hash(password: password, cost: .test)
        let fields = stored.split(separator: "$", omittingEmptySubsequences: false)
        #expect(fields.count == 6)
        #expect(fields[1] == "argon2id" && fields[2] == "v=19" && fields[3] == "m=8,t=1,p=1")
        #expect(fields[4].count == 22)  // 16 bytes, unpadded Base64
        #expect(fields[5].count == 43)  // 32 bytes, unpadded Base64
        #expect(try Argon2id.cost(of: stored) == .test)
        #expect(Argon2id.Cost.test.description == "m=8,t=1,p=1")
    }

    @Test("needsRehash is false for the same cost, true for another cost or a malformed string")
    func needsRehash() throws {
        let stored = try Argon2id.hash(password: password, cost: .test)
        #expect(!Argon2id.needsRehash(stored, cost: .test))
        #expect(Argon2id.needsRehash(stored, cost: .owasp))
        #expect(Argon2id.needsRehash(stored, cost: try Argon2id.Cost(opsLimit: 2, memLimit: 8192)))
        #expect(Argon2id.needsRehash("not a hash", cost: .test))
    }

    /// The Argon2 reference implementation's (phc-winner-argon2, `src/test.c`) Argon2id v1.3 vector:
    /// password "password", salt "somesalt", t=2, m=2^8 KiB, p=1 (cheap, unlike its other vectors).
    @Test("the Argon2 reference implementation's PHC vector verifies")
    func referenceVector() throws {
        let vector = "$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4"
        #expect(Argon2id.verify(password: Array("password".utf8), against: vector))
        #expect(!Argon2id.verify(password: Array("passwore".utf8), against: vector))
        #expect(try Argon2id.cost(of: vector) == Argon2id.Cost(opsLimit: 2, memLimit: 256 * 1024))
    }

    /// Made outside this module: a C program called libsodium's raw `crypto_pwhash` (no PHC
    /// encoding) with password "password", salt "somesaltsomesalt", t=1, m=8192 bytes and
    /// `crypto_pwhash_ALG_ARGON2ID13` for 32 bytes, which gave
    /// 05b6ca8f8038b683887ad4916533858b49cb52040126c134f4c6e9d8711b8c09; Python's `base64` then
    /// assembled the PHC string below from the salt and that output.
    @Test("a PHC string assembled from raw Argon2id output verifies")
    func rawOutputVector() throws {
        let vector =
            "$argon2id$v=19$m=8,t=1,p=1$c29tZXNhbHRzb21lc2FsdA$BbbKj4A4toOIetSRZTOFi0nLUgQBJsE09Mbp2HEbjAk"
        #expect(Argon2id.verify(password: Array("password".utf8), against: vector))
        #expect(!Argon2id.verify(password: Array("Password".utf8), against: vector))
        #expect(try Argon2id.cost(of: vector) == .test)
    }

    @Test(
        "malformed strings: verify is false, cost(of:) throws malformedHashString",
        arguments: [
            "", "$argon2id$",
            "argon2id$v=19$m=8,t=1,p=1$c29tZXNhbHRzb21lc2FsdA$BbbKj4A4toOIetSRZTOFi0nLUgQBJsE09Mbp2HEbjAk",
            "$argon2i$v=19$m=8,t=1,p=1$c29tZXNhbHRzb21lc2FsdA$BbbKj4A4toOIetSRZTOFi0nLUgQBJsE09Mbp2HEbjAk",
            "$argon2id$v=16$m=8,t=1,p=1$c29tZXNhbHRzb21lc2FsdA$BbbKj4A4toOIetSRZTOFi0nLUgQBJsE09Mbp2HEbjAk",
            "$argon2id$v=19$m=8,t=1,p=2$c29tZXNhbHRzb21lc2FsdA$BbbKj4A4toOIetSRZTOFi0nLUgQBJsE09Mbp2HEbjAk",
            "$argon2id$v=19$m=08,t=1,p=1$c29tZXNhbHRzb21lc2FsdA$BbbKj4A4toOIetSRZTOFi0nLUgQBJsE09Mbp2HEbjAk",
            "$argon2id$v=19$t=1,m=8,p=1$c29tZXNhbHRzb21lc2FsdA$BbbKj4A4toOIetSRZTOFi0nLUgQBJsE09Mbp2HEbjAk",
            "$argon2id$v=19$m=8,t=1,p=1$c29tZXNhbHRzb21lc2FsdA$BbbKj4A4toOIetSRZTOFi0nLUgQBJsE09Mbp2HEbj",
            "$argon2id$v=19$m=8,t=1,p=1$c29tZXNhbHRzb21lc2FsdA$BbbKj4A4toOI-tSRZTOFi0nLUgQBJsE09Mbp2HEbjAk",
            "$argon2id$v=19$m=8,t=1,p=1$c29tZXNhbHRzb21lc2FsdA$BbbKj4A4toOIetSRZTOFi0nLUgQBJsE09Mbp2HEbjAk$",
            String(repeating: "A", count: 200),
        ])
    func malformed(_ string: String) {
        #expect(!Argon2id.verify(password: Array("password".utf8), against: string))
        #expect(Argon2id.needsRehash(string, cost: .test))
        #expect {
            try Argon2id.cost(of: string)
        } throws: { error in
            (error as? SodiumError)?.code == .malformedHashString
        }
    }

    @Test("a well-formed string whose cost libsodium refuses throws invalidCost")
    func refusedCost() {
        let string =
            "$argon2id$v=19$m=4,t=1,p=1$c29tZXNhbHRzb21lc2FsdA$BbbKj4A4toOIetSRZTOFi0nLUgQBJsE09Mbp2HEbjAk"
        #expect(!Argon2id.verify(password: Array("password".utf8), against: string))
        #expect(throws: SodiumError.self) { try Argon2id.cost(of: string) }
    }

    @Test("costs are validated against libsodium's limits; the presets are the documented ones")
    func costValidation() throws {
        #expect(Argon2id.Cost.owasp.opsLimit == 2 && Argon2id.Cost.owasp.memoryKiB == 19456)
        #expect(Argon2id.Cost.strong.opsLimit == 3 && Argon2id.Cost.strong.memLimit == 64 << 20)
        #expect(Argon2id.Cost.test.opsLimit == 1 && Argon2id.Cost.test.memLimit == 8192)
        #expect(try Argon2id.Cost(opsLimit: 2, memLimit: 19456 * 1024) == .owasp)
        #expect(try Argon2id.Cost(opsLimit: 1, memLimit: 8192 + 1000) == .test)  // whole KiB
        for (ops, mem) in [(UInt64(0), 8192), (1, 8191), (1, 0), (1, -1)] {
            #expect {
                try Argon2id.Cost(opsLimit: ops, memLimit: mem)
            } throws: { error in
                (error as? SodiumError)?.code == .invalidCost
            }
        }
    }
}
