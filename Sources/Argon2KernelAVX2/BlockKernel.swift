// Argon2's compression function G (RFC 9106, 3.5 and 3.6) on 256-bit vectors of four 64-bit lanes.
//
// This one file is compiled into two modules with different code generation: `Argon2KernelAVX2`
// (`-march=x86-64-v3`) and `Argon2KernelAVX512` (`-march=x86-64-v4`, where a symbolic link points
// here). Each is called only on a CPU that has the matching features; `Argon2` decides.
//
// The shifts, masks and exclusive-ors go through LLVM's vector operations directly (the `Builtin`
// module): the standard library's `&>>`, `&<<`, `^`, `&` and `|` on `SIMD4<UInt64>` are written lane
// by lane, and LLVM's vectoriser turns some of those lanes back into scalar rotates, which costs
// more than the whole round. With the operations spelled out, a rotation by 32 becomes `vpshufd`,
// by 24 and 16 `vpshufb`, by 63 two shifts and an or (one `vprorq` with AVX-512), and the BlaMka
// product `2 · lo32(a) · lo32(b)` a `vpmuludq` and an add.
import Builtin

/// Four 64-bit lanes: a quarter of a BlaMka row of 16 words.
typealias Lanes = SIMD4<UInt64>

@inline(__always)
private func vector(_ lanes: Lanes) -> Builtin.Vec4xInt64 {
    unsafeBitCast(lanes, to: Builtin.Vec4xInt64.self)
}

@inline(__always)
private func lanes(_ vector: Builtin.Vec4xInt64) -> Lanes { unsafeBitCast(vector, to: Lanes.self) }

@inline(__always)
private func xor(_ a: Lanes, _ b: Lanes) -> Lanes { lanes(Builtin.xor_Vec4xInt64(vector(a), vector(b))) }

/// `x` rotated right by `bits` in every lane.
@inline(__always)
private func rotateRight(_ x: Lanes, _ bits: UInt64) -> Lanes {
    let right = Builtin.lshr_Vec4xInt64(vector(x), vector(Lanes(repeating: bits)))
    let left = Builtin.shl_Vec4xInt64(vector(x), vector(Lanes(repeating: 64 - bits)))
    return lanes(Builtin.or_Vec4xInt64(right, left))
}

/// BlaMka's `a + b + 2 · lo32(a) · lo32(b)` in every lane.
@inline(__always)
private func blaMka(_ a: Lanes, _ b: Lanes) -> Lanes {
    let low = vector(Lanes(repeating: 0xFFFF_FFFF))
    let product = lanes(
        Builtin.mul_Vec4xInt64(Builtin.and_Vec4xInt64(vector(a), low), Builtin.and_Vec4xInt64(vector(b), low))
    )
    return a &+ b &+ (product &+ product)
}

/// GB (RFC 9106, 3.6) on four columns at once.
@inline(__always)
private func quarterRounds(_ a: inout Lanes, _ b: inout Lanes, _ c: inout Lanes, _ d: inout Lanes) {
    a = blaMka(a, b)
    d = rotateRight(xor(d, a), 32)
    c = blaMka(c, d)
    b = rotateRight(xor(b, c), 24)
    a = blaMka(a, b)
    d = rotateRight(xor(d, a), 16)
    c = blaMka(c, d)
    b = rotateRight(xor(b, c), 63)
}

/// The permutation P on 16 words held as four rows of four (`a` = words 0–3, …, `d` = 12–15):
/// GB on the columns, then on the diagonals (rows rotated left by 1, 2 and 3 lanes, and back).
@inline(__always)
private func permute(_ a: inout Lanes, _ b: inout Lanes, _ c: inout Lanes, _ d: inout Lanes) {
    quarterRounds(&a, &b, &c, &d)
    b = Lanes(b[1], b[2], b[3], b[0])
    c = Lanes(c[2], c[3], c[0], c[1])
    d = Lanes(d[3], d[0], d[1], d[2])
    quarterRounds(&a, &b, &c, &d)
    b = Lanes(b[3], b[0], b[1], b[2])
    c = Lanes(c[2], c[3], c[0], c[1])
    d = Lanes(d[1], d[2], d[3], d[0])
}

