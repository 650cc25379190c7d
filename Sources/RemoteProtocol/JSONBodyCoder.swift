import Foundation

/// Encodes values into JSON bodies and decodes bodies into values, with Foundation's `Codable`.
///
/// Holds one `JSONEncoder` and one `JSONDecoder`, so a call site that keeps a coder (or uses
/// `shared`) does not build a new one per message. Safe to share: Foundation's coders are `Sendable`
/// and do not change state while coding.
public struct JSONBodyCoder: Sendable {
    private let encoder: JSONEncoder
    private let decoder: JSONDecoder

    /// A coder shared by every call site that needs no special options.
    public static let shared = JSONBodyCoder()

    /// A coder producing compact JSON; `sortedKeys` makes object keys come out sorted, for
    /// byte-for-byte reproducible bodies (it costs a little time).
    public init(sortedKeys: Bool = false) {
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            sortedKeys ? [.sortedKeys, .withoutEscapingSlashes] : [.withoutEscapingSlashes]
        self.encoder = encoder
        self.decoder = JSONDecoder()
    }

    /// `value` as a JSON body.
    ///
    /// - Throws: `RemoteError` with code `internal` when `value` cannot be encoded (e.g. a NaN).
    public func encode<Value: Encodable>(_ value: Value) throws(RemoteError) -> [UInt8] {
        do {
            return [UInt8](try encoder.encode(value))
        } catch {
            throw RemoteError(code: .internal, message: "cannot encode \(Value.self) as JSON: \(error)")
        }
    }

    /// `body` decoded as a `Value`.
    ///
    /// - Throws: `RemoteError` with code `bad_request` when the body is not JSON for a `Value`.
    public func decode<Value: Decodable>(_ type: Value.Type = Value.self, from body: [UInt8])
        throws(RemoteError)
        -> Value
    {
        do {
            return try decoder.decode(Value.self, from: Data(body))
        } catch {
            throw RemoteError(code: .badRequest, message: "body is not JSON for \(Value.self): \(error)")
        }
    }
}
