public import Contracts

/// An immutable catalog: its heroes in catalog order, their search index, and the position of each
/// id. A reload builds a new one and swaps it in whole.
public final class HeroCatalog: Sendable {
    /// The heroes, in catalog order.
    public let heroes: [Hero]
    /// The search index over their names.
    public let index: CatalogIndex
    private let positions: [Int: Int]

    /// A catalog of `heroes` (in this order).
    ///
    /// - Throws: ``CatalogError`` (with an empty file name: the loader fills it in) when two heroes
    ///   share an id or a hero has no name.
    public init(heroes: [Hero]) throws(CatalogError) {
        var positions: [Int: Int] = [:]
        positions.reserveCapacity(heroes.count)
        for (position, hero) in heroes.enumerated() {
            if let earlier = positions.updateValue(position, forKey: hero.id) {
                throw CatalogError(
                    file: "",
                    problem: "heroes \(earlier + 1) and \(position + 1) have the same id \(hero.id)")
            }
            if !hero.name.values.contains(where: { !$0.isEmpty }) {
                throw CatalogError(file: "", problem: "hero \(position + 1) (id \(hero.id)) has no name")
            }
        }
        self.heroes = heroes
        self.positions = positions
        // Locales in a fixed order, so the index does not depend on dictionary order.
        index = CatalogIndex(names: heroes.map { hero in hero.name.sorted { $0.key < $1.key }.map(\.value) })
    }

    /// The hero with `id`, if any.
    public func hero(id: Int) -> Hero? {
        positions[id].map { heroes[$0] }
    }

    /// The heroes whose name in some locale contains `query` (see ``SearchFolding``): how many in
    /// all, and the page from `offset` of at most `limit`, in catalog order.
    public func search(_ query: String, offset: Int, limit: Int) -> HeroSearchResponse {
        let matches = index.search(folded: SearchFolding.fold(query), offset: offset, limit: limit)
        return HeroSearchResponse(total: matches.total, items: matches.page.map { heroes[Int($0)] })
    }
}
