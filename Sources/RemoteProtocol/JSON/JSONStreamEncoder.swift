import Foundation

/// Thrown when a container is written to after the encoder has moved past it (a parent written to
/// after a nested container, then the nested container again). The streaming encoder cannot
/// insert into text it has already finished; `JSONBodyCoder` then encodes the value again with
/// Foundation's encoder. Synthesized `Codable` code never does this.
struct JSONOutOfOrderEncoding: Error {}

/// A `Codable` encoder that writes compact JSON straight into one byte array, with no intermediate
/// tree.
///
/// The open containers form a stack (`frames`). A container that is written to becomes the top of
/// the stack again: anything opened above it is finished and closed first. A nested value's
/// container is closed when its `encode(to:)` returns. With `sortedKeys`, each object remembers
/// where its members start and reorders its own bytes when it closes.
///
/// One instance encodes one value; it is not shared between threads.
final class JSONStreamEncoder: Encoder {
    /// One open container, or a slot waiting for a value (`superEncoder`).
    struct Frame {
        enum Kind {
            /// An object: `{` written; `count` members so far.
            case object
            /// An array: `[` written; `count` elements so far.
            case array
            /// A place where a super encoder's value goes: key (or comma) written, value not yet.
            case slot
        }

        var id: Int
        var kind: Kind
        var count = 0
        /// Index of the first byte after `{`, for sorting members.
        var contentStart: Int
        /// With `sortedKeys`: each member's key and the index of its first byte.
        var members: [(key: String, start: Int)] = []
    }

    /// The mutable state, behind a pointer this encoder owns: the containers reach it through the
    /// accessors below without the dynamic exclusivity checks a class's stored `var`s would cost
    /// on every byte appended. Only this encoder's thread touches it.
    private struct State {
        var bytes: JSONBuffer
        var frames: [Frame] = []
        var nextID = 1
        var pathKeys: [any CodingKey] = []
        var containerID = 0
        var valueStart = 0
    }

    private let state: UnsafeMutablePointer<State>

    /// The JSON written so far.
    var bytes: JSONBuffer {
        _read { yield state.pointee.bytes }
        _modify { yield &state.pointee.bytes }
    }
    /// Open containers, innermost last.
    var frames: [Frame] {
        _read { yield state.pointee.frames }
        _modify { yield &state.pointee.frames }
    }
    private var nextID: Int {
        get { state.pointee.nextID }
        set { state.pointee.nextID = newValue }
    }
    /// Keys from the top level to the value being encoded.
    var pathKeys: [any CodingKey] {
        _read { yield state.pointee.pathKeys }
        _modify { yield &state.pointee.pathKeys }
    }
    /// The container opened by the value being encoded (0: none yet).
    var containerID: Int {
        get { state.pointee.containerID }
        set { state.pointee.containerID = newValue }
    }
    /// `bytes.count` when the value being encoded started.
    var valueStart: Int {
        get { state.pointee.valueStart }
        set { state.pointee.valueStart = newValue }
    }
    /// Whether objects' keys are sorted (by UTF-8 bytes, as Foundation's `.sortedKeys`).
    let sortedKeys: Bool

    var codingPath: [any CodingKey] { pathKeys }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(sortedKeys: Bool, capacity: Int = 256) {
        self.sortedKeys = sortedKeys
        state = .allocate(capacity: 1)
        state.initialize(to: State(bytes: JSONBuffer(capacity: capacity)))
    }

