/// Reads a JSON catalog straight into a ``HeroStore``: one pass over the bytes, the text of each
/// field copied (and unescaped) into the store's buffer, no `Hero`, `String` or dictionary per hero.
///
/// It takes the catalog's plain shape only: an array of objects with exactly the members `id` (an
/// integer without fraction or exponent), `name` and `intro` (objects of strings) and `icon` (a
/// string), in any order, with RFC 8259 strings (valid UTF-8, escapes, paired surrogates) and
/// whitespace. For anything else (another member, a duplicate key, `null`, a number such as `1.0`,
/// a syntax error) it gives up and ``CatalogLoader`` decodes the file through `JSONBodyCoder`,
/// which decides whether it is a catalog and words the error: a file loads the same either way.
enum CatalogJSONReader {
    /// The heroes of the JSON text `bytes`, or nil when the text is not in the plain shape.
    static func read(_ bytes: UnsafeRawBufferPointer) -> HeroStore.Builder? {
        var reader = Reader(bytes: bytes.bindMemory(to: UInt8.self), builder: HeroStore.Builder())
        guard reader.readCatalog() else { return nil }
        return reader.builder
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var builder: HeroStore.Builder
        var index = 0
        /// A locale's bytes while it is looked up.
        var key: [UInt8] = []
        /// The locales of the object being read, as a `Dictionary` tells them apart.
        var kinds: [UInt32] = []

        static let quote = UInt8(ascii: "\"")
        static let backslash = UInt8(ascii: "\\")

        @inline(__always)
        var byte: UInt8 { index < bytes.count ? bytes[index] : 0 }

        @inline(__always)
        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        /// `byte` is `expected`: skipped, and the whitespace after it.
        @inline(__always)
        mutating func take(_ expected: UInt8) -> Bool {
            guard byte == expected else { return false }
            index += 1
            skipWhitespace()
            return true
        }

        mutating func readCatalog() -> Bool {
            if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { index = 3 }
            skipWhitespace()
            guard take(UInt8(ascii: "[")) else { return false }
            if !take(UInt8(ascii: "]")) {
                repeat {
                    guard readHero() else { return false }
                } while take(UInt8(ascii: ","))
                guard take(UInt8(ascii: "]")) else { return false }
            }
            return index == bytes.count
        }

        /// One hero, and the whitespace after it.
        mutating func readHero() -> Bool {
            guard take(UInt8(ascii: "{")) else { return false }
            var seen: UInt8 = 0
            var id = 0
            repeat {
                guard byte == Self.quote else { return false }
                guard let member = readMember() else { return false }
                guard seen & member == 0, take(UInt8(ascii: ":")) else { return false }
                seen |= member
                switch member {
                case 1:
                    guard let value = readInteger() else { return false }
                    id = value
                case 2, 4:
                    guard readTexts(intro: member == 4) else { return false }
                default:
                    guard byte == Self.quote, Self.readString(bytes, at: &index, into: &builder.bytes) else {
                        return false
                    }
                    builder.endField(locale: HeroStore.icon)
                }
                skipWhitespace()
            } while take(UInt8(ascii: ","))
            guard seen == 15, take(UInt8(ascii: "}")) else { return false }
            builder.endHero(id: id)
            return true
        }

        /// Which of the four members the name at `index` is (its bit), and the whitespace after
        /// it; nil for any other name, or one with escapes.
        mutating func readMember() -> UInt8? {
            let start = index + 1
            var end = start
            while end < bytes.count && end - start <= 5 && bytes[end] != Self.quote
                && bytes[end] != Self.backslash
            {
                end += 1
            }
            guard end < bytes.count, bytes[end] == Self.quote else { return nil }
            let name = UnsafeBufferPointer(rebasing: bytes[start..<end])
            let member: UInt8
            if name.elementsEqual("id".utf8) {
                member = 1
            } else if name.elementsEqual("name".utf8) {
                member = 2
            } else if name.elementsEqual("intro".utf8) {
                member = 4
            } else if name.elementsEqual("icon".utf8) {
                member = 8
            } else {
                return nil
            }
            index = end + 1
            skipWhitespace()
            return member
        }

        /// `{locale: text, …}` into fields of the store; false when two locales are the same key.
        mutating func readTexts(intro: Bool) -> Bool {
            guard take(UInt8(ascii: "{")) else { return false }
            if take(UInt8(ascii: "}")) { return true }
            kinds.removeAll(keepingCapacity: true)
            repeat {
                key.removeAll(keepingCapacity: true)
                guard byte == Self.quote, Self.readString(bytes, at: &index, into: &key) else { return false }
                let locale = builder.locale(utf8: key)
                let kind = builder.locales.kind(locale)
                guard !kinds.contains(kind) else { return false }
                kinds.append(kind)
                skipWhitespace()
                guard take(UInt8(ascii: ":")), byte == Self.quote,
                    Self.readString(bytes, at: &index, into: &builder.bytes)
                else {
                    return false
                }
                builder.endField(locale: intro ? locale | HeroStore.intro : locale)
                skipWhitespace()
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "}"))
        }

