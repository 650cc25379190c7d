import Testing

@testable import Tracing

@Suite(.timeLimit(.minutes(1)))
struct TraceContextTests {
    static let valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    @Test func readsAndWritesAVersion00Value() throws {
        let context = try #require(TraceContext(traceparent: Self.valid))
        #expect(context.traceIDHex == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(context.spanIDHex == "00f067aa0ba902b7")
        #expect(context.isSampled)
        #expect(context.traceparent == Self.valid)
        let unsampled = try #require(
            TraceContext(traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"))
        #expect(!unsampled.isSampled)
    }

    @Test(arguments: [
        "",
        "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  // another version
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",  // all-zero trace id
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",  // all-zero span id
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",  // upper-case hex
        "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",  // not hex
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0",  // short
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-",  // long
        "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  // separator
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-zz",  // flags
    ])
    func rejectsInvalidValues(_ value: String) {
        #expect(TraceContext(traceparent: value) == nil)
    }

    @Test func childKeepsTheTraceAndFlags() throws {
        let parent = try #require(TraceContext(traceparent: Self.valid, traceState: "vendor=1"))
        let child = parent.child()
        #expect(child.traceIDHex == parent.traceIDHex)
        #expect(child.spanID != parent.spanID && child.spanID != 0)
        #expect(child.isSampled && child.traceState == "vendor=1")
    }

    @Test func newTracesHaveValidIDs() throws {
        for _ in 0..<100 {
            let context = TraceContext.newTrace(sampled: true)
            let read = try #require(TraceContext(traceparent: context.traceparent))
            #expect(read == context)
        }
    }
}

@Suite(.timeLimit(.minutes(1)))
struct SamplerTests {
    @Test func parentDecides() {
        let sampler = Sampler(ratio: 0)
        let sampled = TraceContext.newTrace(sampled: true)
        #expect(sampler.samples(parent: sampled, draw: .max))
        #expect(!Sampler(ratio: 1).samples(parent: .unsampled, draw: 0))
    }

    @Test func rootsFollowTheRatio() {
        #expect(!Sampler(ratio: 0).samplesRoot(draw: 0))
        #expect(Sampler(ratio: 1).samplesRoot(draw: .max))
        let tracer = Tracer(service: "test", sampler: Sampler(ratio: 0.25), exporter: nil)
        let taken = (0..<40_000).filter { _ in tracer.startRoot() != nil }.count
        #expect((9_000...11_000).contains(taken))
        let none = Tracer(service: "test", sampler: Sampler(ratio: 0), exporter: nil)
        #expect(none.startRoot() == nil)
        #expect(none.startRoot(forced: true)?.isSampled == true)
    }

    @Test func ratioIsClamped() {
        #expect(Sampler(ratio: 7).ratio == 1)
        #expect(Sampler(ratio: -1).ratio == 0)
        #expect(Sampler(ratio: .nan).ratio == 0)
    }
}

@Suite(.timeLimit(.minutes(1)))
struct TraceBodyTests {
    static let context = TraceContext(traceparent: TraceContextTests.valid)!

    @Test func injectsIntoObjects() {
        let empty = TraceBody.inject(Self.context, into: Array("{}".utf8))
        #expect(String(decoding: empty, as: UTF8.self) == "{\"traceparent\":\"\(TraceContextTests.valid)\"}")
        let body = TraceBody.inject(Self.context, into: Array("{\"a\":1}".utf8))
        #expect(String(decoding: body, as: UTF8.self) == "{\"traceparent\":\"\(TraceContextTests.valid)\",\"a\":1}")
        #expect(TraceBody.extract(from: body) == Self.context)
        // Not an object: left alone.
        #expect(TraceBody.inject(Self.context, into: Array("[1]".utf8)) == Array("[1]".utf8))
    }

    @Test func extractsTopLevelMembersOnly() {
        let later = "{\"a\":{\"traceparent\":\"x\"},\"b\":[1,\"]\"],\"traceparent\":\"\(TraceContextTests.valid)\",\"tracestate\":\"k=v\"}"
        let found = TraceBody.extract(from: Array(later.utf8))
        #expect(found?.traceIDHex == Self.context.traceIDHex)
        #expect(found?.traceState == "k=v")
        let nested = "{\"a\":{\"traceparent\":\"\(TraceContextTests.valid)\"}}"
        #expect(TraceBody.extract(from: Array(nested.utf8)) == nil)
        #expect(TraceBody.extract(from: Array("{\"traceparent\":\"00-zz\"}".utf8)) == nil)
        #expect(TraceBody.extract(from: Array("{\"traceparent\":".utf8)) == nil)
        #expect(TraceBody.extract(from: Array("{\"username\":\"alice\"}".utf8)) == nil)
    }

    @Test func neverTrapsOnRandomBytes() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("{}[]\",:\\ traceparent0-1".utf8)
        for _ in 0..<5_000 {
            let count = Int.random(in: 0..<64, using: &generator)
            let bytes = (0..<count).map { _ in alphabet.randomElement(using: &generator)! }
            _ = TraceBody.extract(from: Array("{\"traceparent\":".utf8) + bytes)
            _ = TraceBody.extract(from: bytes)
        }
    }
}
