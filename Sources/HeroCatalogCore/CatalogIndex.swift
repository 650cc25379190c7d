/// The search index of a catalog: every hero's folded names in one flat array, and posting lists
/// (sorted, duplicate-free arrays of catalog positions) per folded scalar, per pair and per triple of
/// adjacent folded scalars.
///
/// - A query of one, two or three scalars is one list, exact: its total is the list's length and a
///   page is a slice of it.
/// - A longer query intersects the lists of its triples, rarest first (galloping search). Each
///   entry of a triple's list also records where in the hero's names the triple occurs (or that it
///   occurs more than once, or past the 254th scalar): when every triple of the query occurs once,
///   the positions alone decide (consecutive positions: a match; anything else: none); otherwise
///   the candidate's folded names are searched. Reading the names costs a cache miss per candidate,
///   which is what made queries with 100,000 matches slow before the positions were kept.
/// - The empty query is every position.
///
/// Grams never span two names: the names of one hero are stored one after the other with a
/// separator that is not a Unicode scalar (so no query contains it). A scalar takes 21 bits, so a
/// triple fits one 64-bit key.
public struct CatalogIndex: Sendable {
    /// Between two names of one hero in ``text``.
    static let separator: UInt32 = 0xFFFF_FFFF

    /// How many heroes are indexed.
    public let count: Int
    /// Every hero's folded names, separated by ``separator``, in catalog order.
    let text: [UInt32]
    /// Hero `i`'s names are `text[starts[i]..<starts[i + 1]]`.
    let starts: [Int]
    /// Every posting list, one after the other; the dictionaries say where each is.
    let postings: [Int32]
    /// For each entry of a triple's list: where the triple starts in the hero's names (relative to
    /// the hero's first scalar), or ``manyPositions``. Zero for the other lists.
    let positions: [UInt8]
    /// A triple that occurs more than once in a hero's names, or past position 254.
    static let manyPositions: UInt8 = 255
    let singles: [UInt64: PostingList]
    let pairs: [UInt64: PostingList]
    let triples: [UInt64: PostingList]

    /// Where one posting list is in ``postings``.
    struct PostingList: Sendable {
        let start: Int
        let count: Int
    }

    @inline(__always)
    static func pair(_ first: UInt32, _ second: UInt32) -> UInt64 { UInt64(first) << 21 | UInt64(second) }

    @inline(__always)
    static func triple(_ first: UInt32, _ second: UInt32, _ third: UInt32) -> UInt64 {
        UInt64(first) << 42 | UInt64(second) << 21 | UInt64(third)
    }

    /// Indexes the names of each hero: `names[i]` are hero `i`'s names in every locale.
    public init<Names: Sequence>(names: [Names]) where Names.Element == String {
        precondition(names.count < Int(Int32.max), "a catalog holds fewer than 2^31 heroes")
        var text: [UInt32] = []
        var starts: [Int] = [0]
        starts.reserveCapacity(names.count + 1)
        var singles: [UInt64: [Int32]] = [:]
        var pairs: [UInt64: [Int32]] = [:]
        // Entries: the position << 8 | the offset of the triple in the hero's names.
        var triples: [UInt64: [Int64]] = [:]
        for (position, heroNames) in names.enumerated() {
            let id = Int32(position)
            var first = true
            for name in heroNames {
                if !first { text.append(Self.separator) }
                first = false
                let folded = SearchFolding.fold(name)
                for (offset, scalar) in folded.enumerated() {
                    Self.add(id, to: &singles[UInt64(scalar), default: []])
                    if offset >= 1 {
                        Self.add(id, to: &pairs[Self.pair(folded[offset - 1], scalar), default: []])
                    }
                    if offset >= 2 {
                        let key = Self.triple(folded[offset - 2], folded[offset - 1], scalar)
                        let at = text.count - starts[starts.count - 1] + offset - 2
                        Self.add(id, at: at, to: &triples[key, default: []])
                    }
                }
                text.append(contentsOf: folded)
            }
            starts.append(text.count)
        }
        self.count = names.count
        self.text = text
        self.starts = starts
        // One array for all the lists: no header and allocation per list, and one buffer to read.
        var postings: [Int32] = []
        self.singles = Self.flatten(singles, into: &postings)
        singles = [:]
        self.pairs = Self.flatten(pairs, into: &postings)
        pairs = [:]
        var positions = [UInt8](repeating: 0, count: postings.count)
        var placed: [UInt64: PostingList] = [:]
        placed.reserveCapacity(triples.count)
        for (key, list) in triples {
            placed[key] = PostingList(start: postings.count, count: list.count)
            for entry in list {
                postings.append(Int32(truncatingIfNeeded: entry >> 8))
                positions.append(UInt8(truncatingIfNeeded: entry & 0xFF))
            }
        }
        triples = [:]
        self.triples = placed
        self.postings = postings
        self.positions = positions
    }

