@_spi(Reflection) import Swift

/// A body type with a direct JSON coding: a table of its fields (``JSONFields``), read with
/// ``JSONReader`` and written with ``JSONWriter`` without `Codable`'s containers.
/// `JSONBodyCoder` uses it for every such type; the type's `Codable` conformance stays, as the
/// oracle the direct coding is tested against (byte-identical output, the same values and the same
/// errors).
///
/// ```swift
/// extension LoginRequest: JSONBody {
///     public static let jsonFields = JSONFields<Self>(
///         blank: LoginRequest(username: "", password: ""),
///         [
///             .field("username", \.username), .field("password", \.password),
///             .field("client", \.client), .field("device_token", \.deviceToken),
///         ])
/// }
/// ```
public protocol JSONBody: Codable, Sendable, JSONFieldValue {
    /// The fields, in the order the type's `encode(to:)` writes them.
    static var jsonFields: JSONFields<Self> { get }
}

extension JSONBody {
    @inlinable
    public static func readJSON(from reader: inout JSONReader) throws(JSONReadError) -> Self {
        try jsonFields.read(from: &reader)
    }

    @inlinable
    public func writeJSON(to writer: inout JSONWriter) throws(JSONWriteError) {
        try Self.jsonFields.write(self, to: &writer)
    }
}

/// A value a field of a ``JSONBody`` can hold: read from a ``JSONReader`` and written to a
/// ``JSONWriter`` with the semantics of its `Codable` conformance on `JSONBodyCoder`'s coder.
public protocol JSONFieldValue: SendableMetatype {
    /// Reads the current value.
    static func readJSON(from reader: inout JSONReader) throws(JSONReadError) -> Self
    /// Writes the value.
    func writeJSON(to writer: inout JSONWriter) throws(JSONWriteError)
}

/// One line of a ``JSONFields`` table: a stored property, its key on the wire and how it is read and
/// written, as specialized closures that reach the property at its offset in the value.
public struct JSONField<Body>: Sendable {
    /// The key on the wire.
    @usableFromInline let name: String
    /// The key's UTF-8 bytes (compared with the keys read).
    @usableFromInline let nameBytes: [UInt8]
    /// The property's byte offset in `Body`.
    @usableFromInline let offset: Int
    /// The property's type, for the check against the stored properties.
    let type: ObjectIdentifier
    /// The property's type, named for the check's messages.
    let typeName: String
    /// Reads the member's value into the property.
    @usableFromInline let read:
        @Sendable (inout JSONReader, UnsafeMutableRawPointer) throws(JSONReadError) -> Void
    /// Sets the property for a missing member (nil, a default), or throws when it is required.
    @usableFromInline let absent: @Sendable (UnsafeMutableRawPointer) throws(JSONReadError) -> Void
    /// Writes the member, key and value (nothing for a nil optional).
    @usableFromInline let write: @Sendable (inout JSONWriter, UnsafeRawPointer) throws(JSONWriteError) -> Void

    /// The offset of `path`, which must be a stored property.
    @usableFromInline
    static func offset<Value>(_ path: WritableKeyPath<Body, Value>, _ name: String) -> Int {
        guard let offset = MemoryLayout<Body>.offset(of: path) else {
            preconditionFailure("JSON field \"\(name)\" of \(Body.self) is not a stored property")
        }
        return offset
    }

    /// `"name":`, escaped as the encoder writes keys.
    @usableFromInline
    static func quoted(_ name: String) -> [UInt8] {
        var buffer = JSONBuffer(capacity: name.utf8.count + 8)
        defer { buffer.deallocate() }
        JSONOutput.appendString(name, to: &buffer)
        buffer.append(UInt8(ascii: ":"))
        return buffer.array
    }

    @usableFromInline
    init<Property>(
        name: String, offset: Int, type: Property.Type,
        read: @escaping @Sendable (inout JSONReader, UnsafeMutableRawPointer) throws(JSONReadError) -> Void,
        absent: @escaping @Sendable (UnsafeMutableRawPointer) throws(JSONReadError) -> Void,
        write: @escaping @Sendable (inout JSONWriter, UnsafeRawPointer) throws(JSONWriteError) -> Void
    ) {
        self.name = name
        nameBytes = Array(name.utf8)
        self.offset = offset
        self.type = ObjectIdentifier(Property.self)
        typeName = String(reflecting: Property.self)
        self.read = read
        self.absent = absent
        self.write = write
    }

