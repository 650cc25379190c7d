import Foundation

/// Encodes values into JSON bodies and decodes bodies into values.
///
/// A ``JSONBody`` type (every body type of Contracts) takes its direct coding: its field table read
/// with ``JSONReader`` and written with ``JSONWriter``, no `Codable` containers. Any other type goes
/// through `Codable` with this module's own coders (Sources/RemoteProtocol/JSON): the encoder
/// writes compact UTF-8 straight into one byte array, the decoder parses the body strictly (RFC
/// 8259) into a flat node array and reads values from it. Both paths give the same bytes and the
/// same values, errors and messages: the shape and semantics of Foundation's
/// `JSONEncoder`/`JSONDecoder` with default strategies; docs/transport/json.md lists the
/// differences. Stateless and `Sendable`: every call builds its own reader, writer, encoder or
/// decoder.
public struct JSONBodyCoder: Sendable {
    /// Whether object keys are written sorted by their UTF-8 bytes.
    @usableFromInline let sortedKeys: Bool
    /// Whether ``JSONBody`` types take their direct coding (else `Codable`, as every other type).
    public let usesDirectCoding: Bool

    /// A coder shared by every call site that needs no special options.
    public static let shared = JSONBodyCoder()

    /// A coder producing compact JSON; `sortedKeys` makes object keys come out sorted, for
    /// byte-for-byte reproducible bodies (it costs a little time). `usesDirectCoding: false` codes
    /// ``JSONBody`` types through `Codable` too (the oracle of the contract tests, and the
    /// benchmark's baseline).
    public init(sortedKeys: Bool = false, usesDirectCoding: Bool = true) {
        self.sortedKeys = sortedKeys
        self.usesDirectCoding = usesDirectCoding
    }

    /// `value` as a JSON body, with its direct coding (the overload concrete call sites get).
    ///
    /// - Throws: `RemoteError` with code `internal` when `value` cannot be encoded (e.g. a NaN).
    @inlinable
    public func encode<Value: JSONBody>(_ value: Value) throws(RemoteError) -> [UInt8] {
        if usesDirectCoding, let bytes = try? Value.jsonFields.encode(value, sortedKeys: sortedKeys) {
            return bytes
        }
        // Not encodable (a NaN, an infinity): the Codable path gives the error and its message.
        return try codableEncode(value)
    }

    /// `body` decoded as a `Value`, with its direct coding (the overload concrete call sites get).
    ///
    /// A body the direct coding refuses is decoded again through `Codable`, whose error (the first
    /// problem in its order, with its message and coding path) is the one thrown: errors are rare,
    /// and this keeps every message the same as on the `Codable` path.
    ///
    /// - Throws: `RemoteError` with code `bad_request` when the body is not JSON for a `Value`.
    @inlinable
    public func decode<Value: JSONBody>(_ type: Value.Type = Value.self, from body: [UInt8])
        throws(RemoteError) -> Value
    {
        if usesDirectCoding, let value = try? Value.jsonFields.decode(body) { return value }
        return try codableDecode(Value.self, from: body)
    }

    /// `value` encoded by its direct coding only (for the contract tests, the fuzz target and the
    /// benchmark).
    @inlinable
    public func encodeDirect<Value: JSONBody>(_ value: Value) throws(JSONWriteError) -> [UInt8] {
        try Value.jsonFields.encode(value, sortedKeys: sortedKeys)
    }

    /// `body` decoded by the direct coding only, with its own errors (for the contract tests, the
    /// fuzz target and the benchmark).
    @inlinable
    public func decodeDirect<Value: JSONBody>(_ type: Value.Type = Value.self, from body: [UInt8])
        throws(JSONReadError) -> Value
    {
        try Value.jsonFields.decode(body)
    }

    /// `value` as a JSON body. A ``JSONBody`` reached through a generic caller (RemoteStreams'
    /// handlers and client) is recognised by one conformance check and takes its direct coding.
    ///
    /// - Throws: `RemoteError` with code `internal` when `value` cannot be encoded (e.g. a NaN).
    public func encode<Value: Encodable>(_ value: Value) throws(RemoteError) -> [UInt8] {
        // The parameters of methods that take none, and their answers: no encoder needed.
        if Value.self == NoParameters.self { return Self.emptyObject }
        if usesDirectCoding, let body = Value.self as? any JSONBody.Type {
            func direct<Body: JSONBody>(_: Body.Type) -> [UInt8]? {
                try? Body.jsonFields.encode(unsafeBitCast(value, to: Body.self), sortedKeys: sortedKeys)
            }
            if let bytes = direct(body) { return bytes }
        }
        return try codableEncode(value)
    }

