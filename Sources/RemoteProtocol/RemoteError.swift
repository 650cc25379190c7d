/// The body of an `ERROR` message: `{"code": "...", "message": "..."}` (docs/PROTOCOL.md).
///
/// Also the error a remote call fails with on the client side.
public struct RemoteError: Error, Codable, Hashable, Sendable, CustomStringConvertible {
    /// The stable code, e.g. `ErrorCode.notFound`; an unknown code is handled like `internal`.
    public var code: ErrorCode
    /// A human-readable account of the problem.
    public var message: String

    /// An error with its code and message.
    public init(code: ErrorCode, message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(code.rawValue): \(message)" }

    /// The JSON body: `{"code":"...","message":"..."}` with the keys in that order, no whitespace,
    /// and only `"`, `\` and control characters escaped (so the bytes are the same on every platform).
    public var jsonBody: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24 + code.rawValue.utf8.count + message.utf8.count)
        bytes.append(contentsOf: #"{"code":"#.utf8)
        Self.appendJSONString(code.rawValue, to: &bytes)
        bytes.append(contentsOf: #","message":"#.utf8)
        Self.appendJSONString(message, to: &bytes)
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// Appends `string` as a JSON string literal.
    private static func appendJSONString(_ string: String, to bytes: inout [UInt8]) {
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                bytes.append(contentsOf: Array(#"\u00"#.utf8))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

extension Frame {
    /// An `ERROR` message carrying `error` on `stream` (0 when answering a message whose stream could
    /// not be read).
    public static func error(stream: UInt64, _ error: RemoteError) -> Frame {
        Frame(unchecked: .error, stream: stream, deadlineMilliseconds: 0, method: "", body: error.jsonBody)
    }

    /// The error an `ERROR` message carries, or nil for other types.
    ///
    /// A body that is not `{"code": "...", "message": "..."}` JSON gives a `bad_request` error saying
    /// so, since the peer's error could not be read.
    public var remoteError: RemoteError? {
        guard type == .error else { return nil }
        do {
            return try JSONBodyCoder.shared.decode(RemoteError.self, from: body ?? [])
        } catch {
            return RemoteError(
                code: .badRequest, message: "unreadable ERROR body on stream \(stream): \(error.message)")
        }
    }

    /// The body decoded as JSON into `Value`.
    ///
    /// - Throws: `RemoteError` with code `bad_request` when there is no body or it does not decode.
    public func decodeBody<Value: Decodable>(
        _ type: Value.Type = Value.self, using coder: JSONBodyCoder = .shared
    ) throws(RemoteError) -> Value {
        guard let body else {
            throw RemoteError(code: .badRequest, message: "\(self.type) message has no body")
        }
        return try coder.decode(type, from: body)
    }
}
