/// A bearer token: 256 random bits, shown to its holder as 43 characters of unpadded base64url;
/// only its SHA-256 ``digest`` is stored.
///
/// ```swift
/// let token = Token.generate()
/// store(token.digest)                             // 32 bytes, in the database
/// reply(token.text)                               // to the client, never stored or logged
/// let presented = try Token.digest(of: token.text) // later: look this up, compare in constant time
/// ```
public struct Token: Sendable, Hashable {
    /// The number of random bytes in a token (32: 256 bits).
    public static let byteCount = 32

    /// The token as its holder sees it: unpadded base64url of the random bytes (43 characters).
    public let text: String
    /// SHA-256 of the token's raw random bytes: what is stored and looked up.
    public let digest: [UInt8]

    /// Generates a new token from ``SecureRandom``. The raw bytes are wiped once encoded and hashed.
    public static func generate() -> Token {
        var raw = SecureRandom.bytes(byteCount)
        defer { raw.withUnsafeMutableBytes { LibSodium.wipe($0) } }
        return Token(text: Base64URL.encode(raw), digest: SHA256.hash(raw))
    }

    /// The stored digest of a presented token's text.
    ///
    /// Throws ``SodiumError/Code/invalidBase64`` when `text` is not canonical base64url of exactly
    /// ``byteCount`` bytes, so malformed tokens are refused before any lookup.
    public static func digest(of text: String) throws(SodiumError) -> [UInt8] {
        var raw = try Base64URL.decode(text)
        defer { raw.withUnsafeMutableBytes { LibSodium.wipe($0) } }
        guard raw.count == byteCount else {
            throw SodiumError(
                code: .invalidBase64, function: "Token.digest(of:)",
                message: "a token is \(byteCount) bytes, this text decodes to \(raw.count)")
        }
        return SHA256.hash(raw)
    }
}
