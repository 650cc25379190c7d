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
}
