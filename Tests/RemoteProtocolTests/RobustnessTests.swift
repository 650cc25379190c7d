import RemoteProtocol
import TestSupport
import Testing

/// Truncated, mutated and random input: always a frame or an error, never a trap, and every decoded
/// frame re-encodes to the bytes it came from.
@Suite("Robustness", .timeLimit(.minutes(1)))
struct RobustnessTests {
    /// Random inputs per test. Debug builds run every test in one process on two cooperative
    /// threads, so this stays small enough not to starve the other suites; `make fuzz` explores far
    /// more.
    static let iterations = 10_000

    let codec = FrameCodec(limits: ProtocolLimits(maxBodyLength: 64))

    /// Decodes `parts`; a frame must re-encode to `parts`, an error's answer must itself round-trip.
    /// Returns whether it decoded.
    @discardableResult
    func check(_ parts: [[UInt8]]) -> Bool {
        switch decodeResult(parts, codec: codec) {
        case .success(let frame):
            #expect(codec.encode(frame) == parts)
            #expect(throws: Never.self) {
                try Frame(
                    type: frame.type, stream: frame.stream, deadlineMilliseconds: frame.deadlineMilliseconds,
                    method: frame.method, body: frame.body)
            }
            return true
        case .failure(let error):
            let answer = error.errorFrame
            #expect(decodeResult(codec.encode(answer), codec: FrameCodec()) == .success(answer))
            #expect(answer.remoteError?.code == error.code)
            return false
        }
    }

    @Test(arguments: GoldenVector.all)
    func everyPrefixOfAHeaderIsAnError(_ vector: GoldenVector) {
        let header = vector.parts[0]
        for length in 0..<header.count {
            let parts = [Array(header.prefix(length))] + vector.parts.dropFirst()
            #expect(!check(parts), "prefix \(length) of \(vector)")
        }
    }

    @Test(arguments: GoldenVector.all)
    func everyPrefixOfTheMessageIsAnError(_ vector: GoldenVector) {
        // The parts of a message, cut anywhere: fewer parts or a shorter header.
        #expect(!check([]))
        if vector.parts.count == 2 {
            #expect(!check([vector.parts[0]]), "\(vector) without its body")
        }
    }

    @Test func aTruncatedBodyIsABadRequestForItsReader() throws {
        struct Login: Codable { var username: String, password: String }
        let parts = GoldenVector.named("request").parts
        #expect(try FrameCodec().decode(parts).decodeBody(Login.self).username == "alice")
        for length in 0..<parts[1].count {
            let frame = try FrameCodec().decode([parts[0], Array(parts[1].prefix(length))])
            let result = Result { () throws(RemoteError) -> Login in try frame.decodeBody(Login.self) }
            guard case .failure(let error) = result else {
                Issue.record("a prefix of \(length) bytes decoded")
                continue
            }
            #expect(error.code == .badRequest)
        }
    }

    @Test func randomBytes() {
        var random = SeededGenerator(seed: 0x5EED_0001)
        // Almost nothing random decodes; `check` asserts, for each input, no crash and exact
        // re-encoding of whatever does.
        for _ in 0..<Self.iterations {
            let partCount = Int.random(in: 0...3, using: &random)
            let parts = (0..<partCount).map { _ in
                (0..<Int.random(in: 0...40, using: &random)).map { _ in
                    UInt8.random(in: 0...255, using: &random)
                }
            }
            _ = check(parts)
        }
    }

    @Test func randomHeadersNearTheFormat() {
        // Version 1 and small field values, so that most rules are reached and some messages are valid.
        var random = SeededGenerator(seed: 0x5EED_0002)
        let methodBytes = Array("abcz09._-A /\u{7f}".utf8) + [0x80, 0xFF, 0]
        var decoded = 0
        for _ in 0..<Self.iterations {
            let type = UInt8.random(in: 0...10, using: &random)
            let stream = UInt64.random(in: 0...3, using: &random)
            let deadline = Bool.random(using: &random) ? 0 : UInt32.random(in: 0...UInt32.max, using: &random)
            let length = Int.random(in: 0...130, using: &random)
            let method = (0..<length).map { _ in
                Int.random(in: 0..<20, using: &random) == 0
                    ? methodBytes.randomElement(using: &random) ?? 0 : UInt8(ascii: "m")
            }
            var bytes = header(
                type: type, stream: stream, deadline: deadline,
                methodLength: UInt8(truncatingIfNeeded: length + Int.random(in: -1...1, using: &random)),
                method: method)
            if Bool.random(using: &random) { bytes = header(type: type, stream: stream, method: method) }
            var parts = [bytes]
            if Bool.random(using: &random) {
                parts.append(Array(repeating: 0x7B, count: Int.random(in: 0...70, using: &random)))
            }
            if check(parts) { decoded += 1 }
        }
        #expect(decoded > Self.iterations / 100)  // about 2% of these headers are valid
    }

    @Test func mutationsOfValidMessages() {
        var random = SeededGenerator(seed: 0x5EED_0003)
        let vectors = GoldenVector.all.map(\.parts)
        var decoded = 0
        for _ in 0..<Self.iterations {
            guard var parts = vectors.randomElement(using: &random) else { break }
            for _ in 0...Int.random(in: 0...2, using: &random) {
                let index = Int.random(in: 0..<max(parts.count, 1), using: &random)
                switch Int.random(in: 0..<7, using: &random) {
                case 0 where index < parts.count && !parts[index].isEmpty:
                    let at = Int.random(in: 0..<parts[index].count, using: &random)
                    parts[index][at] = UInt8.random(in: 0...255, using: &random)
                case 1 where index < parts.count && !parts[index].isEmpty:
                    let at = Int.random(in: 0..<parts[index].count, using: &random)
                    parts[index][at] ^= 1 << UInt8.random(in: 0...7, using: &random)
                case 2 where index < parts.count:
                    parts[index].insert(
                        UInt8.random(in: 0...255, using: &random),
                        at: Int.random(in: 0...parts[index].count, using: &random))
                case 3 where index < parts.count && !parts[index].isEmpty:
                    parts[index].remove(at: Int.random(in: 0..<parts[index].count, using: &random))
                case 4 where index < parts.count:
                    parts[index] = Array(
                        parts[index].prefix(Int.random(in: 0...parts[index].count, using: &random)))
                case 5 where index < parts.count:
                    parts.remove(at: index)
                default:
                    parts.append(Array(repeating: 0x20, count: Int.random(in: 0...3, using: &random)))
                }
            }
            if check(parts) { decoded += 1 }
        }
        #expect(decoded > Self.iterations / 100)  // some mutations leave a valid message
    }
}
