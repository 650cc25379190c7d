import Foundation

/// Unicode normal form C, from Foundation (the standard library has no public normalization).
enum Composition {
    /// `text` in normal form C.
    static func nfc(_ text: String) -> String {
        text.precomposedStringWithCanonicalMapping
    }
}
