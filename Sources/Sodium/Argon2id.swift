internal import CSodium

/// Argon2id password hashing through libsodium, in the standard PHC string format
/// `$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>` (16-byte random salt, 32-byte hash; libsodium's
/// Argon2id always uses one lane, `p=1`).
///
/// ```swift
/// let stored = try Argon2id.hash(password: Array("hunter22".utf8), cost: .owasp)
/// Argon2id.verify(password: Array("hunter22".utf8), against: stored)  // true
/// Argon2id.needsRehash(stored, cost: .strong)                          // true
/// ```
///
/// Every call is blocking, CPU- and memory-heavy work (the cost's memory, for tens of
/// milliseconds): run it on a thread you own, never on Swift's cooperative pool or an actor.
/// Passwords are borrowed for the call and never copied or retained by this module; libsodium
/// wipes its own working memory.
public enum Argon2id {
    /// The work one hash costs: passes over memory (`t`) and memory in bytes (`m`, a multiple of
    /// 1 KiB in the PHC string).
    public struct Cost: Sendable, Hashable, CustomStringConvertible {
        /// The number of passes (`t`).
        public let opsLimit: UInt64
        /// The memory in bytes (`m` × 1024).
        public let memLimit: Int

        /// A cost, validated against libsodium's limits for Argon2id (t ≥ 1, m ≥ 8 KiB and at most
        /// what the platform's `size_t` allows); throws ``SodiumError/Code/invalidCost`` outside them.
        /// `memLimit` is rounded down to whole KiB, as libsodium does.
        public init(opsLimit: UInt64, memLimit: Int) throws(SodiumError) {
            LibSodium.ensureInitialized()
            let opsMinimum = UInt64(crypto_pwhash_argon2id_opslimit_min())
            let opsRange = opsMinimum...UInt64(crypto_pwhash_argon2id_opslimit_max())
            let memRange = crypto_pwhash_argon2id_memlimit_min()...crypto_pwhash_argon2id_memlimit_max()
            guard opsRange.contains(opsLimit), memRange.contains(memLimit) else {
                throw SodiumError(
                    code: .invalidCost, function: "Argon2id.Cost",
                    message: "t=\(opsLimit), m=\(memLimit) bytes is outside libsodium's limits "
                        + "(t \(opsRange), m \(memRange) bytes)")
            }
            self.init(unchecked: opsLimit, memLimit: memLimit / 1024 * 1024)
        }

        /// A cost already known to be valid (the presets).
        private init(unchecked opsLimit: UInt64, memLimit: Int) {
            self.opsLimit = opsLimit
            self.memLimit = memLimit
        }

        /// OWASP's first choice for Argon2id: m = 19 MiB (19456 KiB), t = 2, p = 1. The default.
        public static let owasp = Cost(unchecked: 2, memLimit: 19456 * 1024)
        /// A stronger profile: m = 64 MiB, t = 3, p = 1.
        public static let strong = Cost(unchecked: 3, memLimit: 64 * 1024 * 1024)
        /// The cheapest cost libsodium accepts (m = 8 KiB, t = 1): for tests only, never production.
        public static let test = Cost(unchecked: 1, memLimit: 8 * 1024)

        /// The memory in KiB, as the PHC string's `m` shows it.
        public var memoryKiB: Int { memLimit / 1024 }

        /// `m=19456,t=2,p=1`.
        public var description: String { "m=\(memoryKiB),t=\(opsLimit),p=1" }
    }

    /// The longest PHC string libsodium writes or reads, including its terminating NUL (128).
    static let stringCapacity = Int(crypto_pwhash_argon2id_STRBYTES)

    /// Hashes `password` with a fresh random salt and returns the PHC string
    /// (`crypto_pwhash_str_alg` with `crypto_pwhash_ALG_ARGON2ID13`).
    ///
    /// Throws ``SodiumError/Code/hashingFailed`` when libsodium cannot hash, in practice when it
    /// cannot allocate the cost's memory.
    public static func hash(password: [UInt8], cost: Cost = .owasp) throws(SodiumError) -> String {
        LibSodium.ensureInitialized()
        var output = [CChar](repeating: 0, count: stringCapacity)
        try withPasswordPointer(password) { pointer, count throws(SodiumError) in
            try checkedCall("crypto_pwhash_str_alg", .hashingFailed, "could not hash (\(cost))") {
                crypto_pwhash_str_alg(
                    &output, pointer, UInt64(count), cost.opsLimit, cost.memLimit,
                    crypto_pwhash_ALG_ARGON2ID13)
            }
        }
        return LibSodium.string(fromNULTerminated: output)
    }

