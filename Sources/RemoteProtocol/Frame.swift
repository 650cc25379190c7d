/// One protocol message, decoded: docs/PROTOCOL.md, "Message layout".
///
/// A `Frame` always satisfies the rules of the wire format (its initializer checks them), so encoding
/// one cannot fail and decoding its bytes gives it back. Only the body limit is not checked here: it
/// is a setting of the receiving `FrameCodec`.
public struct Frame: Sendable, Hashable {
    /// The message type.
    public let type: FrameType
    /// The stream id: chosen by the client, non-zero on stream messages, 0 on `PING`/`PONG` (and on an
    /// `ERROR` answering a message whose stream could not be read).
    public let stream: UInt64
    /// Milliseconds the server may spend on an opening type (0 = none); 0 on other types.
    public let deadlineMilliseconds: UInt32
    /// The method name of an opening type (1–128 bytes of `[a-z0-9._-]`); empty on other types.
    public let method: String
    /// The body frame (UTF-8 JSON), present exactly when `type.carriesBody`.
    public let body: [UInt8]?

    /// A frame from its fields, checked against the rules of docs/PROTOCOL.md.
    ///
    /// - Throws: the `ProtocolError` decoding the same fields would give (never `oversizeBody`).
    public init(
        type: FrameType, stream: UInt64, deadlineMilliseconds: UInt32 = 0, method: String = "",
        body: [UInt8]? = nil
    ) throws(ProtocolError) {
        var method = method
        let methodLength = method.utf8.count
        try Frame.checkFields(
            type: type, stream: stream, deadlineMilliseconds: deadlineMilliseconds,
            methodLength: methodLength)
        let invalidOffset: Int? =
            method.withUTF8 { Frame.firstInvalidMethodByte(UnsafeRawBufferPointer($0)) }
        if let invalidOffset {
            throw .invalidMethod(
                stream: stream, type: type, length: methodLength, invalidByteOffset: invalidOffset)
        }
        if (body != nil) != type.carriesBody {
            throw .missingOrUnexpectedBody(stream: stream, type: type)
        }
        self.init(
            unchecked: type, stream: stream, deadlineMilliseconds: deadlineMilliseconds, method: method,
            body: body)
    }

    /// A frame whose fields the caller has already checked.
    init(
        unchecked type: FrameType, stream: UInt64, deadlineMilliseconds: UInt32, method: String,
        body: [UInt8]?
    ) {
        self.type = type
        self.stream = stream
        self.deadlineMilliseconds = deadlineMilliseconds
        self.method = method
        self.body = body
    }

    /// A `REQUEST` calling `method` with its JSON parameters (`{}` if none).
    public static func request(
        stream: UInt64, method: String, deadlineMilliseconds: UInt32 = 0, body: [UInt8] = Array("{}".utf8)
    ) throws(ProtocolError) -> Frame {
        try Frame(
            type: .request, stream: stream, deadlineMilliseconds: deadlineMilliseconds, method: method,
            body: body)
    }

    /// A `SUBSCRIBE` to `method` with its JSON parameters (`{}` if none).
    public static func subscribe(
        stream: UInt64, method: String, deadlineMilliseconds: UInt32 = 0, body: [UInt8] = Array("{}".utf8)
    ) throws(ProtocolError) -> Frame {
        try Frame(
            type: .subscribe, stream: stream, deadlineMilliseconds: deadlineMilliseconds, method: method,
            body: body)
    }

    /// An `OPEN` of a channel on `method` with its JSON parameters (`{}` if none).
    public static func open(
        stream: UInt64, method: String, deadlineMilliseconds: UInt32 = 0, body: [UInt8] = Array("{}".utf8)
    ) throws(ProtocolError) -> Frame {
        try Frame(
            type: .open, stream: stream, deadlineMilliseconds: deadlineMilliseconds, method: method,
            body: body)
    }

    /// A `NEXT` carrying one JSON element on a stream (not 0).
    public static func next(stream: UInt64, body: [UInt8]) throws(ProtocolError) -> Frame {
        try Frame(type: .next, stream: stream, body: body)
    }

    /// A `COMPLETE` on a stream (not 0).
    public static func complete(stream: UInt64) throws(ProtocolError) -> Frame {
        try Frame(type: .complete, stream: stream)
    }

    /// A `CANCEL` of a stream (not 0).
    public static func cancel(stream: UInt64) throws(ProtocolError) -> Frame {
        try Frame(type: .cancel, stream: stream)
    }

    /// The `PING` message.
    public static let ping = Frame(
        unchecked: .ping, stream: 0, deadlineMilliseconds: 0, method: "", body: nil)

    /// The `PONG` message.
    public static let pong = Frame(
        unchecked: .pong, stream: 0, deadlineMilliseconds: 0, method: "", body: nil)

    // MARK: - Rules shared by the initializer and the decoder

    /// Checks the stream id, the method length and the deadline against the type, in the order
    /// docs/PROTOCOL.md gives for decoding.
    static func checkFields(
        type: FrameType, stream: UInt64, deadlineMilliseconds: UInt32, methodLength: Int
    ) throws(ProtocolError) {
        if type.isConnectionLevel ? stream != 0 : (stream == 0 && type != .error) {
            throw .invalidStreamID(stream: stream, type: type)
        }
        if type.isOpening {
            if methodLength == 0 || methodLength > ProtocolLimits.maxMethodLength {
                throw .invalidMethod(stream: stream, type: type, length: methodLength, invalidByteOffset: nil)
            }
        } else if methodLength != 0 || deadlineMilliseconds != 0 {
            throw .unexpectedMethodOrDeadline(
                stream: stream, type: type, methodLength: methodLength,
                deadlineMilliseconds: deadlineMilliseconds)
        }
    }

    /// The offset of the first byte outside `[a-z0-9._-]`, or nil if every byte is allowed.
    static func firstInvalidMethodByte(_ bytes: UnsafeRawBufferPointer) -> Int? {
        for index in bytes.indices {
            let byte = bytes[index]
            let allowed =
                (byte >= 0x61 && byte <= 0x7A)  // a-z
                || (byte >= 0x30 && byte <= 0x39)  // 0-9
                || byte == 0x2E || byte == 0x5F || byte == 0x2D  // . _ -
            if !allowed { return index }
        }
        return nil
    }
}
