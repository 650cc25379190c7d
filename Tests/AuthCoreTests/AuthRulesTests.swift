import Contracts
import Testing

@testable import AuthCore

/// The registration rules: NFC, grapheme counting, exact bounds, forbidden characters, byte limits.
@Suite("AuthRules", .timeLimit(.minutes(1)))
struct AuthRulesTests {
    let rules = AuthRules()

    /// The violation `rules` report for `username`, or nil when it is accepted.
    private func usernameViolation(_ username: String) -> AuthRules.Violation? {
        if case .failure(let violation) = rules.checkUsername(username) { return violation }
        return nil
    }

    @Test("decomposed and precomposed é are one name, stored in NFC")
    func nfc() throws {
        let decomposed = "cafe\u{301}-bar"
        let precomposed = "caf\u{E9}-bar"
        #expect(Array(decomposed.unicodeScalars) != Array(precomposed.unicodeScalars))
        let one = try rules.checkUsername(decomposed).get()
        let other = try rules.checkUsername(precomposed).get()
        #expect(Array(one.unicodeScalars) == Array(other.unicodeScalars))
        #expect(Array(one.unicodeScalars) == Array(precomposed.unicodeScalars))
        #expect(Array(AuthRules.normalize(decomposed).utf8) == Array(precomposed.utf8))
    }

    @Test("names are case-sensitive and may contain spaces")
    func caseAndSpaces() throws {
        #expect(try rules.checkUsername("Alice1").get() != rules.checkUsername("alice1").get())
        #expect(try rules.checkUsername("john doe").get() == "john doe")
    }

    @Test("username length is counted in grapheme clusters, 6 to 64 exactly")
    func usernameBounds() {
        #expect(usernameViolation(String(repeating: "a", count: 5)) == .init(code: .usernameShort, limit: 6))
        #expect(usernameViolation(String(repeating: "a", count: 6)) == nil)
        #expect(usernameViolation(String(repeating: "a", count: 64)) == nil)
        #expect(usernameViolation(String(repeating: "a", count: 65)) == .init(code: .usernameLong, limit: 64))
        #expect(usernameViolation("") == .init(code: .usernameShort, limit: 6))
    }

