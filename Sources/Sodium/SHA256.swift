internal import CSodium

/// SHA-256 (`crypto_hash_sha256`).
public enum SHA256 {
    /// The digest's length in bytes (32).
    public static let digestCount = Int(crypto_hash_sha256_BYTES)

    /// Returns the 32-byte SHA-256 digest of `bytes`.
    ///
    /// ```swift
    /// SHA256.hash(Array("abc".utf8))  // ba7816bf…f20015ad
    /// ```
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        LibSodium.ensureInitialized()
        var digest = [UInt8](repeating: 0, count: digestCount)
        // crypto_hash_sha256 cannot fail; its result is always 0.
        _ = crypto_hash_sha256(&digest, bytes, UInt64(bytes.count))
        return digest
    }
}
