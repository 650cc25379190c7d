import Foundation

/// Why the direct reader stopped: a syntax error (with the same reason and byte offset
/// `JSONParser` gives) or a value that does not fit the body type.
public struct JSONReadError: Error, Sendable, CustomStringConvertible {
    /// What is wrong.
    public var reason: String
    /// The byte offset for a syntax error; nil for a value of the wrong kind or range.
    public var offset: Int?

    /// An error: `reason`, at byte `offset` for a syntax error.
    public init(reason: String, offset: Int?) {
        self.reason = reason
        self.offset = offset
    }

    public var description: String {
        if let offset { return "invalid JSON at byte \(offset): \(reason)" }
        return reason
    }
}

/// A single-pass reader over a JSON body, for the direct codings of ``JSONBody`` types: it checks
/// the text as it goes, with `JSONParser`'s grammar, error reasons, byte offsets and depth limit,
/// and hands out values without building nodes.
///
/// Whitespace before a value has always been skipped when a value is read. Values of the wrong
/// kind or range throw a ``JSONReadError`` without an offset (the value's text is checked first,
/// so a syntax error inside it wins).
public struct JSONReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0

    /// A reader at the first value of `bytes` (a leading byte order mark and whitespace skipped).
    @usableFromInline
    init(bytes: UnsafeBufferPointer<UInt8>) throws(JSONReadError) {
        self.bytes = bytes
        if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { index = 3 }
        skipWhitespace()
        guard index < bytes.count else {
            throw JSONReadError(reason: bytes.isEmpty ? "empty text" : "no value", offset: index)
        }
    }

    /// Checks that only whitespace follows the value.
    @usableFromInline
    func finish() throws(JSONReadError) {
        var reader = self
        reader.skipWhitespace()
        if reader.index < bytes.count {
            throw syntax("unexpected \(describe(reader.index)) after the value", at: reader.index)
        }
    }

    // MARK: Errors

    private func syntax(_ reason: String, at offset: Int) -> JSONReadError {
        JSONReadError(reason: reason, offset: offset)
    }

    /// The byte at `offset`, for error messages (as `JSONParser` names it).
    private func describe(_ offset: Int) -> String {
        guard offset < bytes.count else { return "end of text" }
        let byte = bytes[offset]
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    /// The error for a value that is not a `expected`: the value is checked first (a syntax error
    /// in it is reported instead).
    private mutating func mismatch(_ expected: String) -> JSONReadError {
        do {
            try skipValue()
        } catch {
            return error
        }
        return JSONReadError(reason: "expected \(expected)", offset: nil)
    }

    /// An error for a value of the right kind that the body type refuses (out of range, unknown
    /// enum case, ...).
    public func invalid(_ reason: String) -> JSONReadError {
        JSONReadError(reason: reason, offset: nil)
    }

    // MARK: Whitespace and literals

    @inline(__always)
    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// The byte at the current value, or the parser's error at the end of the text.
    @inline(__always)
    private func valueByte() throws(JSONReadError) -> UInt8 {
        guard index < bytes.count else { throw syntax("expected a value, found end of text", at: index) }
        return bytes[index]
    }

    private mutating func literal(_ word: StaticString) throws(JSONReadError) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count,
            UnsafeBufferPointer(start: word.utf8Start, count: count).elementsEqual(
                bytes[index..<index + count])
        else { throw syntax("expected \(word)", at: index) }
        index += count
    }

    /// Reads `null` if the value is one.
    public mutating func readNull() throws(JSONReadError) -> Bool {
        guard try valueByte() == UInt8(ascii: "n") else { return false }
        try literal("null")
        return true
    }

    public mutating func readBool() throws(JSONReadError) -> Bool {
        switch try valueByte() {
        case UInt8(ascii: "t"):
            try literal("true")
            return true
        case UInt8(ascii: "f"):
            try literal("false")
            return false
        default: throw mismatch("a bool")
        }
    }

    // MARK: Strings

    /// The bytes of a string value between its quotes, and whether they contain escapes.
    private mutating func scanString() throws(JSONReadError) -> (start: Int, end: Int, escaped: Bool) {
        let opening = index
        index += 1
        let start = index
        var escaped = false
        while true {
            guard index < bytes.count else { throw syntax("unterminated string", at: opening) }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\") {
                escaped = true
                try skipEscape()
            } else if byte < 0x20 {
                throw syntax("raw control character 0x\(String(byte, radix: 16)) in a string", at: index)
            } else if byte < 0x80 {
                index += 1
            } else {
                try skipMultibyte()
            }
        }
        let end = index
        index += 1
        return (start, end, escaped)
    }

    /// Checks one escape at `index` (the backslash) and moves past it.
    private mutating func skipEscape() throws(JSONReadError) {
        let backslash = index
        guard index + 1 < bytes.count else { throw syntax("unterminated escape", at: backslash) }
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
                else { throw syntax("high surrogate escape without a low surrogate", at: backslash) }
                let low = try hexEscape(at: index)
                guard low >= 0xDC00 && low < 0xE000 else {
                    throw syntax("high surrogate escape without a low surrogate", at: backslash)
                }
                index += 6
            } else if unit >= 0xDC00 && unit < 0xE000 {
                throw syntax("low surrogate escape without a high surrogate", at: backslash)
            }
        default:
            throw syntax("invalid escape \\\(describe(index + 1))", at: backslash)
        }
    }

    private func hexEscape(at offset: Int) throws(JSONReadError) -> UInt16 {
        guard offset + 6 <= bytes.count else { throw syntax("truncated \\u escape", at: offset) }
        var unit: UInt16 = 0
        for position in offset + 2..<offset + 6 {
            guard let digit = JSONParser.hexValue(bytes[position]) else {
                throw syntax("invalid hex digit in \\u escape", at: position)
            }
            unit = unit << 4 | UInt16(digit)
        }
        return unit
    }

    private mutating func skipMultibyte() throws(JSONReadError) {
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
        default: throw syntax("invalid UTF-8", at: index)
        }
        guard index + length <= bytes.count else { throw syntax("truncated UTF-8", at: index) }
        let second = bytes[index + 1]
        guard second >= low && second <= high else { throw syntax("invalid UTF-8", at: index) }
        for position in index + 2..<index + length where bytes[position] & 0xC0 != 0x80 {
            throw syntax("invalid UTF-8", at: index)
        }
        index += length
    }

    /// The string scanned as `(start, end, escaped)`, escapes resolved.
    private func makeString(_ start: Int, _ end: Int, _ escaped: Bool) -> String {
        let raw = UnsafeBufferPointer(rebasing: bytes[start..<end])
        if !escaped { return String(decoding: raw, as: UTF8.self) }
        return String(decoding: JSONNodeDecoder.unescape(raw), as: UTF8.self)
    }

    public mutating func readString() throws(JSONReadError) -> String {
        guard try valueByte() == UInt8(ascii: "\"") else { throw mismatch("a string") }
        let (start, end, escaped) = try scanString()
        return makeString(start, end, escaped)
    }

    // MARK: Numbers

    /// Checks a number at `index` and moves past it: its bounds and whether it has a fraction or an
    /// exponent.
    private mutating func scanNumber() throws(JSONReadError) -> JSONNode {
        let start = index
        var fractional = false
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw syntax("expected a digit", at: index) }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count && isDigit(bytes[index]) {
                throw syntax("leading zero in a number", at: start)
            }
        } else {
            skipDigits()
        }
        if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
            fractional = true
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw syntax("expected a digit after '.'", at: index)
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
                throw syntax("expected a digit in the exponent", at: index)
            }
            skipDigits()
        }
        return JSONNode(kind: .number, flag: fractional, start: start, end: index)
    }

    @inline(__always)
    private func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    @inline(__always)
    private mutating func skipDigits() {
        while index < bytes.count && isDigit(bytes[index]) { index += 1 }
    }

    /// The number at the current value (kind checked), scanned.
    private mutating func number(_ expected: String) throws(JSONReadError) -> JSONNode {
        let byte = try valueByte()
        guard byte == UInt8(ascii: "-") || isDigit(byte) else { throw mismatch(expected) }
        return try scanNumber()
    }

    /// A number as an integer of type `Integer`, exactly (as `JSONNodeDecoder` reads integers).
    private mutating func integer<Integer: FixedWidthInteger>(_: Integer.Type) throws(JSONReadError)
        -> Integer
    {
        let node = try number("a number")
        if let value = JSONNodeDecoder.integer(Integer.self, bytes, node) { return value }
        throw invalid("number does not fit in \(Integer.self)")
    }

    public mutating func readInt() throws(JSONReadError) -> Int { try integer(Int.self) }
    public mutating func readInt64() throws(JSONReadError) -> Int64 { try integer(Int64.self) }
    public mutating func readInt32() throws(JSONReadError) -> Int32 { try integer(Int32.self) }
    public mutating func readInt16() throws(JSONReadError) -> Int16 { try integer(Int16.self) }
    public mutating func readInt8() throws(JSONReadError) -> Int8 { try integer(Int8.self) }
    public mutating func readUInt() throws(JSONReadError) -> UInt { try integer(UInt.self) }
    public mutating func readUInt64() throws(JSONReadError) -> UInt64 { try integer(UInt64.self) }
    public mutating func readUInt32() throws(JSONReadError) -> UInt32 { try integer(UInt32.self) }
    public mutating func readUInt16() throws(JSONReadError) -> UInt16 { try integer(UInt16.self) }
    public mutating func readUInt8() throws(JSONReadError) -> UInt8 { try integer(UInt8.self) }

    /// A number as a `Double` (as `JSONNodeDecoder` reads doubles: out of range is an error).
    public mutating func readDouble() throws(JSONReadError) -> Double {
        let node = try number("a number")
        if let value = JSONNodeDecoder.double(bytes, node) { return value }
        throw invalid("number is not representable as Double")
    }

    // MARK: Containers

    private mutating func enter() throws(JSONReadError) {
        depth += 1
        if depth > JSONParser.maximumDepth {
            throw syntax("containers nest deeper than \(JSONParser.maximumDepth)", at: index)
        }
    }

    /// Opens an object; false when it is empty (and already closed).
    public mutating func beginObject() throws(JSONReadError) -> Bool {
        guard try valueByte() == UInt8(ascii: "{") else { throw mismatch("an object") }
        try enter()
        index += 1
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return false
        }
        return true
    }

    /// A member's key: its bytes between the quotes and whether they contain escapes. The `:` and
    /// the whitespace after it are consumed: the member's value follows.
    public struct Key {
        let start: Int
        let end: Int
        @usableFromInline let escaped: Bool
    }

    /// Reads the next member's key and the colon.
    public mutating func readKey() throws(JSONReadError) -> Key {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
            throw syntax("expected a key string, found \(describe(index))", at: index)
        }
        let (start, end, escaped) = try scanString()
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
            throw syntax("expected ':' after a key, found \(describe(index))", at: index)
        }
        index += 1
        skipWhitespace()
        return Key(start: start, end: end, escaped: escaped)
    }

    /// `key` as a string, escapes resolved.
    public func string(of key: Key) -> String { makeString(key.start, key.end, key.escaped) }

    /// The UTF-8 bytes of `key` with escapes resolved (only for a key with escapes).
    @usableFromInline
    func unescapedBytes(of key: Key) -> [UInt8] {
        JSONNodeDecoder.unescape(UnsafeBufferPointer(rebasing: bytes[key.start..<key.end]))
    }

    /// Whether the unescaped `key` has no escapes and is the bytes of `name`.
    @usableFromInline
    func key(_ key: Key, is name: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = key.end - key.start
        guard count == name.count, let base = bytes.baseAddress, let other = name.baseAddress else {
            return count == 0 && name.isEmpty
        }
        return memcmp(base + key.start, other, count) == 0
    }

    /// After a member's value: true when another member follows, false at the closing brace.
    public mutating func nextMember() throws(JSONReadError) -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw syntax("unterminated object", at: index) }
        let byte = bytes[index]
        index += 1
        if byte == UInt8(ascii: "}") {
            depth -= 1
            return false
        }
        guard byte == UInt8(ascii: ",") else {
            throw syntax("expected ',' or '}' in an object, found \(describe(index - 1))", at: index - 1)
        }
        skipWhitespace()
        return true
    }

    /// Opens an array; false when it is empty (and already closed).
    public mutating func beginArray() throws(JSONReadError) -> Bool {
        guard try valueByte() == UInt8(ascii: "[") else { throw mismatch("an array") }
        try enter()
        index += 1
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return false
        }
        return true
    }

    /// After an element: true when another element follows, false at the closing bracket.
    public mutating func nextElement() throws(JSONReadError) -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw syntax("unterminated array", at: index) }
        let byte = bytes[index]
        index += 1
        if byte == UInt8(ascii: "]") {
            depth -= 1
            return false
        }
        guard byte == UInt8(ascii: ",") else {
            throw syntax("expected ',' or ']' in an array, found \(describe(index - 1))", at: index - 1)
        }
        skipWhitespace()
        return true
    }

    /// Checks the current value, whatever it is, and moves past it (members nobody reads).
    public mutating func skipValue() throws(JSONReadError) {
        switch try valueByte() {
        case UInt8(ascii: "\""): _ = try scanString()
        case UInt8(ascii: "{"):
            try enter()
            index += 1
            skipWhitespace()
            if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
                index += 1
                depth -= 1
                return
            }
            repeat {
                _ = try readKey()
                try skipValue()
            } while try nextMember()
        case UInt8(ascii: "["):
            try enter()
            index += 1
            skipWhitespace()
            if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
                index += 1
                depth -= 1
                return
            }
            repeat {
                try skipValue()
            } while try nextElement()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): _ = try scanNumber()
        default: throw syntax("expected a value, found \(describe(index))", at: index)
        }
    }
}
