import RemoteProtocol
import Testing

@Suite("Golden vectors", .timeLimit(.minutes(1)))
struct GoldenVectorTests {
    /// The frame each vector of Tests/Fuzz/golden-vectors.txt encodes.
    static func expectedFrame(_ name: String) throws -> Frame {
        switch name {
        case "request":
            try .request(
                stream: 1, method: "auth.login", deadlineMilliseconds: 5000,
                body: Array(#"{"username":"alice","password":"secret"}"#.utf8))
        case "subscribe":
            try .subscribe(stream: 2, method: "auth.events", body: Array("{}".utf8))
        case "open":
            try .open(
                stream: 3, method: "validate.fields", deadlineMilliseconds: 30_000,
                body: Array(#"{"username_purpose":"signin"}"#.utf8))
        case "next":
            try .next(stream: 1, body: Array(#"{"status_code":401,"message":"login.wrongPassword"}"#.utf8))
        case "complete": try .complete(stream: 1)
        case "error": .error(stream: 1, RemoteError(code: .unauthenticated, message: "invalid or expired token"))
        case "cancel": try .cancel(stream: 2)
        case "ping": .ping
        case "pong": .pong
        case "next-wide-stream": try .next(stream: 0x0102_0304_0506_0708, body: Array("[1,2,3]".utf8))
        case "error-stream-0": ProtocolError.emptyMessage.errorFrame
        default: throw ProtocolError.emptyMessage
        }
    }

    @Test func theFileHasEveryVector() {
        let names = GoldenVector.all.map(\.name)
        #expect(
            names == [
                "request", "subscribe", "open", "next", "complete", "error", "cancel", "ping", "pong",
                "next-wide-stream", "error-stream-0",
            ])
    }

    @Test func everyTypeHasAVector() throws {
        let types = Set(try GoldenVector.all.map { try Self.expectedFrame($0.name).type })
        #expect(types == Set(FrameType.allCases))
    }

    @Test(arguments: GoldenVector.all)
    func encodeGivesTheVector(_ vector: GoldenVector) throws {
        let frame = try Self.expectedFrame(vector.name)
        #expect(FrameCodec().encode(frame) == vector.parts)
    }

    @Test(arguments: GoldenVector.all)
    func decodeGivesTheFrame(_ vector: GoldenVector) throws {
        let frame = try FrameCodec().decode(vector.parts)
        #expect(frame == (try Self.expectedFrame(vector.name)))
    }

    @Test func headerFieldsAreBigEndian() throws {
        let frame = try FrameCodec().decode(GoldenVector.named("next-wide-stream").parts)
        #expect(frame.stream == 0x0102_0304_0506_0708)
        let request = try FrameCodec().decode(GoldenVector.named("request").parts)
        #expect(request.deadlineMilliseconds == 5000)
        #expect(request.method == "auth.login")
    }

    @Test func aMethodOf128BytesIsAllowed() throws {
        let method = String(repeating: "a", count: 128)
        let frame = try Frame.request(stream: 9, method: method)
        let parts = FrameCodec().encode(frame)
        #expect(parts[0].count == ProtocolLimits.maxHeaderLength)
        #expect(try FrameCodec().decode(parts) == frame)
    }

    @Test func everyAllowedMethodByteRoundTrips() throws {
        let frame = try Frame.subscribe(stream: 1, method: "abcdefghijklmnopqrstuvwxyz0123456789._-")
        #expect(try FrameCodec().decode(FrameCodec().encode(frame)) == frame)
    }

    @Test func aBodyAtTheLimitIsAccepted() throws {
        let codec = FrameCodec(limits: ProtocolLimits(maxBodyLength: 16))
        let frame = try Frame.next(stream: 1, body: Array(repeating: 0x20, count: 16))
        #expect(try codec.decode(codec.encode(frame)) == frame)
    }

    @Test func anEmptyBodyFrameIsAPresentBody() throws {
        let frame = try Frame.next(stream: 1, body: [])
        let parts = FrameCodec().encode(frame)
        #expect(parts.count == 2)
        #expect(try FrameCodec().decode(parts) == frame)
    }

    @Test func limits() {
        #expect(ProtocolLimits.maxHeaderLength == 143)
        #expect(ProtocolLimits().maxBodyLength == 1_048_576)
        #expect(ProtocolLimits().maxMessageLength == 1_048_576 + 143)
    }
}
