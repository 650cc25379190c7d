import Contracts
import Foundation
import RemoteProtocol
import TestSupport
import Testing

/// The direct JSON codings of the body types against their `Codable` conformances, the oracle:
/// identical bytes, identical values, the same bodies accepted and refused with the same messages.
@Suite("Direct JSON codings against Codable", .timeLimit(.minutes(1)))
struct JSONDirectCodingTests {
    /// The body types declared in Sources/Contracts (`extension <Name>: JSONBody`), read from the
    /// sources, so a type added there without a case here fails the coverage test.
    static func declaredBodyTypes() throws -> Set<String> {
        let contracts = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
                "Sources/Contracts")
        var names = Set<String>()
        for file in try FileManager.default.contentsOfDirectory(atPath: contracts.path)
        where file.hasSuffix(".swift") {
            let text = try String(contentsOf: contracts.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n")
            where line.hasPrefix("extension ") && line.contains(": JSONBody") {
                names.insert(String(line.dropFirst("extension ".count).prefix { $0 != ":" }))
            }
        }
        return names
    }

    /// A seed per body type (stable across runs, unlike `hashValue`).
    static func seed(_ name: String) -> UInt64 {
        name.utf8.reduce(0xC0FFEE) { $0 &* 31 &+ UInt64($1) }
    }