    /// `value` encoded through `Codable`.
    @usableFromInline
    func codableEncode<Value: Encodable>(_ value: Value) throws(RemoteError) -> [UInt8] {
        do {
            return try JSONStreamEncoder(sortedKeys: sortedKeys).encodeTopLevel(value)
        } catch is JSONOutOfOrderEncoding {
            // The value's `encode(to:)` went back to a container it had left: only a tree encoder
            // can place that, so hand this (rare, never synthesized) value to Foundation's.
            return try foundationEncode(value)
        } catch {
            throw RemoteError(
                code: .internal, message: "cannot encode \(Value.self) as JSON: \(Self.describe(error))")
        }
    }

    /// `value` encoded by Foundation's `JSONEncoder` with the same options.
    private func foundationEncode<Value: Encodable>(_ value: Value) throws(RemoteError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            sortedKeys ? [.sortedKeys, .withoutEscapingSlashes] : [.withoutEscapingSlashes]
        do {
            return [UInt8](try encoder.encode(value))
        } catch {
            throw RemoteError(
                code: .internal, message: "cannot encode \(Value.self) as JSON: \(Self.describe(error))")
        }
    }

    /// `body` decoded as a `Value`.
    ///
    /// - Throws: `RemoteError` with code `bad_request` when the body is not JSON for a `Value`; the
    ///   message says what is wrong and where (the byte offset, or the coding path).
    public func decode<Value: Decodable>(_ type: Value.Type = Value.self, from body: [UInt8])
        throws(RemoteError)
        -> Value
    {
        if Value.self == NoParameters.self, Self.isEmptyObject(body) {
            return unsafeBitCast(NoParameters(), to: Value.self)
        }
        if usesDirectCoding, let bodyType = Value.self as? any JSONBody.Type {
            func direct<Body: JSONBody>(_: Body.Type) -> Value? {
                guard let decoded = try? Body.jsonFields.decode(body) else { return nil }
                return unsafeBitCast(decoded, to: Value.self)
            }
            if let value = direct(bodyType) { return value }
        }
        return try codableDecode(Value.self, from: body)
    }

    /// `body` decoded through `Codable`.
    @usableFromInline
    func codableDecode<Value: Decodable>(_ type: Value.Type, from body: [UInt8]) throws(RemoteError)
        -> Value
    {
        do {
            return try JSONNodeDecoder.decode(Value.self, from: body)
        } catch {
            throw RemoteError(
                code: .badRequest, message: "body is not JSON for \(Value.self): \(Self.describe(error))")
        }
    }

    /// `{}`.
    static let emptyObject: [UInt8] = [UInt8(ascii: "{"), UInt8(ascii: "}")]

    /// Whether `body` is `{}`, with any JSON whitespace around and between the braces: what
    /// ``NoParameters`` decodes from without a parser (any other body takes the full path, which
    /// accepts an object with members and explains what is wrong with anything else).
    static func isEmptyObject(_ body: [UInt8]) -> Bool {
        var index = body.startIndex
        func skipWhitespace() {
            while index < body.endIndex,
                body[index] == 0x20 || body[index] == 0x0A || body[index] == 0x0D || body[index] == 0x09
            {
                index += 1
            }
        }
        skipWhitespace()
        guard index < body.endIndex, body[index] == UInt8(ascii: "{") else { return false }
        index += 1
        skipWhitespace()
        guard index < body.endIndex, body[index] == UInt8(ascii: "}") else { return false }
        index += 1
        skipWhitespace()
        return index == body.endIndex
    }

    /// A one-line account of a coding error: what is wrong, then where.
    public static func describe(_ error: any Error) -> String {
        func at(_ context: DecodingError.Context) -> String {
            "\(context.debugDescription) (at \(JSONCodingPath.render(context.codingPath)))"
        }
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            return "missing key \"\(key.stringValue)\" (at \(JSONCodingPath.render(context.codingPath)))"
        case DecodingError.valueNotFound(_, let context),
            DecodingError.typeMismatch(_, let context),
            DecodingError.dataCorrupted(let context):
            return context.codingPath.isEmpty && context.debugDescription.hasPrefix("invalid JSON")
                ? context.debugDescription : at(context)
        case EncodingError.invalidValue(_, let context):
            return "\(context.debugDescription) (at \(JSONCodingPath.render(context.codingPath)))"
        default:
            return "\(error)"
        }
    }
}
