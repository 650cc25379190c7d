/// An insertion-ordered collection with stable keys, for subjects' observers and composite
/// disposables. Keys grow monotonically, so the storage stays sorted by key and removal is a binary
/// search plus a shift. Iteration order is insertion order.
@usableFromInline
struct Bag<Element> {
    @usableFromInline var keys: ContiguousArray<UInt64> = []
    @usableFromInline var values: ContiguousArray<Element> = []
    @usableFromInline var nextKey: UInt64 = 0

    @inlinable init() {}

    @inlinable var count: Int { values.count }
    @inlinable var isEmpty: Bool { values.isEmpty }

    @inlinable
    mutating func insert(_ value: Element) -> UInt64 {
        let key = nextKey
        nextKey &+= 1
        keys.append(key)
        values.append(value)
        return key
    }

    @inlinable
    mutating func remove(_ key: UInt64) -> Element? {
        var low = 0
        var high = keys.count
        while low < high {
            let mid = (low + high) / 2
            if keys[mid] < key { low = mid + 1 } else { high = mid }
        }
        guard low < keys.count, keys[low] == key else { return nil }
        keys.remove(at: low)
        return values.remove(at: low)
    }

    @inlinable
    func forEach(_ body: (Element) throws -> Void) rethrows {
        for value in values { try body(value) }
    }
}

extension Bag: Sendable where Element: Sendable {}
