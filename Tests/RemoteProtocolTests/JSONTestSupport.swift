import Foundation
import TestSupport

@testable import RemoteProtocol

/// The five-string request body of the login service.
struct LoginBody: Codable, Equatable {
    var username: String
    var password: String
    var phone: String
    var locale: String
    var client: String

    static let sample = LoginBody(
        username: "alice", password: "correct horse", phone: "+44 20 7946 0000", locale: "en_GB",
        client: "ios/2.3.1")
}

/// A nested body with every common kind of field.
struct ProfileBody: Codable, Equatable {
    struct Friend: Codable, Equatable {
        var name: String
        var since: Int
        var close: Bool
    }

    var id: Int
    var score: Double
    var active: Bool
    var nickname: String?
    var age: Int?
    var tags: [String]
    var friends: [Friend]
    var counts: [String: Int]
    var small: Int8
    var big: UInt64
    var negative: Int64
    var ratio: Float
    var level: Level
    var color: Color

    enum Level: Int, Codable { case low = 1, high = 2 }
    enum Color: String, Codable { case red, green }

    static let sample = ProfileBody(
        id: 42, score: 98.25, active: true, nickname: "al", age: nil, tags: ["admin", "beta", "ünïcode"],
        friends: [
            Friend(name: "bob", since: 2019, close: true), Friend(name: "carol", since: 2021, close: false),
            Friend(name: "dave", since: 2024, close: true),
        ],
        counts: ["logins": 17, "failures": 2, "resets": 0], small: -8, big: UInt64.max, negative: Int64.min,
        ratio: 0.5, level: .high, color: .green)
}

/// Any JSON value, `Codable` through single value, unkeyed and keyed containers, for differential
/// tests: decoding tries null, Bool, Int64, Double, String, array, object in turn.
indirect enum JSONTree: Codable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONTree])
    case object([String: JSONTree])

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .int(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .double(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .object(let members):
            var container = encoder.container(keyedBy: Key.self)
            for (key, value) in members { try container.encode(value, forKey: Key(stringValue: key)) }
        }
    }

    init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer() {
            if single.decodeNil() {
                self = .null
                return
            }
            if let value = try? single.decode(Bool.self) {
                self = .bool(value)
                return
            }
            if let value = try? single.decode(Int64.self) {
                self = .int(value)
                return
            }
            if let value = try? single.decode(Double.self) {
                self = .double(value)
                return
            }
            if let value = try? single.decode(String.self) {
                self = .string(value)
                return
            }
        }
        if var unkeyed = try? decoder.unkeyedContainer() {
            var elements: [JSONTree] = []
            while !unkeyed.isAtEnd { elements.append(try unkeyed.decode(JSONTree.self)) }
            self = .array(elements)
            return
        }
        let keyed = try decoder.container(keyedBy: Key.self)
        var members: [String: JSONTree] = [:]
        for key in keyed.allKeys { members[key.stringValue] = try keyed.decode(JSONTree.self, forKey: key) }
        self = .object(members)
    }
}

/// Random JSON values and texts for differential tests.
enum RandomJSON {
    /// Characters strings are made of: plain, escaped, control, non-ASCII, astral.
    static let characters: [String] = [
        "a", "b", "Z", "0", " ", "/", "\"", "\\", "\n", "\t", "\u{1}", "\u{1f}", "\u{7f}", "é", "ß", "中", "😀",
        "\u{2028}", "\u{FEFF}",
    ]

    static func string(_ random: inout SeededGenerator) -> String {
        let length = Int.random(in: 0...8, using: &random)
        return (0..<length).map { _ in characters.randomElement(using: &random) ?? "a" }.joined()
    }

    static func double(_ random: inout SeededGenerator) -> Double {
        switch Int.random(in: 0..<5, using: &random) {
        case 0: return Double(Int.random(in: -1000...1000, using: &random)) / 8
        case 1: return Double.random(in: -1e6...1e6, using: &random)
        case 2:
            let value = Double(bitPattern: random.next())
            return value.isFinite ? value : 0.5
        case 3: return Double(Int.random(in: -1_000_000...1_000_000, using: &random)) * 1e-3
        default:
            return [
                0.1, -0.0, Double.leastNonzeroMagnitude, 1e21, 1e-7, 2.2250738585072014e-308,
                1.7976931348623157e308,
            ]
            .randomElement(using: &random) ?? 0.1
        }
    }

