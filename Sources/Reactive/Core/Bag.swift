/// An insertion-ordered collection with stable keys, for subjects' observers and composite
/// disposables. Iteration order is insertion order.
///
/// Keys grow monotonically, so the slots stay sorted by key: removal finds its slot by binary search
/// and leaves a hole there instead of shifting the slots after it, so removing every entry (a
/// `DisposeBag` of 10,000 subscriptions to one subject dropped at once) costs O(n log n), not O(n²).
/// Holes are squeezed out once they outnumber the entries (order kept), so the storage stays within
/// twice the live count plus a small constant, and each removal costs O(log n) amortised.
///
/// It is a value in one buffer: a subject hands a copy (one retain) to the delivery outside its
/// lock, and a removal during that delivery copies the storage once, leaving the snapshot untouched.
/// A lone entry, the usual case of a subject or a share in a graph, is kept inline, in no buffer.
@usableFromInline
struct Bag<Element> {
    /// One slot: its key, and its entry or nil where the entry was removed and the hole is not
    /// squeezed out yet. A struct, not a tuple: the standard library's array code copies tuples of
    /// an existential through the tuple's value witnesses.
    @usableFromInline
    struct Slot {
        @usableFromInline let key: UInt64
        @usableFromInline var value: Element?

        @inlinable
        init(key: UInt64, value: Element?) {
            self.key = key
            self.value = value
        }
    }

    /// The slots, in ascending key order.
    @usableFromInline var slots: ContiguousArray<Slot> = []
    /// The number of entries (slots that are not holes).
    @usableFromInline var count = 0
    @usableFromInline var nextKey: UInt64 = 0
    /// The index of the first slot that is not a hole (`slots.count` when there is none): removal
    /// in subscription order, the usual order of a `DisposeBag` dropped at once, finds its slot
    /// there without a search.
    @usableFromInline var first = 0
    /// The entry while it is the only one: then `slots` is empty.
    @usableFromInline var lone: Slot?

    @inlinable init() {}

    @inlinable var isEmpty: Bool { count == 0 }

    @inlinable
    mutating func insert(_ value: Element) -> UInt64 {
        let key = nextKey
        nextKey &+= 1
        count += 1
        if count == 1, slots.isEmpty {
            lone = Slot(key: key, value: value)
            return key
        }
        if let lone {
            slots.append(lone)
            self.lone = nil
        }
        slots.append(Slot(key: key, value: value))
        return key
    }

    /// Removes the entry with `key` and returns it; nil if there is none (removing twice is harmless).
    @inlinable
    mutating func remove(_ key: UInt64) -> Element? {
        if let lone {
            guard lone.key == key else { return nil }
            self.lone = nil
            count = 0
            return lone.value
        }
        let low = position(of: key)
        guard low < slots.count, slots[low].key == key, let value = slots[low].value else { return nil }
        count -= 1
        if low == slots.count - 1 {
            slots.removeLast()  // the usual case of one entry; cheaper than removeAll
            if count == 0 {
                if !slots.isEmpty { slots.removeAll(keepingCapacity: true) }
                first = 0
            }
        } else if count == 0 {
            slots.removeAll(keepingCapacity: true)
            first = 0
        } else {
            slots[low].value = nil
            if low == first {
                repeat { first &+= 1 } while slots[first].value == nil
            }
            let holes = slots.count - count
            if holes >= 16, holes > count { squeeze() }
        }
        return value
    }

    /// Replaces the entry with `key`, keeping its place; does nothing if there is none.
    @inlinable
    mutating func replace(_ key: UInt64, with value: Element) {
        if let lone {
            if lone.key == key { self.lone = Slot(key: key, value: value) }
            return
        }
        let index = position(of: key)
        guard index < slots.count, slots[index].key == key, slots[index].value != nil else { return }
        slots[index].value = value
    }

    /// Removes every entry; later keys still grow from where they were, so a key given out before
    /// never names a later entry.
    @inlinable
    mutating func removeAll() {
        slots = []
        lone = nil
        count = 0
        first = 0
    }

    /// The index of the first slot whose key is not below `key` (binary search: keys ascend).
    @inlinable
    func position(of key: UInt64) -> Int {
        if first < slots.count, slots[first].key >= key { return first }
        var low = first
        var high = slots.count
        while low < high {
            let mid = (low &+ high) >> 1
            if slots[mid].key < key { low = mid &+ 1 } else { high = mid }
        }
        return low
    }

    /// Drops the holes, keeping the order of the entries.
    @inlinable
    mutating func squeeze() {
        var kept = 0
        for index in first..<slots.count where slots[index].value != nil {
            if kept != index { slots.swapAt(kept, index) }
            kept += 1
        }
        slots.removeLast(slots.count - kept)
        first = 0
    }

    @inlinable
    func forEach(_ body: (Element) throws -> Void) rethrows {
        if let value = lone?.value { return try body(value) }
        for index in first..<slots.count {
            if let value = slots[index].value { try body(value) }
        }
    }
}

extension Bag: Sendable where Element: Sendable {}
extension Bag.Slot: Sendable where Element: Sendable {}
