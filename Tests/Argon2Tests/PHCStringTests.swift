import Sodium
import Testing

@testable import Argon2

@Suite("PHC strings read as libsodium reads them", .timeLimit(.minutes(1)))
struct PHCStringTests {
    let password = Array("password".utf8)
    /// Made by libsodium's raw crypto_pwhash (see SodiumTests' rawOutputVector).
    let valid =
        "$argon2id$v=19$m=8,t=1,p=1$c29tZXNhbHRzb21lc2FsdA$BbbKj4A4toOIetSRZTOFi0nLUgQBJsE09Mbp2HEbjAk"

    @Test("a valid string parses into its parts and prints back the same")
    func parses() throws {
        let phc = try PHCString(parsing: valid)
        #expect(phc.parameters == (try Argon2Parameters(passes: 1, memoryKiB: 8, lanes: 1)))
        #expect(phc.salt == Array("somesaltsomesalt".utf8))
        #expect(hex(phc.tag) == "05b6ca8f8038b683887ad4916533858b49cb52040126c134f4c6e9d8711b8c09")
        #expect(phc.description == valid)
    }

    @Test(
        "malformed strings are refused with a message that says what is wrong",
        arguments: [
            ("", "expected \"$argon2id\""),
            (
                "$argon2i$v=19$m=8,t=1,p=1$c29tZXNhbHRzb21lc2FsdA$BbbKj4A4toOIetSRZTOFi0nLUgQBJsE09Mbp2HEbjAk",
                "expected \"$argon2id\""
            ),
            (
                "$argon2id$m=8,t=1,p=1$c29tZXNhbHRzb21lc2FsdA$BbbKj4A4toOIetSRZTOFi0nLUgQBJsE09Mbp2HEbjAk",
                "expected \"$v=\""
            ),
            (
                "$argon2id$v=16$m=8,t=1,p=1$c29tZXNhbHRzb21lc2FsdA$BbbKj4A4toOIetSRZTOFi0nLUgQBJsE09Mbp2HEbjAk",
                "version 16"
            ),
            (
                "$argon2id$v=19$m=08,t=1,p=1$c29tZXNhbHRzb21lc2FsdA$BbbKj4A4toOIetSRZTOFi0nLUgQBJsE09Mbp2HEbjAk",
                "leading zero"
            ),
            (
                "$argon2id$v=19$m=4294967296,t=1,p=1$c29tZXNhbHRzb21lc2FsdA$BbbKj4A4toOIetSRZTOFi0nLUgQBJsE09Mbp2HEbjAk",
                "32 bits"
            ),
            (
                "$argon2id$v=19$t=1,m=8,p=1$c29tZXNhbHRzb21lc2FsdA$BbbKj4A4toOIetSRZTOFi0nLUgQBJsE09Mbp2HEbjAk",
                "expected \"$m=\""
            ),
            (
                "$argon2id$v=19$m=,t=1,p=1$c29tZXNhbHRzb21lc2FsdA$BbbKj4A4toOIetSRZTOFi0nLUgQBJsE09Mbp2HEbjAk",
                "no digits"
            ),
            ("$argon2id$v=19$m=8,t=1,p=1$c29tZXNhbHRzb21lc2FsdA$BbbKj4A4toOIetSRZTOF", "hash is 15 bytes"),
            (
                "$argon2id$v=19$m=8,t=1,p=1$c29tZXNhbA$BbbKj4A4toOIetSRZTOFi0nLUgQBJsE09Mbp2HEbjAk",
                "salt is 7 bytes"
            ),
            (
                "$argon2id$v=19$m=8,t=1,p=1$c29tZXNhbHRzb21lc2FsdA$BbbKj4A4toOIetSRZTOFi0nLUgQBJsE09Mbp2HEbj",
                "canonical"
            ),
            (
                "$argon2id$v=19$m=8,t=1,p=1$c29tZXNhbHRzb21lc2FsdA$BbbKj4A4toOIetSRZTOFi0nLUgQBJsE09Mbp2HEbjAl",
                "canonical"
            ),
            (
                "$argon2id$v=19$m=8,t=1,p=1$c29tZXNhbHRzb21lc2FsdA$BbbKj4A4toOI-tSRZTOFi0nLUgQBJsE09Mbp2HEbjAk",
                "hash is 9 bytes"
            ),
            (
                "$argon2id$v=19$m=8,t=1,p=1$c29tZXNhbHRzb21lc2FsdA$BbbKj4A4toOIetSRZTOFi0nLUgQBJsE09Mbp2HEbjAk=",
                "after the hash"
            ),
            (
                "$argon2id$v=19$m=8,t=1,p=1$c29tZXNhbHRzb21lc2FsdA$BbbKj4A4toOIetSRZTOFi0nLUgQBJsE09Mbp2HEbjAk$",
                "after the hash"
            ),
            (
                "$argon2id$v=19$m=8,t=1,p=1$c29tZXNhbHRzb21lc2FsdA$" + String(repeating: "A", count: 80),
                "bytes long"
            ),
            (
                "$argon2id$v=19$m=8,t=1,p=1$c29tZXNhbHRzb21lc2FsdA$BbbKj4A4toOIetSRZTOFi0nLUgQBJsE09Mbp2HEbjAk\0",
                "NUL"
            ),
        ])
    func malformed(_ text: String, _ reason: String) throws {
        #expect {
            try PHCString(parsing: text)
        } throws: { error in
            guard let error = error as? Argon2Error else { return false }
            return error.code == .malformedString && error.message.contains(reason)
        }
        #expect(!Sodium.Argon2id.verify(password: password, against: text))
    }

    @Test(
        "well-formed strings with a cost outside Argon2's limits are refused as invalidParameters",
        arguments: [
            "$argon2id$v=19$m=4,t=1,p=1$c29tZXNhbHRzb21lc2FsdA$BbbKj4A4toOIetSRZTOFi0nLUgQBJsE09Mbp2HEbjAk",
            "$argon2id$v=19$m=8,t=0,p=1$c29tZXNhbHRzb21lc2FsdA$BbbKj4A4toOIetSRZTOFi0nLUgQBJsE09Mbp2HEbjAk",
            "$argon2id$v=19$m=8,t=1,p=0$c29tZXNhbHRzb21lc2FsdA$BbbKj4A4toOIetSRZTOFi0nLUgQBJsE09Mbp2HEbjAk",
            "$argon2id$v=19$m=8,t=1,p=2$c29tZXNhbHRzb21lc2FsdA$BbbKj4A4toOIetSRZTOFi0nLUgQBJsE09Mbp2HEbjAk",
        ])
    func invalidCost(_ text: String) {
        #expect {
            try PHCString(parsing: text)
        } throws: { ($0 as? Argon2Error)?.code == .invalidParameters }
        #expect(!Sodium.Argon2id.verify(password: password, against: text))
    }

    @Test("random mutations of a valid string: accepted here exactly when libsodium accepts them")
    func mutationsAgreeWithLibsodium() throws {
        let workspace = try Argon2Workspace(memoryKiB: 1024)
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("$=,0123456789mtpv+/AZaz\u{7f}".utf8)
        let base = Array(valid.utf8)
        var agreedAccepts = 0
        for _ in 0..<20_000 {
            var bytes = base
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let position = Int.random(in: 0...bytes.count, using: &generator)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0 where position < bytes.count:
                    bytes[position] = alphabet.randomElement(using: &generator)!
                case 1 where position < bytes.count: bytes.remove(at: position)
                case 2: bytes.insert(alphabet.randomElement(using: &generator)!, at: position)
                default: bytes = Array(bytes.prefix(position))
                }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            guard Array(text.utf8) == bytes else { continue }
            let ours: Bool
            do {
                ours = try workspace.verify(password: password, against: text)
            } catch let error where error.code == .insufficientMemory {
                continue  // a cost too large to run here; libsodium would allocate it
            } catch {
                ours = false
            }
            if let phc = try? PHCString(parsing: text), phc.parameters.passes > 8 { continue }
            #expect(ours == Sodium.Argon2id.verify(password: password, against: text), "\(text)")
            if ours { agreedAccepts += 1 }
        }
        #expect(agreedAccepts > 0)
    }
}