        /// A decimal integer that fits an `Int`, without sign on zero, fraction or exponent.
        mutating func readInteger() -> Int? {
            let negative = byte == UInt8(ascii: "-")
            if negative { index += 1 }
            let start = index
            var value = 0
            while index < bytes.count && bytes[index] >= 0x30 && bytes[index] <= 0x39 {
                let digit = Int(bytes[index] - 0x30)
                let (times, overflow) = value.multipliedReportingOverflow(by: 10)
                let (sum, carry) = times.addingReportingOverflow(digit)
                guard !overflow && !carry else { return nil }
                value = sum
                index += 1
            }
            let digits = index - start
            guard digits > 0, bytes[start] != 0x30 || (digits == 1 && !negative) else { return nil }
            switch byte {
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
            default: return negative ? -value : value
            }
        }

        /// The string at `index` of `bytes` (its opening quote), unescaped, appended to `out` as
        /// UTF-8; `index` moves past its closing quote.
        static func readString(
            _ bytes: UnsafeBufferPointer<UInt8>, at index: inout Int, into out: inout [UInt8]
        ) -> Bool {
            index += 1
            var run = index
            while index < bytes.count {
                let lead = bytes[index]
                if lead == quote {
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<index]))
                    index += 1
                    return true
                }
                if lead == backslash {
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<index]))
                    guard readEscape(bytes, at: &index, into: &out) else { return false }
                    run = index
                    continue
                }
                if lead < 0x20 { return false }
                if lead < 0x80 {
                    index += 1
                    continue
                }
                guard let length = sequenceLength(bytes, at: index) else { return false }
                index += length
            }
            return false
        }

        /// The escape at `index` (its backslash), appended to `out`.
        static func readEscape(
            _ bytes: UnsafeBufferPointer<UInt8>, at index: inout Int, into out: inout [UInt8]
        ) -> Bool {
            guard index + 1 < bytes.count else { return false }
            let escaped = bytes[index + 1]
            index += 2
            switch escaped {
            case quote, backslash, UInt8(ascii: "/"): out.append(escaped)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                guard var value = readHex(bytes, at: &index) else { return false }
                if value >= 0xD800 && value < 0xDC00 {
                    guard index + 1 < bytes.count, bytes[index] == backslash,
                        bytes[index + 1] == UInt8(ascii: "u")
                    else { return false }
                    index += 2
                    guard let low = readHex(bytes, at: &index), low >= 0xDC00 && low < 0xE000 else {
                        return false
                    }
                    value = 0x1_0000 + (value - 0xD800) << 10 + (low - 0xDC00)
                } else if value >= 0xDC00 && value < 0xE000 {
                    return false
                }
                UTF8Text.encode(value, into: &out)
            default: return false
            }
            return true
        }

        /// Four hex digits.
        static func readHex(_ bytes: UnsafeBufferPointer<UInt8>, at index: inout Int) -> UInt32? {
            guard index + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let digit = bytes[index]
                let nibble: UInt8
                switch digit {
                case 0x30...0x39: nibble = digit - 0x30
                case 0x41...0x46: nibble = digit - 0x41 + 10
                case 0x61...0x66: nibble = digit - 0x61 + 10
                default: return nil
                }
                value = value << 4 | UInt32(nibble)
                index += 1
            }
            return value
        }

        /// The length of the well-formed UTF-8 sequence of two to four bytes at `index` (RFC 3629:
        /// no overlong forms, surrogates or values past U+10FFFF), or nil.
        @inline(__always)
        static func sequenceLength(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int? {
            let lead = bytes[index]
            let length: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0:
                length = 3
                low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED:
                length = 3
                high = 0x9F
            case 0xF0:
                length = 4
                low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4:
                length = 4
                high = 0x8F
            default: return nil
            }
            guard index + length <= bytes.count else { return nil }
            guard bytes[index + 1] >= low && bytes[index + 1] <= high else { return nil }
            for next in (index + 2)..<(index + length) where bytes[next] < 0x80 || bytes[next] > 0xBF {
                return nil
            }
            return length
        }
    }
}
