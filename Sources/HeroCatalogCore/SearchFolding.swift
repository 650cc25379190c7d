/// How names and queries are made comparable before a search: both go through ``fold(_:)`` and a
/// query matches when its folded scalars occur, in a row, in one folded name.
///
/// What is folded, in order, scalar by scalar:
/// 1. **Width**: the full-width ASCII forms U+FF01–U+FF5E become their ASCII letters, digits and
///    signs (`Ａ` → `A`, `１` → `1`), and the ideographic space U+3000 a space. Half-width katakana
///    are left as they are.
/// 2. **Case**: each scalar's Unicode lowercase mapping (`É` → `é`, `İ` → `i̇`, `Σ` → `σ`), plus
///    three case foldings lowercase does not do: final sigma `ς` → `σ`, `ß` and `ẞ` → `ss`.
/// 3. **Canonical composition**: text that may hold combining marks is put in Unicode normal form C,
///    so `e` followed by U+0301 matches a precomposed `é`.
///
/// Nothing else is folded: accents still count (`e` does not find `é`), punctuation such as `'` and
/// `·` is kept, and simplified and traditional Chinese are different characters.
public enum SearchFolding {
    /// `text` folded, as Unicode scalar values.
    public static func fold(_ text: String) -> [UInt32] {
        var folded: [UInt32] = []
        folded.reserveCapacity(text.utf8.count)
        var needsComposition = false
        for scalar in text.unicodeScalars where append(scalar, to: &folded) {
            needsComposition = true
        }
        return needsComposition ? composed(folded) : folded
    }

    /// The name in `utf8` (valid UTF-8) folded, appended to `text` as UTF-8: the scalars of
    /// ``fold(_:)``, without making a `String` unless the name needs composition. `scratch` is
    /// storage the caller keeps from one name to the next.
    static func fold(utf8 name: UnsafeBufferPointer<UInt8>, into text: inout [UInt8], scratch: inout [UInt32])
    {
        var index = 0
        // ASCII, the common case: lower-case letters, byte for byte.
        while index < name.count && name[index] < 0x80 {
            let byte = name[index]
            text.append(byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte)
            index += 1
        }
        guard index < name.count else { return }
        let asciiPrefix = index
        scratch.removeAll(keepingCapacity: true)
        var needsComposition = false
        while index < name.count {
            let value = UTF8Text.decode(name, at: &index)
            if append(Unicode.Scalar(value).unsafelyUnwrapped, to: &scratch) { needsComposition = true }
        }
        if needsComposition {
            // Composition may reach back into the ASCII prefix (`e` + U+0301): compose the whole name.
            let whole = text.suffix(asciiPrefix).map(UInt32.init) + scratch
            text.removeLast(asciiPrefix)
            for value in composed(whole) { UTF8Text.encode(value, into: &text) }
        } else {
            for value in scratch { UTF8Text.encode(value, into: &text) }
        }
    }

    /// Appends `scalar` folded (steps 1 and 2) to `folded`; true when the text may then need
    /// composition (step 3).
    @inline(__always)
    static func append(_ scalar: Unicode.Scalar, to folded: inout [UInt32]) -> Bool {
        let value = scalar.value
        if value < 0x80 {
            folded.append(value >= 0x41 && value <= 0x5A ? value + 0x20 : value)
            return false
        }
        if value >= 0xFF01 && value <= 0xFF5E {
            let ascii = value - 0xFEE0
            folded.append(ascii >= 0x41 && ascii <= 0x5A ? ascii + 0x20 : ascii)
            return false
        }
        switch value {
        case 0x3000:
            folded.append(0x20)
            return false
        case 0x03C2:
            folded.append(0x03C3)
            return false
        case 0x00DF, 0x1E9E:
            folded.append(0x73)
            folded.append(0x73)
            return false
        default:
            break
        }
        if scalar.properties.changesWhenLowercased {
            for lower in scalar.properties.lowercaseMapping.unicodeScalars {
                folded.append(lower.value == 0x03C2 ? 0x03C3 : lower.value)
            }
        } else {
            folded.append(value)
        }
        return mayCompose(value)
    }

    /// `folded` (steps 1 and 2 done) in normal form C.
    static func composed(_ folded: [UInt32]) -> [UInt32] {
        var text = String.UnicodeScalarView()
        for value in folded {
            if let scalar = Unicode.Scalar(value) { text.append(scalar) }
        }
        return Composition.nfc(String(text)).unicodeScalars.map(\.value)
    }

    /// Whether a scalar may take part in a canonical composition that changes the folded text:
    /// combining marks, the Hangul jamo, and the other scripts below U+3000 and in the
    /// supplementary planes. Common CJK ideographs, kana and precomposed Hangul never do.
    @inline(__always)
    static func mayCompose(_ value: UInt32) -> Bool {
        (value >= 0x0300 && value < 0x3000) || (value >= 0xFB1D && value <= 0xFE2F) || value >= 0x1_0000
    }
}

/// UTF-8 by hand, for text already known to be valid (a `String`'s bytes, or bytes the catalog
/// reader checked): the index and the hero storage read and write it without making `String`s.
enum UTF8Text {
    /// The scalar at `index` of valid UTF-8, moving `index` past it.
    @inline(__always)
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, at index: inout Int) -> UInt32 {
        let lead = UInt32(bytes[index])
        if lead < 0x80 {
            index += 1
            return lead
        }
        if lead < 0xE0 {
            defer { index += 2 }
            return (lead & 0x1F) << 6 | UInt32(bytes[index + 1] & 0x3F)
        }
        if lead < 0xF0 {
            defer { index += 3 }
            return (lead & 0x0F) << 12 | UInt32(bytes[index + 1] & 0x3F) << 6
                | UInt32(bytes[index + 2] & 0x3F)
        }
        defer { index += 4 }
        return (lead & 0x07) << 18 | UInt32(bytes[index + 1] & 0x3F) << 12 | UInt32(bytes[index + 2] & 0x3F)
            << 6
            | UInt32(bytes[index + 3] & 0x3F)
    }

    /// Appends the UTF-8 of the scalar `value` (a valid one) to `bytes`.
    @inline(__always)
    static func encode(_ value: UInt32, into bytes: inout [UInt8]) {
        if value < 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value))
        } else if value < 0x800 {
            bytes.append(UInt8(truncatingIfNeeded: 0xC0 | value >> 6))
            bytes.append(UInt8(truncatingIfNeeded: 0x80 | value & 0x3F))
        } else if value < 0x1_0000 {
            bytes.append(UInt8(truncatingIfNeeded: 0xE0 | value >> 12))
            bytes.append(UInt8(truncatingIfNeeded: 0x80 | value >> 6 & 0x3F))
            bytes.append(UInt8(truncatingIfNeeded: 0x80 | value & 0x3F))
        } else {
            bytes.append(UInt8(truncatingIfNeeded: 0xF0 | value >> 18))
            bytes.append(UInt8(truncatingIfNeeded: 0x80 | value >> 12 & 0x3F))
            bytes.append(UInt8(truncatingIfNeeded: 0x80 | value >> 6 & 0x3F))
            bytes.append(UInt8(truncatingIfNeeded: 0x80 | value & 0x3F))
        }
    }

    /// The UTF-8 of `scalars`, or nil when one of them is not a Unicode scalar value (a surrogate,
    /// or past U+10FFFF), which no name contains.
    static func encode(_ scalars: [UInt32]) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(scalars.count)
        for value in scalars {
            guard Unicode.Scalar(value) != nil else { return nil }
            encode(value, into: &bytes)
        }
        return bytes
    }
}
