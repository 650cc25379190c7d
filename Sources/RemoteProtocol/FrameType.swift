/// The type of a protocol message: byte 1 of the header (docs/PROTOCOL.md, "Types").
public enum FrameType: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The client calls `method`; the answer is one `NEXT` then `COMPLETE`, or one `ERROR`.
    case request = 1
    /// The client subscribes to `method`; the answer is `NEXT`* then `COMPLETE` or `ERROR`.
    case subscribe = 2
    /// The client opens a channel on `method`; both sides then send `NEXT`* and a terminal event.
    case open = 3
    /// One element of a stream (body: JSON).
    case next = 4
    /// The sender's side of the stream finished (no body).
    case complete = 5
    /// The sender's side of the stream failed (body: `{"code": ..., "message": ...}`).
    case error = 6
    /// The client lost interest in the stream (no body).
    case cancel = 7
    /// A client's liveness probe (stream 0, no body).
    case ping = 8
    /// The server's answer to `PING` (stream 0, no body).
    case pong = 9

    /// Whether this type opens a stream: it then carries a method name and may carry a deadline.
    @inlinable
    public var isOpening: Bool { rawValue <= 3 }

    /// Whether a message of this type has a body frame (and must have one).
    @inlinable
    public var carriesBody: Bool { rawValue <= 4 || rawValue == 6 }

    /// Whether this type belongs to the connection rather than a stream (its stream id is 0).
    @inlinable
    public var isConnectionLevel: Bool { rawValue >= 8 }

    /// The name used in docs/PROTOCOL.md, e.g. `REQUEST`.
    public var description: String {
        switch self {
        case .request: "REQUEST"
        case .subscribe: "SUBSCRIBE"
        case .open: "OPEN"
        case .next: "NEXT"
        case .complete: "COMPLETE"
        case .error: "ERROR"
        case .cancel: "CANCEL"
        case .ping: "PING"
        case .pong: "PONG"
        }
    }
}
