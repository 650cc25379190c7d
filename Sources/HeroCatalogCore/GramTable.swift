/// An open-addressing hash table (linear probing, at most three quarters full) from a gram's
/// 64-bit key to a 32-bit value: two flat arrays, no allocation per entry, and a multiplicative
/// hash instead of `Hasher` (the keys are not chosen by a caller).
struct GramTable: Sendable {
    /// No key: three scalars of 0x1FFFFF, which no gram has.
    private static let empty = UInt64.max
    private var keys: [UInt64]
    private var values: [UInt32]
    /// 64 minus the log2 of the capacity.
    private var shift: UInt64
    /// How many keys it holds.
    private(set) var count = 0

    init() {
        keys = [UInt64](repeating: Self.empty, count: 1024)
        values = [UInt32](repeating: 0, count: 1024)
        shift = 64 - 10
    }

    @inline(__always)
    private func slot(_ key: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The value of `key`, if it is there.
    @inline(__always)
    func find(_ key: UInt64) -> UInt32? {
        keys.withUnsafeBufferPointer { keys in
            let mask = keys.count - 1
            var slot = slot(key)
            while true {
                let found = keys[slot]
                if found == key { return values[slot] }
                if found == Self.empty { return nil }
                slot = (slot + 1) & mask
            }
        }
    }

    /// The value of `key`; if it is not there, `value` after inserting `key` with it.
    @inline(__always)
    mutating func insert(_ key: UInt64, ifAbsent value: UInt32) -> UInt32 {
        let mask = keys.count - 1
        var slot = slot(key)
        while true {
            let found = keys[slot]
            if found == key { return values[slot] }
            if found == Self.empty { break }
            slot = (slot + 1) & mask
        }
        keys[slot] = key
        values[slot] = value
        count += 1
        if count * 4 > keys.count * 3 { grow() }
        return value
    }

    private mutating func grow() {
        let oldKeys = keys
        let oldValues = values
        keys = [UInt64](repeating: Self.empty, count: oldKeys.count * 2)
        values = [UInt32](repeating: 0, count: oldKeys.count * 2)
        shift -= 1
        let mask = keys.count - 1
        for (key, value) in zip(oldKeys, oldValues) where key != Self.empty {
            var slot = slot(key)
            while keys[slot] != Self.empty { slot = (slot + 1) & mask }
            keys[slot] = key
            values[slot] = value
        }
    }

    /// Calls `body` with every key and its value.
    func forEach(_ body: (UInt64, UInt32) -> Void) {
        for (key, value) in zip(keys, values) where key != Self.empty { body(key, value) }
    }

    /// Replaces every value `v` with `transform(v)`.
    mutating func replaceValues(_ transform: (UInt32) -> UInt32) {
        for slot in keys.indices where keys[slot] != Self.empty { values[slot] = transform(values[slot]) }
    }
}
