/// Why a message could not be decoded: one case per row of docs/PROTOCOL.md, "Malformed input".
///
/// Each case knows the wire code a server answers it with (`code`), a message naming the problem
/// (`description`) and, once the header was read as far as its stream id, that stream (`stream`), so
/// the answer goes to the right stream (`errorFrame`).
public enum ProtocolError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The message has no frames.
    case emptyMessage
    /// The message has more than two frames (`count` of them).
    case tooManyFrames(count: Int)
    /// The header is shorter than 15 bytes, or shorter than `15 + n`; `expected` is the length needed.
    /// `stream` is set when the fixed part (15 bytes) was there.
    case truncatedHeader(stream: UInt64?, length: Int, expected: Int)
    /// The header is longer than `15 + n` (`expected`).
    case trailingHeaderBytes(stream: UInt64, length: Int, expected: Int)
    /// Byte 0 of the header is not the version this codec speaks (1).
    case unsupportedVersion(UInt8)
    /// Byte 1 of the header is not a known type (1–9).
    case unknownType(stream: UInt64, rawValue: UInt8)
    /// The method name of an opening type is empty or longer than 128 bytes
    /// (`invalidByteOffset` is nil), or has a byte outside `[a-z0-9._-]` at `invalidByteOffset`.
    case invalidMethod(stream: UInt64, type: FrameType, length: Int, invalidByteOffset: Int?)
    /// A non-opening type has a method length or a deadline that is not 0.
    case unexpectedMethodOrDeadline(
        stream: UInt64, type: FrameType, methodLength: Int, deadlineMilliseconds: UInt32)
    /// The stream id is 0 on a stream message, or not 0 on `PING`/`PONG`.
    case invalidStreamID(stream: UInt64, type: FrameType)
    /// The type carries a body and the message has none, or the type carries none and it has one.
    case missingOrUnexpectedBody(stream: UInt64, type: FrameType)
    /// The body is longer than the configured limit.
    case oversizeBody(stream: UInt64, length: Int, limit: Int)

    /// The stream the malformed message was on, when the header got that far (else nil: answer on 0).
    public var stream: UInt64? {
        switch self {
        case .emptyMessage, .tooManyFrames, .unsupportedVersion: nil
        case .truncatedHeader(let stream, _, _): stream
        case .trailingHeaderBytes(let stream, _, _), .unknownType(let stream, _),
            .invalidMethod(let stream, _, _, _), .unexpectedMethodOrDeadline(let stream, _, _, _),
            .invalidStreamID(let stream, _), .missingOrUnexpectedBody(let stream, _),
            .oversizeBody(let stream, _, _):
            stream
        }
    }

    /// The wire code a server answers with: `too_large` for an oversize body, else `bad_request`.
    public var code: ErrorCode {
        if case .oversizeBody = self { return .tooLarge }
        return .badRequest
    }

    /// A message naming the problem, sent in the `ERROR` body.
    public var description: String {
        switch self {
        case .emptyMessage:
            return "empty message: no frames"
        case .tooManyFrames(let count):
            return "too many frames: \(count), at most 2 (header, body)"
        case .truncatedHeader(_, let length, let expected):
            return "truncated header: \(length) bytes, \(expected) expected"
        case .trailingHeaderBytes(_, let length, let expected):
            return "trailing header bytes: \(length) bytes, \(expected) expected"
        case .unsupportedVersion(let version):
            return "unsupported version: \(version), this peer speaks version \(ProtocolLimits.version)"
        case .unknownType(_, let rawValue):
            return "unknown type: \(rawValue), expected 1-9"
        case .invalidMethod(_, let type, let length, let offset):
            if let offset {
                return "invalid method: byte \(offset) of the \(type) method name is outside [a-z0-9._-]"
            }
            return "invalid method: \(type) method name length \(length), expected 1-"
                + "\(ProtocolLimits.maxMethodLength)"
        case .unexpectedMethodOrDeadline(_, let type, let methodLength, let deadline):
            return "unexpected method or deadline: \(type) has method length \(methodLength) and "
                + "deadline \(deadline), both must be 0"
        case .invalidStreamID(let stream, let type):
            return type.isConnectionLevel
                ? "invalid stream id: \(type) must be on stream 0, not \(stream)"
                : "invalid stream id: \(type) must not be on stream 0"
        case .missingOrUnexpectedBody(_, let type):
            return type.carriesBody
                ? "missing body: \(type) needs a body frame"
                : "unexpected body: \(type) has no body frame"
        case .oversizeBody(_, let length, let limit):
            return "oversize body: \(length) bytes, the limit is \(limit)"
        }
    }

    /// The `ERROR` body a server answers with: `code` and `description`.
    public var remoteError: RemoteError {
        RemoteError(code: code, message: description)
    }

    /// The `ERROR` message a server answers with, on `stream` if known, else on stream 0.
    public var errorFrame: Frame {
        Frame.error(stream: stream ?? 0, remoteError)
    }
}
