/// One part (frame) of a ZeroMQ message: its bytes, held in a Swift array.
///
/// Sending copies the bytes once into a `zmq_msg_t` built for that part; receiving copies them once
/// out of the `zmq_msg_t` straight into the array. A multipart message is `[Message]`.
public struct Message: Sendable, Hashable, CustomStringConvertible {
    /// The frame's bytes.
    public var bytes: [UInt8]

    /// A frame holding `bytes`.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// A frame holding the UTF-8 bytes of `string`.
    public init(_ string: String) { self.bytes = Array(string.utf8) }

    /// An empty frame (the delimiter REQ/REP envelopes use).
    public static var empty: Message { Message([UInt8]()) }

    /// The bytes decoded as UTF-8 (invalid sequences repaired).
    public var string: String { String(decoding: bytes, as: UTF8.self) }

    /// The number of bytes.
    public var count: Int { bytes.count }

    /// The bytes as text, for debugging.
    public var description: String { "Message(\(bytes.count) bytes: \(string.debugDescription))" }
}

extension Message: ExpressibleByStringLiteral {
    /// A frame holding the UTF-8 bytes of a string literal.
    public init(stringLiteral value: String) { self.init(value) }
}

extension String {
    /// The UTF-8 text in a C character buffer, up to its first NUL (or its end).
    init(nulTerminated buffer: [CChar]) {
        self.init(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