    /// A required member `name` for the property at `path` (`decode`/`encode`).
    @inlinable
    public static func field<Value: JSONFieldValue>(_ name: String, _ path: WritableKeyPath<Body, Value>)
        -> JSONField
    {
        let offset = offset(path, name)
        let key = quoted(name)
        return JSONField(
            name: name, offset: offset, type: Value.self,
            read: { (reader, base) throws(JSONReadError) in
                (base + offset).assumingMemoryBound(to: Value.self).pointee = try Value.readJSON(
                    from: &reader)
            },
            absent: { _ throws(JSONReadError) in
                throw JSONReadError(reason: "missing key \"\(name)\"", offset: nil)
            },
            write: { (writer, base) throws(JSONWriteError) in
                key.withUnsafeBufferPointer { writer.member(quotedKey: $0) }
                try (base + offset).assumingMemoryBound(to: Value.self).pointee.writeJSON(to: &writer)
            })
    }

    /// An optional member `name` for the property at `path` (`decodeIfPresent`/`encodeIfPresent`):
    /// missing or `null` reads as nil, nil is not written.
    @inlinable
    public static func field<Value: JSONFieldValue>(_ name: String, _ path: WritableKeyPath<Body, Value?>)
        -> JSONField
    {
        let offset = offset(path, name)
        let key = quoted(name)
        return JSONField(
            name: name, offset: offset, type: Value?.self,
            read: { (reader, base) throws(JSONReadError) in
                let value: Value? = try reader.readNull() ? nil : try Value.readJSON(from: &reader)
                (base + offset).assumingMemoryBound(to: Value?.self).pointee = value
            },
            absent: { base throws(JSONReadError) in
                (base + offset).assumingMemoryBound(to: Value?.self).pointee = nil
            },
            write: { (writer, base) throws(JSONWriteError) in
                guard let value = (base + offset).assumingMemoryBound(to: Value?.self).pointee else { return }
                key.withUnsafeBufferPointer { writer.member(quotedKey: $0) }
                try value.writeJSON(to: &writer)
            })
    }

    /// A member `name` for the non-optional property at `path` that reads as `ifAbsent` when missing
    /// or `null`, passed through `adjust` (`adjust(decodeIfPresent(…) ?? ifAbsent)`); always written.
    @inlinable
    public static func field<Value: JSONFieldValue & Sendable>(
        _ name: String, _ path: WritableKeyPath<Body, Value>, ifAbsent: Value,
        adjust: (@Sendable (Value) -> Value)? = nil
    ) -> JSONField {
        let offset = offset(path, name)
        let key = quoted(name)
        let fallback = adjust?(ifAbsent) ?? ifAbsent
        return JSONField(
            name: name, offset: offset, type: Value.self,
            read: { (reader, base) throws(JSONReadError) in
                var value = ifAbsent
                if try !reader.readNull() { value = try Value.readJSON(from: &reader) }
                if let adjust { value = adjust(value) }
                (base + offset).assumingMemoryBound(to: Value.self).pointee = value
            },
            absent: { base throws(JSONReadError) in
                (base + offset).assumingMemoryBound(to: Value.self).pointee = fallback
            },
            write: { (writer, base) throws(JSONWriteError) in
                key.withUnsafeBufferPointer { writer.member(quotedKey: $0) }
                try (base + offset).assumingMemoryBound(to: Value.self).pointee.writeJSON(to: &writer)
            })
    }
}

/// The field table of a ``JSONBody`` type: one ``JSONField`` per stored property, in encoding
/// order. Decoding starts from `blank` and writes each member read into its property; members with
/// other keys are checked as JSON and skipped; a key seen again is skipped (the first occurrence
/// wins, as on the `Codable` path); then every property whose member was missing is set (nil, its
/// default) or the body is refused.
public struct JSONFields<Body: JSONBody>: Sendable {
    @usableFromInline let blank: Body
    let fields: [JSONField<Body>]
    /// The fields' closures and names, in a form the loops use without generics.
    @usableFromInline let table: JSONFieldTable

    /// The table of `fields`, decoding from `blank` (any value: each property is overwritten or set
    /// by its field's rule for a missing member).
    public init(blank: Body, _ fields: [JSONField<Body>]) {
        precondition(fields.count <= 64, "a JSON field table holds at most 64 fields")
        self.blank = blank
        self.fields = fields
        table = JSONFieldTable(
            names: fields.map(\.nameBytes), reads: fields.map(\.read), absents: fields.map(\.absent),
            writes: fields.map(\.write))
    }

