extension CatalogIndex {
    // MARK: Searching

    /// The positions of the heroes one of whose names contains `query` (already folded), in
    /// catalog order: ``Matches/total`` in all, and the positions from `offset`, at most `limit`.
    /// A query holding a value that is not a Unicode scalar matches nothing.
    public func search(folded query: [UInt32], offset: Int, limit: Int) -> Matches {
        if query.isEmpty {
            let end = min(count, offset &+ limit)
            return Matches(total: count, page: offset < end ? (offset..<end).map { Int32($0) } : [])
        }
        guard query.allSatisfy({ Unicode.Scalar($0) != nil }) else { return Matches(total: 0, page: []) }
        let exact: ListReference?
        switch query.count {
        case 1: exact = grams.find(Self.single(query[0]))
        case 2: exact = grams.find(Self.pair(query[0], query[1]))
        case 3: exact = grams.find(Self.triple(query[0], query[1], query[2]))
        default:
            // Every triple must be there, but the ones that cover the query (at 0, 3, 6, … and the
            // last) are enough to intersect: with their positions they spell it out.
            var covering: [(list: ListReference, offset: Int)] = []
            for index in 2..<query.count {
                guard let list = grams.find(Self.triple(query[index - 2], query[index - 1], query[index]))
                else {
                    return Matches(total: 0, page: [])
                }
                let start = index - 2
                if start % 3 == 0 || index == query.count - 1 { covering.append((list, start)) }
            }
            return intersect(covering, query: UTF8Text.encode(query) ?? [], offset: offset, limit: limit)
        }
        guard let exact else { return Matches(total: 0, page: []) }
        return withLists { lists in
            let list = lists.view(exact)
            let end = min(list.count, offset &+ limit)
            guard offset < end else { return Matches(total: list.count, page: []) }
            return Matches(total: list.count, page: list.entries(from: offset, count: end - offset))
        }
    }