    deinit {
        state.pointee.bytes.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Encodes `value` as the whole document.
    func encodeTopLevel<Value: Encodable>(_ value: Value) throws -> [UInt8] {
        if try !encodePrimitive(value) {
            // Unlike a nested value, a top-level one that writes nothing is an error, not `{}`.
            try value.encode(to: self)
        }
        while !frames.isEmpty { closeTop() }
        if bytes.isEmpty {
            throw EncodingError.invalidValue(
                value,
                .init(codingPath: [], debugDescription: "Top-level \(Value.self) did not encode any values."))
        }
        return bytes.array
    }

    // MARK: Frames

    func newID() -> Int {
        defer { nextID += 1 }
        return nextID
    }

    /// Makes frame `id` the innermost open frame, closing the finished frames above it.
    @inline(__always)
    func activate(_ id: Int) throws {
        if frames.last?.id == id { return }
        try activateSlow(id)
    }

    private func activateSlow(_ id: Int) throws {
        if id == Self.misusedContainer {
            throw EncodingError.invalidValue(
                0,
                .init(
                    codingPath: pathKeys,
                    debugDescription: "A value asked its encoder for a second container of another kind."))
        }
        guard frames.contains(where: { $0.id == id }) else { throw JSONOutOfOrderEncoding() }
        while let last = frames.last, last.id != id { closeTop() }
    }

    /// Closes frame `id` and everything above it.
    func close(_ id: Int) throws {
        try activate(id)
        closeTop()
    }

    /// Writes the end of the innermost frame and removes it.
    func closeTop() {
        guard let frame = frames.popLast() else { return }
        switch frame.kind {
        case .array: bytes.append(UInt8(ascii: "]"))
        case .slot: bytes.append(UInt8(ascii: "{"), UInt8(ascii: "}"))
        case .object:
            if sortedKeys && frame.members.count > 1 { sortMembers(of: frame) }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// Reorders the members of `frame` (all written, up to the end of `bytes`) by key.
    private func sortMembers(of frame: Frame) {
        let members = frame.members
        let order = members.indices.sorted {
            members[$0].key.utf8.lexicographicallyPrecedes(members[$1].key.utf8)
        }
        if order == Array(members.indices) { return }
        let end = bytes.count
        var sorted: [UInt8] = []
        sorted.reserveCapacity(end - frame.contentStart)
        for (position, member) in order.enumerated() {
            if position > 0 { sorted.append(UInt8(ascii: ",")) }
            let memberEnd = member + 1 < members.count ? members[member + 1].start - 1 : end
            sorted.append(contentsOf: bytes.bytes(in: members[member].start..<memberEnd))
        }
        // The same members and commas in another order: the same length.
        bytes.overwrite(at: frame.contentStart, with: sorted)
    }

    /// Opens a container at the current value position: `{` or `[` written, frame pushed.
    func open(_ kind: Frame.Kind) -> Int {
        let id = newID()
        bytes.append(kind == .object ? UInt8(ascii: "{") : UInt8(ascii: "["))
        frames.append(Frame(id: id, kind: kind, contentStart: bytes.count))
        return id
    }

    /// Starts member `key` of object `id`: activates it, writes the comma, the key and the colon.
    @inline(__always)
    func beginMember(_ id: Int, key: String) throws {
        try activate(id)
        let top = frames.count - 1
        if frames[top].count > 0 { bytes.append(UInt8(ascii: ",")) }
        frames[top].count += 1
        if sortedKeys { frames[top].members.append((key, bytes.count)) }
        JSONOutput.appendString(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    /// Starts the next element of array `id`: activates it and writes the comma.
    @inline(__always)
    func beginElement(_ id: Int) throws {
        try activate(id)
        let top = frames.count - 1
        if frames[top].count > 0 { bytes.append(UInt8(ascii: ",")) }
        frames[top].count += 1
    }

    /// The number of members or elements written to frame `id` (0 once it is closed).
    func count(of id: Int) -> Int {
        frames.last(where: { $0.id == id })?.count ?? 0
    }

    // MARK: Values

    /// Writes `value` at the current position, which the caller has prepared (key or comma written).
    func encodeValue<Value: Encodable>(_ value: Value) throws {
        if try encodePrimitive(value) { return }
        let savedContainer = containerID
        let savedStart = valueStart
        containerID = 0
        valueStart = bytes.count
        defer {
            containerID = savedContainer
            valueStart = savedStart
        }
        try value.encode(to: self)
        if containerID != 0 {
            try close(containerID)
        } else if bytes.count == valueStart {
            bytes.append(UInt8(ascii: "{"), UInt8(ascii: "}"))
        }
    }

    /// Writes `value` directly when it is a primitive or one of Foundation's specially encoded
    /// types; false when it needs its own `encode(to:)`.
    @inline(__always)
    func encodePrimitive<Value: Encodable>(_ value: Value) throws -> Bool {
        let type = Value.self
        if type == String.self {
            JSONOutput.appendString(unsafeBitCast(value, to: String.self), to: &bytes)
        } else if type == Int.self {
            JSONOutput.appendInteger(unsafeBitCast(value, to: Int.self), to: &bytes)
        } else if type == Bool.self {
            appendBool(unsafeBitCast(value, to: Bool.self))
        } else if type == Double.self {
            try appendDouble(unsafeBitCast(value, to: Double.self))
        } else if type == Int64.self {
            JSONOutput.appendInteger(unsafeBitCast(value, to: Int64.self), to: &bytes)
        } else if type == UInt64.self {
            JSONOutput.appendInteger(unsafeBitCast(value, to: UInt64.self), to: &bytes)
        } else if type == Int32.self {
            JSONOutput.appendInteger(unsafeBitCast(value, to: Int32.self), to: &bytes)
        } else if type == UInt32.self {
            JSONOutput.appendInteger(unsafeBitCast(value, to: UInt32.self), to: &bytes)
        } else if type == UInt.self {
            JSONOutput.appendInteger(unsafeBitCast(value, to: UInt.self), to: &bytes)
        } else if type == Int16.self {
            JSONOutput.appendInteger(unsafeBitCast(value, to: Int16.self), to: &bytes)
        } else if type == UInt16.self {
            JSONOutput.appendInteger(unsafeBitCast(value, to: UInt16.self), to: &bytes)
        } else if type == Int8.self {
            JSONOutput.appendInteger(unsafeBitCast(value, to: Int8.self), to: &bytes)
        } else if type == UInt8.self {
            JSONOutput.appendInteger(unsafeBitCast(value, to: UInt8.self), to: &bytes)
        } else if type == Float.self {
            try appendFloat(unsafeBitCast(value, to: Float.self))
        } else if type == Data.self {
            JSONOutput.appendBase64(unsafeBitCast(value, to: Data.self), to: &bytes)
        } else if type == URL.self {
            JSONOutput.appendString(unsafeBitCast(value, to: URL.self).absoluteString, to: &bytes)
        } else if type == Decimal.self {
            let decimal = unsafeBitCast(value, to: Decimal.self)
            if decimal.isNaN {
                throw EncodingError.invalidValue(
                    decimal,
                    .init(codingPath: pathKeys, debugDescription: "Unable to encode Decimal.nan in JSON."))
            }
            bytes.append(contentsOf: decimal.description.utf8)
        } else {
            return false
        }
        return true
    }

    func appendBool(_ value: Bool) {
        bytes.append(contentsOf: value ? "true".utf8 : "false".utf8)
    }

    func appendDouble(_ value: Double) throws {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value,
                .init(
                    codingPath: pathKeys,
                    debugDescription: "Unable to encode Double.\(value) directly in JSON."))
        }
        JSONOutput.appendDouble(value, to: &bytes)
    }

    func appendFloat(_ value: Float) throws {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value,
                .init(
                    codingPath: pathKeys,
                    debugDescription: "Unable to encode Float.\(value) directly in JSON."))
        }
        JSONOutput.appendFloat(value, to: &bytes)
    }

    /// Runs `body` with `key` (and the container's own extra keys) appended to the coding path, as
    /// seen from a container at `depth`.
    @inline(__always)
    func withPath<Result>(
        depth: Int, extra: [any CodingKey], key: (any CodingKey)?, _ body: () throws -> Result
    ) rethrows -> Result {
        guard depth == pathKeys.count else {
            // A container of a super encoder, or one used out of turn: set the whole path.
            let saved = pathKeys
            pathKeys = Array(saved.prefix(depth)) + extra
            if let key { pathKeys.append(key) }
            defer { pathKeys = saved }
            return try body()
        }
        if !extra.isEmpty { pathKeys.append(contentsOf: extra) }
        if let key { pathKeys.append(key) }
        defer { pathKeys.removeLast(pathKeys.count - depth) }
        return try body()
    }

    /// Runs `body`; an `EncodingError` it throws gets `path` (an autoclosure: made only on failure).
    @inline(__always)
    func repathing(_ path: @autoclosure () -> [any CodingKey], _ body: () throws -> Void) throws {
        do {
            try body()
        } catch EncodingError.invalidValue(let value, let context) {
            throw EncodingError.invalidValue(
                value, .init(codingPath: path(), debugDescription: context.debugDescription))
        }
    }

    /// The id of a container handed out for a request Foundation treats as a programming error
    /// (a keyed container after an unkeyed one for the same value, or the reverse): writing to it
    /// is an `EncodingError`.
    static let misusedContainer = -1

    /// The container of the value being encoded: opened on the first request, the same one on
    /// later requests of the same kind (a subclass encoding into its superclass's container).
    private func valueContainer(_ kind: Frame.Kind) -> Int {
        if containerID == 0 {
            containerID = open(kind)
            return containerID
        }
        guard let frame = frames.last(where: { $0.id == containerID }) else {
            // Closed already: writes report the out-of-order use.
            return containerID
        }
        return frame.kind == kind ? containerID : Self.misusedContainer
    }

    // MARK: Encoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(
            JSONKeyedEncodingContainer<Key>(
                encoder: self, id: valueContainer(.object), depth: pathKeys.count, extra: []))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        JSONUnkeyedEncodingContainer(
            encoder: self, id: valueContainer(.array), depth: pathKeys.count, extra: [])
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        JSONSingleValueEncodingContainer(encoder: self, slot: 0, depth: pathKeys.count, extra: [])
    }

    /// Prepares to write a single value: at the current value position when `slot` is 0, else in
    /// super-encoder slot `slot`.
    func beginSingleValue(slot: Int, value: Any) throws {
        if slot != 0 {
            try activate(slot)
            frames.removeLast()
            return
        }
        guard containerID == 0 && bytes.count == valueStart else {
            throw EncodingError.invalidValue(
                value,
                .init(
                    codingPath: pathKeys,
                    debugDescription:
                        "Attempt to encode a value through a single value container after one was encoded."
                ))
        }
    }
}

