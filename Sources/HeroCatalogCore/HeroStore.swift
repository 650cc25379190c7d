public import Contracts

/// Every hero of a catalog in a few flat arrays, instead of a `Hero` each (two dictionaries and
/// their strings, about 260 bytes a hero on the heap): the text of every icon, name and intro in one
/// UTF-8 buffer, where each field starts, and whose it is. A `Hero` is made again when one is asked
/// for: the page of a search, `heroes.get`.
///
/// Text is kept byte for byte (a locale or a name comes back with the bytes it came with). Offsets
/// are 32-bit: a catalog's text is less than 4 GiB.
struct HeroStore: Sendable {
    /// Marks an icon in ``fieldLocales``.
    static let icon = UInt32.max
    /// Set in ``fieldLocales`` for an intro; clear for a name.
    static let intro: UInt32 = 1 << 31

    /// The heroes' ids, in catalog order.
    let ids: [Int]
    /// The UTF-8 of every field, one after the other.
    let bytes: [UInt8]
    /// Field `f` is `bytes[fieldStarts[f]..<fieldStarts[f + 1]]`.
    let fieldStarts: [UInt32]
    /// Field `f`'s locale (an index in ``locales``), with ``intro`` set for an intro; ``icon`` for
    /// the icon.
    let fieldLocales: [UInt32]
    /// Hero `i`'s fields are `heroFields[i]..<heroFields[i + 1]`, in any order.
    let heroFields: [UInt32]
    /// Every locale of the catalog, each once.
    let locales: [String]

    /// How many heroes there are.
    var count: Int { ids.count }

    /// Hero `position`, made from its fields.
    func hero(at position: Int) -> Hero {
        let fields = Int(heroFields[position])..<Int(heroFields[position + 1])
        var names = 0
        var intros = 0
        for field in fields {
            let locale = fieldLocales[field]
            if locale == Self.icon { continue }
            if locale & Self.intro == 0 { names += 1 } else { intros += 1 }
        }
        var name = [String: String](minimumCapacity: names)
        var intro = [String: String](minimumCapacity: intros)
        var icon = ""
        bytes.withUnsafeBufferPointer { bytes in
            for field in fields {
                let text = String(
                    decoding: UnsafeBufferPointer(
                        rebasing: bytes[Int(fieldStarts[field])..<Int(fieldStarts[field + 1])]),
                    as: UTF8.self)
                let locale = fieldLocales[field]
                if locale == Self.icon {
                    icon = text
                } else if locale & Self.intro == 0 {
                    name[locales[Int(locale)]] = text
                } else {
                    intro[locales[Int(locale & ~Self.intro)]] = text
                }
            }
        }
        return Hero(id: ids[position], name: name, intro: intro, icon: icon)
    }

    /// Calls `body` with the UTF-8 of each of hero `position`'s names (not intros or the icon).
    @inline(__always)
    func forEachName(
        of position: Int, in bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Void
    ) {
        for field in Int(heroFields[position])..<Int(heroFields[position + 1])
        where fieldLocales[field] & Self.intro == 0 {
            body(UnsafeBufferPointer(rebasing: bytes[Int(fieldStarts[field])..<Int(fieldStarts[field + 1])]))
        }
    }

    /// Whether hero `position` has a name that is not empty.
    func hasName(_ position: Int) -> Bool {
        (Int(heroFields[position])..<Int(heroFields[position + 1])).contains { field in
            fieldLocales[field] & Self.intro == 0 && fieldStarts[field + 1] > fieldStarts[field]
        }
    }

    /// Collects a store hero by hero: from `Hero`s (``append(_:)``), or field by field from a reader
    /// that writes the text into ``bytes`` itself (``endField(locale:)``, ``endHero(id:)``).
    struct Builder {
        private var ids: [Int] = []
        /// The text so far: a reader appends a field's bytes here, then calls ``endField(locale:)``.
        var bytes: [UInt8] = []
        private var fieldStarts: [UInt32] = [0]
        private var fieldLocales: [UInt32] = []
        private var heroFields: [UInt32] = [0]
        /// The locales so far.
        private(set) var locales = LocaleTable()
        /// Whether the text has passed 4 GiB.
        private var tooLarge = false

        /// A builder with room for about `heroes` heroes of `bytes` bytes of text.
        init(heroes: Int = 0, bytes: Int = 0) {
            ids.reserveCapacity(heroes)
            heroFields.reserveCapacity(heroes + 1)
            fieldStarts.reserveCapacity(heroes * 3 + 1)
            fieldLocales.reserveCapacity(heroes * 3)
            self.bytes.reserveCapacity(bytes)
        }