    /// True when `password` matches the PHC string `hash` (`crypto_pwhash_str_verify`).
    ///
    /// Never throws: a wrong password is `false`, and so is a malformed, truncated, over-long or
    /// non-Argon2 string (and a string whose cost libsodium refuses). Use ``cost(of:)`` to tell a
    /// malformed string apart.
    public static func verify(password: [UInt8], against hash: String) -> Bool {
        LibSodium.ensureInitialized()
        guard var stored = paddedString(hash) else { return false }
        return withPasswordPointer(password) { pointer, count in
            crypto_pwhash_str_verify(&stored, pointer, UInt64(count)) == 0
        }
    }

    /// True when `hash` was not made with exactly `cost` by Argon2id, so it should be replaced by a
    /// fresh hash on the next successful login (`crypto_pwhash_str_needs_rehash`). A malformed
    /// string needs a rehash too.
    public static func needsRehash(_ hash: String, cost: Cost) -> Bool {
        LibSodium.ensureInitialized()
        guard var stored = paddedString(hash) else { return true }
        return crypto_pwhash_argon2id_str_needs_rehash(&stored, cost.opsLimit, cost.memLimit) != 0
    }

    /// Parses the cost out of an Argon2id PHC string, checking the whole shape
    /// `$argon2id$v=19$m=<KiB>,t=<passes>,p=1$<salt>$<hash>` (salt and hash unpadded Base64 of at
    /// least 8 and 16 bytes). Throws ``SodiumError/Code/malformedHashString`` for anything else, and
    /// ``SodiumError/Code/invalidCost`` for a cost outside libsodium's limits.
    public static func cost(of hash: String) throws(SodiumError) -> Cost {
        let fields = hash.split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count == 6, fields[0].isEmpty, fields[1] == "argon2id", fields[2] == "v=19",
            isBase64(fields[4], minimumBytes: 8), isBase64(fields[5], minimumBytes: 16)
        else { throw malformed(hash) }
        let parameters = fields[3].split(separator: ",", omittingEmptySubsequences: false)
        guard parameters.count == 3,
            let kib = number(parameters[0], key: "m"), let passes = number(parameters[1], key: "t"),
            number(parameters[2], key: "p") == 1
        else { throw malformed(hash) }
        let (bytes, overflow) = Int(clamping: kib).multipliedReportingOverflow(by: 1024)
        guard !overflow else { throw malformed(hash) }
        return try Cost(opsLimit: passes, memLimit: bytes)
    }

    /// The value of `key=<decimal>` without a sign or leading zeros, or nil.
    private static func number(_ field: Substring, key: String) -> UInt64? {
        guard field.hasPrefix(key + "=") else { return nil }
        let digits = field.dropFirst(key.count + 1)
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
            digits == "0" || !digits.hasPrefix("0")
        else { return nil }
        return UInt64(digits)
    }

    /// True when `field` is unpadded standard-alphabet Base64 of at least `minimumBytes` bytes.
    private static func isBase64(_ field: Substring, minimumBytes: Int) -> Bool {
        let valid = field.utf8.allSatisfy { byte in
            (0x41...0x5a).contains(byte) || (0x61...0x7a).contains(byte) || (0x30...0x39).contains(byte)
                || byte == 0x2b || byte == 0x2f
        }
        return valid && field.utf8.count % 4 != 1 && field.utf8.count * 3 / 4 >= minimumBytes
    }

    /// The error for a string that is not a well-formed Argon2id PHC string.
    private static func malformed(_ hash: String) -> SodiumError {
        SodiumError(
            code: .malformedHashString, function: "Argon2id.cost(of:)",
            message: "not an $argon2id$v=19$m=…,t=…,p=1$salt$hash string (\(hash.utf8.count) bytes)")
    }

    /// The string's bytes, NUL-terminated and zero-padded to libsodium's 128-byte string buffer
    /// (the C functions are declared to read that many), or nil when it does not fit or holds a NUL.
    private static func paddedString(_ hash: String) -> [CChar]? {
        let utf8 = Array(hash.utf8)
        guard utf8.count < stringCapacity, !utf8.contains(0) else { return nil }
        var padded = [CChar](repeating: 0, count: stringCapacity)
        for (index, byte) in utf8.enumerated() { padded[index] = CChar(bitPattern: byte) }
        return padded
    }

    /// Lends the password's bytes as a C `char` pointer and length, valid for the call only.
    static func withPasswordPointer<Result, Failure: Error>(
        _ password: [UInt8], _ body: (UnsafePointer<CChar>, Int) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try lend(password, count: password.count, body)
    }

    /// Receives an array through Swift's array-to-pointer conversion, whose pointer is never null
    /// (not even for an empty array, as libsodium requires), and hands it on as `char` (`UInt8`
    /// and `CChar` are related types, so the memory may be read as either).
    private static func lend<Result, Failure: Error>(
        _ bytes: UnsafeRawPointer, count: Int, _ body: (UnsafePointer<CChar>, Int) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(bytes.assumingMemoryBound(to: CChar.self), count)
    }
}
