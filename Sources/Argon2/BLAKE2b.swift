/// BLAKE2b (RFC 7693), unkeyed, with an output of 1 to 64 bytes: the hash Argon2 is built on.
///
/// Little-endian platforms only (the words of a message block are read in memory order).
/// ``wipe()`` clears the state, which holds data derived from everything hashed so far.
struct BLAKE2b {
    /// The initialisation vector (RFC 7693, 2.6): the first 64 bits of the fractional parts of the
    /// square roots of the first eight primes, as in SHA-512.
    private static let iv: InlineArray<8, UInt64> = [
        0x6a09_e667_f3bc_c908, 0xbb67_ae85_84ca_a73b, 0x3c6e_f372_fe94_f82b, 0xa54f_f53a_5f1d_36f1,
        0x510e_527f_ade6_82d1, 0x9b05_688c_2b3e_6c1f, 0x1f83_d9ab_fb41_bd6b, 0x5be0_cd19_137e_2179,
    ]

    /// The message schedule (RFC 7693, 2.7); rounds 10 and 11 reuse rows 0 and 1.
    private static let sigma: [[Int]] = [
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
        [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
        [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
        [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
        [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
        [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
        [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
        [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
        [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
        [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
    ]

    /// The chained state h.
    private var state: InlineArray<8, UInt64>
    /// Bytes not compressed yet (the last block is compressed only by ``finish(into:)``).
    private var buffer: InlineArray<128, UInt8> = .init(repeating: 0)
    private var buffered = 0
    /// Bytes compressed so far (the counter t; 64 bits suffice for anything Argon2 hashes).
    private var compressed: UInt64 = 0
    /// The output length in bytes.
    let outputLength: Int

    /// A hash of `outputLength` bytes (1 to 64).
    init(outputLength: Int) {
        precondition((1...64).contains(outputLength), "BLAKE2b's output is 1 to 64 bytes")
        self.outputLength = outputLength
        state = Self.iv
        state[0] ^= 0x0101_0000 ^ UInt64(outputLength)
    }

    /// Adds `bytes` to the message.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count {
            if buffered == 128 {
                compressed &+= 128
                compressBuffer(isLast: false)
                buffered = 0
            }
            let take = min(128 - buffered, bytes.count - offset)
            for index in 0..<take { buffer[buffered + index] = bytes[offset + index] }
            buffered += take
            offset += take
        }
    }

    /// Adds a 32-bit little-endian integer to the message.
    mutating func update(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { update($0) }
    }

    /// Finishes the hash into `output` (``outputLength`` bytes) and wipes the state.
    mutating func finish(into output: UnsafeMutableRawBufferPointer) {
        precondition(output.count >= outputLength)
        compressed &+= UInt64(buffered)
        for index in buffered..<128 { buffer[index] = 0 }
        compressBuffer(isLast: true)
        for index in 0..<outputLength {
            output[index] = UInt8(truncatingIfNeeded: state[index / 8] >> (8 * UInt64(index % 8)))
        }
        wipe()
    }

    /// Overwrites the state and the buffered bytes with zeros.
    mutating func wipe() {
        withUnsafeMutableBytes(of: &state) { wipeMemory($0) }
        withUnsafeMutableBytes(of: &buffer) { wipeMemory($0) }
        buffered = 0
        compressed = 0
    }

    /// The compression function F (RFC 7693, 3.2) on the buffered block.
    private mutating func compressBuffer(isLast: Bool) {
        var m = InlineArray<16, UInt64>(repeating: 0)
        for word in 0..<16 {
            var value: UInt64 = 0
            for byte in 0..<8 { value |= UInt64(buffer[word * 8 + byte]) << (8 * UInt64(byte)) }
            m[word] = value
        }
        var v = InlineArray<16, UInt64>(repeating: 0)
        for index in 0..<8 {
            v[index] = state[index]
            v[index + 8] = Self.iv[index]
        }
        v[12] ^= compressed
        if isLast { v[14] = ~v[14] }
        for round in 0..<12 {
            let s = Self.sigma[round % 10]
            Self.mix(&v, 0, 4, 8, 12, m[s[0]], m[s[1]])
            Self.mix(&v, 1, 5, 9, 13, m[s[2]], m[s[3]])
            Self.mix(&v, 2, 6, 10, 14, m[s[4]], m[s[5]])
            Self.mix(&v, 3, 7, 11, 15, m[s[6]], m[s[7]])
            Self.mix(&v, 0, 5, 10, 15, m[s[8]], m[s[9]])
            Self.mix(&v, 1, 6, 11, 12, m[s[10]], m[s[11]])
            Self.mix(&v, 2, 7, 8, 13, m[s[12]], m[s[13]])
            Self.mix(&v, 3, 4, 9, 14, m[s[14]], m[s[15]])
        }
        for index in 0..<8 { state[index] ^= v[index] ^ v[index + 8] }
        withUnsafeMutableBytes(of: &m) { wipeMemory($0) }
        withUnsafeMutableBytes(of: &v) { wipeMemory($0) }
    }

    /// The mixing function G (RFC 7693, 3.1).
    @inline(__always)
    private static func mix(
        _ v: inout InlineArray<16, UInt64>, _ a: Int, _ b: Int, _ c: Int, _ d: Int, _ x: UInt64, _ y: UInt64
    ) {
        v[a] = v[a] &+ v[b] &+ x
        v[d] = (v[d] ^ v[a]).rotatedRight(32)
        v[c] = v[c] &+ v[d]
        v[b] = (v[b] ^ v[c]).rotatedRight(24)
        v[a] = v[a] &+ v[b] &+ y
        v[d] = (v[d] ^ v[a]).rotatedRight(16)
        v[c] = v[c] &+ v[d]
        v[b] = (v[b] ^ v[c]).rotatedRight(63)
    }

    /// BLAKE2b of `parts` concatenated, `outputLength` bytes into `output`.
    static func hash(
        _ parts: [UnsafeRawBufferPointer], outputLength: Int, into output: UnsafeMutableRawBufferPointer
    ) {
        var hasher = BLAKE2b(outputLength: outputLength)
        for part in parts { hasher.update(part) }
        hasher.finish(into: output)
    }
}

extension UInt64 {
    @inline(__always)
    func rotatedRight(_ bits: UInt64) -> UInt64 { (self &>> bits) | (self &<< (64 &- bits)) }
}
