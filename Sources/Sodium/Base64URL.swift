internal import CSodium

/// Base64 with the URL- and filename-safe alphabet (RFC 4648 §5: `-` and `_`) and no padding,
/// through libsodium (`sodium_bin2base64` / `sodium_base642bin`, variant
/// `sodium_base64_VARIANT_URLSAFE_NO_PADDING`).
public enum Base64URL {
    /// libsodium's variant number for URL-safe Base64 without padding.
    private static let variant = Int32(sodium_base64_VARIANT_URLSAFE_NO_PADDING)

    /// Encodes `bytes`: `[0xfb, 0xff]` → `"-_8"`.
    public static func encode(_ bytes: [UInt8]) -> String {
        LibSodium.ensureInitialized()
        // The length includes the terminating NUL.
        let capacity = sodium_base64_encoded_len(bytes.count, variant)
        var text = [CChar](repeating: 0, count: capacity)
        _ = sodium_bin2base64(&text, capacity, bytes, bytes.count, variant)
        return LibSodium.string(fromNULTerminated: text)
    }

    /// Decodes canonical unpadded base64url text.
    ///
    /// Throws ``SodiumError/Code/invalidBase64`` for characters outside the URL alphabet, padding,
    /// whitespace, an impossible length, or non-zero unused bits in the last character.
    public static func decode(_ text: String) throws(SodiumError) -> [UInt8] {
        LibSodium.ensureInitialized()
        // libsodium reads exactly `length` bytes, so an embedded NUL is refused like any other byte.
        let length = text.utf8.count
        var output = [UInt8](repeating: 0, count: length / 4 * 3 + 2)
        var written = 0
        do {
            try checkedCall("sodium_base642bin", .invalidBase64, "not canonical unpadded base64url text") {
                sodium_base642bin(&output, output.count, text, length, nil, &written, nil, variant)
            }
        } catch {
            // The text may be a secret (a token): do not leave a partial decoding behind.
            output.withUnsafeMutableBytes { LibSodium.wipe($0) }
            throw error
        }
        output.removeSubrange(written...)
        return output
    }
}
