import Foundation
import TestSupport
import Testing

@testable import RemoteProtocol

/// Our coder against Foundation's on the same values and the same bytes, hand-written and seeded
/// random. Known, documented differences (docs/transport/json.md) are excluded explicitly.
@Suite("JSON coder against Foundation", .timeLimit(.minutes(1)))
struct JSONDifferentialTests {
    /// Decodes `bytes` with both coders as `Value`: both fail, or both give equal values.
    private func compareDecoding<Value: Decodable & Equatable>(
        _ type: Value.Type, _ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let ours = Result { try OurJSON.decode(type, from: bytes) }
        let theirs = Result { try FoundationJSON.decode(type, from: bytes) }
        let text = String(decoding: bytes, as: UTF8.self).debugDescription
        switch (ours, theirs) {
        case (.success(let a), .success(let b)):
            if a != b && !Self.hasFractionalNumber(bytes) {
                Issue.record("we read \(text) as \(a), Foundation as \(b)", sourceLocation: sourceLocation)
            }
        case (.failure, .failure):
            break
        case (.success(let a), .failure(let error)):
            Issue.record("we accept \(text) as \(a); Foundation: \(error)", sourceLocation: sourceLocation)
        case (.failure(let error), .success(let b)):
            if !Self.foundationOnlyAccepts(bytes) && !Self.hasFractionalNumber(bytes) && !bytes.contains(0) {
                Issue.record(
                    "Foundation accepts \(text) as \(b); we: \(error)", sourceLocation: sourceLocation)
            }
        }
    }

    /// Texts Foundation accepts and a strict RFC 8259 parser must not: a trailing comma before `]`
    /// or `}`.
    static func foundationOnlyAccepts(_ bytes: [UInt8]) -> Bool {
        let significant = bytes.filter { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }
        return zip(significant, significant.dropFirst()).contains { pair in
            pair.0 == UInt8(ascii: ",") && (pair.1 == UInt8(ascii: "]") || pair.1 == UInt8(ascii: "}"))
        }
    }

    /// Whether a number outside the strings of `bytes` has a nonzero fraction (see `isFractional`).
    static func hasFractionalNumber(_ bytes: [UInt8]) -> Bool {
        var inString = false
        var escaped = false
        var token: [UInt8] = []
        for byte in bytes + [0x20] {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            if Array("0123456789+-.eE".utf8).contains(byte) {
                token.append(byte)
                continue
            }
            if !token.isEmpty && isFractional(token) { return true }
            token = []
            if byte == UInt8(ascii: "\"") { inString = true }
        }
        return false
    }

