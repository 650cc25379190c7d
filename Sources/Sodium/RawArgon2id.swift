internal import CSodium

extension Argon2id {
    /// The salt length of libsodium's raw Argon2id (`crypto_pwhash_SALTBYTES`, 16).
    public static let saltCount = Int(crypto_pwhash_SALTBYTES)

    /// Raw Argon2id v1.3 output (`crypto_pwhash` with `crypto_pwhash_ALG_ARGON2ID13`, one lane):
    /// `length` bytes (at least 16) of `password` with the 16-byte `salt` at `cost`, no PHC string.
    ///
    /// ```swift
    /// let key = try Argon2id.derive(length: 32, password: password, salt: salt, cost: .test)
    /// ```
    ///
    /// Throws ``SodiumError/Code/hashingFailed`` when libsodium refuses the input (a salt that is
    /// not 16 bytes, a length under 16) or cannot allocate the cost's memory.
    public static func derive(length: Int, password: [UInt8], salt: [UInt8], cost: Cost) throws(SodiumError)
        -> [UInt8]
    {
        LibSodium.ensureInitialized()
        guard salt.count == saltCount, length >= Int(crypto_pwhash_BYTES_MIN) else {
            throw SodiumError(
                code: .hashingFailed, function: "crypto_pwhash",
                message:
                    "a \(salt.count)-byte salt (needs \(saltCount)) and a \(length)-byte output (at least 16)"
            )
        }
        var output = [UInt8](repeating: 0, count: length)
        try withPasswordPointer(password) { pointer, count throws(SodiumError) in
            try checkedCall("crypto_pwhash", .hashingFailed, "could not hash (\(cost))") {
                crypto_pwhash(
                    &output, UInt64(length), pointer, UInt64(count), salt, cost.opsLimit, cost.memLimit,
                    crypto_pwhash_ALG_ARGON2ID13)
            }
        }
        return output
    }
}

/// BLAKE2b (`crypto_generichash`), unkeyed.
public enum BLAKE2b {
    /// The `outputLength`-byte (16 to 64) BLAKE2b hash of `bytes`.
    public static func hash(_ bytes: [UInt8], outputLength: Int = 64) -> [UInt8] {
        LibSodium.ensureInitialized()
        precondition((16...64).contains(outputLength), "crypto_generichash's output is 16 to 64 bytes")
        var digest = [UInt8](repeating: 0, count: outputLength)
        // crypto_generichash fails only for lengths outside its limits, checked above.
        _ = crypto_generichash(&digest, outputLength, bytes, UInt64(bytes.count), nil, 0)
        return digest
    }
}