    /// Reads an object as a `Body`.
    @inlinable
    func read(from reader: inout JSONReader) throws(JSONReadError) -> Body {
        var value = blank
        try withUnsafeMutablePointer(to: &value) { (pointer) throws(JSONReadError) in
            try table.readMembers(from: &reader, into: UnsafeMutableRawPointer(pointer))
        }
        return value
    }

    /// Writes `value` as an object.
    @inlinable
    func write(_ value: Body, to writer: inout JSONWriter) throws(JSONWriteError) {
        try withUnsafePointer(to: value) { (pointer) throws(JSONWriteError) in
            try table.writeMembers(of: UnsafeRawPointer(pointer), to: &writer)
        }
    }

    /// Decodes a whole body (a leading byte order mark and surrounding whitespace allowed).
    @inlinable
    func decode(_ body: [UInt8]) throws(JSONReadError) -> Body {
        try body.withUnsafeBufferPointer { (buffer) throws(JSONReadError) -> Body in
            var reader = try JSONReader(bytes: buffer)
            let value = try read(from: &reader)
            try reader.finish()
            return value
        }
    }

    /// Encodes a whole body.
    @inlinable
    func encode(_ value: Body, sortedKeys: Bool) throws(JSONWriteError) -> [UInt8] {
        var writer = JSONWriter(sortedKeys: sortedKeys)
        defer { writer.deallocate() }
        try write(value, to: &writer)
        return writer.bytes
    }

    /// What is wrong with the table, checked against `Body`'s stored properties (their offsets and
    /// types, from the runtime's reflection metadata): a stored property without a field, a field
    /// that is not a stored property or has another type, two fields with one key or one property.
    /// Empty when the table is right; the contract tests check every body type with it.
    public var problems: [String] {
        var problems: [String] = []
        var stored: [(name: String, offset: Int, type: ObjectIdentifier, typeName: String)] = []
        _ = _forEachField(of: Body.self, options: []) { name, offset, type, _ in
            stored.append((String(cString: name), offset, ObjectIdentifier(type), String(reflecting: type)))
            return true
        }
        for property in stored {
            let matching = fields.filter { $0.offset == property.offset && $0.type == property.type }
            if matching.isEmpty {
                problems.append(
                    "\(Body.self): stored property \(property.name) (\(property.typeName)) has no field")
            } else if matching.count > 1 {
                problems.append(
                    "\(Body.self): stored property \(property.name) has \(matching.count) fields: "
                        + matching.map(\.name).joined(separator: ", "))
            }
        }
        for field in fields
        where !stored.contains(where: { $0.offset == field.offset && $0.type == field.type }) {
            problems.append(
                "\(Body.self): field \"\(field.name)\" (\(field.typeName)) matches no stored property")
        }
        var names = Set<String>()
        for field in fields where !names.insert(field.name).inserted {
            problems.append("\(Body.self): key \"\(field.name)\" is in the table twice")
        }
        return problems
    }

    /// The keys, in table order.
    public var keys: [String] { fields.map(\.name) }
}

/// The hot part of a ``JSONFields`` table, free of the body type: the loops over the members run
/// as ordinary code whether or not the caller is specialized.
@usableFromInline
final class JSONFieldTable: Sendable {
    typealias Read = @Sendable (inout JSONReader, UnsafeMutableRawPointer) throws(JSONReadError) -> Void
    typealias Absent = @Sendable (UnsafeMutableRawPointer) throws(JSONReadError) -> Void
    typealias Write = @Sendable (inout JSONWriter, UnsafeRawPointer) throws(JSONWriteError) -> Void

    /// Every key's UTF-8 bytes, one after the other; key `i` is `names[nameStarts[i]..<nameStarts[i + 1]]`.
    private let names: [UInt8]
    private let nameStarts: [Int]
    private let reads: [Read]
    private let absents: [Absent]
    private let writes: [Write]
    /// The field indexes in the order of their keys' UTF-8 bytes (for `sortedKeys`).
    private let sortedOrder: [Int]
    /// The bits of every field, for `seen` masks.
    private let allFields: UInt64

