/// The search index of a catalog: every hero's folded names in one flat array, and posting lists
/// (sorted, duplicate-free arrays of catalog positions) per folded scalar and per pair of adjacent
/// folded scalars.
///
/// - A one-scalar query is the scalar's list; a two-scalar query is the pair's list: both are exact,
///   so their total is the list's length and a page is a slice of it.
/// - A longer query intersects the lists of its pairs, rarest first (galloping search), and then
///   checks each remaining candidate against its folded names, since the pairs may occur apart.
/// - The empty query is every position.
///
/// Pairs never span two names: the names of one hero are stored one after the other with a
/// separator that is not a Unicode scalar (so no query contains it).
public struct CatalogIndex: Sendable {
    /// Between two names of one hero in ``text``.
    static let separator: UInt32 = 0xFFFF_FFFF

    /// How many heroes are indexed.
    public let count: Int
    /// Every hero's folded names, separated by ``separator``, in catalog order.
    let text: [UInt32]
    /// Hero `i`'s names are `text[starts[i]..<starts[i + 1]]`.
    let starts: [Int]
    let singles: [UInt32: [Int32]]
    let pairs: [UInt64: [Int32]]

    /// Indexes the names of each hero: `names[i]` are hero `i`'s names in every locale.
    public init<Names: Sequence>(names: [Names]) where Names.Element == String {
        precondition(names.count < Int(Int32.max), "a catalog holds fewer than 2^31 heroes")
        var text: [UInt32] = []
        var starts: [Int] = [0]
        starts.reserveCapacity(names.count + 1)
        var singles: [UInt32: [Int32]] = [:]
        var pairs: [UInt64: [Int32]] = [:]
        for (position, heroNames) in names.enumerated() {
            let id = Int32(position)
            var first = true
            for name in heroNames {
                if !first { text.append(Self.separator) }
                first = false
                let folded = SearchFolding.fold(name)
                var previous: UInt32?
                for scalar in folded {
                    Self.add(id, to: &singles[scalar, default: []])
                    if let previous {
                        Self.add(id, to: &pairs[UInt64(previous) << 32 | UInt64(scalar), default: []])
                    }
                    previous = scalar
                }
                text.append(contentsOf: folded)
            }
            starts.append(text.count)
        }
        self.count = names.count
        self.text = text
        self.starts = starts
        self.singles = singles
        self.pairs = pairs
    }

    @inline(__always)
    private static func add(_ id: Int32, to list: inout [Int32]) {
        if list.last != id { list.append(id) }
    }

    /// The positions of the heroes one of whose names contains `query` (already folded), in
    /// catalog order: ``Matches/total`` in all, and the positions from `offset`, at most `limit`.
    public func search(folded query: [UInt32], offset: Int, limit: Int) -> Matches {
        switch query.count {
        case 0:
            let end = min(count, offset &+ limit)
            return Matches(total: count, page: offset < end ? (offset..<end).map { Int32($0) } : [])
        case 1:
            return Self.page(of: singles[query[0]] ?? [], offset: offset, limit: limit)
        case 2:
            return Self.page(of: pairs[UInt64(query[0]) << 32 | UInt64(query[1])] ?? [], offset: offset, limit: limit)
        default:
            var lists: [[Int32]] = []
            lists.reserveCapacity(query.count - 1)
            for index in 1..<query.count {
                guard let list = pairs[UInt64(query[index - 1]) << 32 | UInt64(query[index])] else {
                    return Matches(total: 0, page: [])
                }
                lists.append(list)
            }
            lists.sort { $0.count < $1.count }
            var total = 0
            var page: [Int32] = []
            Self.intersect(lists) { candidate in
                if contains(query, at: Int(candidate)) {
                    if total >= offset && page.count < limit { page.append(candidate) }
                    total += 1
                }
            }
            return Matches(total: total, page: page)
        }
    }

    /// The same answer as ``search(folded:offset:limit:)`` without the posting lists: every hero's
    /// folded names are scanned (the baseline of `make bench-catalog`, and the reference of the
    /// tests).
    public func scan(folded query: [UInt32], offset: Int, limit: Int) -> Matches {
        var total = 0
        var page: [Int32] = []
        for position in 0..<count where contains(query, at: position) {
            if total >= offset && page.count < limit { page.append(Int32(position)) }
            total += 1
        }
        return Matches(total: total, page: page)
    }

    /// Whether hero `position`'s folded names contain `query`.
    func contains(_ query: [UInt32], at position: Int) -> Bool {
        let start = starts[position]
        let end = starts[position + 1]
        let length = query.count
        if length == 0 { return true }
        if end - start < length { return false }
        return text.withUnsafeBufferPointer { text in
            query.withUnsafeBufferPointer { query in
                let first = query[0]
                var index = start
                while index <= end - length {
                    if text[index] == first {
                        var matched = 1
                        while matched < length && text[index + matched] == query[matched] { matched += 1 }
                        if matched == length { return true }
                    }
                    index += 1
                }
                return false
            }
        }
    }

    private static func page(of list: [Int32], offset: Int, limit: Int) -> Matches {
        let end = min(list.count, offset &+ limit)
        return Matches(total: list.count, page: offset < end ? Array(list[offset..<end]) : [])
    }

    /// Calls `body` with every value in all of `lists` (each sorted and duplicate-free, the
    /// shortest first), in increasing order: each value of the shortest is looked for in the others
    /// by galloping forward from where the previous one was found.
    static func intersect(_ lists: [[Int32]], _ body: (Int32) -> Void) {
        guard let shortest = lists.first else { return }
        if lists.count == 1 {
            shortest.forEach(body)
            return
        }
        var cursors = [Int](repeating: 0, count: lists.count)
        candidates: for value in shortest {
            for which in 1..<lists.count {
                let list = lists[which]
                let found = gallop(list, for: value, from: cursors[which])
                cursors[which] = found
                if found == list.count { return }
                if list[found] != value { continue candidates }
            }
            body(value)
        }
    }

    /// The first index at or after `start` whose value is at least `value` (`list.count` if none).
    @inline(__always)
    static func gallop(_ list: [Int32], for value: Int32, from start: Int) -> Int {
        list.withUnsafeBufferPointer { list in
            var low = start
            if low >= list.count || list[low] >= value { return low }
            var step = 1
            var high = low + step
            while high < list.count && list[high] < value {
                low = high
                step <<= 1
                high = low + step
            }
            high = min(high, list.count)
            // list[low] < value, and list[high] >= value or high == count.
            low += 1
            while low < high {
                let middle = (low + high) >> 1
                if list[middle] < value { low = middle + 1 } else { high = middle }
            }
            return low
        }
    }

    /// What a search found.
    public struct Matches: Sendable, Hashable {
        /// How many heroes match in all.
        public var total: Int
        /// The catalog positions of the requested page.
        public var page: [Int32]

        /// A result.
        public init(total: Int, page: [Int32]) {
            self.total = total
            self.page = page
        }
    }
}