    @inline(__always)
    private static func add(_ id: Int32, at position: Int, to list: inout [Int64]) {
        if let last = list.last, last >> 8 == Int64(id) {
            list[list.count - 1] = Int64(id) << 8 | Int64(manyPositions)
        } else {
            list.append(Int64(id) << 8 | Int64(min(position, Int(manyPositions))))
        }
    }

    private static func flatten(_ lists: [UInt64: [Int32]], into postings: inout [Int32]) -> [UInt64:
        PostingList]
    {
        var placed: [UInt64: PostingList] = [:]
        placed.reserveCapacity(lists.count)
        for (key, list) in lists {
            placed[key] = PostingList(start: postings.count, count: list.count)
            postings.append(contentsOf: list)
        }
        return placed
    }

    @inline(__always)
    private static func add(_ id: Int32, to list: inout [Int32]) {
        if list.last != id { list.append(id) }
    }

    /// The positions of the heroes one of whose names contains `query` (already folded), in
    /// catalog order: ``Matches/total`` in all, and the positions from `offset`, at most `limit`.
    public func search(folded query: [UInt32], offset: Int, limit: Int) -> Matches {
        let exact: PostingList?
        switch query.count {
        case 0:
            let end = min(count, offset &+ limit)
            return Matches(total: count, page: offset < end ? (offset..<end).map { Int32($0) } : [])
        case 1: exact = singles[UInt64(query[0])]
        case 2: exact = pairs[Self.pair(query[0], query[1])]
        case 3: exact = triples[Self.triple(query[0], query[1], query[2])]
        default:
            // Every triple must be there, but the ones that cover the query (at 0, 3, 6, … and the
            // last) are enough to intersect: with their positions they spell it out.
            var lists: [PostingList] = []
            var offsets: [Int] = []
            for index in 2..<query.count {
                guard let list = triples[Self.triple(query[index - 2], query[index - 1], query[index])] else {
                    return Matches(total: 0, page: [])
                }
                let start = index - 2
                if start % 3 == 0 || index == query.count - 1 {
                    lists.append(list)
                    offsets.append(start)
                }
            }
            return postings.withUnsafeBufferPointer { postings in
                positions.withUnsafeBufferPointer { positions in
                    text.withUnsafeBufferPointer { text in
                        starts.withUnsafeBufferPointer { starts in
                            query.withUnsafeBufferPointer { query in
                                var total = 0
                                var page: [Int32] = []
                                let triples = zip(offsets, lists).map { offset, list in
                                    Triple(
                                        ids: UnsafeBufferPointer(
                                            rebasing: postings[list.start..<(list.start + list.count)]),
                                        positions: UnsafeBufferPointer(
                                            rebasing: positions[list.start..<(list.start + list.count)]),
                                        offset: offset)
                                }.sorted { $0.ids.count < $1.ids.count }
                                Self.intersect(triples) { candidate, decided in
                                    let position = Int(candidate)
                                    let found =
                                        decided
                                        ?? Self.contains(
                                            query, in: text, from: starts[position], to: starts[position + 1])
                                    if found {
                                        if total >= offset && page.count < limit { page.append(candidate) }
                                        total += 1
                                    }
                                }
                                return Matches(total: total, page: page)
                            }
                        }
                    }
                }
            }
        }
        guard let exact else { return Matches(total: 0, page: []) }
        let end = min(exact.count, offset &+ limit)
        guard offset < end else { return Matches(total: exact.count, page: []) }
        return Matches(
            total: exact.count, page: Array(postings[(exact.start + offset)..<(exact.start + end)]))
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
        text.withUnsafeBufferPointer { text in
            query.withUnsafeBufferPointer { query in
                Self.contains(query, in: text, from: starts[position], to: starts[position + 1])
            }
        }
    }

