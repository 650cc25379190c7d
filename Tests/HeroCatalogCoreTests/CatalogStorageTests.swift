import Contracts
import Foundation
import RemoteProtocol
import TestSupport
import Testing

@testable import HeroCatalogCore

@Suite(
    "Catalog storage: flat lists and bitmaps, the hero store, the direct JSON reader", .timeLimit(.minutes(1))
)
struct CatalogStorageTests {
    /// Scalars that collide a lot, with the awkward ones: full-width, CJK, a supplementary-plane
    /// emoji, combining marks, letters whose folding expands (`ß`, `İ`), final sigma.
    static let alphabet: [String] = [
        "a", "b", "A", "c", "中", "文", "'", " ", "Ａ", "é", "e\u{301}", "ß", "İ", "ς", "😀", "\u{308}",
    ]

    static func randomText(_ generator: inout SeededGenerator, upTo length: Int) -> String {
        (0..<Int.random(in: 0...length, using: &generator)).map { _ in
            alphabet[Int.random(in: alphabet.indices, using: &generator)]
        }.joined()
    }

    /// A query: a piece of a real name (usually found) or random text.
    static func randomQuery(_ names: [[String]], _ generator: inout SeededGenerator) -> String {
        if Bool.random(using: &generator), let source = names.randomElement(using: &generator)?.first,
            !source.isEmpty
        {
            let scalars = Array(source.unicodeScalars)
            let start = Int.random(in: 0..<scalars.count, using: &generator)
            let end = Int.random(in: start...min(scalars.count, start + 7), using: &generator)
            var view = String.UnicodeScalarView()
            view.append(contentsOf: scalars[start..<end])
            return String(view)
        }
        return randomText(&generator, upTo: 6)
    }

