import Testing

@testable import RemoteProtocol

/// `NoParameters` skips the coders in `JSONBodyCoder`; what it accepts and refuses must not change.
@Suite("JSON bodies: NoParameters without the coders", .timeLimit(.minutes(1)))
struct NoParametersCodingTests {
    private let coder = JSONBodyCoder.shared

    @Test func encodesAsTheFullEncoderDoes() throws {
        #expect(try coder.encode(NoParameters()) == Array("{}".utf8))
        #expect(try coder.encode(NoParameters()) == OurJSON.encode(NoParameters()))
        #expect(try JSONBodyCoder(sortedKeys: true).encode(NoParameters()) == Array("{}".utf8))
    }

    @Test(arguments: ["{}", " {}", "{ }", "\t{\r\n}\n ", "{\"ignored\":1}", "{ \"a\" : [1, {\"b\": null}] }"])
    func decodesEveryObject(_ body: String) throws {
        _ = try coder.decode(NoParameters.self, from: Array(body.utf8))
        // The full decoder agrees.
        _ = try OurJSON.decode(NoParameters.self, from: Array(body.utf8))
    }

    /// An empty struct's synthesized decoding asks for no container, so any one JSON value decodes
    /// as `NoParameters`; the shortcut changes nothing there.
    @Test(arguments: ["[]", "null", "\"{}\"", "0"])
    func decodesAnyOneValueAsTheFullDecoderDoes(_ body: String) throws {
        _ = try coder.decode(NoParameters.self, from: Array(body.utf8))
        _ = try OurJSON.decode(NoParameters.self, from: Array(body.utf8))
    }

    @Test(arguments: ["", " ", "{", "}", "{}}", "{} x", "{}{}", "{\u{0B}}", "\u{00A0}{}"])
    func refusesWhatIsNotJSON(_ body: String) {
        #expect(throws: RemoteError.self) { try coder.decode(NoParameters.self, from: Array(body.utf8)) }
        // With the same code as any other body that does not decode.
        do {
            _ = try coder.decode(NoParameters.self, from: Array(body.utf8))
        } catch {
            #expect(error.code == .badRequest)
        }
    }

    @Test func recognisesOnlyTheEmptyObject() {
        #expect(JSONBodyCoder.isEmptyObject(Array(" { \n } ".utf8)))
        #expect(!JSONBodyCoder.isEmptyObject(Array("{\"a\":1}".utf8)))
        #expect(!JSONBodyCoder.isEmptyObject([]))
        #expect(!JSONBodyCoder.isEmptyObject(Array("{".utf8)))
    }
}