        /// The bytes appended since the previous field are a field: `locale` (with ``intro`` set
        /// for an intro) or ``icon``.
        mutating func endField(locale: UInt32) {
            if bytes.count > Int(UInt32.max) { tooLarge = true }
            fieldStarts.append(UInt32(truncatingIfNeeded: bytes.count))
            fieldLocales.append(locale)
        }

        /// The fields since the previous hero are hero `id`'s.
        mutating func endHero(id: Int) {
            ids.append(id)
            heroFields.append(UInt32(truncatingIfNeeded: fieldLocales.count))
        }

        /// The locale of `name` (its index in the store's locales).
        mutating func locale(_ name: String) -> UInt32 { locales.index(of: name) }

        /// The locale whose UTF-8 is `name`.
        mutating func locale(utf8 name: [UInt8]) -> UInt32 {
            name.withUnsafeBufferPointer { locales.index(of: $0) }
        }

        /// Appends `hero`.
        mutating func append(_ hero: Hero) {
            bytes.append(contentsOf: hero.icon.utf8)
            endField(locale: HeroStore.icon)
            for (locale, text) in hero.name {
                let index = locales.index(of: locale)
                bytes.append(contentsOf: text.utf8)
                endField(locale: index)
            }
            for (locale, text) in hero.intro {
                let index = locales.index(of: locale)
                bytes.append(contentsOf: text.utf8)
                endField(locale: index | HeroStore.intro)
            }
            endHero(id: hero.id)
        }

        /// The store.
        ///
        /// - Throws: ``CatalogError`` (with an empty file name) when the text takes 4 GiB or more.
        consuming func finish() throws(CatalogError) -> HeroStore {
            guard !tooLarge else {
                throw CatalogError(file: "", problem: "the heroes' text takes more than 4 GiB")
            }
            return HeroStore(
                ids: ids, bytes: bytes, fieldStarts: fieldStarts, fieldLocales: fieldLocales,
                heroFields: heroFields, locales: locales.names)
        }
    }

    /// The locales of a catalog, each with its index. Two locales are the same when their bytes
    /// are; ``kind(_:)`` also tells which are equal as `String`s (canonically equivalent), which
    /// is how a `Dictionary` of names tells keys apart.
    struct LocaleTable {
        /// The locales, by index.
        private(set) var names: [String] = []
        private var utf8: [[UInt8]] = []
        /// Past a handful of locales, their indices by bytes.
        private var byBytes: [[UInt8]: UInt32] = [:]
        /// For each locale, the index of the first locale equal to it as a `String`.
        private var kinds: [UInt32] = []
        private var firstEqual: [String: UInt32] = [:]

        /// The locale `index` as a `Dictionary` would see it: the first locale equal to it.
        func kind(_ index: UInt32) -> UInt32 { kinds[Int(index)] }

        mutating func index(of name: String) -> UInt32 {
            var name = name
            return name.withUTF8 { index(of: $0) }
        }

        mutating func index(of name: UnsafeBufferPointer<UInt8>) -> UInt32 {
            if byBytes.isEmpty {
                for (index, known) in utf8.enumerated() where known.elementsEqual(name) {
                    return UInt32(index)
                }
            } else if let index = byBytes[Array(name)] {
                return index
            }
            let index = UInt32(names.count)
            let string = String(decoding: name, as: UTF8.self)
            names.append(string)
            utf8.append(Array(name))
            kinds.append(firstEqual[string, default: index])
            if firstEqual[string] == nil { firstEqual[string] = index }
            if names.count > 16 {
                if byBytes.isEmpty {
                    for (index, known) in utf8.enumerated() { byBytes[known] = UInt32(index) }
                } else {
                    byBytes[Array(name)] = index
                }
            }
            return index
        }
    }
}

extension HeroCatalog {
    /// The heroes of a catalog, in catalog order: a collection over the catalog's storage that
    /// makes each `Hero` when it is read.
    public struct Heroes: RandomAccessCollection, Sendable {
        let store: HeroStore

        public var startIndex: Int { 0 }
        public var endIndex: Int { store.count }

        public subscript(position: Int) -> Hero {
            precondition(position >= 0 && position < store.count, "hero index out of range")
            return store.hero(at: position)
        }
    }
}
