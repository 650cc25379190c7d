import Foundation
import RemoteProtocol
import Testing

@Suite("Remote errors and JSON bodies", .timeLimit(.minutes(1)))
struct RemoteErrorTests {
    struct Credentials: Codable, Equatable {
        var user: String
        var password: String
    }

    @Test func errorCodesAreTheDocumentedStrings() {
        #expect(
            ErrorCode.documented.map(\.rawValue) == [
                "bad_request", "too_large", "unknown_method", "not_found", "timeout", "overloaded",
                "rate_limited", "unauthenticated", "unavailable", "internal",
            ])
        let custom: ErrorCode = "quota_exceeded"
        #expect(!custom.isKnown && ErrorCode.timeout.isKnown)
    }

    @Test func anUnknownCodeIsKept() throws {
        let body = Array(#"{"code":"quota_exceeded","message":"slow down"}"#.utf8)
        let frame = try FrameCodec().decode([GoldenVector.named("error").parts[0], body])
        #expect(frame.remoteError == RemoteError(code: "quota_exceeded", message: "slow down"))
    }

    @Test func theErrorBodyIsExactAndEscaped() throws {
        let error = RemoteError(code: .internal, message: "a \"quoted\" \\ line\nwith\ttab \u{1} and \u{e9}/")
        #expect(
            String(decoding: error.jsonBody, as: UTF8.self)
                == #"{"code":"internal","message":"a \"quoted\" \\ line\nwith\ttab \u0001 and \#u{e9}/"}"#)
        #expect(try JSONDecoder().decode(RemoteError.self, from: Data(error.jsonBody)) == error)
        #expect(Frame.error(stream: 8, error).remoteError == error)
    }

    @Test func remoteErrorIsCodableLikeItsBody() throws {
        let error = RemoteError(code: .notFound, message: "no such user")
        let coder = JSONBodyCoder(sortedKeys: true)
        #expect(try coder.encode(error) == error.jsonBody)
        #expect(try coder.decode(RemoteError.self, from: error.jsonBody) == error)
    }

    @Test func anUnreadableErrorBodyIsABadRequest() throws {
        let frame = try Frame(type: .error, stream: 1, body: Array("oops".utf8))
        #expect(frame.remoteError?.code == .badRequest)
        #expect(try Frame.complete(stream: 1).remoteError == nil)
    }

    @Test func bodiesRoundTrip() throws {
        let value = Credentials(user: "alice", password: "secret")
        let body = try JSONBodyCoder.shared.encode(value)
        let frame = try Frame.request(stream: 1, method: "auth.login", body: body)
        #expect(try frame.decodeBody(Credentials.self) == value)
    }

    @Test func anUnreadableBodyIsABadRequest() throws {
        let frame = try Frame.next(stream: 1, body: Array(#"{"user":"alice"}"#.utf8))
        #expect(throws: RemoteError.self) { try frame.decodeBody(Credentials.self) }
        do {
            _ = try frame.decodeBody(Credentials.self)
        } catch {
            #expect(error.code == .badRequest)
        }
        let complete = try Frame.complete(stream: 1)
        do {
            _ = try complete.decodeBody(Credentials.self)
        } catch {
            #expect(error.code == .badRequest)
        }
    }

    @Test func anUnencodableValueIsInternal() {
        do {
            _ = try JSONBodyCoder.shared.encode([Double.nan])
            Issue.record("NaN encoded")
        } catch {
            #expect(error.code == .internal)
        }
    }
}
