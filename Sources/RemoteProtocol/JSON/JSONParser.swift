/// One value of a parsed JSON document, in a flat array in document order: a container is followed
/// by its contents (an object by key, value, key, value, ...), so a document is parsed with one
/// allocation for the nodes and no `String`s.
struct JSONNode: Sendable {
    /// What the value is.
    enum Kind: UInt8, Sendable {
        case null, `true`, `false`, number, string, array, object
    }

    var kind: Kind
    /// Strings: the text has backslash escapes. Numbers: there is a fraction or an exponent.
    var flag: Bool
    /// Strings: index of the first byte after the opening quote. Numbers: of the first byte.
    /// Containers: the number of elements, or of members for an object.
    var start: Int
    /// Strings: index of the closing quote. Numbers: one past the last byte. Containers: index of
    /// the node after this container's contents.
    var end: Int

    /// The index of the node after this one and its contents, when this node is at `index`.
    @inline(__always)
    func next(after index: Int) -> Int {
        kind.rawValue >= Kind.array.rawValue ? end : index + 1
    }

    /// How the value is named in error messages ("a string", "number", ...), as Foundation does.
    var description: String {
        switch kind {
        case .null: "null"
        case .true, .false: "bool"
        case .number: "number"
        case .string: "a string"
        case .array: "an array"
        case .object: "a dictionary"
        }
    }
}

/// Why a text is not JSON, and where.
struct JSONSyntaxError: Error, Sendable, CustomStringConvertible {
    /// What is wrong.
    var reason: String
    /// Index of the offending byte.
    var offset: Int

    var description: String { "invalid JSON at byte \(offset): \(reason)" }
}

