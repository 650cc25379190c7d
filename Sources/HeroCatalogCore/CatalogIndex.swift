/// The search index of a catalog: every hero's folded names in one UTF-8 buffer, and posting lists
/// (the catalog positions of the heroes that hold a gram, sorted and duplicate-free) per folded
/// scalar, per pair and per triple of adjacent folded scalars.
///
/// - A query of one, two or three scalars is one list, exact: its total is the list's length and a
///   page is read from it.
/// - A longer query needs every triple to exist and intersects the lists of the triples that cover
///   it (at 0, 3, 6, … and the last), rarest first. Each entry of a triple's list also records
///   where in the hero's names the triple occurs (or that it occurs more than once, or past the
///   254th scalar): when every covering triple occurs once, the positions alone decide
///   (consecutive positions: a match; anything else: none); otherwise the candidate's folded names
///   are searched, which costs a cache miss per candidate.
/// - The empty query is every position.
///
/// Storage, flat and 32-bit wherever it can be (a few large arrays, no allocation per list or per
/// hero):
/// - the folded names as UTF-8 (a hero's names one after the other, with the byte 0xFF, which UTF-8
///   never uses, between them: grams never span two names) and where each hero's start;
/// - a list is *sparse*, its positions as `Int32`s in one array shared by all sparse lists (where
///   each starts: one `UInt32` per list), or, for a single scalar or a pair, *dense*, a bitmap over
///   the catalog with the count of entries before every 512 positions, whichever is smaller: the
///   lists of common letters and syllables hold a large part of the catalog each and take a bit per
///   hero instead of 32. A triple's list is always sparse: it is intersected, which galloping over
///   `Int32`s does fastest;
/// - one open-addressing table from a gram (three 21-bit scalars fit one 64-bit key) to its list;
/// - a byte of position per triple entry, in list order.
///
/// It is built in two passes over the folded names: the first counts each gram's heroes, the
/// second writes every list in place, in catalog order, so lists come out sorted.
public struct CatalogIndex: Sendable {
    /// Between two names of one hero in ``text``.
    static let separator: UInt8 = 0xFF
    /// A triple that occurs more than once in a hero's names, or past position 254.
    static let manyPositions: UInt8 = 255

    /// How many heroes are indexed.
    public let count: Int
    /// Every hero's folded names as UTF-8, separated by ``separator``, in catalog order.
    let text: [UInt8]
    /// Hero `i`'s names are `text[starts[i]..<starts[i + 1]]`.
    let starts: [UInt32]
    /// Each gram's list: a ``ListReference``.
    let grams: GramTable
    /// Sparse list `n` is `postings[offsets[n]..<offsets[n + 1]]`. The lists of single scalars and
    /// pairs come first, then those of triples, from ``tripleBase``.
    let offsets: [UInt32]
    /// Every sparse list, one after the other.
    let postings: [Int32]
    /// Where the first list of a triple starts in ``postings``: entry `e` of a triple's list has
    /// its position at `positions[e - tripleBase]`.
    let tripleBase: Int
    /// A byte per entry of a triple's list: where the triple starts (relative to the hero's first
    /// scalar), or ``manyPositions``.
    let positions: [UInt8]
    /// The dense lists (of single scalars and pairs).
    let bitmaps: [Bitmap]
    /// Every dense list's bitmap, ``wordsPerBitmap`` words each: bit `i % 64` of word `i / 64`
    /// is hero `i`.
    let words: [UInt64]
    /// Every dense list's directory: for each block of ``wordsPerBlock`` words, the entries before it.
    let ranks: [UInt32]

    /// Words per bitmap.
    var wordsPerBitmap: Int { (count + 63) / 64 }
    /// Words per block of the rank directory.
    static let wordsPerBlock = 8

    /// One dense list.
    struct Bitmap: Sendable {
        /// How many heroes it holds.
        let count: Int
        /// Where its words start in ``CatalogIndex/words``.
        let words: Int
        /// Where its directory starts in ``CatalogIndex/ranks``.
        let ranks: Int
    }

    /// What ``grams`` maps a gram to: a sparse list's number, or a dense list's with ``dense`` set.
    typealias ListReference = UInt32
    static let dense: ListReference = 1 << 31

    /// How the lists of single scalars and pairs are kept: each the smaller way (what the catalog
    /// uses), or all one way (for the tests, to check both against the scan). Triples' lists are
    /// always sparse.
    enum Layout: Sendable {
        case automatic
        case sparse
        case dense
    }

    // MARK: Keys

    /// A single scalar's key: above every pair's (no scalar is 0x1FFFFF).
    @inline(__always)
    static func single(_ scalar: UInt32) -> UInt64 { 0x1F_FFFF << 21 | UInt64(scalar) }

