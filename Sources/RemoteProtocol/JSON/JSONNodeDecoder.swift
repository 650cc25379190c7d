import Foundation

/// A `Codable` decoder over a parsed document (`JSONNode`s over the original bytes).
///
/// One instance decodes a whole value: decoding a nested value moves `node` and the coding path and
/// restores them afterwards, so a struct of structs costs no extra decoders. Keys are found by
/// comparing bytes, so no `String` is made per key; strings are made only for `String` values.
/// Semantics follow Foundation's `JSONDecoder` (see docs/transport/json.md).
final class JSONNodeDecoder: Decoder {
    let bytes: [UInt8]
    let nodes: [JSONNode]
    /// The mutable state, behind a pointer this decoder owns, so that moving between values costs
    /// no dynamic exclusivity checks (as a class's stored `var`s would). One thread at a time.
    private struct State {
        var node: Int
        var pathKeys: [any CodingKey]
    }

    private let state: UnsafeMutablePointer<State>

    /// The node being decoded.
    var node: Int {
        get { state.pointee.node }
        set { state.pointee.node = newValue }
    }
    /// Keys from the top level to `node`.
    var pathKeys: [any CodingKey] {
        _read { yield state.pointee.pathKeys }
        _modify { yield &state.pointee.pathKeys }
    }

