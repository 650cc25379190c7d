/// An Argon2id PHC string, `$argon2id$v=19$m=<KiB>,t=<passes>,p=<lanes>$<salt>$<tag>`, read and
/// written exactly as libsodium reads and writes it.
///
/// ```swift
/// let phc = try PHCString(parsing: "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$…")
/// phc.parameters  // m=19456,t=2,p=1
/// phc.description // the same string back
/// ```
///
/// Reading accepts what libsodium's `crypto_pwhash_str_verify` accepts for Argon2id and nothing
/// else: the fields in this order; decimal numbers without sign or leading zeros that fit in 32
/// bits; version 19 only; parameters within ``Argon2Parameters``'s limits; salt and tag in unpadded
/// standard Base64 whose unused bits are zero, at least 8 and 16 bytes; the whole string shorter than
/// libsodium's 128-byte buffer and free of NUL; nothing after the tag.
public struct PHCString: Sendable, Hashable, CustomStringConvertible {
    /// The cost.
    public let parameters: Argon2Parameters
    /// The salt.
    public let salt: [UInt8]
    /// The expected tag (hash).
    public let tag: [UInt8]

    /// The longest string libsodium reads, its terminating NUL included (`crypto_pwhash_STRBYTES`).
    public static let capacity = 128

    /// A string from its parts.
    public init(parameters: Argon2Parameters, salt: [UInt8], tag: [UInt8]) {
        self.parameters = parameters
        self.salt = salt
        self.tag = tag
    }

    /// Parses `text`; throws ``Argon2Error/Code/malformedString`` naming the first thing wrong, or
    /// ``Argon2Error/Code/invalidParameters`` for a cost outside Argon2's limits.
    public init(parsing text: String) throws(Argon2Error) {
        var reader = Reader(bytes: Array(text.utf8))
        guard reader.bytes.count < Self.capacity else {
            throw reader.error("it is \(reader.bytes.count) bytes long (at most \(Self.capacity - 1))")
        }
        guard !reader.bytes.contains(0) else { throw reader.error("it contains a NUL byte") }
        try reader.expect("$argon2id")
        try reader.expect("$v=")
        let version = try reader.decimal("v")
        guard version == 19 else { throw reader.error("version \(version) is not 19 (Argon2 1.3)") }
        try reader.expect("$m=")
        let memory = try reader.decimal("m")
        try reader.expect(",t=")
        let passes = try reader.decimal("t")
        try reader.expect(",p=")
        let lanes = try reader.decimal("p")
        try reader.expect("$")
        let salt = try reader.base64("salt")
        try reader.expect("$")
        let tag = try reader.base64("hash")
        guard salt.count >= 8 else { throw reader.error("the salt is \(salt.count) bytes (at least 8)") }
        guard tag.count >= 16 else { throw reader.error("the hash is \(tag.count) bytes (at least 16)") }
        guard reader.isAtEnd else { throw reader.error("unexpected text after the hash") }
        self.parameters = try Argon2Parameters(passes: passes, memoryKiB: memory, lanes: lanes)
        self.salt = salt
        self.tag = tag
    }

    /// The string, as libsodium writes it.
    public var description: String {
        "$argon2id$v=19$\(parameters)$\(Base64.encode(salt))$\(Base64.encode(tag))"
    }

    /// A cursor over the string's bytes.
    private struct Reader {
        let bytes: [UInt8]
        var position = 0

        var isAtEnd: Bool { position == bytes.count }

        func error(_ reason: String) -> Argon2Error {
            Argon2Error(code: .malformedString, message: "not an Argon2id PHC string: \(reason)")
        }

        mutating func expect(_ literal: String) throws(Argon2Error) {
            let expected = Array(literal.utf8)
            guard bytes.count - position >= expected.count,
                bytes[position..<position + expected.count].elementsEqual(expected)
            else { throw error("expected \"\(literal)\" at byte \(position)") }
            position += expected.count
        }

        /// Decimal digits without sign or leading zeros, at most 2³² − 1.
        mutating func decimal(_ name: String) throws(Argon2Error) -> UInt32 {
            let start = position
            var value: UInt64 = 0
            while position < bytes.count, (0x30...0x39).contains(bytes[position]) {
                value = value * 10 + UInt64(bytes[position] - 0x30)
                guard value <= UInt64(UInt32.max) else { throw error("\(name) does not fit in 32 bits") }
                position += 1
            }
            guard position > start else { throw error("\(name) has no digits at byte \(start)") }
            guard bytes[start] != 0x30 || position == start + 1 else {
                throw error("\(name) has a leading zero")
            }
            return UInt32(value)
        }

        /// Unpadded standard Base64 up to the next byte outside its alphabet.
        mutating func base64(_ name: String) throws(Argon2Error) -> [UInt8] {
            let start = position
            while position < bytes.count, Base64.value(of: bytes[position]) != nil { position += 1 }
            guard let decoded = Base64.decode(bytes[start..<position]) else {
                throw error("the \(name) is not canonical unpadded Base64")
            }
            return decoded
        }
    }
}

/// Standard-alphabet Base64 without padding, as libsodium's `sodium_bin2base64` and
/// `sodium_base642bin` with `sodium_base64_VARIANT_ORIGINAL_NO_PADDING` write and read it.
enum Base64 {
    private static let alphabet = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in bytes {
            accumulator = (accumulator << 8) | UInt32(byte)
            bits += 8
            while bits >= 6 {
                bits -= 6
                out.append(alphabet[Int((accumulator >> UInt32(bits)) & 63)])
            }
        }
        if bits > 0 { out.append(alphabet[Int((accumulator << UInt32(6 - bits)) & 63)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// The 6-bit value of an alphabet byte, or nil.
    static func value(of byte: UInt8) -> UInt32? {
        switch byte {
        case 0x41...0x5A: UInt32(byte - 0x41)
        case 0x61...0x7A: UInt32(byte - 0x61 + 26)
        case 0x30...0x39: UInt32(byte - 0x30 + 52)
        case 0x2B: 62
        case 0x2F: 63
        default: nil
        }
    }

    /// The bytes of `text` (alphabet bytes only), or nil when it ends in a lone character or in
    /// unused bits that are not zero.
    static func decode(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in text {
            guard let value = value(of: byte) else { return nil }
            accumulator = (accumulator << 6) | value
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        guard bits <= 4, accumulator & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return out
    }
}