    @inline(__always)
    static func pair(_ first: UInt32, _ second: UInt32) -> UInt64 { UInt64(first) << 21 | UInt64(second) }

    /// A triple's key: the top bit set.
    @inline(__always)
    static func triple(_ first: UInt32, _ second: UInt32, _ third: UInt32) -> UInt64 {
        1 << 63 | UInt64(first) << 42 | UInt64(second) << 21 | UInt64(third)
    }

    @inline(__always)
    static func isTriple(_ key: UInt64) -> Bool { key >> 63 != 0 }

    // MARK: Building

    /// Indexes the names of each hero: `names[i]` are hero `i`'s names in every locale.
    public init<Names: Sequence>(names: [Names]) where Names.Element == String {
        self.init(names: names, layout: .automatic)
    }

    /// The same with the lists kept as `layout` says.
    init<Names: Sequence>(names: [Names], layout: Layout) where Names.Element == String {
        self = Self.build(count: names.count, layout: layout) { hero, body in
            for var name in names[hero] { name.withUTF8(body) }
        }
    }

    /// Indexes the names of the heroes in `store`.
    init(_ store: HeroStore) {
        self = store.bytes.withUnsafeBufferPointer { bytes in
            Self.build(count: store.count, layout: .automatic) { hero, body in
                store.forEachName(of: hero, in: bytes, body)
            }
        }
    }

    /// Indexes `count` heroes, whose names `names(i, body)` passes to `body` as UTF-8, one by one.
    static func build(
        count: Int, layout: Layout,
        names: (Int, (UnsafeBufferPointer<UInt8>) -> Void) -> Void
    ) -> CatalogIndex {
        precondition(count < Int(Int32.max), "a catalog holds fewer than 2^31 heroes")
        // The folded names.
        var text: [UInt8] = []
        var starts: [UInt32] = [0]
        starts.reserveCapacity(count + 1)
        var scratch: [UInt32] = []
        for hero in 0..<count {
            var first = true
            names(hero) { name in
                if !first { text.append(separator) }
                first = false
                SearchFolding.fold(utf8: name, into: &text, scratch: &scratch)
            }
            precondition(text.count < Int(UInt32.max), "a catalog's folded names take less than 4 GiB")
            starts.append(UInt32(truncatingIfNeeded: text.count))
        }
        return build(count: count, layout: layout, text: text, starts: starts)
    }

    /// Calls `body` with the key of every gram in hero `hero`'s folded names, in order, and for a
    /// triple where it starts (in scalars and separators from the hero's first).
    @inline(__always)
    static func forEachGram(
        in text: UnsafeBufferPointer<UInt8>, _ starts: UnsafeBufferPointer<UInt32>, hero: Int,
        _ body: (UInt64, Int) -> Void
    ) {
        var index = Int(starts[hero])
        let end = Int(starts[hero + 1])
        var position = 0
        var run = 0
        var first: UInt32 = 0
        var second: UInt32 = 0
        while index < end {
            if text[index] == separator {
                index += 1
                position += 1
                run = 0
                continue
            }
            let scalar = UTF8Text.decode(text, at: &index)
            body(single(scalar), 0)
            if run >= 1 { body(pair(second, scalar), 0) }
            if run >= 2 { body(triple(first, second, scalar), position - 2) }
            first = second
            second = scalar
            run += 1
            position += 1
        }
    }

    private static func build(count: Int, layout: Layout, text: [UInt8], starts: [UInt32]) -> CatalogIndex {
        let (grams, lists) = text.withUnsafeBufferPointer { text in
            starts.withUnsafeBufferPointer { starts in
                buildLists(count: count, layout: layout, text: text, starts: starts)
            }
        }
        return CatalogIndex(
            count: count, text: text, starts: starts, grams: grams, offsets: lists.offsets,
            postings: lists.postings, tripleBase: lists.tripleBase, positions: lists.positions,
            bitmaps: lists.bitmaps, words: lists.words, ranks: lists.ranks)
    }

    /// The posting lists, as built.
    private struct Built {
        var offsets: [UInt32]
        var postings: [Int32]
        var tripleBase: Int
        var positions: [UInt8]
        var bitmaps: [Bitmap]
        var words: [UInt64]
        var ranks: [UInt32]
    }

