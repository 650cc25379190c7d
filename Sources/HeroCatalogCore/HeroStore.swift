public import Contracts

/// Every hero of a catalog in a few flat arrays, instead of a `Hero` each (two dictionaries and
/// their strings, about 260 bytes a hero on the heap): the text of every icon, name and intro in one
/// UTF-8 buffer, where each field ends, and whose it is. A `Hero` is made again when one is asked
/// for: the page of a search, `heroes.get`.
///
/// Text is kept byte for byte (a locale or a name comes back with the bytes it came with). Offsets
/// are 32-bit: a catalog's text is less than 4 GiB.
struct HeroStore: Sendable {
    /// Marks an icon in ``Field/locale``.
    static let icon = UInt32.max
    /// Set in ``Field/locale`` for an intro; clear for a name.
    static let intro: UInt32 = 1 << 31

    /// The heroes' ids, in catalog order.
    let ids: [Int]
    /// The UTF-8 of every field, one after the other.
    let bytes: [UInt8]
    /// Every field, hero by hero, after a first entry that only ends at 0: field `f` (from 1) is
    /// `bytes[fields[f - 1].end..<fields[f].end]`. Where a field ends and whose it is sit side by
    /// side, so making a hero reads one run of memory for its fields.
    let fields: [Field]
    /// Hero `i`'s fields are `heroFields[i]..<heroFields[i + 1]`, in any order.
    let heroFields: [UInt32]
    /// Every locale of the catalog, each once.
    let locales: [String]

    /// One field: where its text ends in ``bytes``, and its locale (an index in ``locales``), with
    /// ``intro`` set for an intro, or ``icon``.
    struct Field: Sendable {
        var end: UInt32
        var locale: UInt32
    }

    /// Field `field`'s text.
    @inline(__always)
    func text(_ field: Int, in bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[Int(fields[field - 1].end)..<Int(fields[field].end)])
    }

    /// How many heroes there are.
    var count: Int { ids.count }

    /// Hero `position`, made from its fields.
    func hero(at position: Int) -> Hero {
        let range = Int(heroFields[position])..<Int(heroFields[position + 1])
        var names = 0
        var intros = 0
        for field in range {
            let locale = fields[field].locale
            if locale == Self.icon { continue }
            if locale & Self.intro == 0 { names += 1 } else { intros += 1 }
        }
        var name = [String: String](minimumCapacity: names)
        var intro = [String: String](minimumCapacity: intros)
        var icon = ""
        bytes.withUnsafeBufferPointer { bytes in
            for field in range {
                let text = String(decoding: text(field, in: bytes), as: UTF8.self)
                let locale = fields[field].locale
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
        where fields[field].locale & Self.intro == 0 {
            body(text(field, in: bytes))
        }
    }

    /// Whether hero `position` has a name that is not empty.
    func hasName(_ position: Int) -> Bool {
        (Int(heroFields[position])..<Int(heroFields[position + 1])).contains { field in
            fields[field].locale & Self.intro == 0 && fields[field].end > fields[field - 1].end
        }
    }

    /// Collects a store hero by hero: from `Hero`s (``append(_:)``), or field by field from a reader
    /// that writes the text into ``bytes`` itself (``endField(locale:)``, ``endHero(id:)``).
    struct Builder {
        private var ids: [Int] = []
        /// The text so far: a reader appends a field's bytes here, then calls ``endField(locale:)``.
        var bytes: [UInt8] = []
        private var fields = [Field(end: 0, locale: HeroStore.icon)]
        private var heroFields: [UInt32] = [1]
        /// The locales so far.
        private(set) var locales = LocaleTable()
        /// Whether the text has passed 4 GiB.
        private var tooLarge = false

        /// A builder with room for about `heroes` heroes of `bytes` bytes of text.
        init(heroes: Int = 0, bytes: Int = 0) {
            ids.reserveCapacity(heroes)
            heroFields.reserveCapacity(heroes + 1)
            fields.reserveCapacity(heroes * 3 + 1)
            self.bytes.reserveCapacity(bytes)
        }

        /// A builder holding `heroes`.
        init(_ heroes: [Hero]) {
            self.init(heroes: heroes.count)
            for hero in heroes { append(hero) }
        }

        /// The bytes appended since the previous field are a field: `locale` (with ``intro`` set
        /// for an intro) or ``icon``.
        mutating func endField(locale: UInt32) {
            if bytes.count > Int(UInt32.max) { tooLarge = true }
            fields.append(Field(end: UInt32(truncatingIfNeeded: bytes.count), locale: locale))
        }

        /// The fields since the previous hero are hero `id`'s.
        mutating func endHero(id: Int) {
            ids.append(id)
            heroFields.append(UInt32(truncatingIfNeeded: fields.count))
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
                ids: ids, bytes: bytes, fields: fields,
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
