// The generated catalog: deterministic names, half Latin syllables and half Chinese characters per
// hero, so queries of one, two and five characters find from a handful to tens of thousands.

import Contracts

/// A deterministic generator (SplitMix64): the same catalog and queries on every run.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A random element of `array` (which is never empty here).
func pick<Element>(_ array: [Element], _ generator: inout SeededGenerator) -> Element {
    array[Int.random(in: array.indices, using: &generator)]
}

enum CatalogGenerator {
    static let syllables = [
        "ka", "lo", "mir", "an", "tel", "zu", "ve", "dra", "sin", "or", "bel", "qua", "th", "ys", "nor",
        "ga", "ri", "fen", "os", "pla", "ur", "kes", "li", "mon", "da", "e", "ho", "ju", "wex", "sta",
    ]
    static let titles = ["", "", "", " the Bold", " of Ur", " Ironhand", " the Wise", " D'Arc", "·Vale"]
    /// 400 Chinese characters: every third one from U+4E00.
    static let characters: [Character] = (0..<400).map {
        Character(Unicode.Scalar(0x4E00 + UInt32($0) * 3) ?? "?")
    }

    /// Hero `id`'s names: a Latin one and a Chinese one.
    static func names(_ generator: inout SeededGenerator) -> (latin: String, chinese: String) {
        var latin = ""
        for _ in 0..<Int.random(in: 2...4, using: &generator) {
            latin += pick(syllables, &generator)
        }
        latin = latin.prefix(1).uppercased() + latin.dropFirst() + pick(titles, &generator)
        let chinese = String(
            (0..<Int.random(in: 2...4, using: &generator)).map { _ in
                pick(characters, &generator)
            })
        return (latin, chinese)
    }

    /// `count` heroes, ids from 1.
    static func heroes(count: Int, seed: UInt64 = 42) -> [Hero] {
        var generator = SeededGenerator(seed: seed)
        return (1...count).map { id in
            let (latin, chinese) = names(&generator)
            return Hero(id: id, name: ["en": latin, "zh-Hans": chinese], intro: [:], icon: "h\(id).png")
        }
    }

    /// The catalog as a JSON file's text.
    static func json(_ heroes: [Hero]) -> String {
        var text = "[\n"
        text.reserveCapacity(heroes.count * 90)
        for (index, hero) in heroes.enumerated() {
            if index > 0 { text += ",\n" }
            text +=
                #"{"id":\#(hero.id),"name":{"en":"\#(hero.name["en", default: ""])","zh-Hans":"\#(hero.name["zh-Hans", default: ""])"},"#
            text += #""intro":{},"icon":"\#(hero.icon)"}"#
        }
        return text + "\n]\n"
    }

    /// `count` queries of `length` characters: substrings of random heroes' names (Latin or
    /// Chinese; a name too short for `length` is skipped), so most find something.
    static func queries(length: Int, count: Int, in heroes: [Hero], seed: UInt64) -> [String] {
        var generator = SeededGenerator(seed: seed)
        var queries: [String] = []
        while queries.count < count {
            let hero = pick(heroes, &generator)
            let name = Array(
                Bool.random(using: &generator)
                    ? hero.name["en", default: ""] : hero.name["zh-Hans", default: ""])
            guard name.count >= length else { continue }
            let start = Int.random(in: 0...(name.count - length), using: &generator)
            queries.append(String(name[start..<(start + length)]))
        }
        return queries
    }
}
