import Sodium
import Testing

@testable import Argon2

@Suite("BLAKE2b", .timeLimit(.minutes(1)))
struct BLAKE2bTests {
    /// BLAKE2b of `bytes` by this module.
    func ours(_ bytes: [UInt8], outputLength: Int = 64) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: outputLength)
        bytes.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { BLAKE2b.hash([input], outputLength: outputLength, into: $0) }
        }
        return output
    }

    @Test("RFC 7693, appendix A: BLAKE2b-512 of \"abc\"; and of the empty message")
    func rfcVectors() {
        #expect(
            hex(ours(Array("abc".utf8)))
                == "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
                + "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923")
        #expect(
            hex(ours([]))
                == "786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419"
                + "d25e1031afee585313896444934eb04b903a685b1448b755d56f701afe9be2ce")
    }

    @Test("equal to libsodium's crypto_generichash for 0 to 600 bytes, in one piece and in parts")
    func matchesLibsodium() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...600 {
            let message = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let outputLength = Int.random(in: 16...64, using: &generator)
            let expected = Sodium.BLAKE2b.hash(message, outputLength: outputLength)
            #expect(ours(message, outputLength: outputLength) == expected, "length \(length)")
            // The same message fed in random pieces.
            var hasher = Argon2.BLAKE2b(outputLength: outputLength)
            var offset = 0
            while offset < length {
                let piece = min(length - offset, Int.random(in: 0...200, using: &generator))
                message[offset..<offset + piece].withUnsafeBytes { hasher.update($0) }
                offset += piece
            }
            var output = [UInt8](repeating: 0, count: outputLength)
            output.withUnsafeMutableBytes { hasher.finish(into: $0) }
            #expect(output == expected, "length \(length) in pieces")
        }
    }
}

/// Lowercase hexadecimal.
func hex(_ bytes: [UInt8]) -> String {
    bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
        .joined()
}