    @Test(
        "emoji and combining marks count as one character each",
        arguments: [
            "👍🏽",  // emoji with a skin-tone modifier: 2 scalars, 8 bytes
            "🇫🇷",  // a flag: 2 regional indicators
            "x\u{301}",  // x with a combining acute (no precomposed form)
            "a\u{300}\u{316}\u{317}",  // several combining marks on one letter
            "é",
        ])
    func graphemes(character: String) {
        #expect(character.count == 1)
        #expect(
            usernameViolation(String(repeating: character, count: 5)) == .init(code: .usernameShort, limit: 6)
        )
        #expect(usernameViolation(String(repeating: character, count: 6)) == nil)
        #expect(usernameViolation(String(repeating: character, count: 64)) == nil)
        #expect(
            usernameViolation(String(repeating: character, count: 65))
                == .init(code: .usernameLong, limit: 64))
    }

    @Test(
        "control, format, separator, private-use and unassigned characters are refused",
        arguments: [
            "\u{0}", "\t", "\n", "\r", "\u{7F}", "\u{85}",  // controls
            "\u{200B}", "\u{200D}", "\u{FEFF}", "\u{202E}", "\u{AD}", "\u{E0041}",  // format
            "\u{2028}", "\u{2029}",  // line and paragraph separators
            "\u{E000}", "\u{F8FF}",  // private use
            "\u{378}",  // unassigned
        ])
    func forbidden(character: String) {
        #expect(usernameViolation("abcdef" + character + "ghi") == .init(code: .usernameInvalid, limit: nil))
        // Refused as invalid before its length is looked at.
        #expect(usernameViolation(character) == .init(code: .usernameInvalid, limit: nil))
    }

    @Test("password: at least 6 characters, counted as graphemes")
    func passwordMinimum() {
        #expect(rules.checkPassword("") == .init(code: .passwordMin, limit: 6))
        #expect(rules.checkPassword("12345") == .init(code: .passwordMin, limit: 6))
        #expect(rules.checkPassword("123456") == nil)
        // Five 2-byte characters are 10 bytes but still five characters.
        #expect(rules.checkPassword(String(repeating: "é", count: 5)) == .init(code: .passwordMin, limit: 6))
        #expect(rules.checkPassword(String(repeating: "👍🏽", count: 5)) == .init(code: .passwordMin, limit: 6))
        #expect(rules.checkPassword(String(repeating: "e\u{301}", count: 6)) == nil)
    }

    @Test("password: at most 1,024 UTF-8 bytes, multi-byte characters at the boundary")
    func passwordMaximum() {
        let long = AuthRules.Violation(code: .passwordLong, limit: 1_024)
        #expect(rules.checkPassword(String(repeating: "a", count: 1_024)) == nil)
        #expect(rules.checkPassword(String(repeating: "a", count: 1_025)) == long)
        #expect(rules.checkPassword(String(repeating: "é", count: 512)) == nil)  // 1,024 bytes
        #expect(rules.checkPassword(String(repeating: "é", count: 512) + "a") == long)
        #expect(rules.checkPassword(String(repeating: "€", count: 341) + "a") == nil)  // 1,023 + 1
        #expect(rules.checkPassword(String(repeating: "€", count: 342)) == long)  // 1,026
        #expect(rules.checkPassword(String(repeating: "😀", count: 256)) == nil)  // 1,024
        #expect(rules.checkPassword(String(repeating: "😀", count: 256) + "a") == long)
        #expect(rules.isPlausibleLogin(password: String(repeating: "😀", count: 256)))
        #expect(!rules.isPlausibleLogin(password: String(repeating: "😀", count: 256) + "a"))
    }

    @Test("huge strings are refused quickly")
    func huge() {
        let megabyte = String(repeating: "a", count: 1 << 20)
        #expect(
            rules.checkPassword(String(repeating: "a", count: 10 << 20))
                == .init(code: .passwordLong, limit: 1_024))
        #expect(usernameViolation(megabyte) == .init(code: .usernameLong, limit: 64))
        #expect(!rules.isPlausibleLogin(password: megabyte))
        #expect(rules.loginName(megabyte) == nil)
        #expect(rules.loginName("cafe\u{301}-user") == "caf\u{E9}-user")
        #expect(rules.loginName(String(repeating: "a", count: 3_072)) != nil)  // 3 × 1,024 bytes
        #expect(rules.loginName(String(repeating: "a", count: 3_073)) == nil)
    }

    @Test("a few characters carrying huge runs of combining marks are refused as too long")
    func zalgo() {
        // Six user-perceived characters, but 64 KiB of text: no name needs that many bytes.
        let heavy = "a" + String(repeating: "\u{316}", count: 5_000)
        #expect(heavy.count == 1)
        #expect(
            usernameViolation(String(repeating: heavy, count: 6)) == .init(code: .usernameLong, limit: 64))
        // Just past the byte limit once normalized (1,206 bytes), and just under it (1,014 bytes).
        let lighter = "a" + String(repeating: "\u{316}", count: 100)
        #expect(
            usernameViolation(String(repeating: lighter, count: 6)) == .init(code: .usernameLong, limit: 64))
        let light = "a" + String(repeating: "\u{316}", count: 84)
        #expect(usernameViolation(String(repeating: light, count: 6)) == nil)
    }

    @Test("custom limits apply and violations describe their code and limit")
    func customLimits() {
        let strict = AuthRules(minimumUsernameLength: 3, maximumUsernameLength: 4, minimumPasswordLength: 2)
        #expect((try? strict.checkUsername("abc").get()) == "abc")
        #expect(strict.checkPassword("ab") == nil)
        #expect(AuthRules.Violation(code: .usernameLong, limit: 64).description == "username.long (n=64)")
        #expect(AuthRules.Violation(code: .usernameInvalid, limit: nil).description == "username.invalid")
    }
}