    @Test(
        "every layout (automatic, all sparse, all bitmaps) answers like the scan, page by page",
        arguments: [CatalogIndex.Layout.automatic, .sparse, .dense])
    func layouts(layout: CatalogIndex.Layout) {
        var generator = SeededGenerator(seed: 7)
        // Many heroes and few letters: lists of every density, from one hero to nearly all.
        let names: [[String]] = (0..<700).map { _ in
            (0..<Int.random(in: 1...3, using: &generator)).map { _ in Self.randomText(&generator, upTo: 9) }
        }
        let index = CatalogIndex(names: names, layout: layout)
        if layout == .automatic {
            #expect(!index.bitmaps.isEmpty && index.offsets.count > 1, "both kinds of list")
        }
        for _ in 0..<250 {
            let folded = SearchFolding.fold(Self.randomQuery(names, &generator))
            for (offset, limit) in [(0, 50), (0, 1), (3, 7), (64, 100), (300, 500), (5_000, 5)] {
                #expect(
                    index.search(folded: folded, offset: offset, limit: limit)
                        == index.scan(folded: folded, offset: offset, limit: limit),
                    "query \(folded) offset \(offset) limit \(limit)")
            }
        }
    }

    @Test("a bitmap's pages: every offset of a list that holds most heroes")
    func bitmapPages() {
        // 1,000 heroes, "a" in all but every seventh: a dense list crossing many words and blocks.
        let names = (0..<1_000).map { [$0 % 7 == 0 ? "b" : "ba"] }
        for layout in [CatalogIndex.Layout.automatic, .dense] {
            let index = CatalogIndex(names: names, layout: layout)
            let query = SearchFolding.fold("a")
            for offset in stride(from: 0, through: 1_000, by: 37) {
                #expect(
                    index.search(folded: query, offset: offset, limit: 45)
                        == index.scan(folded: query, offset: offset, limit: 45))
            }
            #expect(index.search(folded: query, offset: 0, limit: 500).total == 857)
        }
    }

    @Test("edge cases: empty names, non-ASCII, expanding folds, the longest names")
    func edgeCases() {
        let long = String(repeating: "ab", count: 2_000) + "xyz"
        let names: [[String]] = [
            [""], ["", ""], ["", "abc"], ["😀😀😀😀"], ["STRASSE", "straße"], ["İstanbul"], ["ΟΔΥΣΣΕΥΣ"],
            ["e\u{301}cole"], [long], [String(repeating: "中文", count: 300)],
        ]
        for layout in [CatalogIndex.Layout.automatic, .sparse, .dense] {
            let index = CatalogIndex(names: names, layout: layout)
            let queries = [
                "", "a", "abc", "😀", "😀😀😀😀", "😀😀😀😀😀", "ss", "strasse", "i̇st", "istanbul", "σσευσ", "école",
                "ecole", "babx", "abxyz", "abab", String(repeating: "ab", count: 200) + "xy", "文中文中文", "xyz",
            ]
            for query in queries {
                let folded = SearchFolding.fold(query)
                #expect(
                    index.search(folded: folded, offset: 0, limit: 50)
                        == index.scan(folded: folded, offset: 0, limit: 50),
                    "\(query.debugDescription)")
            }
            #expect(index.search(folded: SearchFolding.fold("abc"), offset: 0, limit: 9).page == [2])
            #expect(index.search(folded: SearchFolding.fold("😀😀😀😀"), offset: 0, limit: 9).page == [3])
            #expect(index.search(folded: SearchFolding.fold("abxyz"), offset: 0, limit: 9).page == [8])
            #expect(index.search(folded: SearchFolding.fold("STRASSE"), offset: 0, limit: 9).page == [4])
            #expect(index.search(folded: SearchFolding.fold("école"), offset: 0, limit: 9).page == [7])
            #expect(index.search(folded: [], offset: 8, limit: 9) == .init(total: 10, page: [8, 9]))
        }
    }

    @Test("values that are not Unicode scalars match nothing, in the index and in the scan")
    func notScalars() {
        let index = CatalogIndex(names: [["ab", "cd"], ["abcd"]])
        for query: [UInt32] in [
            [0xD800], [0x61, 0xDFFF], [0x11_0000], [0x62, 0xFFFF_FFFF, 0x63], [0x61, 0x62, 0xD800, 0x63],
        ] {
            #expect(index.search(folded: query, offset: 0, limit: 9) == .init(total: 0, page: []))
            #expect(index.scan(folded: query, offset: 0, limit: 9) == .init(total: 0, page: []))
        }
    }

    @Test("folding straight from UTF-8 gives the scalars of fold(_:)")
    func foldingUTF8() {
        var generator = SeededGenerator(seed: 3)
        var scratch: [UInt32] = []
        let samples = [
            "", "Hello", "ＡＢｃ", "STRASSE straße", "e\u{301}", "Ae\u{301}\u{327}", "İ", "ΣΑΣ ς", "\u{3000}中",
        ]
        for text in samples + (0..<500).map({ _ in Self.randomText(&generator, upTo: 12) }) {
            var utf8: [UInt8] = []
            var copy = text
            copy.withUTF8 { SearchFolding.fold(utf8: $0, into: &utf8, scratch: &scratch) }
            #expect(UTF8Text.encode(SearchFolding.fold(text)) == utf8, "\(text.debugDescription)")
        }
    }

    // MARK: The hero store

    static func randomHero(id: Int, _ generator: inout SeededGenerator) -> Hero {
        let locales = ["en", "zh-Hans", "zh-Hant", "é", "e\u{301}", "e\u{301}x", ""]
        var name: [String: String] = [:]
        var intro: [String: String] = [:]
        for locale in locales where Bool.random(using: &generator) {
            name[locale] = randomText(&generator, upTo: 5)
        }
        if name.values.allSatisfy(\.isEmpty) { name["en"] = "x" }
        for locale in locales where Int.random(in: 0..<3, using: &generator) == 0 {
            intro[locale] = randomText(&generator, upTo: 20)
        }
        return Hero(id: id, name: name, intro: intro, icon: randomText(&generator, upTo: 3))
    }

    /// The bytes of every text of `hero`, sorted: equal when the heroes are equal byte for byte.
    static func bytes(_ hero: Hero) -> [[UInt8]] {
        let texts =
            hero.name.map { "n" + $0.key + "\u{0}" + $0.value }
            + hero.intro.map { "i" + $0.key + "\u{0}" + $0.value }
        return
            ([Array(hero.icon.utf8), Array(String(hero.id).utf8)]
            + texts.map { Array($0.utf8) }.sorted {
                $0.lexicographicallyPrecedes($1)
            })
    }

    @Test("the heroes come back as they went in, byte for byte; get finds every id, in any order")
    func roundTrip() throws {
        var generator = SeededGenerator(seed: 11)
        var ids = Array(Set((0..<300).map { _ in Int.random(in: -1_000_000...Int.max, using: &generator) }))
        ids.shuffle(using: &generator)
        ids += [Int.min, 0]
        let heroes = ids.map { Self.randomHero(id: $0, &generator) }
        let catalog = try HeroCatalog(heroes: heroes)
        #expect(catalog.heroes.count == heroes.count)
        #expect(Array(catalog.heroes) == heroes)
        #expect(catalog.heroes.map(Self.bytes) == heroes.map(Self.bytes))
        for hero in heroes { #expect(catalog.hero(id: hero.id).map(Self.bytes) == Self.bytes(hero)) }
        for _ in 0..<100 {
            let id = Int.random(in: Int.min...Int.max, using: &generator)
            #expect(catalog.hero(id: id) == heroes.first { $0.id == id })
        }
        // Ascending ids: the catalog order is the id order.
        let ascending = try HeroCatalog(heroes: (1...50).map { hero($0 * 3, ["en": "H\($0)"]) })
        #expect(ascending.hero(id: 9)?.name == ["en": "H3"])
        #expect(
            ascending.hero(id: 10) == nil && ascending.hero(id: 0) == nil && ascending.hero(id: 151) == nil)
    }

    /// What the catalog refuses, as the checks read before the flat storage: in catalog order, a
    /// repeated id, then a hero without a name.
    static func expectedError(_ heroes: [Hero]) -> String? {
        var positions: [Int: Int] = [:]
        for (position, hero) in heroes.enumerated() {
            if let earlier = positions.updateValue(position, forKey: hero.id) {
                return "heroes \(earlier + 1) and \(position + 1) have the same id \(hero.id)"
            }
            if !hero.name.values.contains(where: { !$0.isEmpty }) {
                return "hero \(position + 1) (id \(hero.id)) has no name"
            }
        }
        return nil
    }

    @Test("repeated ids and nameless heroes: the first in catalog order is the error", arguments: [1, 2, 3])
    func errors(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        for _ in 0..<200 {
            let heroes = (0..<Int.random(in: 1...12, using: &generator)).map { _ in
                let id = Int.random(in: 0...15, using: &generator)
                return Bool.random(using: &generator) && Bool.random(using: &generator)
                    ? Hero(
                        id: id, name: Bool.random(using: &generator) ? [:] : ["en": ""], intro: [:], icon: "")
                    : hero(id, ["en": "x"])
            }
            do {
                _ = try HeroCatalog(heroes: heroes)
                #expect(Self.expectedError(heroes) == nil)
            } catch {
                #expect(error.problem == Self.expectedError(heroes))
            }
        }
    }

    // MARK: The JSON reader

    /// The catalog `text` loads to, or its error, through the loader (the direct reader when it
    /// takes the text) and through `JSONBodyCoder` and `Hero`s.
    static func bothWays(_ text: String) throws -> (
        direct: Result<[Hero], CatalogError>, coder: Result<[Hero], CatalogError>
    ) {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write("c.json", text)
        let direct = Result { () throws(CatalogError) -> [Hero] in
            Array(try CatalogLoader.load(path: path).heroes)
        }
        let coder = Result { () throws(CatalogError) -> [Hero] in
            do throws(CatalogError) {
                let heroes = try CatalogLoader.decode(Data(text.utf8), as: .json)
                guard !heroes.isEmpty else {
                    throw CatalogError(file: "", problem: "the catalog has no heroes")
                }
                return Array(try HeroCatalog(heroes: heroes).heroes)
            } catch {
                throw CatalogError(file: path, problem: error.problem)
            }
        }
        return (direct, coder)
    }

    /// Expects `text` to load to the same heroes, byte for byte, or the same error both ways.
    static func expectSame(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let (direct, coder) = try bothWays(text)
        switch (direct, coder) {
        case (.success(let a), .success(let b)):
            #expect(a.map(bytes) == b.map(bytes), "\(text)", sourceLocation: sourceLocation)
        case (.failure(let a), .failure(let b)):
            #expect(a == b, "\(text)", sourceLocation: sourceLocation)
        default:
            Issue.record("\(text): \(direct) against \(coder)", sourceLocation: sourceLocation)
        }
    }

    static func taken(_ text: String) -> Bool {
        Data(text.utf8).withUnsafeBytes { CatalogJSONReader.read($0) } != nil
    }

    @Test("the plain shape is read directly, with the coder's result")
    func plainShape() throws {
        let texts = [
            #"[{"id":1,"name":{"en":"A"},"intro":{},"icon":"a.png"}]"#,
            "\u{FEFF} [ { \"icon\" : \"i\" , \"intro\" : { \"en\" : \"x\" } , \"name\" : { \"zh-Hans\" : \"中\" , \"en\" : \"B\" } , \"id\" : -42 } ]\r\n\t",
            #"[{"id":9223372036854775807,"name":{"en":"q\"\\\/\b\f\n\r\t\u00e9\u4e2d\ud83d\ude00"},"intro":{"\u0065n":"y"},"icon":""}]"#,
            #"[{"id":0,"name":{"e\u0301x":"é","é":"e\u0301"},"intro":{},"icon":"x"},{"id":2,"name":{"en":"😀"},"intro":{},"icon":"y"}]"#,
            #"[{"id":1,"name":{"en":"A"},"intro":{},"icon":"a"},{"id":1,"name":{"en":"B"},"intro":{},"icon":"b"}]"#,
            #"[{"id":1,"name":{"en":""},"intro":{},"icon":"a"}]"#,
            "[]",
        ]
        for text in texts {
            #expect(Self.taken(text), "\(text)")
            try Self.expectSame(text)
        }
    }

    @Test("anything else goes through the coder: the same heroes or the same error")
    func otherShapes() throws {
        let texts = [
            #"[{"id":1.0,"name":{"en":"A"},"intro":{},"icon":"a"}]"#,
            #"[{"id":1e0,"name":{"en":"A"},"intro":{},"icon":"a"}]"#,
            #"[{"id":-0,"name":{"en":"A"},"intro":{},"icon":"a"}]"#,
            #"[{"id":01,"name":{"en":"A"},"intro":{},"icon":"a"}]"#,
            #"[{"id":99999999999999999999,"name":{"en":"A"},"intro":{},"icon":"a"}]"#,
            #"[{"id":1,"name":{"en":"A"},"intro":{},"icon":"a","extra":[1,{"x":null}]}]"#,
            #"[{"id":1,"id":2,"name":{"en":"A"},"intro":{},"icon":"a"}]"#,
            #"[{"id":1,"name":{"en":"A","en":"B"},"intro":{},"icon":"a"}]"#,
            #"[{"id":1,"name":{"é":"A","e\u0301":"B"},"intro":{},"icon":"a"}]"#,
            #"[{"id":1,"name":{"en":null},"intro":{},"icon":"a"}]"#,
            #"[{"id":1,"name":{"en":"A"},"intro":{},"icon":null}]"#,
            #"[{"id":1,"name":{"en":"A"},"intro":{}}]"#,
            #"[{"id":1,"name":{"en":"\ud800"},"intro":{},"icon":"a"}]"#,
            #"[{"id":1,"name":{"en":"\udc00x"},"intro":{},"icon":"a"}]"#,
            #"[{"id":1,"name":{"en":"\x"},"intro":{},"icon":"a"}]"#,
            "[{\"id\":1,\"name\":{\"en\":\"a\u{1}b\"},\"intro\":{},\"icon\":\"a\"}]",
            #"[{"id":1,"name":{"en":"A"},"intro":{},"icon":"a"},]"#,
            #"[{"id":1,"name":{"en":"A"},"intro":{},"icon":"a"}] x"#,
            #"[{"id":1,"name":{"en":"A"},"intro":{},"icon":"a"}"#,
            #"{"id":1}"#,
            #"[{"\u0069d":1,"name":{"en":"A"},"intro":{},"icon":"a"}]"#,
            "",
        ]
        for text in texts {
            #expect(!Self.taken(text), "\(text)")
            try Self.expectSame(text)
        }
        // Bytes that are not UTF-8 in a string (overlong, a surrogate, past U+10FFFF, cut short).
        for bad: [UInt8] in [
            [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE4, 0xB8], [0xFF],
        ] {
            let data =
                Data(#"[{"id":1,"name":{"en":""#.utf8) + bad + Data(#""},"intro":{},"icon":"a"}]"#.utf8)
            #expect(data.withUnsafeBytes { CatalogJSONReader.read($0) } == nil)
        }
    }

    @Test("random catalogs written by the coder load the same both ways", arguments: [1, 2])
    func randomJSON(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        var unique: [Hero] = []
        var ids: Set<Int> = []
        while unique.count < 200 {
            let id = Int.random(in: -99...99_999, using: &generator)
            if ids.insert(id).inserted { unique.append(Self.randomHero(id: id, &generator)) }
        }
        let text = String(decoding: try JSONBodyCoder.shared.encode(unique), as: UTF8.self)
        #expect(Self.taken(text))
        let (direct, coder) = try Self.bothWays(text)
        #expect(try direct.get().map(Self.bytes) == coder.get().map(Self.bytes))
        #expect(try direct.get() == unique)
    }
}
