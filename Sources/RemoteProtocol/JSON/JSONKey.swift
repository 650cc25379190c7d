/// A coding key the coders make themselves: an array index in a coding path, or `super`.
struct JSONKey: CodingKey, Sendable {
    var stringValue: String
    var intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    init(intValue: Int) {
        self.stringValue = "Index \(intValue)"
        self.intValue = intValue
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
