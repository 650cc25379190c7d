import Contracts
import Foundation
import Testing
import ValidationCore

@Suite("validation rules", .timeLimit(.minutes(1)))
struct ValidationRulesTests {
    let rules = ValidationRules()

    @Test(
        "phone numbers",
        arguments: [
            ("", ValidationResult.empty),
            ("1", .failed(.phoneShort)),
            ("1380013800", .failed(.phoneShort)),  // 10 digits
            ("13800138000", .ok()),  // 11
            ("138001380001234", .ok()),  // 15
            ("1380013800012345", .failed(.phoneLong)),  // 16
            ("+8613800138000", .failed(.phoneFormat)),
            ("-13800138000", .failed(.phoneFormat)),
            ("138 0013 8000", .failed(.phoneFormat)),
            ("１３８００１３８０００", .failed(.phoneFormat)),  // full-width digits
            ("١٣٨٠٠١٣٨٠٠٠", .failed(.phoneFormat)),  // Arabic-Indic digits
            ("138a", .failed(.phoneFormat)),  // a letter beats "too short"
            ("1\u{0301}3800138000", .failed(.phoneFormat)),  // a combining mark on a digit
            ("13800138000\n", .failed(.phoneFormat)),
        ])
    func phone(text: String, expected: ValidationResult) {
        #expect(rules.phone(text) == expected, "\(text.debugDescription)")
    }

    @Test("login passwords: password.short without parameters below 6 characters")
    func loginPassword() {
        #expect(rules.password("", purpose: .login) == .empty)
        #expect(rules.password("12345", purpose: .login) == .failed(.passwordShort))
        #expect(rules.password("123456", purpose: .login) == .ok())
        #expect(rules.password("123456", purpose: .login).code == nil)
    }

    @Test("register passwords: password.min {n}, then password.ok")
    func registerPassword() {
        #expect(rules.password("", purpose: .register) == .empty)
        #expect(rules.password("abcde", purpose: .register) == .failed(.passwordMin, ["n": "6"]))
        #expect(rules.password("abcdef", purpose: .register) == .ok(.passwordOK))
    }

