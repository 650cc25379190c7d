import RemoteProtocol
import ZeroMQ

extension FrameCodec {
    /// `frame` as the parts of one ZeroMQ message, preceded by `peer` (a ROUTER's routing id)
    /// when given: one array, built once.
    func messages(_ frame: Frame, to peer: [UInt8]? = nil) -> [Message] {
        var parts: [Message] = []
        parts.reserveCapacity(3)
        if let peer { parts.append(Message(peer)) }
        parts.append(Message(encodeHeader(frame)))
        if let body = frame.body { parts.append(Message(body)) }
        return parts
    }

    /// The frame in a message's parts (the routing id already dropped), without copying them into
    /// a new array first.
    func decode(_ parts: ArraySlice<Message>) throws(ProtocolError) -> Frame {
        guard let header = parts.first else { return try decode([]) }
        switch parts.count {
        case 1, 2:
            let body = parts.count == 2 ? parts[parts.startIndex + 1].bytes : nil
            let result = header.bytes.withUnsafeBytes { bytes in
                Result { () throws(ProtocolError) -> Frame in try decode(header: bytes, body: body) }
            }
            return try result.get()
        default:
            return try decode(parts.map(\.bytes))
        }
    }
}
