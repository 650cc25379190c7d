import Contracts
import TestSupport
import Testing

@testable import HeroCatalogCore

@Suite("CatalogIndex: the posting lists against a plain scan", .timeLimit(.minutes(1)))
struct CatalogIndexTests {
    /// Letters that make many collisions: ASCII in both cases, full-width, CJK, `'`, `·`, a space.
    static let alphabet: [String] = ["a", "b", "A", "B", "c", "中", "文", "'", "·", " ", "Ａ", "é", "E\u{301}"]

    static func randomName(_ generator: inout SeededGenerator) -> String {
        let length = Int.random(in: 0...8, using: &generator)
        return (0..<length).map { _ in alphabet[Int.random(in: alphabet.indices, using: &generator)] }
            .joined()
    }

    @Test("random catalogs: every query answers like the scan, for several pages", arguments: [1, 2, 3, 4])
    func randomCatalogs(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        let names: [[String]] = (0..<400).map { _ in
            (0..<Int.random(in: 1...3, using: &generator)).map { _ in Self.randomName(&generator) }
        }
        let index = CatalogIndex(names: names)
        for _ in 0..<300 {
            let query: String
            if Bool.random(using: &generator), let source = names.randomElement(using: &generator)?.first,
                !source.isEmpty
            {
                // A substring of a real name: usually found.
                let characters = Array(source)
                let start = Int.random(in: 0..<characters.count, using: &generator)
                let end = Int.random(in: start...characters.count, using: &generator)
                query = String(characters[start..<end])
            } else {
                query = (0..<Int.random(in: 0...5, using: &generator)).map { _ in
                    Self.alphabet[Int.random(in: Self.alphabet.indices, using: &generator)]
                }.joined()
            }
            let folded = SearchFolding.fold(query)
            for (offset, limit) in [(0, 50), (0, 1), (3, 7), (1_000, 5)] {
                let indexed = index.search(folded: folded, offset: offset, limit: limit)
                let scanned = index.scan(folded: folded, offset: offset, limit: limit)
                #expect(indexed == scanned, "query \(query.debugDescription) offset \(offset) limit \(limit)")
            }
        }
    }

    @Test("long names (positions past 254) and repeated triples: still the scan's answer")
    func longAndRepetitive() {
        var generator = SeededGenerator(seed: 99)
        let names: [[String]] = (0..<200).map { _ in
            [
                String(
                    (0..<Int.random(in: 0...300, using: &generator)).map { _ in
                        Bool.random(using: &generator) ? "a" : "b"
                    })
            ]
        }
        let index = CatalogIndex(names: names + [["abcabcabc"], ["xabcyabcz"]])
        for length in 4...9 {
            for _ in 0..<40 {
                let query = String((0..<length).map { _ in Bool.random(using: &generator) ? "a" : "b" })
                let folded = SearchFolding.fold(query)
                #expect(
                    index.search(folded: folded, offset: 0, limit: 500)
                        == index.scan(folded: folded, offset: 0, limit: 500))
            }
        }
        for query in ["abca", "bcab", "abcy", "cabc", "yabcz", "abcabc"] {
            let folded = SearchFolding.fold(query)
            #expect(
                index.search(folded: folded, offset: 0, limit: 9)
                    == index.scan(folded: folded, offset: 0, limit: 9))
        }
    }

    @Test("pairs never span two names of one hero")
    func noPairAcrossNames() {
        let index = CatalogIndex(names: [["ab", "cd"]])
        #expect(index.search(folded: SearchFolding.fold("bc"), offset: 0, limit: 10).total == 0)
        #expect(index.search(folded: SearchFolding.fold("abc"), offset: 0, limit: 10).total == 0)
        #expect(index.search(folded: SearchFolding.fold("cd"), offset: 0, limit: 10).total == 1)
    }

    @Test("a hero matching in two locales is counted once")
    func onceAcrossLocales() {
        let index = CatalogIndex(names: [["abc", "xabcx"], ["zzz"]])
        for query in ["a", "ab", "abc"] {
            #expect(
                index.search(folded: SearchFolding.fold(query), offset: 0, limit: 10)
                    == .init(total: 1, page: [0]))
        }
    }

    @Test("galloping intersection finds exactly the common values")
    func intersection() {
        var found: [Int32] = []
        CatalogIndex.intersect([[2, 5, 9, 40], Array(0...50), [1, 2, 3, 9, 10, 40, 41]]) { found.append($0) }
        #expect(found == [2, 9, 40])
        found = []
        CatalogIndex.intersect([[7], [1, 2, 3]]) { found.append($0) }
        #expect(found.isEmpty)
    }

    @Test("folding: width, case, final sigma, sharp s, composition")
    func folding() {
        #expect(SearchFolding.fold("ＡＢｃ１") == SearchFolding.fold("abc1"))
        #expect(SearchFolding.fold("STRASSE") == SearchFolding.fold("straße"))
        #expect(SearchFolding.fold("ΟΔΥΣΣΕΥΣ") == SearchFolding.fold("οδυσσευς"))
        #expect(SearchFolding.fold("E\u{301}") == SearchFolding.fold("é"))
        #expect(SearchFolding.fold("a\u{3000}b") == SearchFolding.fold("a b"))
        #expect(SearchFolding.fold("中文") == [0x4E2D, 0x6587])
        #expect(SearchFolding.fold("e") != SearchFolding.fold("é"))
    }
}
