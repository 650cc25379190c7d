import Contracts
import RemoteProtocol
import TestSupport

/// Seeded random values of every body type, with the awkward cases made likely: empty and escaped
/// strings, non-ASCII, extreme integers, nil and present optionals, empty and full collections.
struct BodyGenerator {
    var random: SeededGenerator

    init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }

    mutating func pick<Element>(_ choices: [Element]) -> Element { choices.randomElement(using: &random)! }

    private static let pieces: [String] = [
        "a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}", "\u{7F}", "é", "e\u{301}", "中",
        "😀", "\u{2028}", "\u{FEFF}", "user", "_", "-", ".", "{", "}", "[", "]", ":", ",",
    ]

    mutating func string() -> String {
        if chance(10) { return "" }
        let count = Int.random(in: 1...12, using: &random)
        return (0..<count).map { _ in pick(Self.pieces) }.joined()
    }

    mutating func int() -> Int {
        switch Int.random(in: 0..<6, using: &random) {
        case 0: pick([Int.min, Int.max, 0, -1, 1])
        case 1: Int.random(in: Int.min...Int.max, using: &random)
        default: Int.random(in: -1000...100_000, using: &random)
        }
    }

    mutating func int64() -> Int64 { Int64(int()) }

    mutating func bool() -> Bool { chance(50) }

    mutating func optional<Value>(_ make: (inout BodyGenerator) -> Value) -> Value? {
        chance(35) ? nil : make(&self)
    }

    mutating func array<Value>(_ make: (inout BodyGenerator) -> Value) -> [Value] {
        let count = chance(20) ? 0 : Int.random(in: 1...4, using: &random)
        return (0..<count).map { _ in make(&self) }
    }

    mutating func dictionary<Value>(_ make: (inout BodyGenerator) -> Value) -> [String: Value] {
        var result: [String: Value] = [:]
        for _ in 0..<(chance(20) ? 0 : Int.random(in: 1...5, using: &random)) {
            result[string()] = make(&self)
        }
        return result
    }

    mutating func code() -> MessageCode {
        chance(50) ? pick([.loginOK, .usernameShort, .networkError]) : .init(rawValue: string())
    }

    mutating func enumCase<Value: CaseIterable>(_ type: Value.Type) -> Value { pick(Array(Value.allCases)) }
}

/// One body type under test: its name (as in `extension <name>: JSONBody`) and checks run on
/// random values of it.
struct BodyCase: Sendable, CustomStringConvertible {
    let name: String
    /// Random values encoded both ways, decoded both ways (seeded by the argument).
    let roundTrip: @Sendable (UInt64) -> [String]
    /// Random valid bodies (for mutations), with the coding checks for a body.
    let bodies: @Sendable (UInt64, Int) -> [[UInt8]]
    let compareDecoding: @Sendable ([UInt8]) -> String?
    let keys: [String]
    let problems: [String]

    var description: String { name }

    init<Body: JSONBody & Equatable>(
        _ name: String, _ type: Body.Type, _ make: @escaping @Sendable (inout BodyGenerator) -> Body
    ) {
        self.name = name
        keys = Body.jsonFields.keys
        problems = Body.jsonFields.problems
        roundTrip = { seed in
            var generator = BodyGenerator(seed: seed)
            var failures: [String] = []
            for _ in 0..<150 {
                let value = make(&generator)
                failures += Oracle.compareEncoding(value)
            }
            return failures
        }
        bodies = { seed, count in
            var generator = BodyGenerator(seed: seed)
            return (0..<count).compactMap { _ in try? JSONBodyCoder.shared.encodeDirect(make(&generator)) }
        }
        compareDecoding = { bytes in Oracle.compareDecoding(Body.self, bytes) }
    }
}

/// The checks of one value or body: direct coding against the `Codable` path.
enum Oracle {
    static let codable = JSONBodyCoder(usesDirectCoding: false)
    static let codableSorted = JSONBodyCoder(sortedKeys: true, usesDirectCoding: false)
    static let direct = JSONBodyCoder.shared
    static let directSorted = JSONBodyCoder(sortedKeys: true)

    /// The same bytes both ways (plain and sorted), and the same values decoded from them.
    static func compareEncoding<Body: JSONBody & Equatable>(_ value: Body) -> [String] {
        var failures: [String] = []
        for (direct, codable) in [(direct, codable), (directSorted, codableSorted)] {
            let ours = try? direct.encodeDirect(value)
            let theirs = try? codable.encode(value)
            guard let ours, let theirs else {
                failures.append(
                    "\(Body.self): encoding failed for \(value): \(String(describing: ours)) / \(String(describing: theirs))"
                )
                continue
            }
            if ours != theirs {
                failures.append(
                    "\(Body.self) encodes differently:\n direct  \(String(decoding: ours, as: UTF8.self))\n codable \(String(decoding: theirs, as: UTF8.self))"
                )
            }
            // Through the generic entry point (as RemoteStreams calls it) too.
            if let generic = try? genericEncode(direct, value), generic != ours {
                failures.append("\(Body.self): the generic encode differs from the direct one")
            }
            if let failure = compareDecoding(Body.self, theirs) { failures.append(failure) }
        }
        return failures
    }

    /// `value` encoded through the `Encodable` entry point.
    static func genericEncode<Value: Encodable>(_ coder: JSONBodyCoder, _ value: Value) throws -> [UInt8] {
        try coder.encode(value)
    }

    /// `bytes` decoded through the `Decodable` entry point.
    static func genericDecode<Value: Decodable>(_ coder: JSONBodyCoder, _ type: Value.Type, _ bytes: [UInt8])
        throws(RemoteError) -> Value
    {
        try coder.decode(type, from: bytes)
    }

    /// Decodes `bytes` both ways: both accept with equal values, or both refuse; the coder's message
    /// is the `Codable` path's; a syntax error the direct reader reports is the parser's (same reason,
    /// same offset). Nil when all agree, else what differs.
    static func compareDecoding<Body: JSONBody & Equatable>(_ type: Body.Type, _ bytes: [UInt8]) -> String? {
        let text = String(decoding: bytes, as: UTF8.self).debugDescription
        let ours = Result { () throws(JSONReadError) in try direct.decodeDirect(Body.self, from: bytes) }
        let theirs = Result { () throws(RemoteError) in try codable.decode(Body.self, from: bytes) }
        switch (ours, theirs) {
        case (.success(let a), .success(let b)):
            return a == b ? nil : "\(Body.self) from \(text): direct \(a), codable \(b)"
        case (.success(let a), .failure(let error)):
            return "\(Body.self) from \(text): direct accepts (\(a)), codable refuses: \(error.message)"
        case (.failure(let error), .success(let b)):
            return "\(Body.self) from \(text): direct refuses (\(error)), codable accepts: \(b)"
        case (.failure(let ourError), .failure(let theirError)):
            let viaCoder = Result { () throws(RemoteError) in try direct.decode(Body.self, from: bytes) }
            let viaGeneric = Result { () throws(RemoteError) in try genericDecode(direct, Body.self, bytes) }
            guard case .failure(let coderError) = viaCoder, coderError == theirError,
                case .failure(let genericError) = viaGeneric, genericError == theirError
            else {
                return "\(Body.self) from \(text): the coder's error is not the Codable path's \(theirError)"
            }
            if ourError.offset != nil
                && theirError.message != "body is not JSON for \(Body.self): \(ourError)"
            {
                return "\(Body.self) from \(text): direct says \(ourError), codable \(theirError.message)"
            }
            return nil
        }
    }
}
