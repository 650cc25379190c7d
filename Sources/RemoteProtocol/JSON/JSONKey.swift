/// A coding key the coders make themselves: an array index in a coding path, or `super`.
///
/// 24 bytes, so it fits an existential's inline buffer when pushed on a coding path.
struct JSONKey: CodingKey, Sendable {
    /// The name of a named key; nil for an index, whose name is made only when asked for.
    private let name: String?
    /// The index (for an index key).
    private let index: Int

    var intValue: Int? { name == nil ? index : nil }

    /// The key's name; an index's is `Index <n>`, as in Foundation's coding paths.
    var stringValue: String { name ?? "Index \(index)" }

    init(stringValue: String) {
        self.name = stringValue
        self.index = 0
    }

    init(intValue: Int) {
        self.name = nil
        self.index = intValue
    }

    /// The key under which `superEncoder()` and `superDecoder()` put the superclass's value.
    static let superKey = JSONKey(stringValue: "super")
}

/// Renders coding paths for error messages: `user.addresses[2].zip`, or `top level` when empty.
enum JSONCodingPath {
    /// `path` in dotted form, array indexes in brackets.
    static func render(_ path: [any CodingKey]) -> String {
        if path.isEmpty { return "top level" }
        var text = ""
        for key in path {
            if let index = key.intValue, key.stringValue == "Index \(index)" {
                text += "[\(index)]"
            } else {
                if !text.isEmpty { text += "." }
                text += key.stringValue
            }
        }
        return text
    }
}
