import RemoteProtocol
import Testing

/// Every row of docs/PROTOCOL.md, "Malformed input", gives its own error.
@Suite("Malformed input", .timeLimit(.minutes(1)))
struct MalformedInputTests {
    let body: [UInt8] = Array("{}".utf8)

    @Test func emptyMessage() {
        #expect(decodeResult([]) == .failure(.emptyMessage))
        #expect(ProtocolError.emptyMessage.stream == nil)
        #expect(ProtocolError.emptyMessage.code == .badRequest)
    }

    @Test func tooManyFrames() {
        let parts = GoldenVector.named("request").parts + [[1]]
        #expect(decodeResult(parts) == .failure(.tooManyFrames(count: 3)))
        #expect(decodeResult(Array(repeating: [], count: 7)) == .failure(.tooManyFrames(count: 7)))
    }

    @Test func truncatedHeader() {
        #expect(decodeResult([[]]) == .failure(.truncatedHeader(stream: nil, length: 0, expected: 15)))
        let short = Array(header(type: 5, stream: 1).prefix(9))
        #expect(decodeResult([short]) == .failure(.truncatedHeader(stream: nil, length: 9, expected: 15)))
        let request = header(type: 1, stream: 4, methodLength: 10, method: Array("auth.l".utf8))
        #expect(
            decodeResult([request, body]) == .failure(.truncatedHeader(stream: 4, length: 21, expected: 25)))
    }

    @Test func trailingHeaderBytes() {
        let complete = header(type: 5, stream: 1) + [0]
        #expect(
            decodeResult([complete]) == .failure(.trailingHeaderBytes(stream: 1, length: 16, expected: 15)))
        let request = header(type: 1, stream: 2, methodLength: 2, method: Array("abc".utf8))
        #expect(
            decodeResult([request, body])
                == .failure(.trailingHeaderBytes(stream: 2, length: 18, expected: 17)))
    }

    @Test func unsupportedVersion() {
        #expect(decodeResult([header(version: 2, type: 5, stream: 1)]) == .failure(.unsupportedVersion(2)))
        #expect(decodeResult([header(version: 0, type: 5, stream: 1)]) == .failure(.unsupportedVersion(0)))
        // The version is checked before the length, so a later version may change the layout.
        #expect(decodeResult([[2]]) == .failure(.unsupportedVersion(2)))
        #expect(ProtocolError.unsupportedVersion(2).stream == nil)
    }

    @Test(arguments: [UInt8(0), 10, 200, 255])
    func unknownType(_ type: UInt8) {
        #expect(
            decodeResult([header(type: type, stream: 3)]) == .failure(.unknownType(stream: 3, rawValue: type))
        )
    }

    @Test func invalidMethodLength() {
        let empty = header(type: 1, stream: 1)
        #expect(
            decodeResult([empty, body])
                == .failure(.invalidMethod(stream: 1, type: .request, length: 0, invalidByteOffset: nil)))
        let long = header(type: 2, stream: 1, method: Array(repeating: 0x61, count: 129))
        #expect(
            decodeResult([long, body])
                == .failure(.invalidMethod(stream: 1, type: .subscribe, length: 129, invalidByteOffset: nil)))
    }

    @Test(arguments: [("Auth.login", 0), ("auth login", 4), ("auth/login", 4), ("auth.login\u{e9}", 10)])
    func invalidMethodByte(_ method: String, _ offset: Int) {
        let bytes = Array(method.utf8)
        let request = header(type: 3, stream: 6, method: bytes)
        #expect(
            decodeResult([request, body])
                == .failure(
                    .invalidMethod(stream: 6, type: .open, length: bytes.count, invalidByteOffset: offset)))
        #expect(throws: ProtocolError.self) { try Frame.request(stream: 6, method: method) }
    }

    @Test func unexpectedMethodOrDeadline() {
        let next = header(type: 4, stream: 1, method: Array("a".utf8))
        #expect(
            decodeResult([next, body])
                == .failure(
                    .unexpectedMethodOrDeadline(
                        stream: 1, type: .next, methodLength: 1, deadlineMilliseconds: 0)))
        let complete = header(type: 5, stream: 1, deadline: 5)
        #expect(
            decodeResult([complete])
                == .failure(
                    .unexpectedMethodOrDeadline(
                        stream: 1, type: .complete, methodLength: 0, deadlineMilliseconds: 5)))
        #expect(throws: ProtocolError.self) { try Frame(type: .cancel, stream: 1, deadlineMilliseconds: 1) }
        #expect(throws: ProtocolError.self) { try Frame(type: .cancel, stream: 1, method: "a") }
    }

    @Test func invalidStreamID() {
        let request = header(type: 1, stream: 0, method: Array("auth.login".utf8))
        #expect(decodeResult([request, body]) == .failure(.invalidStreamID(stream: 0, type: .request)))
        #expect(
            decodeResult([header(type: 5, stream: 0)])
                == .failure(.invalidStreamID(stream: 0, type: .complete)))
        #expect(
            decodeResult([header(type: 8, stream: 7)]) == .failure(.invalidStreamID(stream: 7, type: .ping)))
        #expect(
            decodeResult([header(type: 9, stream: 1)]) == .failure(.invalidStreamID(stream: 1, type: .pong)))
        #expect(throws: ProtocolError.invalidStreamID(stream: 0, type: .next)) {
            try Frame.next(stream: 0, body: [])
        }
        // An ERROR may be on stream 0: the answer to a message whose stream could not be read.
        #expect(throws: Never.self) { try FrameCodec().decode(GoldenVector.named("error-stream-0").parts) }
    }

    @Test func missingOrUnexpectedBody() {
        #expect(
            decodeResult([header(type: 4, stream: 1)])
                == .failure(.missingOrUnexpectedBody(stream: 1, type: .next)))
        #expect(
            decodeResult([header(type: 7, stream: 1), []])
                == .failure(.missingOrUnexpectedBody(stream: 1, type: .cancel)))
        #expect(
            decodeResult([header(type: 1, stream: 1, method: Array("a".utf8))])
                == .failure(.missingOrUnexpectedBody(stream: 1, type: .request)))
        #expect(
            decodeResult([header(type: 8, stream: 0), body])
                == .failure(.missingOrUnexpectedBody(stream: 0, type: .ping)))
        #expect(throws: ProtocolError.missingOrUnexpectedBody(stream: 1, type: .complete)) {
            try Frame(type: .complete, stream: 1, body: [])
        }
        #expect(throws: ProtocolError.missingOrUnexpectedBody(stream: 1, type: .error)) {
            try Frame(type: .error, stream: 1)
        }
    }

    @Test func oversizeBody() {
        let codec = FrameCodec(limits: ProtocolLimits(maxBodyLength: 16))
        let parts = [header(type: 4, stream: 5), Array(repeating: 0x20, count: 17)]
        let error = ProtocolError.oversizeBody(stream: 5, length: 17, limit: 16)
        #expect(decodeResult(parts, codec: codec) == .failure(error))
        #expect(error.code == .tooLarge)
        let large = [header(type: 4, stream: 5), Array(repeating: 0x20, count: (1 << 20) + 1)]
        #expect(
            decodeResult(large) == .failure(.oversizeBody(stream: 5, length: (1 << 20) + 1, limit: 1 << 20)))
    }

    @Test func everyErrorButOversizeIsABadRequest() {
        let errors: [ProtocolError] = [
            .emptyMessage, .tooManyFrames(count: 3), .truncatedHeader(stream: nil, length: 1, expected: 15),
            .trailingHeaderBytes(stream: 1, length: 16, expected: 15), .unsupportedVersion(2),
            .unknownType(stream: 1, rawValue: 0),
            .invalidMethod(stream: 1, type: .request, length: 0, invalidByteOffset: nil),
            .unexpectedMethodOrDeadline(stream: 1, type: .next, methodLength: 1, deadlineMilliseconds: 0),
            .invalidStreamID(stream: 0, type: .next), .missingOrUnexpectedBody(stream: 1, type: .next),
        ]
        for error in errors {
            #expect(error.code == .badRequest, "\(error)")
        }
        #expect(Set(errors.map(\.description)).count == errors.count)
    }

    @Test func theAnswerGoesToTheStreamWhenKnown() throws {
        let unknown = ProtocolError.unknownType(stream: 42, rawValue: 0)
        let answer = unknown.errorFrame
        #expect(answer.type == .error && answer.stream == 42)
        #expect(
            answer.remoteError == RemoteError(code: .badRequest, message: "unknown type: 0, expected 1-9"))
        #expect(try FrameCodec().decode(FrameCodec().encode(answer)) == answer)
        let oversize = ProtocolError.oversizeBody(stream: 3, length: 17, limit: 16).errorFrame
        #expect(oversize.remoteError?.code == .tooLarge)
        #expect(ProtocolError.tooManyFrames(count: 3).errorFrame.stream == 0)
        #expect(
            FrameCodec().encode(ProtocolError.emptyMessage.errorFrame)
                == GoldenVector.named("error-stream-0").parts)
    }
}
