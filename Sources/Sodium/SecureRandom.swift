internal import CSodium

/// Cryptographically secure random bytes from the operating system (`randombytes_buf`).
public enum SecureRandom {
    /// Returns `count` random bytes (`count` must not be negative).
    ///
    /// ```swift
    /// let salt = SecureRandom.bytes(16)
    /// ```
    public static func bytes(_ count: Int) -> [UInt8] {
        precondition(count >= 0, "SecureRandom.bytes: negative count")
        LibSodium.ensureInitialized()
        var bytes = [UInt8](repeating: 0, count: count)
        randombytes_buf(&bytes, count)
        return bytes
    }
}
