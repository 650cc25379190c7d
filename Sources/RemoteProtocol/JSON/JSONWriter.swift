/// Why the direct writer could not write a value (a NaN or an infinity).
public struct JSONWriteError: Error, Sendable {
    /// What is wrong.
    public var reason: String
}

/// The writer of the direct codings of ``JSONBody`` types: the tokens of `JSONOutput` (the same
/// bytes the `Codable` encoder writes) into one `JSONBuffer`, with the commas placed by the writer.
///
/// `JSONBodyCoder` makes one per call and frees its buffer when the body is written.
public struct JSONWriter {
    var buffer: JSONBuffer
    /// Whether object members are written sorted by their keys' UTF-8 bytes.
    public let sortedKeys: Bool
    /// Whether the next member or element is the first of its container (no comma before it).
    private var first = true

    @usableFromInline
    init(sortedKeys: Bool, capacity: Int = 256) {
        self.sortedKeys = sortedKeys
        buffer = JSONBuffer(capacity: capacity)
    }

    /// The bytes written (one copy).
    @usableFromInline var bytes: [UInt8] { buffer.array }

    /// Frees the buffer; the writer must not be used afterwards.
    @usableFromInline func deallocate() { buffer.deallocate() }

    /// The comma before a member or element that is not its container's first.
    @inline(__always)
    private mutating func separate() {
        if !first { buffer.append(UInt8(ascii: ",")) }
        first = false
    }

    public mutating func beginObject() {
        buffer.append(UInt8(ascii: "{"))
        first = true
    }

    public mutating func endObject() {
        buffer.append(UInt8(ascii: "}"))
        first = false
    }

    public mutating func beginArray() {
        buffer.append(UInt8(ascii: "["))
        first = true
    }

    public mutating func endArray() {
        buffer.append(UInt8(ascii: "]"))
        first = false
    }

    /// Before each element of an array.
    public mutating func element() { separate() }

    /// Starts a member whose key, quoted and escaped and followed by `:`, is `quotedKey`.
    @usableFromInline
    mutating func member(quotedKey: UnsafeBufferPointer<UInt8>) {
        separate()
        buffer.append(quotedKey)
    }

    /// Starts the member `key` (escaped here).
    public mutating func key(_ key: String) {
        separate()
        JSONOutput.appendString(key, to: &buffer)
        buffer.append(UInt8(ascii: ":"))
    }

    public mutating func write(_ value: String) { JSONOutput.appendString(value, to: &buffer) }

    public mutating func write(_ value: Bool) {
        if value {
            buffer.append(contentsOf: [
                UInt8(ascii: "t"), UInt8(ascii: "r"), UInt8(ascii: "u"), UInt8(ascii: "e"),
            ])
        } else {
            buffer.append(contentsOf: [
                UInt8(ascii: "f"), UInt8(ascii: "a"), UInt8(ascii: "l"), UInt8(ascii: "s"), UInt8(ascii: "e"),
            ])
        }
    }

    public mutating func write(_ value: Int) { JSONOutput.appendInteger(value, to: &buffer) }
    public mutating func write(_ value: Int64) { JSONOutput.appendInteger(value, to: &buffer) }
    public mutating func write(_ value: UInt64) { JSONOutput.appendInteger(value, to: &buffer) }

    /// Writes a finite `Double` as the `Codable` encoder does; a NaN or an infinity is an error.
    public mutating func write(_ value: Double) throws(JSONWriteError) {
        guard value.isFinite else { throw JSONWriteError(reason: "\(value) is not valid JSON") }
        JSONOutput.appendDouble(value, to: &buffer)
    }
}