    @Test("lengths are grapheme clusters, not scalars or bytes")
    func graphemes() {
        let family = "👨‍👩‍👧‍👦"  // one character of 7 scalars
        #expect(rules.password(String(repeating: family, count: 5), purpose: .register).state == .failed)
        #expect(rules.password(String(repeating: family, count: 6), purpose: .register) == .ok(.passwordOK))
        let decomposed = String(repeating: "e\u{0301}", count: 5)  // 5 characters, 10 scalars
        #expect(
            rules.username(decomposed, purpose: .register) == .decided(.failed(.usernameShort, ["n": "6"])))
        #expect(rules.username("用户名六个字", purpose: .register) == .lookUp("用户名六个字"))
    }

    @Test("usernames to register: empty, username.short {n}, else looked up")
    func registerUsername() {
        #expect(rules.username("", purpose: .register) == .decided(.empty))
        #expect(rules.username("alice", purpose: .register) == .decided(.failed(.usernameShort, ["n": "6"])))
        #expect(rules.username("alice1", purpose: .register) == .lookUp("alice1"))
        #expect(rules.usernameVerdict(exists: true, purpose: .register) == .failed(.usernameExists))
        #expect(rules.usernameVerdict(exists: false, purpose: .register) == .ok(.usernameAvailable))
    }

    @Test("usernames to register: username.long {n} and username.invalid, as auth-service refuses them")
    func registerUsernameLimits() {
        #expect(
            rules.username(String(repeating: "a", count: 64), purpose: .register)
                == .lookUp(String(repeating: "a", count: 64)))
        #expect(
            rules.username(String(repeating: "a", count: 65), purpose: .register)
                == .decided(.failed(.usernameLong, ["n": "64"])))
        #expect(
            rules.username(String(repeating: "a", count: 1_000_000), purpose: .register)
                == .decided(.failed(.usernameLong, ["n": "64"])))
        #expect(rules.username("alice\u{0}bob", purpose: .register) == .decided(.failed(.usernameInvalid)))
        #expect(rules.username("alice\u{200B}bob", purpose: .register) == .decided(.failed(.usernameInvalid)))
        #expect(rules.username("alice bob", purpose: .register) == .lookUp("alice bob"))
        #expect(
            rules.username(String(repeating: "a", count: 65), purpose: .signin)
                == .decided(.failed(.usernameUnknown)))
    }

    @Test("usernames to sign in: any non-empty name is looked up; exists is ok, unknown fails")
    func signinUsername() {
        #expect(rules.username("", purpose: .signin) == .decided(.empty))
        #expect(rules.username("al", purpose: .signin) == .lookUp("al"))
        #expect(rules.usernameVerdict(exists: true, purpose: .signin) == .ok(.usernameExists))
        #expect(rules.usernameVerdict(exists: false, purpose: .signin) == .failed(.usernameUnknown))
    }

    @Test("repeat: empty, equal, mismatch; canonically equal text is equal")
    func repeatPassword() {
        #expect(rules.repeat(password: "secret1", repeat: "") == .empty)
        #expect(rules.repeat(password: "", repeat: "") == .empty)
        #expect(rules.repeat(password: "secret1", repeat: "secret1") == .ok())
        #expect(rules.repeat(password: "secret1", repeat: "secret2") == .failed(.repeatMismatch))
        #expect(rules.repeat(password: "", repeat: "x") == .failed(.repeatMismatch))
        #expect(rules.repeat(password: "caf\u{e9}12", repeat: "cafe\u{0301}12") == .ok())
    }

    @Test("limits are configurable and interpolated")
    func limits() {
        let custom = ValidationRules(
            minimumUsernameLength: 3, minimumLoginPasswordLength: 8, minimumRegisterPasswordLength: 10,
            minimumPhoneDigits: 5, maximumPhoneDigits: 6)
        #expect(custom.username("ab", purpose: .register) == .decided(.failed(.usernameShort, ["n": "3"])))
        #expect(custom.username("abc", purpose: .register) == .lookUp("abc"))
        #expect(custom.password("1234567", purpose: .login) == .failed(.passwordShort))
        #expect(custom.password("123456789", purpose: .register) == .failed(.passwordMin, ["n": "10"]))
        #expect(custom.phone("1234") == .failed(.phoneShort))
        #expect(custom.phone("12345") == .ok())
        #expect(custom.phone("1234567") == .failed(.phoneLong))
    }

    @Test("failed lookups: rate_limited is username.throttled, everything else network.error")
    func lookupFailures() {
        #expect(LookupFailure.result(for: RemoteErrorFixtures.rateLimited) == .failed(.usernameThrottled))
        #expect(LookupFailure.result(for: RemoteErrorFixtures.unavailable) == .failed(.networkError))
        #expect(LookupFailure.result(for: RemoteErrorFixtures.timeout) == .failed(.networkError))
        #expect(LookupFailure.result(for: RemoteErrorFixtures.internalError) == .failed(.networkError))
        #expect(LookupFailure.result(for: CocoaError(.coderReadCorrupt)) == .failed(.networkError))
    }
}

@Suite("validation contracts on the wire", .timeLimit(.minutes(1)))
struct ValidationContractTests {
    @Test("results, edits and parameters use the documented snake_case shapes")
    func shapes() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let result = FieldResult(field: .repeat, result: .failed(.passwordMin, ["n": "6"]))
        #expect(
            String(decoding: try encoder.encode(result), as: UTF8.self)
                == #"{"field":"repeat","result":{"code":"password.min","params":{"n":"6"},"state":"failed"}}"#
        )
        let parameters = FieldsParameters(usernamePurpose: .signin, passwordPurpose: .login, client: "c1")
        #expect(
            String(decoding: try encoder.encode(parameters), as: UTF8.self)
                == #"{"client":"c1","password_purpose":"login","username_purpose":"signin"}"#)
        #expect(
            String(
                decoding: try encoder.encode(RepeatValidationRequest(password: "a", repeat: "b")),
                as: UTF8.self)
                == #"{"password":"a","repeat":"b"}"#)
    }

    @Test("missing params and purposes take their defaults")
    func defaults() throws {
        let decoder = JSONDecoder()
        let result = try decoder.decode(ValidationResult.self, from: Data(#"{"state":"empty"}"#.utf8))
        #expect(result == .empty)
        let parameters = try decoder.decode(FieldsParameters.self, from: Data("{}".utf8))
        #expect(parameters == FieldsParameters())
        #expect(throws: DecodingError.self) {
            try decoder.decode(ValidationResult.self, from: Data(#"{"state":"maybe"}"#.utf8))
        }
    }
}
