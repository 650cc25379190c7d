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
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if value < 0x80 {
                folded.append(value >= 0x41 && value <= 0x5A ? value + 0x20 : value)
                continue
            }
            if value >= 0xFF01 && value <= 0xFF5E {
                let ascii = value - 0xFEE0
                folded.append(ascii >= 0x41 && ascii <= 0x5A ? ascii + 0x20 : ascii)
                continue
            }
            switch value {
            case 0x3000:
                folded.append(0x20)
                continue
            case 0x03C2:
                folded.append(0x03C3)
                continue
            case 0x00DF, 0x1E9E:
                folded.append(contentsOf: [0x73, 0x73])
                continue
            default:
                break
            }
            if mayCompose(value) { needsComposition = true }
            if scalar.properties.changesWhenLowercased {
                for lower in scalar.properties.lowercaseMapping.unicodeScalars {
                    folded.append(lower.value == 0x03C2 ? 0x03C3 : lower.value)
                }
            } else {
                folded.append(value)
            }
        }
        guard needsComposition else { return folded }
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
