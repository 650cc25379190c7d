/// The growable byte buffer the encoder writes into: raw pointer stores, with none of the
/// uniqueness and capacity bookkeeping `Array.append` repeats for every token.
///
/// It owns its memory but is a plain struct, so exactly one owner may hold it and must call
/// `deallocate()` once (`JSONStreamEncoder` keeps it in its state and frees it in `deinit`).
/// Copying it would alias the memory; the encoder never does.
struct JSONBuffer {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// Bytes written.
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = Swift.max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    /// Frees the memory; the buffer must not be used afterwards.
    func deallocate() {
        base.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    /// The bytes written, as an array (one copy).
    var array: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    /// Makes room for `extra` more bytes.
    @inline(__always)
    mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(to: count + extra) }
    }

    private mutating func grow(to needed: Int) {
        let newCapacity = Swift.max(needed, capacity * 2)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    /// Appends two bytes (`{}`, `":`, ...).
    @inline(__always)
    mutating func append(_ first: UInt8, _ second: UInt8) {
        reserve(2)
        base[count] = first
        base[count + 1] = second
        count += 2
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    mutating func append<Bytes: Sequence<UInt8>>(contentsOf bytes: Bytes) {
        if bytes.withContiguousStorageIfAvailable({ append($0) }) != nil { return }
        for byte in bytes { append(byte) }
    }

    /// Replaces the byte at `offset`, which must be below `count`.
    @inline(__always)
    mutating func set(_ byte: UInt8, at offset: Int) {
        base[offset] = byte
    }

    /// The bytes in `range`, as an array.
    func bytes(in range: Range<Int>) -> [UInt8] {
        Array(UnsafeBufferPointer(start: base + range.lowerBound, count: range.count))
    }

    /// Overwrites the bytes from `offset` on with `bytes` (which must end at or before `count`).
    mutating func overwrite(at offset: Int, with bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { source in
            guard let address = source.baseAddress else { return }
            (base + offset).update(from: address, count: source.count)
        }
    }
}
