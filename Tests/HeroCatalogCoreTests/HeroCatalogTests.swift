import Contracts
import Foundation
import Testing

@testable import HeroCatalogCore

@Suite("HeroCatalog: search edge cases and pagination", .timeLimit(.minutes(1)))
struct HeroCatalogTests {
    func ids(_ response: HeroSearchResponse) -> [Int] { response.items.map(\.id) }

    @Test("empty query lists every hero in catalog order")
    func emptyQuery() throws {
        let catalog = try edgeCaseCatalog()
        let all = catalog.search("", offset: 0, limit: 50)
        #expect(all.total == 7)
        #expect(ids(all) == [1, 2, 3, 4, 5, 6, 7])
    }

    @Test("no match: total 0, no items")
    func noMatch() throws {
        let catalog = try edgeCaseCatalog()
        #expect(catalog.search("zzz", offset: 0, limit: 50) == HeroSearchResponse(total: 0, items: []))
        #expect(catalog.search("龙", offset: 0, limit: 50).total == 0)
    }

    @Test("one character: any locale, any case")
    func oneCharacter() throws {
        let catalog = try edgeCaseCatalog()
        #expect(ids(catalog.search("阿", offset: 0, limit: 50)) == [2])
        #expect(ids(catalog.search("D", offset: 0, limit: 50)) == [1, 4, 5, 6])
        #expect(ids(catalog.search("奧", offset: 0, limit: 50)) == [6])
    }

    @Test("apostrophes and middle dots are part of the name")
    func punctuation() throws {
        let catalog = try edgeCaseCatalog()
        #expect(ids(catalog.search("'", offset: 0, limit: 50)) == [1])
        #expect(ids(catalog.search("d'art", offset: 0, limit: 50)) == [1])
        #expect(ids(catalog.search("D'ARTAGNAN", offset: 0, limit: 50)) == [1])
        #expect(ids(catalog.search("·", offset: 0, limit: 50)) == [2])
        #expect(ids(catalog.search("jean·val", offset: 0, limit: 50)) == [2])
        #expect(ids(catalog.search("冉·阿", offset: 0, limit: 50)) == [2])
        #expect(catalog.search("jean valjean", offset: 0, limit: 50).total == 0)
        #expect(catalog.search("dartagnan", offset: 0, limit: 50).total == 0)
    }

    @Test("case and width folding, Unicode-aware")
    func folding() throws {
        let catalog = try edgeCaseCatalog()
        #expect(ids(catalog.search("strasse", offset: 0, limit: 50)) == [3])
        #expect(ids(catalog.search("élodie", offset: 0, limit: 50)) == [4])
        #expect(ids(catalog.search("full", offset: 0, limit: 50)) == [5])
        #expect(ids(catalog.search("ＦＵＬＬ ｗ", offset: 0, limit: 50)) == [5])
        #expect(ids(catalog.search("οδυσσευς", offset: 0, limit: 50)) == [7])
    }

    @Test("pagination: offset and limit, total unchanged, past the end empty")
    func pagination() throws {
        let catalog = try HeroCatalog(heroes: (1...120).map { hero($0, ["en": "Hero \($0)"]) })
        let first = catalog.search("hero", offset: 0, limit: 50)
        #expect(first.total == 120)
        #expect(ids(first) == Array(1...50))
        #expect(ids(catalog.search("hero", offset: 100, limit: 50)) == Array(101...120))
        #expect(catalog.search("hero", offset: 120, limit: 50) == HeroSearchResponse(total: 120, items: []))
        #expect(ids(catalog.search("1", offset: 2, limit: 3)) == [11, 12, 13])
        #expect(catalog.search("1", offset: 0, limit: 500).total == 40)
    }

    @Test("get by id; duplicate ids and nameless heroes are refused")
    func byID() throws {
        let catalog = try edgeCaseCatalog()
        #expect(catalog.hero(id: 2)?.name["en"] == "Jean·Valjean")
        #expect(catalog.hero(id: 99) == nil)
        #expect(throws: CatalogError.self) {
            try HeroCatalog(heroes: [hero(1, ["en": "A"]), hero(1, ["en": "B"])])
        }
        #expect(throws: CatalogError.self) { try HeroCatalog(heroes: [hero(1, ["en": ""])]) }
    }
}