    static func tree(_ random: inout SeededGenerator, depth: Int = 0) -> JSONTree {
        let scalarOnly = depth >= 3
        switch Int.random(in: 0..<(scalarOnly ? 5 : 7), using: &random) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2:
            return .int(
                Bool.random(using: &random)
                    ? Int64.random(in: -1000...1000, using: &random) : Int64(bitPattern: random.next()))
        case 3:
            let value = double(&random)
            // Integral doubles read back as integers through JSONTree; keep them fractional.
            return value.rounded() == value ? .double(value + 0.5) : .double(value)
        case 4: return .string(string(&random))
        case 5:
            return .array(
                (0..<Int.random(in: 0...4, using: &random)).map { _ in tree(&random, depth: depth + 1) })
        default:
            var members: [String: JSONTree] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &random) {
                members[string(&random)] = tree(&random, depth: depth + 1)
            }
            return .object(members)
        }
    }

    /// A number in text that may or may not follow the RFC grammar.
    static func numberText(_ random: inout SeededGenerator) -> String {
        var text = ""
        if Int.random(in: 0..<3, using: &random) == 0 {
            text += ["-", "+", "--"].randomElement(using: &random) ?? "-"
        }
        let digits = Int.random(in: 0...22, using: &random)
        text += String((0..<digits).map { _ in Character(String(Int.random(in: 0...9, using: &random))) })
        if Bool.random(using: &random) {
            text += "."
            text += String(
                (0..<Int.random(in: 0...20, using: &random)).map { _ in
                    Character(String(Int.random(in: 0...9, using: &random)))
                })
        }
        if Int.random(in: 0..<3, using: &random) == 0 {
            text += ["e", "E", "e+", "e-", "E-"].randomElement(using: &random) ?? "e"
            text += String(Int.random(in: 0...400, using: &random))
        }
        return text
    }

    /// `bytes` with one random edit: a byte replaced, inserted or removed.
    static func mutate(_ bytes: [UInt8], _ random: inout SeededGenerator) -> [UInt8] {
        let interesting: [UInt8] =
            Array(#"{}[],:"\ 0-.eE1tfn/u"#.utf8) + [0x00, 0x0A, 0x80, 0xC3, 0xED, 0xFF]
        var bytes = bytes
        let byte = interesting.randomElement(using: &random) ?? 0
        switch Int.random(in: 0..<3, using: &random) {
        case 0 where !bytes.isEmpty: bytes[Int.random(in: 0..<bytes.count, using: &random)] = byte
        case 1: bytes.insert(byte, at: Int.random(in: 0...bytes.count, using: &random))
        default: if !bytes.isEmpty { bytes.remove(at: Int.random(in: 0..<bytes.count, using: &random)) }
        }
        return bytes
    }
}

/// Foundation's coders configured as `JSONBodyCoder` was before it had its own.
enum FoundationJSON {
    static func encode<Value: Encodable>(_ value: Value, sortedKeys: Bool = false) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            sortedKeys ? [.sortedKeys, .withoutEscapingSlashes] : [.withoutEscapingSlashes]
        return [UInt8](try encoder.encode(value))
    }

    static func decode<Value: Decodable>(_ type: Value.Type, from bytes: [UInt8]) throws -> Value {
        try JSONDecoder().decode(type, from: Data(bytes))
    }
}

/// Our coders, below `JSONBodyCoder`, so tests see the `DecodingError`s.
enum OurJSON {
    static func encode<Value: Encodable>(_ value: Value, sortedKeys: Bool = false) throws -> [UInt8] {
        try JSONStreamEncoder(sortedKeys: sortedKeys).encodeTopLevel(value)
    }

    static func decode<Value: Decodable>(_ type: Value.Type, from bytes: [UInt8]) throws -> Value {
        try JSONNodeDecoder.decode(type, from: bytes)
    }

    static func text<Value: Encodable>(_ value: Value, sortedKeys: Bool = false) throws -> String {
        String(decoding: try encode(value, sortedKeys: sortedKeys), as: UTF8.self)
    }
}

/// The case of a `DecodingError` (or "other"), to compare ours with Foundation's.
func decodingErrorKind(_ error: any Error) -> String {
    switch error {
    case DecodingError.keyNotFound: "keyNotFound"
    case DecodingError.valueNotFound: "valueNotFound"
    case DecodingError.typeMismatch: "typeMismatch"
    case DecodingError.dataCorrupted: "dataCorrupted"
    default: "other: \(error)"
    }
}