    private static func buildLists(
        count: Int, layout: Layout, text: UnsafeBufferPointer<UInt8>, starts: UnsafeBufferPointer<UInt32>
    ) -> (GramTable, Built) {
        // Pass 1: each gram gets a number (in order of first appearance) and its heroes are counted.
        var grams = GramTable()
        var heroes: [UInt32] = []
        var lastHero: [Int32] = []
        for hero in 0..<count {
            let id = Int32(hero)
            forEachGram(in: text, starts, hero: hero) { key, _ in
                let number = Int(grams.insert(key, ifAbsent: UInt32(heroes.count)))
                if number == heroes.count {
                    heroes.append(1)
                    lastHero.append(id)
                } else if lastHero[number] != id {
                    heroes[number] += 1
                    lastHero[number] = id
                }
            }
        }
        lastHero = []

        // Each list's place: sparse lists of scalars and pairs, then of triples, then the bitmaps.
        let wordsPerBitmap = (count + 63) / 64
        let blocks = (wordsPerBitmap + wordsPerBlock - 1) / wordsPerBlock
        // Triples stay sparse: their lists are intersected, which galloping over Int32s does
        // fastest (and the dense ones are a small part of all triple entries).
        func isDense(_ key: UInt64, _ heroes: UInt32) -> Bool {
            if isTriple(key) { return false }
            return switch layout {
            case .automatic: Int(heroes) * 4 > wordsPerBitmap * 8 + blocks * 4
            case .sparse: false
            case .dense: true
            }
        }
        var references = [ListReference](repeating: 0, count: heroes.count)
        var offsets: [UInt32] = [0]
        var entries = 0
        var tripleBase = 0
        var bitmaps: [Bitmap] = []
        for triples in [false, true] {
            if triples { tripleBase = entries }
            grams.forEach { key, number in
                guard isTriple(key) == triples, !isDense(key, heroes[Int(number)]) else { return }
                references[Int(number)] = ListReference(offsets.count - 1)
                entries += Int(heroes[Int(number)])
                offsets.append(UInt32(truncatingIfNeeded: entries))
            }
        }
        precondition(entries < Int(UInt32.max), "a catalog's posting lists hold fewer than 2^32 entries")
        grams.forEach { key, number in
            guard isDense(key, heroes[Int(number)]) else { return }
            references[Int(number)] = dense | ListReference(bitmaps.count)
            bitmaps.append(
                Bitmap(
                    count: Int(heroes[Int(number)]), words: bitmaps.count * wordsPerBitmap,
                    ranks: bitmaps.count * blocks))
        }
        heroes = []
        grams.replaceValues { references[Int($0)] }
        references = []

        // Pass 2: every list written in place, hero by hero.
        var postings = [Int32](repeating: 0, count: entries)
        var positions = [UInt8](repeating: 0, count: entries - tripleBase)
        var words = [UInt64](repeating: 0, count: bitmaps.count * wordsPerBitmap)
        var next = offsets
        next.removeLast()
        postings.withUnsafeMutableBufferPointer { postings in
            positions.withUnsafeMutableBufferPointer { positions in
                words.withUnsafeMutableBufferPointer { words in
                    next.withUnsafeMutableBufferPointer { next in
                        for hero in 0..<count {
                            let id = Int32(hero)
                            forEachGram(in: text, starts, hero: hero) { key, at in
                                let reference = grams.find(key).unsafelyUnwrapped
                                let position = UInt8(truncatingIfNeeded: min(at, Int(manyPositions)))
                                if reference & dense == 0 {
                                    let list = Int(reference)
                                    let entry = Int(next[list])
                                    if entry > Int(offsets[list]) && postings[entry - 1] == id {
                                        if isTriple(key) { positions[entry - 1 - tripleBase] = manyPositions }
                                    } else {
                                        postings[entry] = id
                                        next[list] += 1
                                        if isTriple(key) { positions[entry - tripleBase] = position }
                                    }
                                } else {
                                    // A bitmap (never a triple's): setting the bit twice is harmless.
                                    let word = bitmaps[Int(reference & ~dense)].words + hero >> 6
                                    words[word] |= 1 << UInt64(hero & 63)
                                }
                            }
                        }
                    }
                }
            }
        }
        var ranks = [UInt32](repeating: 0, count: bitmaps.count * blocks)
        for bitmap in bitmaps {
            var before: UInt32 = 0
            for block in 0..<blocks {
                ranks[bitmap.ranks + block] = before
                for word in (block * wordsPerBlock)..<min(wordsPerBitmap, (block + 1) * wordsPerBlock) {
                    before += UInt32(words[bitmap.words + word].nonzeroBitCount)
                }
            }
        }
        return (
            grams,
            Built(
                offsets: offsets, postings: postings, tripleBase: tripleBase, positions: positions,
                bitmaps: bitmaps, words: words, ranks: ranks)
        )
    }

    private init(
        count: Int, text: [UInt8], starts: [UInt32], grams: GramTable, offsets: [UInt32], postings: [Int32],
        tripleBase: Int, positions: [UInt8], bitmaps: [Bitmap], words: [UInt64], ranks: [UInt32]
    ) {
        self.count = count
        self.text = text
        self.starts = starts
        self.grams = grams
        self.offsets = offsets
        self.postings = postings
        self.tripleBase = tripleBase
        self.positions = positions
        self.bitmaps = bitmaps
        self.words = words
        self.ranks = ranks
    }

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