    init(names: [[UInt8]], reads: [Read], absents: [Absent], writes: [Write]) {
        self.names = names.flatMap { $0 }
        var starts = [0]
        for name in names { starts.append(starts[starts.count - 1] + name.count) }
        nameStarts = starts
        self.reads = reads
        self.absents = absents
        self.writes = writes
        sortedOrder = names.indices.sorted { names[$0].lexicographicallyPrecedes(names[$1]) }
        allFields = names.count == 64 ? ~0 : (1 << UInt64(names.count)) - 1
    }

    /// The index of the field whose name is `key`, trying `hint` first (members usually come in
    /// table order).
    @inline(__always)
    private func field(named key: JSONReader.Key, in reader: JSONReader, hint: Int) -> Int? {
        names.withUnsafeBufferPointer { names in
            let count = nameStarts.count - 1
            if key.escaped {
                let unescaped = reader.unescapedBytes(of: key)
                return (0..<count).first { index in
                    names[nameStarts[index]..<nameStarts[index + 1]].elementsEqual(unescaped)
                }
            }
            if hint < count,
                reader.key(
                    key, is: UnsafeBufferPointer(rebasing: names[nameStarts[hint]..<nameStarts[hint + 1]]))
            {
                return hint
            }
            for index in 0..<count where index != hint {
                if reader.key(
                    key, is: UnsafeBufferPointer(rebasing: names[nameStarts[index]..<nameStarts[index + 1]]))
                {
                    return index
                }
            }
            return nil
        }
    }

    /// Reads an object's members into the value at `base`.
    @usableFromInline
    func readMembers(from reader: inout JSONReader, into base: UnsafeMutableRawPointer) throws(JSONReadError)
    {
        var seen: UInt64 = 0
        if try reader.beginObject() {
            var hint = 0
            repeat {
                let key = try reader.readKey()
                if let index = field(named: key, in: reader, hint: hint), seen & (1 << UInt64(index)) == 0 {
                    seen |= 1 << UInt64(index)
                    try reads[index](&reader, base)
                    hint = index + 1
                } else {
                    try reader.skipValue()
                }
            } while try reader.nextMember()
        }
        if seen != allFields {
            for index in reads.indices where seen & (1 << UInt64(index)) == 0 {
                try absents[index](base)
            }
        }
    }

    /// Writes the value at `base` as an object.
    @usableFromInline
    func writeMembers(of base: UnsafeRawPointer, to writer: inout JSONWriter) throws(JSONWriteError) {
        writer.beginObject()
        if writer.sortedKeys {
            for index in sortedOrder { try writes[index](&writer, base) }
        } else {
            for write in writes { try write(&writer, base) }
        }
        writer.endObject()
    }
}

// MARK: Values

extension String: JSONFieldValue {
    @inlinable
    public static func readJSON(from reader: inout JSONReader) throws(JSONReadError) -> String {
        try reader.readString()
    }
    @inlinable
    public func writeJSON(to writer: inout JSONWriter) { writer.write(self) }
}

extension Bool: JSONFieldValue {
    @inlinable
    public static func readJSON(from reader: inout JSONReader) throws(JSONReadError) -> Bool {
        try reader.readBool()
    }
    @inlinable
    public func writeJSON(to writer: inout JSONWriter) { writer.write(self) }
}

extension Double: JSONFieldValue {
    @inlinable
    public static func readJSON(from reader: inout JSONReader) throws(JSONReadError) -> Double {
        try reader.readDouble()
    }
    @inlinable
    public func writeJSON(to writer: inout JSONWriter) throws(JSONWriteError) { try writer.write(self) }
}

extension Int: JSONFieldValue {
    @inlinable
    public static func readJSON(from reader: inout JSONReader) throws(JSONReadError) -> Int {
        try reader.readInt()
    }
    @inlinable
    public func writeJSON(to writer: inout JSONWriter) { writer.write(self) }
}

extension Int64: JSONFieldValue {
    @inlinable
    public static func readJSON(from reader: inout JSONReader) throws(JSONReadError) -> Int64 {
        try reader.readInt64()
    }
    @inlinable
    public func writeJSON(to writer: inout JSONWriter) { writer.write(self) }
}

extension Int32: JSONFieldValue {
    @inlinable
    public static func readJSON(from reader: inout JSONReader) throws(JSONReadError) -> Int32 {
        try reader.readInt32()
    }
    @inlinable
    public func writeJSON(to writer: inout JSONWriter) { writer.write(Int64(self)) }
}

extension Int16: JSONFieldValue {
    @inlinable
    public static func readJSON(from reader: inout JSONReader) throws(JSONReadError) -> Int16 {
        try reader.readInt16()
    }
    @inlinable
    public func writeJSON(to writer: inout JSONWriter) { writer.write(Int64(self)) }
}

