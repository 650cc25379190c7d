/// The compression function G (RFC 9106, 3.5 and 3.6) in plain 64-bit arithmetic, word for word as
/// the RFC writes it. It runs on any CPU and is the reference the vector kernels are tested against.
enum PortableKernel {
    /// `next = G(previous, reference)`, or `next ^= G(previous, reference)` when `accumulate` is
    /// true; the same contract as the vector kernels' `compress`, without prefetching (`upcoming`
    /// is ignored).
    static func compress(
        previous: UnsafeRawPointer, reference: UnsafeRawPointer, next: UnsafeMutableRawPointer,
        scratch: UnsafeMutableRawPointer, accumulate: Bool, upcoming: (UInt64) -> UnsafeRawPointer?
    ) {
        let x = previous.assumingMemoryBound(to: UInt64.self)
        let y = reference.assumingMemoryBound(to: UInt64.self)
        let z = scratch.assumingMemoryBound(to: UInt64.self)
        for index in 0..<128 { z[index] = x[index] ^ y[index] }
        // Rows: words 16r ..< 16r + 16.
        for row in 0..<8 {
            permute(z) { 16 * row + $0 }
        }
        // Columns: words 2j, 2j + 1 of every row.
        for column in 0..<8 {
            permute(z) { 16 * ($0 / 2) + 2 * column + $0 % 2 }
        }
        let out = next.assumingMemoryBound(to: UInt64.self)
        for index in 0..<128 {
            let g = z[index] ^ x[index] ^ y[index]
            out[index] = accumulate ? out[index] ^ g : g
        }
    }

    /// P on 16 words of `block`: v_i is the word at `word(i)`.
    @inline(__always)
    private static func permute(_ block: UnsafeMutablePointer<UInt64>, _ word: (Int) -> Int) {
        var v = InlineArray<16, UInt64>(repeating: 0)
        for index in 0..<16 { v[index] = block[word(index)] }
        mix(&v, 0, 4, 8, 12)
        mix(&v, 1, 5, 9, 13)
        mix(&v, 2, 6, 10, 14)
        mix(&v, 3, 7, 11, 15)
        mix(&v, 0, 5, 10, 15)
        mix(&v, 1, 6, 11, 12)
        mix(&v, 2, 7, 8, 13)
        mix(&v, 3, 4, 9, 14)
        for index in 0..<16 { block[word(index)] = v[index] }
        withUnsafeMutableBytes(of: &v) { wipeMemory($0) }
    }

    /// GB: BLAKE2b's G with the BlaMka products `2 · lo32(a) · lo32(b)` added.
    @inline(__always)
    private static func mix(_ v: inout InlineArray<16, UInt64>, _ a: Int, _ b: Int, _ c: Int, _ d: Int) {
        v[a] = blaMka(v[a], v[b])
        v[d] = (v[d] ^ v[a]).rotatedRight(32)
        v[c] = blaMka(v[c], v[d])
        v[b] = (v[b] ^ v[c]).rotatedRight(24)
        v[a] = blaMka(v[a], v[b])
        v[d] = (v[d] ^ v[a]).rotatedRight(16)
        v[c] = blaMka(v[c], v[d])
        v[b] = (v[b] ^ v[c]).rotatedRight(63)
    }

    private static func blaMka(_ a: UInt64, _ b: UInt64) -> UInt64 {
        a &+ b &+ 2 &* (a & 0xFFFF_FFFF) &* (b & 0xFFFF_FFFF)
    }
}