    var codingPath: [any CodingKey] { pathKeys }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(bytes: [UInt8], nodes: [JSONNode], node: Int, pathKeys: [any CodingKey] = []) {
        self.bytes = bytes
        self.nodes = nodes
        state = .allocate(capacity: 1)
        state.initialize(to: State(node: node, pathKeys: pathKeys))
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Parses `bytes` and decodes the whole text as a `Value`.
    static func decode<Value: Decodable>(_ type: Value.Type, from bytes: [UInt8]) throws -> Value {
        let nodes: [JSONNode]
        do {
            nodes = try bytes.withUnsafeBufferPointer { buffer throws(JSONSyntaxError) in
                try JSONParser.parse(buffer)
            }
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: error.description))
        }
        let decoder = JSONNodeDecoder(bytes: bytes, nodes: nodes, node: 0)
        return try decoder.decodeValue(Value.self, at: 0)
    }

    // MARK: Values

    /// Decodes the value at node `index` as a `Value`; the caller has pushed its key on the path.
    func decodeValue<Value: Decodable>(_ type: Value.Type, at index: Int) throws -> Value {
        let type = Value.self
        if type == String.self { return unsafeBitCast(try string(at: index), to: Value.self) }
        if type == Int.self { return unsafeBitCast(try integer(Int.self, at: index), to: Value.self) }
        if type == Bool.self { return unsafeBitCast(try bool(at: index), to: Value.self) }
        if type == Double.self { return unsafeBitCast(try double(at: index), to: Value.self) }
        if type == Int64.self { return unsafeBitCast(try integer(Int64.self, at: index), to: Value.self) }
        if type == UInt64.self { return unsafeBitCast(try integer(UInt64.self, at: index), to: Value.self) }
        if type == Int32.self { return unsafeBitCast(try integer(Int32.self, at: index), to: Value.self) }
        if type == UInt32.self { return unsafeBitCast(try integer(UInt32.self, at: index), to: Value.self) }
        if type == UInt.self { return unsafeBitCast(try integer(UInt.self, at: index), to: Value.self) }
        if type == Int16.self { return unsafeBitCast(try integer(Int16.self, at: index), to: Value.self) }
        if type == UInt16.self { return unsafeBitCast(try integer(UInt16.self, at: index), to: Value.self) }
        if type == Int8.self { return unsafeBitCast(try integer(Int8.self, at: index), to: Value.self) }
        if type == UInt8.self { return unsafeBitCast(try integer(UInt8.self, at: index), to: Value.self) }
        if type == Float.self { return unsafeBitCast(try float(at: index), to: Value.self) }
        if type == Data.self { return unsafeBitCast(try data(at: index), to: Value.self) }
        if type == URL.self { return unsafeBitCast(try url(at: index), to: Value.self) }
        if type == Decimal.self { return unsafeBitCast(try decimal(at: index), to: Value.self) }
        let saved = node
        node = index
        defer { node = saved }
        return try Value(from: self)
    }

    /// The node at `index` after checking it is of `kind` (else `valueNotFound` for null,
    /// `typeMismatch` otherwise).
    @inline(__always)
    func expect(_ kind: JSONNode.Kind, at index: Int, for type: Any.Type) throws -> JSONNode {
        let value = nodes[index]
        if value.kind == kind { return value }
        throw mismatch(value, type)
    }

    /// The error for finding `value` where a `type` was expected.
    func mismatch(_ value: JSONNode, _ type: Any.Type) -> DecodingError {
        if value.kind == .null {
            return DecodingError.valueNotFound(
                type,
                .init(codingPath: pathKeys, debugDescription: "Expected \(type) but found null instead."))
        }
        return DecodingError.typeMismatch(
            type,
            .init(
                codingPath: pathKeys,
                debugDescription: "Expected \(type) but found \(value.description) instead."))
    }

    /// `error` with its coding path replaced by `path`.
    static func repath(_ error: any Error, _ path: [any CodingKey]) -> any Error {
        switch error {
        case DecodingError.typeMismatch(let type, let context):
            DecodingError.typeMismatch(
                type, .init(codingPath: path, debugDescription: context.debugDescription))
        case DecodingError.valueNotFound(let type, let context):
            DecodingError.valueNotFound(
                type, .init(codingPath: path, debugDescription: context.debugDescription))
        case DecodingError.dataCorrupted(let context):
            DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: context.debugDescription))
        default: error
        }
    }

    func corrupted(_ message: String) -> DecodingError {
        DecodingError.dataCorrupted(.init(codingPath: pathKeys, debugDescription: message))
    }

    func bool(at index: Int) throws -> Bool {
        let value = nodes[index]
        switch value.kind {
        case .true: return true
        case .false: return false
        default:
            // Foundation reports null where a Bool belongs as a type mismatch, not a missing value.
            throw DecodingError.typeMismatch(
                Bool.self,
                .init(
                    codingPath: pathKeys,
                    debugDescription: "Expected Bool but found \(value.description) instead."))
        }
    }

    func string(at index: Int) throws -> String {
        let value = try expect(.string, at: index, for: String.self)
        return string(of: value)
    }

    /// The text of string node `value` (checked by the parser), escapes resolved.
    func string(of value: JSONNode) -> String {
        bytes.withUnsafeBufferPointer { buffer in
            let raw = UnsafeBufferPointer(rebasing: buffer[value.start..<value.end])
            if !value.flag { return String(decoding: raw, as: UTF8.self) }
            return String(decoding: JSONNodeDecoder.unescape(raw), as: UTF8.self)
        }
    }

    /// The UTF-8 bytes of `raw` with escapes resolved (the parser has checked them).
    static func unescape(_ raw: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var index = 0
        func hex(_ at: Int) -> UInt32 {
            var unit: UInt32 = 0
            for position in at..<at + 4 { unit = unit << 4 | UInt32(JSONParser.hexValue(raw[position]) ?? 0) }
            return unit
        }
        while index < raw.count {
            let byte = raw[index]
            guard byte == UInt8(ascii: "\\") else {
                out.append(byte)
                index += 1
                continue
            }
            let escape = raw[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex(index)
                index += 4
                if scalar >= 0xD800 && scalar < 0xDC00 {
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (hex(index + 2) - 0xDC00)
                    index += 6
                }
                if let unicode = Unicode.Scalar(scalar) {
                    UTF8.encode(unicode) { out.append($0) }
                }
            default: out.append(escape)
            }
        }
        return out
    }

    /// An integer of type `Integer` from number node `index`, exactly: out of range or fractional
    /// values are `dataCorrupted`.
    func integer<Integer: FixedWidthInteger>(_ type: Integer.Type, at index: Int) throws -> Integer {
        let value = try expect(.number, at: index, for: Integer.self)
        if let result = bytes.withUnsafeBufferPointer({ Self.integer(Integer.self, $0, value) }) {
            return result
        }
        throw corrupted("Number \(numberText(value)) does not fit in \(Integer.self).")
    }

    /// Number node `value` as an `Integer` when its exact value is an integer in range, else nil
    /// (shared with `JSONReader`).
    static func integer<Integer: FixedWidthInteger>(
        _ type: Integer.Type, _ buffer: UnsafeBufferPointer<UInt8>, _ value: JSONNode
    ) -> Integer? {
        if !value.flag {
            var position = value.start
            let negative = buffer[position] == UInt8(ascii: "-")
            if negative { position += 1 }
            var magnitude: UInt64 = 0
            while position < value.end {
                let digit = UInt64(buffer[position] &- UInt8(ascii: "0"))
                let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times10.addingReportingOverflow(digit)
                if overflow1 || overflow2 { return nil }
                magnitude = sum
                position += 1
            }
            if !negative { return Integer(exactly: magnitude) }
            if magnitude == 0 { return 0 }
            guard Integer.isSigned, magnitude <= UInt64(Int64.max) + 1 else { return nil }
            let signed = magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
            return Integer(exactly: signed)
        }
        guard let (magnitude, negative) = exactInteger(buffer, value) else { return nil }
        if !negative, let result = Integer(exactly: magnitude) { return result }
        if negative && magnitude == 0 { return 0 }
        if negative, Integer.isSigned, magnitude <= UInt64(Int64.max) + 1 {
            return Integer(exactly: magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude))
        }
        return nil
    }

    /// The exact value of number node `value` (which has a fraction or an exponent) when it is an
    /// integer whose magnitude fits in `UInt64` (`1.0` and `2.5e1` are, `25e-1` is not), with its sign;
    /// nil otherwise.
    static func exactInteger(_ buffer: UnsafeBufferPointer<UInt8>, _ value: JSONNode) -> (UInt64, Bool)? {
        var position = value.start
        let negative = buffer[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        // The digits without the point, and how many of them are before it.
        var digitsStart = position
        var integerDigits = 0
        var digitsEnd = position
        var seenPoint = false
        while position < value.end {
            let byte = buffer[position]
            if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { break }
            if byte == UInt8(ascii: ".") {
                seenPoint = true
            } else if !seenPoint {
                integerDigits += 1
            }
            position += 1
        }
        digitsEnd = position
        var exponent = 0
        if position < value.end {
            position += 1
            var exponentNegative = false
            if buffer[position] == UInt8(ascii: "+") || buffer[position] == UInt8(ascii: "-") {
                exponentNegative = buffer[position] == UInt8(ascii: "-")
                position += 1
            }
            while position < value.end {
                exponent = min(exponent * 10 + Int(buffer[position] &- UInt8(ascii: "0")), 100_000)
                position += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        // Digits at or after `pointAt` (counting digits only) are fractional and must be zero.
        let pointAt = integerDigits + exponent
        var magnitude: UInt64 = 0
        var digitIndex = 0
        while digitsStart < digitsEnd {
            let byte = buffer[digitsStart]
            digitsStart += 1
            if byte == UInt8(ascii: ".") { continue }
            let digit = UInt64(byte &- UInt8(ascii: "0"))
            if digitIndex >= pointAt {
                if digit != 0 { return nil }
            } else {
                let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times10.addingReportingOverflow(digit)
                if overflow1 || overflow2 { return nil }
                magnitude = sum
            }
            digitIndex += 1
        }
        // Trailing zeros the exponent adds.
        if magnitude != 0 {
            while digitIndex < pointAt {
                let (times10, overflow) = magnitude.multipliedReportingOverflow(by: 10)
                if overflow { return nil }
                magnitude = times10
                digitIndex += 1
            }
        }
        return (magnitude, negative)
    }

    /// The text of number node `value`.
    func numberText(_ value: JSONNode) -> String {
        bytes.withUnsafeBufferPointer {
            String(decoding: UnsafeBufferPointer(rebasing: $0[value.start..<value.end]), as: UTF8.self)
        }
    }

    /// Powers of ten exactly representable as `Double`, for the fast path of `double(at:)`.
    private static let exactPowersOfTen: [Double] = (0...22).map { exponent in
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    func double(at index: Int) throws -> Double {
        let value = try expect(.number, at: index, for: Double.self)
        guard let result = bytes.withUnsafeBufferPointer({ Self.double($0, value) }) else {
            throw corrupted("Number \(numberText(value)) is not representable as Double.")
        }
        return result
    }

    /// Number node `value` as a finite `Double` that did not underflow to zero, else nil (shared
    /// with `JSONReader`).
    static func double(_ buffer: UnsafeBufferPointer<UInt8>, _ value: JSONNode) -> Double? {
        let result =
            fastDouble(buffer, value)
            ?? Double(
                String(
                    decoding: UnsafeBufferPointer(rebasing: buffer[value.start..<value.end]), as: UTF8.self))
        guard let result, result.isFinite, !(result == 0 && hasNonzeroDigit(buffer, value)) else {
            return nil
        }
        return result
    }

    /// The exact value of simple decimal texts (at most 19 significant digits forming an integer up
    /// to 2^53, scaled by at most 10^22): one correctly rounded multiplication or division (Clinger's
    /// fast path). Nil for anything else.
    static func fastDouble(_ buffer: UnsafeBufferPointer<UInt8>, _ value: JSONNode) -> Double? {
        var position = value.start
        let negative = buffer[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var exponent = 0
        var seenPoint = false
        while position < value.end {
            let byte = buffer[position]
            if byte == UInt8(ascii: ".") {
                seenPoint = true
            } else if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                break
            } else {
                if mantissa != 0 || byte != UInt8(ascii: "0") { digits += 1 }
                if digits > 19 { return nil }
                mantissa = mantissa &* 10 &+ UInt64(byte &- UInt8(ascii: "0"))
                if seenPoint { exponent -= 1 }
            }
            position += 1
        }
        if position < value.end {
            position += 1
            var exponentNegative = false
            if buffer[position] == UInt8(ascii: "+") || buffer[position] == UInt8(ascii: "-") {
                exponentNegative = buffer[position] == UInt8(ascii: "-")
                position += 1
            }
            var written = 0
            while position < value.end {
                written = written * 10 + Int(buffer[position] &- UInt8(ascii: "0"))
                if written > 1000 { return nil }
                position += 1
            }
            exponent += exponentNegative ? -written : written
        }
        guard mantissa <= 1 << 53, exponent >= -22, exponent <= 22 else { return nil }
        var result = Double(mantissa)
        if exponent >= 0 {
            result *= exactPowersOfTen[exponent]
        } else {
            result /= exactPowersOfTen[-exponent]
        }
        return negative ? -result : result
    }

    /// Whether the mantissa of number node `value` has a nonzero digit (a zero result then means
    /// the number underflowed).
    static func hasNonzeroDigit(_ bytes: UnsafeBufferPointer<UInt8>, _ value: JSONNode) -> Bool {
        for position in value.start..<value.end {
            let byte = bytes[position]
            if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { return false }
            if byte >= UInt8(ascii: "1") && byte <= UInt8(ascii: "9") { return true }
        }
        return false
    }

    func float(at index: Int) throws -> Float {
        let value = try expect(.number, at: index, for: Float.self)
        guard let result = Float(numberText(value)), result.isFinite,
            !(result == 0 && bytes.withUnsafeBufferPointer({ JSONNodeDecoder.hasNonzeroDigit($0, value) }))
        else {
            throw corrupted("Number \(numberText(value)) is not representable as Float.")
        }
        return result
    }

    func data(at index: Int) throws -> Data {
        let text = try string(at: index)
        guard let data = Data(base64Encoded: text) else {
            throw corrupted("Encountered Data is not valid Base64.")
        }
        return data
    }

    func url(at index: Int) throws -> URL {
        let text = try string(at: index)
        guard let url = URL(string: text) else { throw corrupted("Invalid URL string.") }
        return url
    }

    func decimal(at index: Int) throws -> Decimal {
        let value = try expect(.number, at: index, for: Decimal.self)
        guard let decimal = Decimal(string: numberText(value), locale: Locale(identifier: "en_US_POSIX"))
        else {
            throw corrupted("Number \(numberText(value)) is not representable as Decimal.")
        }
        return decimal
    }

    /// Runs `body` with the coding path set for a container at `depth` with `extra` keys, plus `key`.
    @inline(__always)
    func withPath<Result>(
        depth: Int, extra: [any CodingKey], key: (any CodingKey)?, _ body: () throws -> Result
    ) rethrows -> Result {
        guard depth == pathKeys.count else {
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

    // MARK: Decoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let object = try expect(.object, at: node, for: [String: Any].self)
        return KeyedDecodingContainer(
            JSONKeyedDecodingContainer<Key>(
                decoder: self, object: node, node: object, depth: pathKeys.count, extra: []))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let array = try expect(.array, at: node, for: [Any].self)
        return JSONUnkeyedDecodingContainer(
            decoder: self, array: node, node: array, depth: pathKeys.count, extra: [])
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        JSONSingleValueDecodingContainer(decoder: self, node: node, depth: pathKeys.count)
    }
}

/// An object being read. Small objects are searched member by member, comparing key bytes; large
/// ones (dictionaries) get an index from key to value node once.
struct JSONKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    /// Objects with more members than this get an index.
    static var indexThreshold: Int { 12 }

    let decoder: JSONNodeDecoder
    let object: Int
    let depth: Int
    let extra: [any CodingKey]
    /// Key text to value node, first occurrence wins (Foundation keeps the first duplicate).
    private let index: [String: Int]?

    init(decoder: JSONNodeDecoder, object: Int, node: JSONNode, depth: Int, extra: [any CodingKey]) {
        self.decoder = decoder
        self.object = object
        self.depth = depth
        self.extra = extra
        if node.start > Self.indexThreshold {
            var index: [String: Int] = [:]
            index.reserveCapacity(node.start)
            var member = object + 1
            while member < node.end {
                let key = decoder.string(of: decoder.nodes[member])
                if index[key] == nil { index[key] = member + 1 }
                member = decoder.nodes[member + 1].next(after: member + 1)
            }
            self.index = index
        } else {
            self.index = nil
        }
    }

    var codingPath: [any CodingKey] { Array(decoder.pathKeys.prefix(depth)) + extra }

    /// The keys in document order, each once.
    var allKeys: [Key] {
        var seen = Set<String>()
        var keys: [Key] = []
        var member = object + 1
        let end = decoder.nodes[object].end
        while member < end {
            let text = decoder.string(of: decoder.nodes[member])
            if seen.insert(text).inserted, let key = Key(stringValue: text) { keys.append(key) }
            member = decoder.nodes[member + 1].next(after: member + 1)
        }
        return keys
    }

    /// The value node of `key`'s first occurrence, or nil.
    func find(_ key: Key) -> Int? {
        if let index { return index[key.stringValue] }
        var name = key.stringValue
        return name.withUTF8 { name -> Int? in
            decoder.bytes.withUnsafeBufferPointer { bytes -> Int? in
                let nodes = decoder.nodes
                var member = object + 1
                let end = nodes[object].end
                while member < end {
                    let keyNode = nodes[member]
                    if keyNode.flag {
                        if decoder.string(of: keyNode).utf8.elementsEqual(name) { return member + 1 }
                    } else if keyNode.end - keyNode.start == name.count
                        && Self.sameBytes(bytes, from: keyNode.start, as: name)
                    {
                        return member + 1
                    }
                    member = nodes[member + 1].next(after: member + 1)
                }
                return nil
            }
        }
    }

    /// Whether the `name.count` bytes of `bytes` from `start` are `name`.
    @inline(__always)
    static func sameBytes(
        _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, as name: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        guard let base = bytes.baseAddress, let other = name.baseAddress else { return name.isEmpty }
        return memcmp(base + start, other, name.count) == 0
    }

    /// The value node of `key`, or `keyNotFound`.
    @inline(__always)
    func require(_ key: Key) throws -> Int {
        if let found = find(key) { return found }
        throw DecodingError.keyNotFound(
            key,
            .init(
                codingPath: codingPath,
                debugDescription: "No value associated with key \"\(key.stringValue)\"."))
    }

    func contains(_ key: Key) -> Bool { find(key) != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        decoder.nodes[try require(key)].kind == .null
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try primitive(key) { try decoder.bool(at: $0) }
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        let found = try require(key)
        let value = decoder.nodes[found]
        if value.kind == .string { return decoder.string(of: value) }
        throw JSONNodeDecoder.repath(decoder.mismatch(value, String.self), codingPath + [key])
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try primitive(key) { try decoder.double(at: $0) }
    }

    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try primitive(key) { try decoder.float(at: $0) }
    }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(key) }

    @inline(__always)
    private func integer<Integer: FixedWidthInteger>(_ key: Key) throws -> Integer {
        try primitive(key) { try decoder.integer(Integer.self, at: $0) }
    }

    /// Reads the value of `key` with `body`, giving its errors the key's coding path (computed
    /// only on failure, so the path is not maintained for every primitive).
    @inline(__always)
    private func primitive<Value>(_ key: Key, _ body: (Int) throws -> Value) throws -> Value {
        let found = try require(key)
        do {
            return try body(found)
        } catch {
            throw JSONNodeDecoder.repath(error, codingPath + [key])
        }
    }

    func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value {
        let found = try require(key)
        return try decoder.withPath(depth: depth, extra: extra, key: key) {
            try decoder.decodeValue(Value.self, at: found)
        }
    }

    /// `decodeIfPresent` for every type: nil when the key is missing or null.
    private func present(_ key: Key) -> Int? {
        guard let found = find(key), decoder.nodes[found].kind != .null else { return nil }
        return found
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let found = present(key) else { return nil }
        let value = decoder.nodes[found]
        if value.kind == .string { return decoder.string(of: value) }
        throw JSONNodeDecoder.repath(decoder.mismatch(value, String.self), codingPath + [key])
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        guard present(key) != nil else { return nil }
        return try decode(type, forKey: key)
    }

    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        guard present(key) != nil else { return nil }
        return try decode(type, forKey: key)
    }

    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        guard present(key) != nil else { return nil }
        return try decode(type, forKey: key)
    }

    func decodeIfPresent<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value? {
        guard present(key) != nil else { return nil }
        return try decode(type, forKey: key)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let found = try require(key)
        let object = try decoder.withPath(depth: depth, extra: extra, key: key) {
            try decoder.expect(.object, at: found, for: [String: Any].self)
        }
        return KeyedDecodingContainer(
            JSONKeyedDecodingContainer<NestedKey>(
                decoder: decoder, object: found, node: object, depth: depth, extra: extra + [key]))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let found = try require(key)
        let array = try decoder.withPath(depth: depth, extra: extra, key: key) {
            try decoder.expect(.array, at: found, for: [Any].self)
        }
        return JSONUnkeyedDecodingContainer(
            decoder: decoder, array: found, node: array, depth: depth, extra: extra + [key])
    }

    func superDecoder() throws -> any Decoder { superDecoder(key: JSONKey.superKey) }

    func superDecoder(forKey key: Key) throws -> any Decoder { superDecoder(key: key) }

    /// A decoder for the value at `key`, or for null when it is missing (as Foundation).
    private func superDecoder(key: any CodingKey) -> any Decoder {
        var found = decoder.nodes.count - 1
        if let index {
            found = index[key.stringValue] ?? found
        } else {
            var member = object + 1
            let end = decoder.nodes[object].end
            while member < end {
                if decoder.string(of: decoder.nodes[member]) == key.stringValue {
                    found = member + 1
                    break
                }
                member = decoder.nodes[member + 1].next(after: member + 1)
            }
        }
        return JSONNodeDecoder(
            bytes: decoder.bytes, nodes: decoder.nodes, node: found, pathKeys: codingPath + [key])
    }
}

