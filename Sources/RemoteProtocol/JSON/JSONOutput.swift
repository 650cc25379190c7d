/// Appending JSON tokens to a `JSONBuffer`: the primitive half of the encoder, with no knowledge of
/// containers. Output is compact UTF-8 in the shape Foundation's `JSONEncoder` gives with
/// `.withoutEscapingSlashes`.
enum JSONOutput {
    /// The hex digits used in `\u00XX` escapes (lower case, as Foundation writes them).
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends `string` as a quoted JSON string: `"` and `\` escaped, control characters as their
    /// short forms or `\u00XX`, everything else (including `/` and non-ASCII) as UTF-8.
    static func appendString(_ string: String, to bytes: inout JSONBuffer) {
        var string = string
        string.withUTF8 { appendString(utf8: $0, to: &bytes) }
    }

    /// Appends the UTF-8 text `utf8` as a quoted JSON string (see `appendString(_:to:)`).
    static func appendString(utf8: UnsafeBufferPointer<UInt8>, to bytes: inout JSONBuffer) {
        let count = utf8.count
        bytes.reserve(count + 2)
        bytes.append(UInt8(ascii: "\""))
        var runStart = 0
        var index = 0
        while index < count {
            let byte = utf8[index]
            if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                index += 1
                continue
            }
            if runStart < index {
                bytes.append(UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
            }
            bytes.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\"))
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x0C: bytes.append(UInt8(ascii: "f"))
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            default:
                bytes.append(contentsOf: [
                    UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hexDigits[Int(byte >> 4)],
                    hexDigits[Int(byte & 0xF)],
                ])
            }
            index += 1
            runStart = index
        }
        if runStart < count {
            bytes.append(UnsafeBufferPointer(rebasing: utf8[runStart..<count]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends the decimal digits of `magnitude`, preceded by `-` when `negative`.
    static func appendInteger(magnitude: UInt64, negative: Bool, to bytes: inout JSONBuffer) {
        if negative { bytes.append(UInt8(ascii: "-")) }
        if magnitude < 10 {
            bytes.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude))
            return
        }
        var digits = 1
        var probe = magnitude
        while probe >= 10 {
            probe /= 10
            digits += 1
        }
        bytes.reserve(digits)
        for _ in 0..<digits { bytes.append(UInt8(ascii: "0")) }
        var value = magnitude
        var position = bytes.count
        while value > 0 {
            position -= 1
            bytes.set(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value % 10), at: position)
            value /= 10
        }
    }

    /// Appends a signed or unsigned integer of any width, exactly.
    @inline(__always)
    static func appendInteger<Integer: FixedWidthInteger>(_ value: Integer, to bytes: inout JSONBuffer) {
        appendInteger(magnitude: UInt64(truncatingIfNeeded: value.magnitude), negative: value < 0, to: &bytes)
    }

    /// Appends `value` as the shortest text that reads back as the same `Double`, like Foundation
    /// (Swift's `description` without a trailing `.0`). The caller rejects non-finite values.
    static func appendDouble(_ value: Double, to bytes: inout JSONBuffer) {
        // Integral values below 2^53 print as plain digits; writing them directly skips a String.
        if value.rounded(.towardZero) == value && value.magnitude < 9_007_199_254_740_992
            && !(value == 0 && value.sign == .minus)
        {
            appendInteger(Int64(value), to: &bytes)
            return
        }
        appendFloatingText(value.description, to: &bytes)
    }

    /// Appends `value` as the shortest text that reads back as the same `Float` (see `appendDouble`).
    static func appendFloat(_ value: Float, to bytes: inout JSONBuffer) {
        if value.rounded(.towardZero) == value && value.magnitude < 16_777_216
            && !(value == 0 && value.sign == .minus)
        {
            appendInteger(Int64(value), to: &bytes)
            return
        }
        appendFloatingText(value.description, to: &bytes)
    }

    /// Appends a floating-point `description`, dropping a trailing `.0` as Foundation does.
    private static func appendFloatingText(_ text: String, to bytes: inout JSONBuffer) {
        let utf8 = text.utf8
        if utf8.count > 2 && utf8.hasSuffix(".0".utf8) {
            bytes.append(contentsOf: utf8.dropLast(2))
        } else {
            bytes.append(contentsOf: utf8)
        }
    }

    /// The 64 characters of standard base64.
    private static let base64Alphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Appends `data` as a quoted standard base64 string with `=` padding (Foundation's `Data` form).
    static func appendBase64<Bytes: Collection<UInt8>>(_ data: Bytes, to bytes: inout JSONBuffer) {
        bytes.append(UInt8(ascii: "\""))
        var iterator = data.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next()
            let third = second == nil ? nil : iterator.next()
            let chunk = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
            bytes.append(base64Alphabet[Int(chunk >> 18 & 0x3F)])
            bytes.append(base64Alphabet[Int(chunk >> 12 & 0x3F)])
            bytes.append(second == nil ? UInt8(ascii: "=") : base64Alphabet[Int(chunk >> 6 & 0x3F)])
            bytes.append(third == nil ? UInt8(ascii: "=") : base64Alphabet[Int(chunk & 0x3F)])
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

extension String.UTF8View {
    /// Whether the view ends with `suffix`.
    fileprivate func hasSuffix(_ suffix: String.UTF8View) -> Bool {
        count >= suffix.count && dropFirst(count - suffix.count).elementsEqual(suffix)
    }
}