/// The encoder handed out by `superEncoder()`: its value goes into a slot frame.
final class JSONSlotEncoder: Encoder {
    let encoder: JSONStreamEncoder
    let slot: Int
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    private var containerID = 0
    private var kind: JSONStreamEncoder.Frame.Kind = .slot

    init(encoder: JSONStreamEncoder, slot: Int, codingPath: [any CodingKey]) {
        self.encoder = encoder
        self.slot = slot
        self.codingPath = codingPath
    }

    /// Opens the container of this encoder's value in its slot, once.
    private func openContainer(_ wanted: JSONStreamEncoder.Frame.Kind) -> Int {
        if containerID != 0 { return kind == wanted ? containerID : JSONStreamEncoder.misusedContainer }
        if (try? encoder.activate(slot)) != nil {
            encoder.frames.removeLast()
            containerID = encoder.open(wanted)
        } else {
            // The slot was closed (the parent moved on): this container writes nowhere, and its
            // first write reports the out-of-order use.
            containerID = encoder.newID()
        }
        kind = wanted
        return containerID
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let id = openContainer(.object)
        return KeyedEncodingContainer(
            JSONKeyedEncodingContainer<Key>(encoder: encoder, id: id, depth: 0, extra: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        JSONUnkeyedEncodingContainer(encoder: encoder, id: openContainer(.array), depth: 0, extra: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        JSONSingleValueEncodingContainer(encoder: encoder, slot: slot, depth: 0, extra: codingPath)
    }
}

/// An object being written.
struct JSONKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: JSONStreamEncoder
    let id: Int
    /// How many of the encoder's path keys lead to this container, then `extra`.
    let depth: Int
    let extra: [any CodingKey]

    var codingPath: [any CodingKey] { Array(encoder.pathKeys.prefix(depth)) + extra }

    mutating func encodeNil(forKey key: Key) throws {
        try encoder.beginMember(id, key: key.stringValue)
        encoder.bytes.append(contentsOf: "null".utf8)
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws {
        try encoder.beginMember(id, key: key.stringValue)
        encoder.appendBool(value)
    }

    mutating func encode(_ value: String, forKey key: Key) throws {
        try encoder.beginMember(id, key: key.stringValue)
        JSONOutput.appendString(value, to: &encoder.bytes)
    }

    mutating func encode(_ value: Double, forKey key: Key) throws {
        try encoder.beginMember(id, key: key.stringValue)
        try encoder.repathing(codingPath + [key]) { try encoder.appendDouble(value) }
    }

    mutating func encode(_ value: Float, forKey key: Key) throws {
        try encoder.beginMember(id, key: key.stringValue)
        try encoder.repathing(codingPath + [key]) { try encoder.appendFloat(value) }
    }

    mutating func encode(_ value: Int, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try integer(value, key) }

    @inline(__always)
    private func integer<Integer: FixedWidthInteger>(_ value: Integer, _ key: Key) throws {
        try encoder.beginMember(id, key: key.stringValue)
        JSONOutput.appendInteger(value, to: &encoder.bytes)
    }

    mutating func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws {
        try encoder.beginMember(id, key: key.stringValue)
        try encoder.withPath(depth: depth, extra: extra, key: key) { try encoder.encodeValue(value) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested: Int
        if (try? encoder.beginMember(id, key: key.stringValue)) != nil {
            nested = encoder.open(.object)
        } else {
            nested = encoder.newID()
        }
        return KeyedEncodingContainer(
            JSONKeyedEncodingContainer<NestedKey>(
                encoder: encoder, id: nested, depth: depth, extra: extra + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested: Int
        if (try? encoder.beginMember(id, key: key.stringValue)) != nil {
            nested = encoder.open(.array)
        } else {
            nested = encoder.newID()
        }
        return JSONUnkeyedEncodingContainer(encoder: encoder, id: nested, depth: depth, extra: extra + [key])
    }

    mutating func superEncoder() -> any Encoder { superEncoder(key: JSONKey.superKey) }

    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(key: key) }

    private func superEncoder(key: any CodingKey) -> any Encoder {
        let slot = encoder.newID()
        if (try? encoder.beginMember(id, key: key.stringValue)) != nil {
            encoder.frames.append(.init(id: slot, kind: .slot, contentStart: encoder.bytes.count))
        }
        return JSONSlotEncoder(encoder: encoder, slot: slot, codingPath: codingPath + [key])
    }
}

/// An array being written.
struct JSONUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let encoder: JSONStreamEncoder
    let id: Int
    let depth: Int
    let extra: [any CodingKey]

    var codingPath: [any CodingKey] { Array(encoder.pathKeys.prefix(depth)) + extra }
    var count: Int { encoder.count(of: id) }

    mutating func encodeNil() throws {
        try encoder.beginElement(id)
        encoder.bytes.append(contentsOf: "null".utf8)
    }

    mutating func encode(_ value: Bool) throws {
        try encoder.beginElement(id)
        encoder.appendBool(value)
    }

    mutating func encode(_ value: String) throws {
        try encoder.beginElement(id)
        JSONOutput.appendString(value, to: &encoder.bytes)
    }

    mutating func encode(_ value: Double) throws {
        try encoder.beginElement(id)
        let key = JSONKey(intValue: count - 1)
        try encoder.repathing(codingPath + [key]) { try encoder.appendDouble(value) }
    }

    mutating func encode(_ value: Float) throws {
        try encoder.beginElement(id)
        let key = JSONKey(intValue: count - 1)
        try encoder.repathing(codingPath + [key]) { try encoder.appendFloat(value) }
    }

    mutating func encode(_ value: Int) throws { try integer(value) }
    mutating func encode(_ value: Int8) throws { try integer(value) }
    mutating func encode(_ value: Int16) throws { try integer(value) }
    mutating func encode(_ value: Int32) throws { try integer(value) }
    mutating func encode(_ value: Int64) throws { try integer(value) }
    mutating func encode(_ value: UInt) throws { try integer(value) }
    mutating func encode(_ value: UInt8) throws { try integer(value) }
    mutating func encode(_ value: UInt16) throws { try integer(value) }
    mutating func encode(_ value: UInt32) throws { try integer(value) }
    mutating func encode(_ value: UInt64) throws { try integer(value) }

    @inline(__always)
    private func integer<Integer: FixedWidthInteger>(_ value: Integer) throws {
        try encoder.beginElement(id)
        JSONOutput.appendInteger(value, to: &encoder.bytes)
    }

    mutating func encode<Value: Encodable>(_ value: Value) throws {
        try encoder.beginElement(id)
        let key = JSONKey(intValue: count - 1)
        try encoder.withPath(depth: depth, extra: extra, key: key) { try encoder.encodeValue(value) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let key = JSONKey(intValue: count)
        let nested = (try? encoder.beginElement(id)) != nil ? encoder.open(.object) : encoder.newID()
        return KeyedEncodingContainer(
            JSONKeyedEncodingContainer<NestedKey>(
                encoder: encoder, id: nested, depth: depth, extra: extra + [key]))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let key = JSONKey(intValue: count)
        let nested = (try? encoder.beginElement(id)) != nil ? encoder.open(.array) : encoder.newID()
        return JSONUnkeyedEncodingContainer(encoder: encoder, id: nested, depth: depth, extra: extra + [key])
    }

    mutating func superEncoder() -> any Encoder {
        let key = JSONKey(intValue: count)
        let slot = encoder.newID()
        if (try? encoder.beginElement(id)) != nil {
            encoder.frames.append(.init(id: slot, kind: .slot, contentStart: encoder.bytes.count))
        }
        return JSONSlotEncoder(encoder: encoder, slot: slot, codingPath: codingPath + [key])
    }
}

/// One value written in place (at the current value position, or in a super encoder's slot).
struct JSONSingleValueEncodingContainer: SingleValueEncodingContainer {
    let encoder: JSONStreamEncoder
    let slot: Int
    let depth: Int
    let extra: [any CodingKey]

    var codingPath: [any CodingKey] { Array(encoder.pathKeys.prefix(depth)) + extra }

    mutating func encodeNil() throws {
        try encoder.beginSingleValue(slot: slot, value: Optional<Int>.none as Any)
        encoder.bytes.append(contentsOf: "null".utf8)
    }

    mutating func encode(_ value: Bool) throws {
        try encoder.beginSingleValue(slot: slot, value: value)
        encoder.appendBool(value)
    }

    mutating func encode(_ value: String) throws {
        try encoder.beginSingleValue(slot: slot, value: value)
        JSONOutput.appendString(value, to: &encoder.bytes)
    }

    mutating func encode(_ value: Double) throws {
        try encoder.beginSingleValue(slot: slot, value: value)
        try encoder.withPath(depth: depth, extra: extra, key: nil) { try encoder.appendDouble(value) }
    }

    mutating func encode(_ value: Float) throws {
        try encoder.beginSingleValue(slot: slot, value: value)
        try encoder.withPath(depth: depth, extra: extra, key: nil) { try encoder.appendFloat(value) }
    }

    mutating func encode(_ value: Int) throws { try integer(value) }
    mutating func encode(_ value: Int8) throws { try integer(value) }
    mutating func encode(_ value: Int16) throws { try integer(value) }
    mutating func encode(_ value: Int32) throws { try integer(value) }
    mutating func encode(_ value: Int64) throws { try integer(value) }
    mutating func encode(_ value: UInt) throws { try integer(value) }
    mutating func encode(_ value: UInt8) throws { try integer(value) }
    mutating func encode(_ value: UInt16) throws { try integer(value) }
    mutating func encode(_ value: UInt32) throws { try integer(value) }
    mutating func encode(_ value: UInt64) throws { try integer(value) }

    @inline(__always)
    private func integer<Integer: FixedWidthInteger>(_ value: Integer) throws {
        try encoder.beginSingleValue(slot: slot, value: value)
        JSONOutput.appendInteger(value, to: &encoder.bytes)
    }

    mutating func encode<Value: Encodable>(_ value: Value) throws {
        try encoder.beginSingleValue(slot: slot, value: value)
        // The value takes this one's place: its containers open at the current position.
        try encoder.withPath(depth: depth, extra: extra, key: nil) { try encoder.encodeValue(value) }
    }
}