/// An array being read, element by element.
struct JSONUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let decoder: JSONNodeDecoder
    let depth: Int
    let extra: [any CodingKey]
    /// Index of the current element's node.
    private var element: Int
    private let end: Int

    let count: Int?
    private(set) var currentIndex = 0

    init(decoder: JSONNodeDecoder, array: Int, node: JSONNode, depth: Int, extra: [any CodingKey]) {
        self.decoder = decoder
        self.depth = depth
        self.extra = extra
        self.element = array + 1
        self.end = node.end
        self.count = node.start
    }

    var isAtEnd: Bool { element >= end }

    var codingPath: [any CodingKey] { Array(decoder.pathKeys.prefix(depth)) + extra }

    /// The current element's node, or `valueNotFound` at the end.
    private func current(_ type: Any.Type) throws -> Int {
        if element < end { return element }
        throw DecodingError.valueNotFound(
            type,
            .init(
                codingPath: codingPath + [JSONKey(intValue: currentIndex)],
                debugDescription: "Unkeyed container is at end."))
    }

    private mutating func advance() {
        element = decoder.nodes[element].next(after: element)
        currentIndex += 1
    }

    /// Decodes the current element with `body`, which may decode nested values (the caller then
    /// calls `advance()`).
    @inline(__always)
    private func read<Value>(_ type: Any.Type, _ body: (Int) throws -> Value) throws -> Value {
        let found = try current(type)
        return try decoder.withPath(depth: depth, extra: extra, key: JSONKey(intValue: currentIndex)) {
            try body(found)
        }
    }

    /// Decodes the current element, a primitive, with `body`; errors get the element's path.
    @inline(__always)
    private func readPrimitive<Value>(_ type: Any.Type, _ body: (Int) throws -> Value) throws -> Value {
        let found = try current(type)
        do {
            return try body(found)
        } catch {
            throw JSONNodeDecoder.repath(error, codingPath + [JSONKey(intValue: currentIndex)])
        }
    }

    mutating func decodeNil() throws -> Bool {
        let found = try current(Never?.self)
        if decoder.nodes[found].kind == .null {
            advance()
            return true
        }
        return false
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        let value = try readPrimitive(type) { try decoder.bool(at: $0) }
        advance()
        return value
    }
    mutating func decode(_ type: String.Type) throws -> String {
        let value = try readPrimitive(type) { try decoder.string(at: $0) }
        advance()
        return value
    }
    mutating func decode(_ type: Double.Type) throws -> Double {
        let value = try readPrimitive(type) { try decoder.double(at: $0) }
        advance()
        return value
    }
    mutating func decode(_ type: Float.Type) throws -> Float {
        let value = try readPrimitive(type) { try decoder.float(at: $0) }
        advance()
        return value
    }
    mutating func decode(_ type: Int.Type) throws -> Int {
        let value = try readPrimitive(type) { try decoder.integer(type, at: $0) }
        advance()
        return value
    }
    mutating func decode(_ type: Int8.Type) throws -> Int8 {
        let value = try readPrimitive(type) { try decoder.integer(type, at: $0) }
        advance()
        return value
    }
    mutating func decode(_ type: Int16.Type) throws -> Int16 {
        let value = try readPrimitive(type) { try decoder.integer(type, at: $0) }
        advance()
        return value
    }
    mutating func decode(_ type: Int32.Type) throws -> Int32 {
        let value = try readPrimitive(type) { try decoder.integer(type, at: $0) }
        advance()
        return value
    }
    mutating func decode(_ type: Int64.Type) throws -> Int64 {
        let value = try readPrimitive(type) { try decoder.integer(type, at: $0) }
        advance()
        return value
    }
    mutating func decode(_ type: UInt.Type) throws -> UInt {
        let value = try readPrimitive(type) { try decoder.integer(type, at: $0) }
        advance()
        return value
    }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 {
        let value = try readPrimitive(type) { try decoder.integer(type, at: $0) }
        advance()
        return value
    }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 {
        let value = try readPrimitive(type) { try decoder.integer(type, at: $0) }
        advance()
        return value
    }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 {
        let value = try readPrimitive(type) { try decoder.integer(type, at: $0) }
        advance()
        return value
    }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 {
        let value = try readPrimitive(type) { try decoder.integer(type, at: $0) }
        advance()
        return value
    }

    mutating func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        let value = try read(type) { try decoder.decodeValue(Value.self, at: $0) }
        advance()
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let key = JSONKey(intValue: currentIndex)
        let container = try read([String: Any].self) { found in
            let object = try decoder.expect(.object, at: found, for: [String: Any].self)
            return JSONKeyedDecodingContainer<NestedKey>(
                decoder: decoder, object: found, node: object, depth: depth, extra: extra + [key])
        }
        advance()
        return KeyedDecodingContainer(container)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let key = JSONKey(intValue: currentIndex)
        let container = try read([Any].self) { found in
            let array = try decoder.expect(.array, at: found, for: [Any].self)
            return JSONUnkeyedDecodingContainer(
                decoder: decoder, array: found, node: array, depth: depth, extra: extra + [key])
        }
        advance()
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let key = JSONKey(intValue: currentIndex)
        let path = codingPath + [key]
        let found = try current(JSONNodeDecoder.self)
        advance()
        return JSONNodeDecoder(bytes: decoder.bytes, nodes: decoder.nodes, node: found, pathKeys: path)
    }
}

/// The current value read as a whole.
struct JSONSingleValueDecodingContainer: SingleValueDecodingContainer {
    let decoder: JSONNodeDecoder
    let node: Int
    let depth: Int

    var codingPath: [any CodingKey] { Array(decoder.pathKeys.prefix(depth)) }

    func decodeNil() -> Bool { decoder.nodes[node].kind == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.bool(at: node) }
    func decode(_ type: String.Type) throws -> String { try decoder.string(at: node) }
    func decode(_ type: Double.Type) throws -> Double { try decoder.double(at: node) }
    func decode(_ type: Float.Type) throws -> Float { try decoder.float(at: node) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.integer(type, at: node) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.integer(type, at: node) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.integer(type, at: node) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.integer(type, at: node) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.integer(type, at: node) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.integer(type, at: node) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.integer(type, at: node) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.integer(type, at: node) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.integer(type, at: node) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.integer(type, at: node) }

    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        try decoder.decodeValue(Value.self, at: node)
    }
}
