/// Encodes frames into ZeroMQ message parts and decodes parts into frames: docs/PROTOCOL.md.
///
/// Pure: no sockets, no Foundation. Decoding checks every rule of "Malformed input", in the order
/// documented there, and never traps on any input.
public struct FrameCodec: Sendable, Hashable {
    /// The limits decoding enforces (the body limit; the header limit is fixed).
    public var limits: ProtocolLimits

    /// A codec enforcing `limits` (1 MiB bodies by default).
    public init(limits: ProtocolLimits = ProtocolLimits()) {
        self.limits = limits
    }

    /// The ZeroMQ parts of `frame`: the header, then the body when the type carries one.
    public func encode(_ frame: Frame) -> [[UInt8]] {
        let header = encodeHeader(frame)
        if let body = frame.body { return [header, body] }
        return [header]
    }

    /// The header part of `frame`: `15 + n` bytes.
    public func encodeHeader(_ frame: Frame) -> [UInt8] {
        var method = frame.method
        return method.withUTF8 { methodBytes in
            let length = ProtocolLimits.fixedHeaderLength + methodBytes.count
            return [UInt8](unsafeUninitializedCapacity: length) { buffer, initialized in
                buffer[0] = ProtocolLimits.version
                buffer[1] = frame.type.rawValue
                let stream = frame.stream
                for index in 0..<8 {
                    buffer[2 + index] = UInt8(truncatingIfNeeded: stream >> (56 - 8 * UInt64(index)))
                }
                let deadline = frame.deadlineMilliseconds
                for index in 0..<4 {
                    buffer[10 + index] = UInt8(truncatingIfNeeded: deadline >> (24 - 8 * UInt32(index)))
                }
                buffer[14] = UInt8(truncatingIfNeeded: methodBytes.count)
                for index in methodBytes.indices {
                    buffer[ProtocolLimits.fixedHeaderLength + index] = methodBytes[index]
                }
                initialized = length
            }
        }
    }

    /// The frame in the ZeroMQ parts of one message (the ROUTER's routing-id part already removed).
    ///
    /// - Throws: the first problem found, in the order of docs/PROTOCOL.md, "Malformed input".
    public func decode(_ parts: [[UInt8]]) throws(ProtocolError) -> Frame {
        switch parts.count {
        case 0:
            throw .emptyMessage
        case 1, 2:
            let body: [UInt8]? = parts.count == 2 ? parts[1] : nil
            // `withUnsafeBytes` rethrows untyped errors: carry the typed one out in a `Result`.
            let result = parts[0].withUnsafeBytes { header in
                Result { () throws(ProtocolError) -> Frame in try decode(header: header, body: body) }
            }
            return try result.get()
        default:
            throw .tooManyFrames(count: parts.count)
        }
    }

    /// The frame with this header part and body part (nil when the message has one part).
    ///
    /// For a transport that holds the header in its own buffer: it is only read during the call.
    /// - Throws: the first problem found, in the order of docs/PROTOCOL.md, "Malformed input".
    public func decode(header: UnsafeRawBufferPointer, body: [UInt8]?) throws(ProtocolError) -> Frame {
        let fixed = ProtocolLimits.fixedHeaderLength
        guard let version = header.first else {
            throw .truncatedHeader(stream: nil, length: 0, expected: fixed)
        }
        if version != ProtocolLimits.version { throw .unsupportedVersion(version) }
        if header.count < fixed { throw .truncatedHeader(stream: nil, length: header.count, expected: fixed) }

        var stream: UInt64 = 0
        for index in 2..<10 { stream = stream << 8 | UInt64(header[index]) }
        guard let type = FrameType(rawValue: header[1]) else {
            throw .unknownType(stream: stream, rawValue: header[1])
        }
        var deadline: UInt32 = 0
        for index in 10..<14 { deadline = deadline << 8 | UInt32(header[index]) }
        let methodLength = Int(header[14])
        try Frame.checkFields(
            type: type, stream: stream, deadlineMilliseconds: deadline, methodLength: methodLength)

        let expected = fixed + methodLength
        if header.count < expected {
            throw .truncatedHeader(stream: stream, length: header.count, expected: expected)
        }
        if header.count > expected {
            throw .trailingHeaderBytes(stream: stream, length: header.count, expected: expected)
        }
        let methodBytes = UnsafeRawBufferPointer(rebasing: header[fixed..<expected])
        if let offset = Frame.firstInvalidMethodByte(methodBytes) {
            throw .invalidMethod(stream: stream, type: type, length: methodLength, invalidByteOffset: offset)
        }
        if (body != nil) != type.carriesBody {
            throw .missingOrUnexpectedBody(stream: stream, type: type)
        }
        if let body, body.count > limits.maxBodyLength {
            throw .oversizeBody(stream: stream, length: body.count, limit: limits.maxBodyLength)
        }
        let method = methodLength == 0 ? "" : String(decoding: methodBytes, as: UTF8.self)
        return Frame(
            unchecked: type, stream: stream, deadlineMilliseconds: deadline, method: method, body: body)
    }
}
