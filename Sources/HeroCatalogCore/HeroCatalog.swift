public import Contracts

/// An immutable catalog: its heroes in catalog order, their search index, and the position of each
/// id. A reload builds a new one and swaps it in whole.
///
/// The heroes are kept in a ``HeroStore`` (their text in one UTF-8 buffer), not as `Hero` values:
/// ``heroes`` makes a `Hero` when one is read.
public final class HeroCatalog: Sendable {
    /// The heroes, in catalog order.
    public let heroes: Heroes
    /// The search index over their names.
    public let index: CatalogIndex
    /// The positions in order of id, or nil when the ids already ascend in catalog order.
    private let byID: [Int32]?

    /// A catalog of `heroes` (in this order).
    ///
    /// - Throws: ``CatalogError`` (with an empty file name: the loader fills it in) when two heroes
    ///   share an id or a hero has no name.
    public convenience init(heroes: [Hero]) throws(CatalogError) {
        try self.init(store: HeroStore.Builder(heroes).finish())
    }

    /// A catalog of the heroes in `store`, checked as ``init(heroes:)`` says.
    init(store: HeroStore) throws(CatalogError) {
        let ids = store.ids
        var ascending = true
        for position in ids.indices.dropFirst() where ids[position - 1] >= ids[position] {
            ascending = false
            break
        }
        var byID: [Int32]?
        // The first hero that repeats an earlier id, with that earlier one.
        var repeated: (position: Int, earlier: Int)?
        if !ascending {
            let order = (0..<Int32(ids.count)).sorted { (ids[Int($0)], $0) < (ids[Int($1)], $1) }
            for index in order.indices.dropFirst() where ids[Int(order[index - 1])] == ids[Int(order[index])]
            {
                let position = Int(order[index])
                if repeated.map({ position < $0.position }) ?? true {
                    repeated = (position, Int(order[index - 1]))
                }
            }
            byID = order
        }
        // Heroes are checked in catalog order, each for a repeated id, then for a name.
        let nameless = (0..<(repeated?.position ?? store.count)).first { !store.hasName($0) }
        if let nameless {
            throw CatalogError(file: "", problem: "hero \(nameless + 1) (id \(ids[nameless])) has no name")
        }
        if let (position, earlier) = repeated {
            throw CatalogError(
                file: "",
                problem: "heroes \(earlier + 1) and \(position + 1) have the same id \(ids[position])")
        }
        self.heroes = Heroes(store: store)
        self.byID = byID
        index = CatalogIndex(store)
    }

    /// The hero with `id`, if any.
    public func hero(id: Int) -> Hero? {
        let ids = heroes.store.ids
        var low = 0
        var high = ids.count
        while low < high {
            let middle = (low + high) / 2
            let position = byID.map { Int($0[middle]) } ?? middle
            if ids[position] < id { low = middle + 1 } else { high = middle }
        }
        guard low < ids.count else { return nil }
        let position = byID.map { Int($0[low]) } ?? low
        return ids[position] == id ? heroes[position] : nil
    }

    /// The heroes whose name in some locale contains `query` (see ``SearchFolding``): how many in
    /// all, and the page from `offset` of at most `limit`, in catalog order.
    public func search(_ query: String, offset: Int, limit: Int) -> HeroSearchResponse {
        let matches = index.search(folded: SearchFolding.fold(query), offset: offset, limit: limit)
        return HeroSearchResponse(total: matches.total, items: matches.page.map { heroes[Int($0)] })
    }
}