/// A strict RFC 8259 parser producing `JSONNode`s.
///
/// Accepts exactly the RFC grammar (plus a leading UTF-8 byte order mark, which the RFC allows a
/// parser to ignore): no trailing commas, comments, `NaN`, leading zeros, `+`, `.5` or `1.`;
/// strings must be valid UTF-8 without raw control characters and with paired surrogate escapes.
/// Containers may nest `maximumDepth` deep.
struct JSONParser {
    /// How deep arrays and objects may nest.
    static let maximumDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0
    private(set) var nodes: [JSONNode] = []

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        nodes.reserveCapacity(bytes.count / 4 + 2)
    }

    /// Parses the whole text as one value, then appends a spare `null` node (for super decoders of
    /// absent keys).
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) -> [JSONNode] {
        var parser = JSONParser(bytes: bytes)
        if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { parser.index = 3 }
        parser.skipWhitespace()
        guard parser.index < bytes.count else {
            throw JSONSyntaxError(reason: bytes.isEmpty ? "empty text" : "no value", offset: parser.index)
        }
        try parser.parseValue()
        parser.skipWhitespace()
        if parser.index < bytes.count {
            throw JSONSyntaxError(
                reason: "unexpected \(parser.describe(parser.index)) after the value", offset: parser.index)
        }
        parser.nodes.append(JSONNode(kind: .null, flag: false, start: 0, end: 0))
        return parser.nodes
    }

    /// The byte at `offset`, for error messages.
    private func describe(_ offset: Int) -> String {
        guard offset < bytes.count else { return "end of text" }
        let byte = bytes[offset]
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    private func error(_ reason: String, at offset: Int) -> JSONSyntaxError {
        JSONSyntaxError(reason: reason, offset: offset)
    }

    @inline(__always)
    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws(JSONSyntaxError) {
        guard index < bytes.count else { throw error("expected a value, found end of text", at: index) }
        switch bytes[index] {
        case UInt8(ascii: "\""): try parseString()
        case UInt8(ascii: "{"): try parseObject()
        case UInt8(ascii: "["): try parseArray()
        case UInt8(ascii: "t"): try parseLiteral("true", .true)
        case UInt8(ascii: "f"): try parseLiteral("false", .false)
        case UInt8(ascii: "n"): try parseLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try parseNumber()
        default: throw error("expected a value, found \(describe(index))", at: index)
        }
    }

    private mutating func parseLiteral(_ word: StaticString, _ kind: JSONNode.Kind) throws(JSONSyntaxError) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count,
            UnsafeBufferPointer(start: word.utf8Start, count: count).elementsEqual(
                bytes[index..<index + count])
        else { throw error("expected \(word)", at: index) }
        nodes.append(JSONNode(kind: kind, flag: false, start: index, end: index + count))
        index += count
    }

    private mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > Self.maximumDepth {
            throw error("containers nest deeper than \(Self.maximumDepth)", at: index)
        }
    }

    private mutating func parseArray() throws(JSONSyntaxError) {
        try enter()
        let node = nodes.count
        nodes.append(JSONNode(kind: .array, flag: false, start: 0, end: 0))
        index += 1
        skipWhitespace()
        var count = 0
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
            index += 1
        } else {
            while true {
                try parseValue()
                count += 1
                skipWhitespace()
                guard index < bytes.count else { throw error("unterminated array", at: index) }
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "]") { break }
                guard byte == UInt8(ascii: ",") else {
                    throw error(
                        "expected ',' or ']' in an array, found \(describe(index - 1))", at: index - 1)
                }
                skipWhitespace()
            }
        }
        nodes[node].start = count
        nodes[node].end = nodes.count
        depth -= 1
    }

    private mutating func parseObject() throws(JSONSyntaxError) {
        try enter()
        let node = nodes.count
        nodes.append(JSONNode(kind: .object, flag: false, start: 0, end: 0))
        index += 1
        skipWhitespace()
        var count = 0
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
            index += 1
        } else {
            while true {
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                    throw error("expected a key string, found \(describe(index))", at: index)
                }
                try parseString()
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                    throw error("expected ':' after a key, found \(describe(index))", at: index)
                }
                index += 1
                skipWhitespace()
                try parseValue()
                count += 1
                skipWhitespace()
                guard index < bytes.count else { throw error("unterminated object", at: index) }
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "}") { break }
                guard byte == UInt8(ascii: ",") else {
                    throw error(
                        "expected ',' or '}' in an object, found \(describe(index - 1))", at: index - 1)
                }
                skipWhitespace()
            }
        }
        nodes[node].start = count
        nodes[node].end = nodes.count
        depth -= 1
    }

    private mutating func parseString() throws(JSONSyntaxError) {
        let opening = index
        index += 1
        let start = index
        var escaped = false
        while true {
            guard index < bytes.count else { throw error("unterminated string", at: opening) }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\") {
                escaped = true
                try skipEscape()
            } else if byte < 0x20 {
                throw error("raw control character 0x\(String(byte, radix: 16)) in a string", at: index)
            } else if byte < 0x80 {
                index += 1
            } else {
                try skipMultibyte()
            }
        }
        nodes.append(JSONNode(kind: .string, flag: escaped, start: start, end: index))
        index += 1
    }

    /// Checks one escape at `index` (the backslash) and moves past it.
    private mutating func skipEscape() throws(JSONSyntaxError) {
        let backslash = index
        guard index + 1 < bytes.count else { throw error("unterminated escape", at: backslash) }
        switch bytes[index + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            index += 2
        case UInt8(ascii: "u"):
            let unit = try hexEscape(at: backslash)
            index += 6
            if unit >= 0xD800 && unit < 0xDC00 {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u")
                else { throw error("high surrogate escape without a low surrogate", at: backslash) }
                let low = try hexEscape(at: index)
                guard low >= 0xDC00 && low < 0xE000 else {
                    throw error("high surrogate escape without a low surrogate", at: backslash)
                }
                index += 6
            } else if unit >= 0xDC00 && unit < 0xE000 {
                throw error("low surrogate escape without a high surrogate", at: backslash)
            }
        default:
            throw error("invalid escape \\\(describe(index + 1))", at: backslash)
        }
    }

    /// The code unit of the `\uXXXX` escape whose backslash is at `offset`.
    private func hexEscape(at offset: Int) throws(JSONSyntaxError) -> UInt16 {
        guard offset + 6 <= bytes.count else { throw error("truncated \\u escape", at: offset) }
        var unit: UInt16 = 0
        for position in offset + 2..<offset + 6 {
            guard let digit = JSONParser.hexValue(bytes[position]) else {
                throw error("invalid hex digit in \\u escape", at: position)
            }
            unit = unit << 4 | UInt16(digit)
        }
        return unit
    }

    /// The value of hex digit `byte`, or nil.
    @inline(__always)
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Checks one well-formed UTF-8 sequence of two to four bytes at `index` and moves past it.
    private mutating func skipMultibyte() throws(JSONSyntaxError) {
        let lead = bytes[index]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: throw error("invalid UTF-8", at: index)
        }
        guard index + length <= bytes.count else { throw error("truncated UTF-8", at: index) }
        let second = bytes[index + 1]
        guard second >= low && second <= high else { throw error("invalid UTF-8", at: index) }
        for position in index + 2..<index + length where bytes[position] & 0xC0 != 0x80 {
            throw error("invalid UTF-8", at: index)
        }
        index += length
    }

    private mutating func parseNumber() throws(JSONSyntaxError) {
        let start = index
        var fractional = false
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("expected a digit", at: index) }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count && isDigit(bytes[index]) {
                throw error("leading zero in a number", at: start)
            }
        } else {
            skipDigits()
        }
        if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
            fractional = true
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw error("expected a digit after '.'", at: index)
            }
            skipDigits()
        }
        if index < bytes.count && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")) {
            fractional = true
            index += 1
            if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-"))
            {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw error("expected a digit in the exponent", at: index)
            }
            skipDigits()
        }
        nodes.append(JSONNode(kind: .number, flag: fractional, start: start, end: index))
    }

    @inline(__always)
    private func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    @inline(__always)
    private mutating func skipDigits() {
        while index < bytes.count && isDigit(bytes[index]) { index += 1 }
    }
}
