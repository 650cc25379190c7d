import Foundation
import RemoteProtocol

/// One golden vector of Tests/Fuzz/golden-vectors.txt.
struct GoldenVector: Sendable, CustomStringConvertible {
    /// The vector's name, e.g. `request`.
    var name: String
    /// The ZeroMQ parts of the message.
    var parts: [[UInt8]]

    var description: String { name }

    /// Every vector of Tests/Fuzz/golden-vectors.txt, in file order.
    static let all: [GoldenVector] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/golden-vectors.txt")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line -> GoldenVector? in
            if line.hasPrefix("#") { return nil }
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count >= 2 else { return nil }
            return GoldenVector(name: fields[0], parts: fields.dropFirst().map(hexBytes))
        }
    }()

    /// The vector named `name`, or an empty message when there is none (the tests then fail).
    static func named(_ name: String) -> GoldenVector {
        all.first { $0.name == name } ?? GoldenVector(name: name, parts: [])
    }
}

/// The bytes of a hex string (pairs of hex digits; anything else gives 0).
func hexBytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.utf8)
    return stride(from: 0, to: digits.count - 1, by: 2).map { index in
        UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) ?? 0
    }
}

/// A header built field by field, to write malformed messages by hand.
func header(
    version: UInt8 = 1, type: UInt8, stream: UInt64, deadline: UInt32 = 0, methodLength: UInt8? = nil,
    method: [UInt8] = []
) -> [UInt8] {
    var bytes: [UInt8] = [version, type]
    for shift in stride(from: 56, through: 0, by: -8) {
        bytes.append(UInt8(truncatingIfNeeded: stream >> UInt64(shift)))
    }
    for shift in stride(from: 24, through: 0, by: -8) {
        bytes.append(UInt8(truncatingIfNeeded: deadline >> UInt32(shift)))
    }
    bytes.append(methodLength ?? UInt8(truncatingIfNeeded: method.count))
    bytes.append(contentsOf: method)
    return bytes
}

/// The outcome of decoding, comparable in `#expect`.
func decodeResult(_ parts: [[UInt8]], codec: FrameCodec = FrameCodec()) -> Result<Frame, ProtocolError> {
    Result { () throws(ProtocolError) -> Frame in try codec.decode(parts) }
}