    @Test func everyBodyTypeOfContractsHasACase() throws {
        let declared = try Self.declaredBodyTypes()
        let covered = Set(bodyCases.map(\.name)).subtracting(["ShardEndpoints"])
        #expect(declared.count == 39, "the body types of Contracts: \(declared.sorted())")
        #expect(
            declared == covered,
            "declared but not covered: \(declared.subtracting(covered).sorted()); covered but not declared: \(covered.subtracting(declared).sorted())"
        )
        #expect(bodyCases.count == Set(bodyCases.map(\.name)).count)
    }

    @Test(arguments: bodyCases)
    func theFieldTableMatchesTheStoredProperties(_ body: BodyCase) {
        #expect(body.problems.isEmpty, "\(body.problems)")
    }

    /// A type whose table lacks a line, has a line for a computed property's twin, and one of the
    /// wrong type: the check names each.
    @Test func theCheckReportsAForgottenLine() {
        #expect(Probe.jsonFields.problems.isEmpty)
        #expect(
            ProbeMissingLine.jsonFields.problems == [
                "ProbeMissingLine: stored property count (Swift.Int) has no field"
            ])
        #expect(
            ProbeDuplicateKey.jsonFields.problems == [#"ProbeDuplicateKey: key "a" is in the table twice"#])
        #expect(
            ProbeWrongProperty.jsonFields.problems == [
                "ProbeWrongProperty: stored property a has 2 fields: a, b",
                "ProbeWrongProperty: stored property b (Swift.Int) has no field",
            ])
    }

    @Test(arguments: bodyCases)
    func randomValuesEncodeAndDecodeAlike(_ body: BodyCase) {
        for failure in body.roundTrip(Self.seed(body.name)) {
            Issue.record(Comment(rawValue: failure))
        }
    }

    @Test(arguments: bodyCases)
    func mutatedBodiesAreAcceptedAndRefusedAlike(_ body: BodyCase) {
        var generator = BodyGenerator(seed: Self.seed(body.name) ^ 0x5EED)
        var failures = 0
        for valid in body.bodies(42, 30) {
            let tree = JSONTree.parse(valid)
            for _ in 0..<14 {
                let mutated = Mutator.mutate(tree, keys: body.keys, using: &generator)
                if let failure = body.compareDecoding(mutated) {
                    failures += 1
                    if failures <= 5 { Issue.record(Comment(rawValue: failure)) }
                }
            }
            if let failure = body.compareDecoding(valid) { Issue.record(Comment(rawValue: failure)) }
        }
        #expect(failures == 0)
    }

    @Test func refusedBodiesGetTheCodablePathsMessages() {
        let coder = JSONBodyCoder.shared
        func message<Body: JSONBody>(_ type: Body.Type, _ text: String) -> String? {
            do {
                _ = try coder.decode(type, from: Array(text.utf8))
                return nil
            } catch {
                return error.message
            }
        }
        #expect(
            message(LoginRequest.self, #"{"username":"a"}"#)
                == #"body is not JSON for LoginRequest: missing key "password" (at top level)"#)
        #expect(
            message(
                HeroSearchResponse.self,
                #"{"total":1,"items":[{"id":1,"name":{},"intro":{},"icon":""},{"id":"2"}]}"#)
                == "body is not JSON for HeroSearchResponse: Expected Int but found a string instead. (at items[1].id)"
        )
        #expect(
            message(LoginRequest.self, #"{"username":"a",}"#)
                == "body is not JSON for LoginRequest: invalid JSON at byte 16: expected a key string, found '}'"
        )
        #expect(
            message(VerifyResponse.self, #"{"name":"a","expires_at":1.5}"#)
                == "body is not JSON for VerifyResponse: Number 1.5 does not fit in Int64. (at expires_at)")
        #expect(
            message(PasswordValidationRequest.self, #"{"text":"a","purpose":"nope"}"#)?.hasPrefix(
                "body is not JSON for PasswordValidationRequest: Cannot initialize PasswordPurpose") == true)
        let deep = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        #expect(
            message(VerifyRequest.self, #"{"token":"t","x":"# + deep + "}")
                == "body is not JSON for VerifyRequest: invalid JSON at byte 528: containers nest deeper than 512"
        )
    }

    @Test func directSemanticsOfTheCustomDecoders() throws {
        let coder = JSONBodyCoder.shared
        let hop = try coder.decodeDirect(
            FlowTrace.Hop.self, from: Array(#"{"service":"s","method":"m","start_us":-5,"depth":null}"#.utf8))
        #expect(
            hop
                == FlowTrace.Hop(
                    service: "s", method: "m", startMicros: 0, durationMicros: 0, outcome: "ok", depth: 0))
        let fields = try coder.decodeDirect(
            FieldsParameters.self, from: Array(#"{"password_purpose":"login"}"#.utf8))
        #expect(fields == FieldsParameters(usernamePurpose: .register, passwordPurpose: .login))
        let result = try coder.decodeDirect(
            ValidationResult.self, from: Array(#" {"state":"ok","code":null} "#.utf8))
        #expect(result == ValidationResult(state: .ok))
        // The first occurrence of a key wins; unknown members are skipped.
        let request = try coder.decodeDirect(
            VerifyRequest.self,
            from: Array(#"{"x":[1,{"y":null}],"token":"a","t\u006fken":"b","token":3}"#.utf8))
        #expect(request.token == "a")
        #expect(
            try coder.decodeDirect(VerifyRequest.self, from: Array("\u{FEFF}{\"token\":\"a\"}".utf8)).token
                == "a")
    }

    @Test func bodiesAreByteCompatibleWithTheProtocolExamples() throws {
        let input = FlowInput.text(.phone, "1380013")
        #expect(
            String(decoding: try JSONBodyCoder.shared.encode(input), as: UTF8.self)
                == #"{"input":"phone","text":"1380013"}"#)
        let output = FlowOutput(.tip, message: "")
        #expect(
            String(decoding: try JSONBodyCoder.shared.encode(output), as: UTF8.self)
                == #"{"output":"tip","message":""}"#)
    }
}

// MARK: Probes of the table check

struct Probe: JSONBody {
    var name: String
    var count: Int
    var flag: Bool?

    static let jsonFields = JSONFields<Self>(
        blank: Probe(name: "", count: 0),
        [.field("name", \.name), .field("count", \.count), .field("flag", \.flag)])
}

struct ProbeMissingLine: JSONBody {
    var name: String
    var count: Int
    var flag: Bool?

    static let jsonFields = JSONFields<Self>(
        blank: ProbeMissingLine(name: "", count: 0), [.field("name", \.name), .field("flag", \.flag)])
}

struct ProbeDuplicateKey: JSONBody {
    var a: Int
    var b: Int

    static let jsonFields = JSONFields<Self>(
        blank: ProbeDuplicateKey(a: 0, b: 0), [.field("a", \.a), .field("a", \.b)])
}

struct ProbeWrongProperty: JSONBody {
    var a: Int
    var b: Int

    static let jsonFields = JSONFields<Self>(
        blank: ProbeWrongProperty(a: 0, b: 0), [.field("a", \.a), .field("b", \.a)])
}

// MARK: Mutations

/// A JSON value as a tree, for the tests' structural mutations (the coder under test has none).
indirect enum JSONTree {
    case object([(String, JSONTree)])
    case array([JSONTree])
    case string(String)
    case raw(String)

    /// Parses text the encoder wrote (valid, compact).
    static func parse(_ bytes: [UInt8]) -> JSONTree {
        var index = 0
        return parseValue(bytes, &index)
    }

    private static func parseString(_ bytes: [UInt8], _ index: inout Int) -> String {
        let start = index
        index += 1
        while bytes[index] != UInt8(ascii: "\"") { index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1 }
        index += 1
        let text = "[" + String(decoding: bytes[start..<index], as: UTF8.self) + "]"
        return (try? JSONDecoder().decode([String].self, from: Data(text.utf8)))?.first ?? ""
    }

    private static func parseValue(_ bytes: [UInt8], _ index: inout Int) -> JSONTree {
        switch bytes[index] {
        case UInt8(ascii: "{"):
            index += 1
            var members: [(String, JSONTree)] = []
            while bytes[index] != UInt8(ascii: "}") {
                if bytes[index] == UInt8(ascii: ",") { index += 1 }
                let key = parseString(bytes, &index)
                index += 1
                members.append((key, parseValue(bytes, &index)))
            }
            index += 1
            return .object(members)
        case UInt8(ascii: "["):
            index += 1
            var elements: [JSONTree] = []
            while bytes[index] != UInt8(ascii: "]") {
                if bytes[index] == UInt8(ascii: ",") { index += 1 }
                elements.append(parseValue(bytes, &index))
            }
            index += 1
            return .array(elements)
        case UInt8(ascii: "\""):
            return .string(parseString(bytes, &index))
        default:
            let start = index
            while index < bytes.count, !",]}".utf8.contains(bytes[index]) { index += 1 }
            return .raw(String(decoding: bytes[start..<index], as: UTF8.self))
        }
    }

    static func quote(_ text: String, escapingAll: Bool = false) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20 || (escapingAll && scalar.isASCII):
                out +=
                    "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    var text: String {
        switch self {
        case .object(let members):
            "{" + members.map { Self.quote($0.0) + ":" + $0.1.text }.joined(separator: ",") + "}"
        case .array(let elements): "[" + elements.map(\.text).joined(separator: ",") + "]"
        case .string(let text): Self.quote(text)
        case .raw(let text): text
        }
    }
}

enum Mutator {
    /// Values of every JSON kind and awkward numbers, to put where another kind belongs.
    static let values: [String] = [
        "null", "true", "false", "0", "-0", "1", "-1", "1.0", "1.5", "2.5e1", "25e-1", "1e400", "-1e-400",
        "1E2",
        "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
        "18446744073709551616", "\"\"", "\"x\"", "\"ok\"", "\"login\"", "\"register\"", "\"en\"",
        "\"failed\"",
        "\"\\u00e9\"", "[]", "[1]", "[\"a\",null]", "{}", "{\"a\":1}", "{\"\":\"\"}", "[{}]",
        "{\"id\":1,\"name\":{},\"intro\":{},\"icon\":\"\"}", "{\"name\":\"n\",\"user_token\":\"t\"}",
        "{\"service\":\"s\",\"method\":\"m\"}", "{\"state\":\"ok\"}", "{\"trace_id\":\"t\",\"hops\":[]}",
        "[{\"id\":1,\"name\":\"n\",\"intro\":\"i\"}]",
    ]

    static func randomValue(using generator: inout BodyGenerator) -> JSONTree {
        if generator.chance(5) {
            let depth = generator.pick([500, 511, 512, 513, 600])
            return .raw(String(repeating: "[", count: depth) + String(repeating: "]", count: depth))
        }
        return .raw(generator.pick(values))
    }

    /// `tree` with one structural change somewhere (a member removed, nulled, retyped, added, made a
    /// duplicate, its key escaped), then the text with one byte-level change at times.
    static func mutate(_ tree: JSONTree, keys: [String], using generator: inout BodyGenerator) -> [UInt8] {
        var text = change(tree, keys: keys, using: &generator).text
        if generator.chance(40) {
            var bytes = Array(text.utf8)
            switch Int.random(in: 0..<8, using: &generator.random) {
            case 0:
                bytes = Array(bytes.prefix(Int.random(in: 0..<max(1, bytes.count), using: &generator.random)))
            case 1 where !bytes.isEmpty:
                bytes[Int.random(in: 0..<bytes.count, using: &generator.random)] = UInt8.random(
                    in: 0...255, using: &generator.random)
            case 2:
                bytes.insert(
                    generator.pick(Array(" \t\n\r,:[]{}\"\\0a-".utf8) + [0xFF, 0x00]),
                    at: Int.random(in: 0...bytes.count, using: &generator.random))
            case 3 where !bytes.isEmpty:
                bytes.remove(at: Int.random(in: 0..<bytes.count, using: &generator.random))
            case 4: bytes = [0xEF, 0xBB, 0xBF] + bytes
            case 5: bytes += Array(generator.pick([" ", "x", "{}", "\n\t ", "\u{0}", ",", "]"]).utf8)
            case 6: bytes = Array(" \n".utf8) + bytes + Array("\r\n".utf8)
            default:
                let whitespace = Array(generator.pick([" ", "\n", "\t", "\r"]).utf8)
                bytes.insert(
                    contentsOf: whitespace, at: Int.random(in: 0...bytes.count, using: &generator.random))
            }
            return bytes
        }
        if generator.chance(5) { text = generator.pick(["", " ", "null", "[]", "\"x\"", "1", "{"]) }
        return Array(text.utf8)
    }

    private static func change(_ tree: JSONTree, keys: [String], using generator: inout BodyGenerator)
        -> JSONTree
    {
        switch tree {
        case .object(var members):
            // Go deeper into a member at times.
            if !members.isEmpty && generator.chance(30) {
                let index = Int.random(in: 0..<members.count, using: &generator.random)
                members[index].1 = change(members[index].1, keys: keys, using: &generator)
                return .object(members)
            }
            let key =
                members.isEmpty || generator.chance(30)
                ? generator.pick(keys + ["zz", ""]) : generator.pick(members.map(\.0))
            let position = members.firstIndex { $0.0 == key }
            switch Int.random(in: 0..<7, using: &generator.random) {
            case 0: if let position { members.remove(at: position) }
            case 1:
                if let position {
                    members[position].1 = .raw("null")
                } else {
                    members.append((key, .raw("null")))
                }
            case 2: if let position { members[position].1 = randomValue(using: &generator) }
            case 3:
                members.insert(
                    (generator.pick(["zz", "x", "é", "\n"]), randomValue(using: &generator)),
                    at: Int.random(in: 0...members.count, using: &generator.random))
            case 4: members.append((key, randomValue(using: &generator)))
            case 5: members.insert((key, randomValue(using: &generator)), at: 0)
            default:
                // The key written with escapes (the text of an escaped key is quoted below).
                if let position { members[position].0 = "\u{1}ESCAPE" + members[position].0 }
            }
            return .object(
                members.map { member in
                    member.0.hasPrefix("\u{1}ESCAPE") ? (member.0, member.1) : member
                }
            ).escapingMarkedKeys
        case .array(var elements):
            if !elements.isEmpty {
                let index = Int.random(in: 0..<elements.count, using: &generator.random)
                if generator.chance(70) {
                    elements[index] = change(elements[index], keys: keys, using: &generator)
                } else {
                    elements[index] = randomValue(using: &generator)
                }
            } else {
                elements.append(randomValue(using: &generator))
            }
            return .array(elements)
        case .string:
            return generator.chance(50) ? .string(generator.string()) : randomValue(using: &generator)
        case .raw:
            return randomValue(using: &generator)
        }
    }
}

extension JSONTree {
    /// Keys marked for escaping written as `\u00XX` escapes of every ASCII character.
    var escapingMarkedKeys: JSONTree {
        guard case .object(let members) = self else { return self }
        return .raw(
            "{"
                + members.map { member in
                    let key =
                        member.0.hasPrefix("\u{1}ESCAPE")
                        ? JSONTree.quote(String(member.0.dropFirst("\u{1}ESCAPE".count)), escapingAll: true)
                        : JSONTree.quote(member.0)
                    return key + ":" + member.1.text
                }.joined(separator: ",") + "}")
    }
}
