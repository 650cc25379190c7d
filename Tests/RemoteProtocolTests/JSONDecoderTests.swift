import Foundation
import Testing

@testable import RemoteProtocol

@Suite("JSON decoder: semantics, malformed input, RFC 8259 edges", .timeLimit(.minutes(1)))
struct JSONDecoderTests {
    private func decode<Value: Decodable>(_ type: Value.Type, _ text: String) throws -> Value {
        try OurJSON.decode(type, from: Array(text.utf8))
    }

    /// The error kind our decoder gives for `text`, or "ok".
    private func outcome<Value: Decodable>(_ type: Value.Type, _ text: String) -> String {
        do {
            _ = try decode(type, text)
            return "ok"
        } catch {
            return decodingErrorKind(error)
        }
    }

    /// Foundation's error kind for `text`, or "ok".
    private func foundationOutcome<Value: Decodable>(_ type: Value.Type, _ text: String) -> String {
        do {
            _ = try FoundationJSON.decode(type, from: Array(text.utf8))
            return "ok"
        } catch {
            return decodingErrorKind(error)
        }
    }

    @Test func roundTrips() throws {
        let login = try decode(
            LoginBody.self, String(decoding: OurJSON.encode(LoginBody.sample), as: UTF8.self))
        #expect(login == LoginBody.sample)
        let profile = try OurJSON.decode(ProfileBody.self, from: OurJSON.encode(ProfileBody.sample))
        #expect(profile == ProfileBody.sample)
        let coder = JSONBodyCoder(sortedKeys: true)
        #expect(
            try coder.decode(ProfileBody.self, from: coder.encode(ProfileBody.sample)) == ProfileBody.sample)
    }

    @Test func integersDecodeExactlyWithRangeChecks() throws {
        func check<Integer: FixedWidthInteger & Decodable>(_ type: Integer.Type) throws {
            #expect(try decode(Integer.self, "\(Integer.min)") == Integer.min)
            #expect(try decode(Integer.self, "\(Integer.max)") == Integer.max)
            #expect(outcome(Integer.self, "\(Int128(Integer.max) + 1)") == "dataCorrupted")
            #expect(outcome(Integer.self, "\(Int128(Integer.min) - 1)") == "dataCorrupted")
            #expect(try decode(Integer.self, "-0") == 0)
        }
        try check(Int.self)
        try check(Int8.self)
        try check(Int16.self)
        try check(Int32.self)
        try check(Int64.self)
        try check(UInt.self)
        try check(UInt8.self)
        try check(UInt16.self)
        try check(UInt32.self)
        try check(UInt64.self)
        #expect(outcome(Int.self, "100000000000000000000000") == "dataCorrupted")
        #expect(outcome(Int.self, "1.5") == "dataCorrupted")
        #expect(outcome(Int64.self, "434124485453125165.2") == "dataCorrupted")
        #expect(try decode(Int64.self, "434124485453125165.0e0") == 434_124_485_453_125_165)
        #expect(try decode(Int64.self, "-9.223372036854775808e18") == Int64.min)
        #expect(outcome(Int64.self, "9.223372036854775808e18") == "dataCorrupted")
        #expect(try decode(UInt8.self, "25.5e1") == 255)
        #expect(outcome(UInt8.self, "25e-1") == "dataCorrupted")
        #expect(try decode(Int.self, "0e99999") == 0)
        #expect(outcome(Int.self, "1e99999") == "dataCorrupted")
        #expect(try decode(Int.self, "1.0") == 1)
        #expect(try decode(Int.self, "1E2") == 100)
    }

    @Test func doublesParseCorrectly() throws {
        let cases: [(String, Double)] = [
            ("0", 0), ("-0", -0.0), ("0.1", 0.1), ("1e-7", 1e-7), ("-1E-2", -0.01),
            ("5e-324", .leastNonzeroMagnitude),
            ("1.7976931348623157e308", 1.7976931348623157e308),
            ("123456789012345678901234567890", 1.2345678901234568e29),
            ("2.2250738585072014e-308", 2.2250738585072014e-308), ("9007199254740993", 9007199254740992),
            ("0.30000000000000004", 0.30000000000000004), ("1e22", 1e22), ("1e23", 1e23),
        ]
        for (text, value) in cases {
            let decoded = try decode(Double.self, text)
            #expect(decoded == value && decoded.sign == value.sign, "\(text)")
        }
        #expect(outcome(Double.self, "1e400") == "dataCorrupted")
        #expect(outcome(Double.self, "1e-400") == "dataCorrupted")
        #expect(try decode(Float.self, "0.1") == Float(0.1))
        #expect(outcome(Float.self, "3.4028236e38") == "dataCorrupted")
    }

    @Test func stringsResolveEveryEscape() throws {
        #expect(try decode(String.self, #""\"\\\/\b\f\n\r\t""#) == "\"\\/\u{8}\u{c}\n\r\t")
        #expect(try decode(String.self, #""\u0041\u00e9\u4e2d\ud83d\ude00""#) == "Aé中😀")
        #expect(try decode(String.self, "\"é中😀\u{7f}\"") == "é中😀\u{7f}")
        #expect(try decode(String.self, #""""#) == "")
        #expect(try decode([String: Int].self, #"{"k\u0065y":1}"#) == ["key": 1])
    }

    @Test func malformedTextIsAnErrorNeverACrash() {
        let texts = [
            "", " ", "\n\t", "{", "[", "]", "}", "[1,]", #"{"a":1,}"#, "[,1]", "01", "-01", "+1", ".5", "1.",
            "1e", "1e+",
            "-", "--1", "0x10", "1.e5", "tru", "nul", "fals", "True", "NULL", "NaN", "Infinity", "-Infinity",
            #""\x""#, #""\u12""#, #""\u12G4""#, #""\ud800""#, #""\udc00""#, #""\ud800\u0041""#, #""\ud800x""#,
            "\"a\u{1}\"", "\"a\nb\"", "\"unterminated", "\"\\", "1 2", "{}x", "[1]]", #"{"a" 1}"#, "{a:1}",
            #"{"a":}"#, #"{"a"}"#, #"{1:2}"#, "[1 2]", "/* */1", "1//", "'a'", "\u{0}",
        ]
        for text in texts {
            #expect(outcome(JSONTree.self, text) == "dataCorrupted", "\(text.debugDescription)")
        }
        let invalidUTF8: [[UInt8]] = [
            [0x22, 0xC0, 0x80, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xF5, 0x80, 0x80, 0x80, 0x22],
            [0x22, 0xE2, 0x82, 0x22], [0x22, 0x80, 0x22], [0x22, 0xF0, 0x80, 0x80, 0x80, 0x22],
            [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], [0x22, 0xE0, 0x80, 0x80, 0x22], [0x22, 0xFF, 0x22],
            [0x22, 0xC3],
        ]
        for bytes in invalidUTF8 {
            do {
                _ = try OurJSON.decode(String.self, from: bytes)
                Issue.record("accepted \(bytes)")
            } catch {
                #expect(decodingErrorKind(error) == "dataCorrupted")
            }
        }
    }

    @Test func nestingIsLimited() throws {
        let deepest = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(outcome(JSONTree.self, deepest) == "ok")
        let tooDeep = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        #expect(outcome(JSONTree.self, tooDeep) == "dataCorrupted")
        let unclosed = String(repeating: "{\"a\":[", count: 10_000)
        #expect(outcome(JSONTree.self, unclosed) == "dataCorrupted")
    }

    @Test func rfc8259Edges() throws {
        #expect(
            try decode(JSONTree.self, " \t\r\n[ 1 , { \"a\" : null } ] \n")
                == .array([.int(1), .object(["a": .null])]))
        #expect(try decode(Int.self, "\u{FEFF}7") == 7)
        #expect(try decode(JSONTree.self, "null") == .null)
        #expect(try decode(JSONTree.self, "-0.0e+0") == .int(0))
        #expect(try decode(JSONTree.self, "1E+2") == .int(100))
        #expect(try decode(JSONTree.self, "[]") == .array([]))
        #expect(try decode(JSONTree.self, "{}") == .object([:]))
        #expect(try decode(JSONTree.self, #"{"":1}"#) == .object(["": .int(1)]))
        #expect(try decode(String.self, "\"\u{2028}\u{2029}\"") == "\u{2028}\u{2029}")
    }

    struct Pair: Codable, Equatable {
        var name: String
        var count: Int
        var note: String?
    }

    @Test func errorKindsMatchFoundation() {
        let cases: [String] = [
            #"{"count":1}"#, #"{"name":null,"count":1}"#, #"{"name":"a","count":"1"}"#,
            #"{"name":"a","count":1.5}"#,
            #"{"name":"a","count":1,"note":null}"#, #"{"name":"a","count":1,"note":5}"#, #"[1]"#, "null",
            #""x""#,
            #"{"name":"a","count":99999999999999999999}"#, #"{"name":"a","name":"b","count":1}"#,
        ]
        for text in cases {
            #expect(outcome(Pair.self, text) == foundationOutcome(Pair.self, text), "\(text)")
        }
        for text in ["true", "1", "\"1\"", "null", "[]", "{}", "1.5", "-1"] {
            #expect(outcome(Bool.self, text) == foundationOutcome(Bool.self, text), "Bool \(text)")
            #expect(outcome(UInt.self, text) == foundationOutcome(UInt.self, text), "UInt \(text)")
            #expect(outcome(String.self, text) == foundationOutcome(String.self, text), "String \(text)")
            #expect(outcome([Int].self, text) == foundationOutcome([Int].self, text), "[Int] \(text)")
            #expect(
                outcome([String: Int].self, text) == foundationOutcome([String: Int].self, text),
                "dict \(text)")
            #expect(outcome(Int?.self, text) == foundationOutcome(Int?.self, text), "Int? \(text)")
        }
    }

    @Test func duplicateKeysKeepTheFirstLikeFoundation() throws {
        let text = #"{"name":"first","count":1,"name":"second"}"#
        #expect(
            try decode(Pair.self, text).name == FoundationJSON.decode(Pair.self, from: Array(text.utf8)).name)
        #expect(try decode([String: Int].self, #"{"a":1,"a":2}"#) == ["a": 1])
        var members = (0..<40).map { #""k\#($0)":\#($0)"# }
        members.append(#""k3":99"#)
        let big = "{" + members.joined(separator: ",") + "}"
        #expect(try decode([String: Int].self, big)["k3"] == 3)
    }

    @Test func optionalsDecodeIfPresent() throws {
        #expect(try decode(Pair.self, #"{"name":"a","count":1}"#).note == nil)
        #expect(try decode(Pair.self, #"{"name":"a","count":1,"note":null}"#).note == nil)
        #expect(try decode(Pair.self, #"{"name":"a","count":1,"note":"n"}"#).note == "n")
        #expect(try decode([Int?].self, "[1,null]") == [1, nil])
    }

    /// Reads with every container operation by hand.
    struct Handmade: Decodable, Equatable {
        var keys: [String]
        var hasName: Bool
        var hasMissing: Bool
        var nilY: Bool
        var x: Int
        var list: [String]
        var listCount: Int?
        var nilElement: Bool
        var superValue: Int
        var missingSuperIsNull: Bool

        enum Keys: String, CodingKey { case name, inner, list, base, missing }
        enum InnerKeys: String, CodingKey { case x, y }
        enum BaseKeys: String, CodingKey { case value }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            keys = container.allKeys.map(\.stringValue)
            hasName = container.contains(.name)
            hasMissing = container.contains(.missing)
            let inner = try container.nestedContainer(keyedBy: InnerKeys.self, forKey: .inner)
            nilY = try inner.decodeNil(forKey: .y)
            x = try inner.decode(Int.self, forKey: .x)
            var list = try container.nestedUnkeyedContainer(forKey: .list)
            listCount = list.count
            var strings: [String] = []
            nilElement = false
            while !list.isAtEnd {
                if try list.decodeNil() {
                    nilElement = true
                } else {
                    strings.append(try list.decode(String.self))
                }
            }
            list = try container.nestedUnkeyedContainer(forKey: .list)
            _ = try list.decode(String.self)
            _ = try list.decodeNil()
            _ = try list.decode(String.self)
            #expect(list.isAtEnd && list.currentIndex == 3)
            #expect(throws: DecodingError.self) { try list.decode(String.self) }
            self.list = strings
            let base = try container.superDecoder(forKey: .base).container(keyedBy: BaseKeys.self)
            superValue = try base.decode(Int.self, forKey: .value)
            missingSuperIsNull = try container.superDecoder().singleValueContainer().decodeNil()
        }
    }

    @Test func everyContainerOperation() throws {
        let text = #"{"name":"n","inner":{"x":5,"y":null},"list":["a",null,"b"],"base":{"value":7}}"#
        let ours = try decode(Handmade.self, text)
        #expect(
            ours == (try FoundationJSON.decode(Handmade.self, from: Array(text.utf8))).with(keys: ours.keys))
        #expect(ours.keys == ["name", "inner", "list", "base"])
        #expect(ours.hasName && !ours.hasMissing && ours.nilY && ours.x == 5 && ours.list == ["a", "b"])
        #expect(ours.listCount == 3 && ours.nilElement && ours.superValue == 7 && ours.missingSuperIsNull)
    }

    @Test func inheritanceThroughSuperDecoders() throws {
        let dog = try decode(JSONEncoderTests.Dog.self, #"{"name":"rex","super":{"legs":3}}"#)
        #expect(dog.name == "rex" && dog.legs == 3)
    }

    @Test func foundationTypesDecode() throws {
        #expect(try decode(Data.self, #""AQID/w==""#) == Data([1, 2, 3, 255]))
        #expect(outcome(Data.self, #""not base64!""#) == "dataCorrupted")
        #expect(try decode(URL.self, #""https://x.y/a?b=c""#) == URL(string: "https://x.y/a?b=c"))
        #expect(try decode(Date.self, "1.5") == Date(timeIntervalSinceReferenceDate: 1.5))
        #expect(try decode(Decimal.self, "3.14") == Decimal(string: "3.14"))
        #expect(try decode([Int: String].self, #"{"1":"a","20":"b"}"#) == [1: "a", 20: "b"])
        #expect(try decode([ProfileBody.Color].self, #"["red","green"]"#) == [.red, .green])
        #expect(
            outcome(ProfileBody.Color.self, #""blue""#)
                == foundationOutcome(ProfileBody.Color.self, #""blue""#))
    }

    @Test func errorMessagesSayWhatAndWhere() {
        func message<Value: Decodable>(_ type: Value.Type, _ text: String) -> String {
            do {
                _ = try JSONBodyCoder.shared.decode(type, from: Array(text.utf8))
                return "decoded"
            } catch {
                #expect(error.code == .badRequest)
                return error.message
            }
        }
        let missing = message(LoginBody.self, #"{"username":"a"}"#)
        #expect(missing.contains(#"missing key "password""#) && missing.contains("top level"), "\(missing)")
        let profile = String(decoding: (try? OurJSON.encode(ProfileBody.sample)) ?? [], as: UTF8.self)
        let mismatch = message(ProfileBody.self, profile.replacingOccurrences(of: "2021", with: #""x""#))
        #expect(mismatch.contains("friends[1].since") && mismatch.contains("Int"), "\(mismatch)")
        let syntax = message(LoginBody.self, #"{"username":"a",}"#)
        #expect(syntax.contains("byte 16"), "\(syntax)")
        #expect(message(Int.self, "").contains("empty"))
        let range = message([String: UInt8].self, #"{"a":256}"#)
        #expect(range.contains("256") && range.contains("UInt8") && range.contains("at a"), "\(range)")
    }
}

extension JSONDecoderTests.Handmade {
    /// A copy with `keys` replaced (Foundation's `allKeys` order is unspecified).
    func with(keys: [String]) -> Self {
        var copy = self
        copy.keys = keys
        return copy
    }
}
