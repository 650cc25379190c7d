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
        let text = [CChar](unsafeUninitializedCapacity: capacity) { buffer, initialized in
            bytes.withUnsafeBufferPointer { input in
                _ = sodium_bin2base64(buffer.baseAddress!, capacity, input.baseAddress, input.count, variant)
            }
            initialized = capacity
        }
        return text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// Decodes canonical unpadded base64url text.
    ///
    /// Throws ``SodiumError/Code/invalidBase64`` for characters outside the URL alphabet, padding,
    /// whitespace, an impossible length, or non-zero unused bits in the last character.
    public static func decode(_ text: String) throws(SodiumError) -> [UInt8] {
        LibSodium.ensureInitialized()
        let utf8 = Array(text.utf8)
        let capacity = max(1, utf8.count / 4 * 3 + 2)
        var output = [UInt8](repeating: 0, count: capacity)
        var written = 0
        let status = utf8.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                input.withMemoryRebound(to: CChar.self) { chars in
                    sodium_base642bin(
                        out.baseAddress!, out.count, chars.baseAddress, chars.count, nil, &written, nil,
                        variant)
                }
            }
        }
        guard status == 0 else {
            throw SodiumError(
                code: .invalidBase64, function: "sodium_base642bin",
                message: "not canonical unpadded base64url text")
        }
        output.removeSubrange(written...)
        return output
    }
}