    /// Whether `text[start..<end]` contains `query`.
    @inline(__always)
    static func contains(
        _ query: UnsafeBufferPointer<UInt32>, in text: UnsafeBufferPointer<UInt32>, from start: Int,
        to end: Int
    ) -> Bool {
        let length = query.count
        if length == 0 { return true }
        if end - start < length { return false }
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

    /// Calls `body` with every value in all of `lists` (each sorted and duplicate-free, the
    /// shortest first), in increasing order: each value of the shortest is looked for in the others
    /// by galloping forward from where the previous one was found.
    static func intersect(_ lists: [UnsafeBufferPointer<Int32>], _ body: (Int32) -> Void) {
        guard let shortest = lists.first else { return }
        if lists.count == 1 {
            shortest.forEach(body)
            return
        }
        var cursors = [Int](repeating: 0, count: lists.count)
        cursors.withUnsafeMutableBufferPointer { cursors in
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
    }

    /// One triple of a query: its list, the positions of its entries, and where it starts in the
    /// query.
    struct Triple {
        let ids: UnsafeBufferPointer<Int32>
        let positions: UnsafeBufferPointer<UInt8>
        let offset: Int
    }

    /// Calls `body` with every id in all of `triples` (the shortest first), and whether the
    /// positions decide the match (true: the triples are consecutive, each occurring once; false:
    /// they occur once each but apart; nil: some occurs more than once, so the names must be read).
    static func intersect(_ triples: [Triple], _ body: (Int32, Bool?) -> Void) {
        guard let shortest = triples.first else { return }
        var cursors = [Int](repeating: 0, count: triples.count)
        cursors.withUnsafeMutableBufferPointer { cursors in
            candidates: for index in 0..<shortest.ids.count {
                let value = shortest.ids[index]
                var once = shortest.positions[index] != manyPositions
                let anchor = Int(shortest.positions[index]) - shortest.offset
                var apart = false
                for which in 1..<triples.count {
                    let triple = triples[which]
                    let found = gallop(triple.ids, for: value, from: cursors[which])
                    cursors[which] = found
                    if found == triple.ids.count { return }
                    if triple.ids[found] != value { continue candidates }
                    let position = triple.positions[found]
                    if position == manyPositions {
                        once = false
                    } else if Int(position) - triple.offset != anchor {
                        apart = true
                    }
                }
                body(value, once ? !apart : nil)
            }
        }
    }

    /// The same over arrays (for tests).
    static func intersect(_ lists: [[Int32]], _ body: (Int32) -> Void) {
        func nest(_ index: Int, _ buffers: [UnsafeBufferPointer<Int32>]) {
            if index == lists.count { return intersect(buffers, body) }
            lists[index].withUnsafeBufferPointer { nest(index + 1, buffers + [$0]) }
        }
        nest(0, [])
    }

    /// The first index at or after `start` whose value is at least `value` (`list.count` if none).
    @inline(__always)
    static func gallop(_ list: UnsafeBufferPointer<Int32>, for value: Int32, from start: Int) -> Int {
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