    /// Whether `bytes` is a number with a nonzero fraction: Foundation reads some of these as
    /// integers (`434124485453125165.2` as 434124485453125165, `1e-400` as 0), we always refuse to.
    static func isFractional(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        guard !text.isEmpty, text.allSatisfy({ "0123456789+-.eE".contains($0) }) else { return false }
        let mantissa = text.prefix { $0 != "e" && $0 != "E" }
        let nonzero = mantissa.contains { "123456789".contains($0) }
        guard var decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
            return nonzero
        }
        if decimal == 0 { return nonzero }
        var rounded = Decimal()
        NSDecimalRound(&rounded, &decimal, 0, .down)
        return rounded != decimal
    }

    @Test func handWrittenValuesEncodeToTheSameBytes() throws {
        #expect(
            try OurJSON.encode(LoginBody.sample, sortedKeys: true)
                == FoundationJSON.encode(LoginBody.sample, sortedKeys: true))
        #expect(
            try OurJSON.encode(ProfileBody.sample, sortedKeys: true)
                == FoundationJSON.encode(ProfileBody.sample, sortedKeys: true))
        let specials: [String: [String]] = ["a/b": ["\u{0}", "\u{1f}", "\u{7f}", "é", "😀", "\\\""]]
        #expect(try OurJSON.encode(specials) == FoundationJSON.encode(specials))
        #expect(
            try FoundationJSON.decode(ProfileBody.self, from: OurJSON.encode(ProfileBody.sample))
                == ProfileBody.sample)
        let numbers: [Double] = [
            0, -0.0, 0.1, 1e-7, 1e21, 1e16, 9007199254740992, 9007199254740994, .leastNonzeroMagnitude, 1 / 3,
        ]
        #expect(try OurJSON.encode(numbers) == FoundationJSON.encode(numbers))
        let floats: [Float] = [
            0.1, 1e-7, 16_777_218, Float.leastNonzeroMagnitude, Float.greatestFiniteMagnitude,
        ]
        #expect(try OurJSON.encode(floats) == FoundationJSON.encode(floats))
        let foundation: [String: [Data]] = ["d": [Data(), Data([0]), Data([1, 2]), Data(0..<100)]]
        #expect(try OurJSON.encode(foundation) == FoundationJSON.encode(foundation))
        let urls = [URL(string: "https://example.com/a%20b?q=1#f"), URL(string: "relative/path")]
        #expect(try OurJSON.encode(urls) == FoundationJSON.encode(urls))
        let dates = [Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: -1.25)]
        #expect(try OurJSON.encode(dates) == FoundationJSON.encode(dates))
        let decimals = ["0.001", "-42", "1234567890.0987654321", "1e10"].compactMap { Decimal(string: $0) }
        #expect(try OurJSON.encode(decimals) == FoundationJSON.encode(decimals))
        let intKeys: [Int: Bool] = [3: true, -1: false, 10: true]
        #expect(
            try OurJSON.encode(intKeys, sortedKeys: true) == FoundationJSON.encode(intKeys, sortedKeys: true))
    }

    @Test func handWrittenTextsDecodeTheSame() {
        let texts = [
            #"{"username":"a","password":"b","phone":"c","locale":"d","client":"e"}"#,
            #"{"username":"a","password":"b","phone":"c","locale":"d"}"#,
            #"{"username":"a","password":"b","phone":"c","locale":"d","client":7}"#,
            #"{"username":"\u00e9","password":"\ud83d\ude00","phone":"\/","locale":"","client":"x","extra":[1]}"#,
        ]
        for text in texts { compareDecoding(LoginBody.self, Array(text.utf8)) }
        let trees = [
            "[1,2.5,-0,1e2,1.0,true,null,\"s\"]", #"{"a":{"b":[{}]}}"#, "9223372036854775807",
            "9223372036854775808", "-9223372036854775809", "1e308", "1e309", "4.9e-324", "2e-324", "1e-400",
            "[1,]", "{\"a\":1,}", "\u{FEFF}[]", "[01]", "[-]", "\"\\ud800\"",
            "123456789012345678901234567890",
            "0.1e1", "[1e1000]", "-1.5e-3", "\"\\u0000\"",
        ]
        for text in trees { compareDecoding(JSONTree.self, Array(text.utf8)) }
        compareDecoding(ProfileBody.self, (try? OurJSON.encode(ProfileBody.sample, sortedKeys: true)) ?? [])
    }

    @Test func randomValuesEncodeToTheSameBytesAndRoundTrip() throws {
        var random = SeededGenerator(seed: 0x5EED_0001)
        for _ in 0..<1500 {
            let tree = RandomJSON.tree(&random)
            let ours = try OurJSON.encode(tree, sortedKeys: true)
            let theirs = try FoundationJSON.encode(tree, sortedKeys: true)
            #expect(
                ours == theirs,
                "\(String(decoding: ours, as: UTF8.self)) vs \(String(decoding: theirs, as: UTF8.self))")
            #expect(try OurJSON.decode(JSONTree.self, from: ours) == tree)
        }
    }

    @Test func randomDoublesEncodeAndDecodeTheSame() throws {
        var random = SeededGenerator(seed: 0x5EED_0002)
        var doubles: [Double] = []
        for _ in 0..<2000 { doubles.append(RandomJSON.double(&random)) }
        let ours = try OurJSON.encode(doubles)
        #expect(ours == (try FoundationJSON.encode(doubles)))
        #expect(try OurJSON.decode([Double].self, from: ours) == doubles)
        let floats = doubles.map { Float($0) }.filter(\.isFinite)
        let floatBytes = try OurJSON.encode(floats)
        #expect(floatBytes == (try FoundationJSON.encode(floats)))
        #expect(try OurJSON.decode([Float].self, from: floatBytes) == floats)
    }

    @Test func randomNumberTextsDecodeTheSame() {
        var random = SeededGenerator(seed: 0x5EED_0003)
        for _ in 0..<2000 {
            let text = Array(RandomJSON.numberText(&random).utf8)
            compareDecoding(Double.self, text)
            compareDecoding(Float.self, text)
            compareDecoding(Int64.self, text)
            compareDecoding(UInt8.self, text)
        }
    }

    @Test func randomMutatedTextsDecodeTheSame() throws {
        var random = SeededGenerator(seed: 0x5EED_0004)
        for _ in 0..<1500 {
            let tree = RandomJSON.tree(&random)
            var bytes = try FoundationJSON.encode(tree, sortedKeys: true)
            for _ in 0..<Int.random(in: 1...3, using: &random) { bytes = RandomJSON.mutate(bytes, &random) }
            compareDecoding(JSONTree.self, bytes)
        }
    }

    @Test func everyPrefixOfAValidTextIsHandled() throws {
        let bytes = try OurJSON.encode(ProfileBody.sample, sortedKeys: true)
        for end in 0..<bytes.count {
            #expect(throws: DecodingError.self) {
                try OurJSON.decode(ProfileBody.self, from: Array(bytes[..<end]))
            }
            compareDecoding(JSONTree.self, Array(bytes[..<end]))
        }
    }
}