    /// The matches of a query of four scalars or more, whose UTF-8 is `query`, from the lists of
    /// its covering triples.
    private func intersect(
        _ covering: [(list: ListReference, offset: Int)], query: [UInt8], offset: Int, limit: Int
    ) -> Matches {
        withLists { lists in
            text.withUnsafeBufferPointer { text in
                starts.withUnsafeBufferPointer { starts in
                    query.withUnsafeBufferPointer { query in
                        var total = 0
                        var page: [Int32] = []
                        let triples = covering.map { lists.triple($0.list, offset: $0.offset) }.sorted {
                            $0.ids.count < $1.ids.count
                        }
                        Self.intersect(triples) { candidate, decided in
                            let position = Int(candidate)
                            let found =
                                decided
                                ?? Self.contains(
                                    query, in: text, from: Int(starts[position]),
                                    to: Int(starts[position + 1]))
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

    /// The same answer as ``search(folded:offset:limit:)`` without the posting lists: every hero's
    /// folded names are scanned (the baseline of `make bench-catalog`, and the reference of the
    /// tests).
    public func scan(folded query: [UInt32], offset: Int, limit: Int) -> Matches {
        guard let query = UTF8Text.encode(query) else { return Matches(total: 0, page: []) }
        var total = 0
        var page: [Int32] = []
        text.withUnsafeBufferPointer { text in
            starts.withUnsafeBufferPointer { starts in
                query.withUnsafeBufferPointer { query in
                    for position in 0..<count
                    where Self.contains(
                        query, in: text, from: Int(starts[position]), to: Int(starts[position + 1]))
                    {
                        if total >= offset && page.count < limit { page.append(Int32(position)) }
                        total += 1
                    }
                }
            }
        }
        return Matches(total: total, page: page)
    }

    /// Whether `text[start..<end]` contains `query`, byte for byte (for UTF-8, the same as scalar
    /// for scalar: a match starts and ends on a scalar's boundary).
    @inline(__always)
    static func contains(
        _ query: UnsafeBufferPointer<UInt8>, in text: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int
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

    // MARK: Lists

    /// The index's arrays as buffers, for the length of a search.
    struct Lists {
        let offsets: UnsafeBufferPointer<UInt32>
        let postings: UnsafeBufferPointer<Int32>
        let positions: UnsafeBufferPointer<UInt8>
        let words: UnsafeBufferPointer<UInt64>
        let ranks: UnsafeBufferPointer<UInt32>
        let bitmaps: UnsafeBufferPointer<Bitmap>
        let tripleBase: Int
        let wordsPerBitmap: Int
        let blocks: Int

        /// The list `reference`.
        func view(_ reference: ListReference) -> PostingView {
            if reference & dense == 0 {
                let start = Int(offsets[Int(reference)])
                let end = Int(offsets[Int(reference) + 1])
                return PostingView(ids: UnsafeBufferPointer(rebasing: postings[start..<end]))
            }
            let bitmap = bitmaps[Int(reference & ~dense)]
            return PostingView(
                count: bitmap.count,
                words: UnsafeBufferPointer(rebasing: words[bitmap.words..<(bitmap.words + wordsPerBitmap)]),
                ranks: UnsafeBufferPointer(rebasing: ranks[bitmap.ranks..<(bitmap.ranks + blocks)]))
        }

        /// The list `reference` of a triple (always sparse) at `offset` in the query.
        func triple(_ reference: ListReference, offset: Int) -> Triple {
            let start = Int(offsets[Int(reference)])
            let end = Int(offsets[Int(reference) + 1])
            return Triple(
                ids: UnsafeBufferPointer(rebasing: postings[start..<end]),
                positions: UnsafeBufferPointer(
                    rebasing: positions[(start - tripleBase)..<(end - tripleBase)]),
                offset: offset)
        }
    }

    private func withLists<Result>(_ body: (Lists) -> Result) -> Result {
        offsets.withUnsafeBufferPointer { offsets in
            postings.withUnsafeBufferPointer { postings in
                positions.withUnsafeBufferPointer { positions in
                    words.withUnsafeBufferPointer { words in
                        ranks.withUnsafeBufferPointer { ranks in
                            bitmaps.withUnsafeBufferPointer { bitmaps in
                                body(
                                    Lists(
                                        offsets: offsets, postings: postings, positions: positions,
                                        words: words,
                                        ranks: ranks, bitmaps: bitmaps, tripleBase: tripleBase,
                                        wordsPerBitmap: wordsPerBitmap,
                                        blocks: (wordsPerBitmap + Self.wordsPerBlock - 1) / Self.wordsPerBlock
                                    ))
                            }
                        }
                    }
                }
            }
        }
    }

    /// The list of a query of one to three scalars during a search: sparse (``ids``) or dense
    /// (``words`` and ``ranks``).
    struct PostingView {
        /// How many heroes it holds.
        let count: Int
        let isDense: Bool
        let ids: UnsafeBufferPointer<Int32>
        let words: UnsafeBufferPointer<UInt64>
        let ranks: UnsafeBufferPointer<UInt32>

        /// A sparse list.
        init(ids: UnsafeBufferPointer<Int32>) {
            count = ids.count
            isDense = false
            self.ids = ids
            words = UnsafeBufferPointer(start: nil, count: 0)
            ranks = UnsafeBufferPointer(start: nil, count: 0)
        }

        /// A dense list.
        init(count: Int, words: UnsafeBufferPointer<UInt64>, ranks: UnsafeBufferPointer<UInt32>) {
            self.count = count
            isDense = true
            ids = UnsafeBufferPointer(start: nil, count: 0)
            self.words = words
            self.ranks = ranks
        }

        /// Entries `from..<from + count` (all there).
        func entries(from start: Int, count wanted: Int) -> [Int32] {
            if !isDense { return Array(ids[start..<(start + wanted)]) }
            // The block holding entry `start`: the last whose directory entry is at most `start`.
            var low = 0
            var high = ranks.count
            while high - low > 1 {
                let middle = (low + high) / 2
                if Int(ranks[middle]) <= start { low = middle } else { high = middle }
            }
            var page: [Int32] = []
            page.reserveCapacity(wanted)
            var seen = Int(ranks[low])
            var word = low * wordsPerBlock
            while page.count < wanted {
                var bits = words[word]
                let held = bits.nonzeroBitCount
                if seen + held <= start {
                    seen += held
                } else {
                    while seen < start {
                        bits &= bits - 1
                        seen += 1
                    }
                    while bits != 0 && page.count < wanted {
                        page.append(Int32(word << 6 | bits.trailingZeroBitCount))
                        bits &= bits - 1
                    }
                }
                word += 1
            }
            return page
        }
    }

    /// One triple of a query: its list, the positions of its entries (or none), and where it
    /// starts in the query.
    struct Triple {
        let ids: UnsafeBufferPointer<Int32>
        let positions: UnsafeBufferPointer<UInt8>
        let offset: Int
    }

    /// Calls `body` with every id in all of `triples` (the shortest first), and whether the
    /// positions decide the match (true: the triples are consecutive, each occurring once; false:
    /// they occur once each but apart; nil: some occurs more than once, or there are no positions,
    /// so the names must be read). Each id of the shortest list is looked for in the others by
    /// galloping forward from where the previous one was found.
    static func intersect(_ triples: [Triple], _ body: (Int32, Bool?) -> Void) {
        guard let shortest = triples.first else { return }
        if triples.count == 2 && !shortest.positions.isEmpty && !triples[1].positions.isEmpty {
            return intersect(shortest, triples[1], body)
        }
        var cursors = [Int](repeating: 0, count: triples.count)
        cursors.withUnsafeMutableBufferPointer { cursors in
            candidates: for index in 0..<shortest.ids.count {
                let value = shortest.ids[index]
                var once = !shortest.positions.isEmpty && shortest.positions[index] != manyPositions
                let anchor = once ? Int(shortest.positions[index]) - shortest.offset : 0
                var apart = false
                for which in 1..<triples.count {
                    let triple = triples[which]
                    let found = gallop(triple.ids, for: value, from: cursors[which])
                    cursors[which] = found
                    if found == triple.ids.count { return }
                    if triple.ids[found] != value { continue candidates }
                    guard once else { continue }
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

    /// ``intersect(_:_:)`` for two triples with positions (every query of four to six scalars):
    /// the same steps with both lists in locals.
    private static func intersect(_ shortest: Triple, _ other: Triple, _ body: (Int32, Bool?) -> Void) {
        let ids = other.ids
        let positions = other.positions
        let shift = other.offset - shortest.offset
        var cursor = 0
        for index in 0..<shortest.ids.count {
            let value = shortest.ids[index]
            cursor = gallop(ids, for: value, from: cursor)
            if cursor == ids.count { return }
            guard ids[cursor] == value else { continue }
            let first = shortest.positions[index]
            let second = positions[cursor]
            body(
                value,
                first == manyPositions || second == manyPositions ? nil : Int(second) - Int(first) == shift)
        }
    }

    /// The same over arrays without positions (for tests): the ids common to all `lists`, each
    /// sorted and duplicate-free, the shortest first.
    static func intersect(_ lists: [[Int32]], _ body: (Int32) -> Void) {
        func nest(_ index: Int, _ triples: [Triple]) {
            if index == lists.count { return intersect(triples) { value, _ in body(value) } }
            lists[index].withUnsafeBufferPointer { ids in
                let none = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
                nest(index + 1, triples + [Triple(ids: ids, positions: none, offset: 0)])
            }
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
