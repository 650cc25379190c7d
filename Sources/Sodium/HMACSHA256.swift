internal import CSodium

/// HMAC-SHA-256 (RFC 2104, `crypto_auth_hmacsha256`): a message authentication code under a secret
/// key, for values the server hands out and later checks without storing them.
public enum HMACSHA256 {
    /// The code's length in bytes (32).
    public static let codeCount = Int(crypto_auth_hmacsha256_BYTES)

    /// Returns the 32-byte HMAC-SHA-256 of `message` under `key` (a key of any length; 32 random
    /// bytes is the usual choice).
    ///
    /// ```swift
    /// let code = HMACSHA256.code(Array("Hi There".utf8), key: [UInt8](repeating: 0x0b, count: 20))
    /// // b0344c61…2e32cff7 (RFC 4231, test case 1)
    /// ```
    ///
    /// Compare a presented code with the expected one using ``constantTimeEquals(_:_:)``.
    public static func code(_ message: [UInt8], key: [UInt8]) -> [UInt8] {
        LibSodium.ensureInitialized()
        var state = crypto_auth_hmacsha256_state()
        defer { withUnsafeMutableBytes(of: &state) { LibSodium.wipe($0) } }
        var code = [UInt8](repeating: 0, count: codeCount)
        // With the streaming calls the key may have any length; they cannot fail (always 0).
        _ = crypto_auth_hmacsha256_init(&state, key, key.count)
        _ = crypto_auth_hmacsha256_update(&state, message, UInt64(message.count))
        _ = crypto_auth_hmacsha256_final(&state, &code)
        return code
    }
}
