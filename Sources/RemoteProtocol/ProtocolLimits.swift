/// The size limits of the protocol (docs/PROTOCOL.md, "Limits").
///
/// The header limit is fixed by the wire format; the body limit is configurable per endpoint.
public struct ProtocolLimits: Sendable, Hashable {
    /// The protocol version this codec speaks: byte 0 of every header.
    public static let version: UInt8 = 1
    /// The length of the header before the method name.
    public static let fixedHeaderLength = 15
    /// The longest method name, in bytes.
    public static let maxMethodLength = 128
    /// The longest header: the fixed part plus the longest method name (143 bytes).
    public static let maxHeaderLength = fixedHeaderLength + maxMethodLength
    /// The default body limit: 1 MiB.
    public static let defaultMaxBodyLength = 1 << 20

    /// The longest body accepted by `FrameCodec.decode`, in bytes.
    public var maxBodyLength: Int

    /// The longest message (header plus body), e.g. for ZeroMQ's `ZMQ_MAXMSGSIZE`.
    public var maxMessageLength: Int { Self.maxHeaderLength + maxBodyLength }

    /// Limits with the given body limit (1 MiB by default); a negative value counts as 0.
    public init(maxBodyLength: Int = ProtocolLimits.defaultMaxBodyLength) {
        self.maxBodyLength = max(0, maxBodyLength)
    }
}