/// P on two independent sets of 16 words, one in the low 128-bit half of every vector and one in
/// the high half: `a0` = words 0, 1, `a1` = 2, 3, `b0` = 4, 5, …, `d1` = 14, 15 of each. The
/// diagonal step exchanges words only within a half.
@inline(__always)
private func halfPermute(
    _ a0: inout Lanes, _ a1: inout Lanes, _ b0: inout Lanes, _ b1: inout Lanes,
    _ c0: inout Lanes, _ c1: inout Lanes, _ d0: inout Lanes, _ d1: inout Lanes
) {
    quarterRounds(&a0, &b0, &c0, &d0)
    quarterRounds(&a1, &b1, &c1, &d1)
    // Diagonals: b → (5, 6), (7, 4); c → (10, 11), (8, 9); d → (15, 12), (13, 14).
    var t0 = Lanes(b0[1], b1[0], b0[3], b1[2])
    var t1 = Lanes(b1[1], b0[0], b1[3], b0[2])
    b0 = t0
    b1 = t1
    swap(&c0, &c1)
    t0 = Lanes(d1[1], d0[0], d1[3], d0[2])
    t1 = Lanes(d0[1], d1[0], d0[3], d1[2])
    d0 = t0
    d1 = t1
    quarterRounds(&a0, &b0, &c0, &d0)
    quarterRounds(&a1, &b1, &c1, &d1)
    // Back: b → (4, 5), (6, 7); c swapped back; d → (12, 13), (14, 15).
    t0 = Lanes(b1[1], b0[0], b1[3], b0[2])
    t1 = Lanes(b0[1], b1[0], b0[3], b1[2])
    b0 = t0
    b1 = t1
    swap(&c0, &c1)
    t0 = Lanes(d0[1], d1[0], d0[3], d1[2])
    t1 = Lanes(d1[1], d0[0], d1[3], d0[2])
    d0 = t0
    d1 = t1
}

/// Asks the CPU to bring the 1024-byte block at `block` into every cache level.
@inline(__always)
private func prefetch(_ block: UnsafeRawPointer) {
    for line in stride(from: 0, to: 1024, by: 64) {
        // llvm.prefetch(address, read, keep in all levels, data).
        Builtin.int_prefetch_RawPointer(
            (block + line)._rawValue, Builtin.zeroInitializer(), (3 as Int32)._value, (1 as Int32)._value)
    }
}

/// The compression function, vectorised for the CPU this module is compiled for.
package enum BlockKernel {
    /// `next = G(previous, reference)`, or `next ^= G(previous, reference)` when `accumulate` is true
    /// (passes after the first, Argon2 version 1.3).
    ///
    /// Every pointer addresses one 1024-byte block aligned to 32 bytes; `scratch` is a block of
    /// working space that ends up holding derived data (the caller wipes it). `next` may be
    /// `reference` (the address generator compresses a block into itself) but neither may overlap
    /// `scratch`.
    ///
    /// `upcoming` is called once the first word of the new block is known (after the first column),
    /// with that word; the block it returns, if any, is prefetched while the other seven columns
    /// run. Argon2 picks the next block's reference from exactly that word, so the reference's read
    /// from memory overlaps this block's work instead of stalling the next one.
    @inline(never)
    package static func compress(
        previous: UnsafeRawPointer, reference: UnsafeRawPointer, next: UnsafeMutableRawPointer,
        scratch: UnsafeMutableRawPointer, accumulate: Bool, upcoming: (UInt64) -> UnsafeRawPointer?
    ) {
        let x = previous.assumingMemoryBound(to: Lanes.self)
        let y = reference.assumingMemoryBound(to: Lanes.self)
        let z = scratch.assumingMemoryBound(to: Lanes.self)
        // R = X ⊕ Y; Q = rows of R through P; Z = columns of Q through P.
        for row in 0..<8 {
            let base = row * 4
            var a = xor(x[base], y[base])
            var b = xor(x[base + 1], y[base + 1])
            var c = xor(x[base + 2], y[base + 2])
            var d = xor(x[base + 3], y[base + 3])
            permute(&a, &b, &c, &d)
            z[base] = a
            z[base + 1] = b
            z[base + 2] = c
            z[base + 3] = d
        }
        // Column j is the pairs of words 2j, 2j+1 of every row: 16 words. Columns j and j + 1 run
        // together: the vector at row r holds column j's pair in its low half and column j + 1's
        // in its high half, so every load and store is whole, and the diagonal step only moves
        // words within each half (pairs of 64-bit lanes, as 128-bit code would).
        for column in stride(from: 0, to: 8, by: 2) {
            let rows = z + column / 2
            var a0 = rows[0]
            var a1 = rows[4]
            var b0 = rows[8]
            var b1 = rows[12]
            var c0 = rows[16]
            var c1 = rows[20]
            var d0 = rows[24]
            var d1 = rows[28]
            halfPermute(&a0, &a1, &b0, &b1, &c0, &c1, &d0, &d1)
            rows[0] = a0
            rows[4] = a1
            rows[8] = b0
            rows[12] = b1
            rows[16] = c0
            rows[20] = c1
            rows[24] = d0
            rows[28] = d1
            if column == 0 {
                let first = previous.load(as: UInt64.self) ^ reference.load(as: UInt64.self) ^ a0[0]
                if let block = upcoming(accumulate ? first ^ next.load(as: UInt64.self) : first) {
                    prefetch(block)
                }
            }
        }
        // G = Z ⊕ R, where R is read again from X and Y (still in the first-level cache).
        let out = next.assumingMemoryBound(to: Lanes.self)
        if accumulate {
            for index in 0..<32 { out[index] = xor(xor(out[index], z[index]), xor(x[index], y[index])) }
        } else {
            for index in 0..<32 { out[index] = xor(z[index], xor(x[index], y[index])) }
        }
    }
}