extension Int8: JSONFieldValue {
    @inlinable
    public static func readJSON(from reader: inout JSONReader) throws(JSONReadError) -> Int8 {
        try reader.readInt8()
    }
    @inlinable
    public func writeJSON(to writer: inout JSONWriter) { writer.write(Int64(self)) }
}

extension UInt: JSONFieldValue {
    @inlinable
    public static func readJSON(from reader: inout JSONReader) throws(JSONReadError) -> UInt {
        try reader.readUInt()
    }
    @inlinable
    public func writeJSON(to writer: inout JSONWriter) { writer.write(UInt64(self)) }
}

extension UInt64: JSONFieldValue {
    @inlinable
    public static func readJSON(from reader: inout JSONReader) throws(JSONReadError) -> UInt64 {
        try reader.readUInt64()
    }
    @inlinable
    public func writeJSON(to writer: inout JSONWriter) { writer.write(self) }
}

extension UInt32: JSONFieldValue {
    @inlinable
    public static func readJSON(from reader: inout JSONReader) throws(JSONReadError) -> UInt32 {
        try reader.readUInt32()
    }
    @inlinable
    public func writeJSON(to writer: inout JSONWriter) { writer.write(UInt64(self)) }
}

extension UInt16: JSONFieldValue {
    @inlinable
    public static func readJSON(from reader: inout JSONReader) throws(JSONReadError) -> UInt16 {
        try reader.readUInt16()
    }
    @inlinable
    public func writeJSON(to writer: inout JSONWriter) { writer.write(UInt64(self)) }
}

extension UInt8: JSONFieldValue {
    @inlinable
    public static func readJSON(from reader: inout JSONReader) throws(JSONReadError) -> UInt8 {
        try reader.readUInt8()
    }
    @inlinable
    public func writeJSON(to writer: inout JSONWriter) { writer.write(UInt64(self)) }
}

/// String-backed enums and codes (`RawRepresentable` with a `String` raw value): the raw value, as
/// `Codable`'s default for them; a string that is no case is refused.
extension JSONFieldValue where Self: RawRepresentable, RawValue == String {
    @inlinable
    public static func readJSON(from reader: inout JSONReader) throws(JSONReadError) -> Self {
        let text = try reader.readString()
        guard let value = Self(rawValue: text) else {
            throw reader.invalid("\"\(text)\" is no \(Self.self)")
        }
        return value
    }

    @inlinable
    public func writeJSON(to writer: inout JSONWriter) { writer.write(rawValue) }
}

extension Array: JSONFieldValue where Element: JSONFieldValue {
    @inlinable
    public static func readJSON(from reader: inout JSONReader) throws(JSONReadError) -> [Element] {
        var result: [Element] = []
        if try reader.beginArray() {
            repeat {
                result.append(try Element.readJSON(from: &reader))
            } while try reader.nextElement()
        }
        return result
    }

    @inlinable
    public func writeJSON(to writer: inout JSONWriter) throws(JSONWriteError) {
        writer.beginArray()
        for element in self {
            writer.element()
            try element.writeJSON(to: &writer)
        }
        writer.endArray()
    }
}

/// `[String: Value]` as an object, as `Codable` does: decoding keeps a key's first occurrence (keys
/// compared as `String`s); encoding writes the dictionary's own order, or the keys' UTF-8 order with
/// `sortedKeys`.
extension Dictionary: JSONFieldValue where Key == String, Value: JSONFieldValue {
    @inlinable
    public static func readJSON(from reader: inout JSONReader) throws(JSONReadError) -> [String: Value] {
        var result: [String: Value] = [:]
        if try reader.beginObject() {
            repeat {
                let key = reader.string(of: try reader.readKey())
                if result[key] == nil {
                    result[key] = try Value.readJSON(from: &reader)
                } else {
                    try reader.skipValue()
                }
            } while try reader.nextMember()
        }
        return result
    }

    @inlinable
    public func writeJSON(to writer: inout JSONWriter) throws(JSONWriteError) {
        writer.beginObject()
        if writer.sortedKeys {
            for key in keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                writer.key(key)
                try self[key].unsafelyUnwrapped.writeJSON(to: &writer)
            }
        } else {
            for (key, value) in self {
                writer.key(key)
                try value.writeJSON(to: &writer)
            }
        }
        writer.endObject()
    }
}
