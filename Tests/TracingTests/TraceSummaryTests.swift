import Testing
import Tracing

@Suite("Tagging channel elements with a trace id", .timeLimit(.minutes(1)))
struct TraceSummaryTagTests {
    let id = "4bf92f3577b34da6a3ce929d0e0e4736"

    @Test(arguments: [
        (#"{"state":"ok"}"#, #"{"trace_id":"4bf92f3577b34da6a3ce929d0e0e4736","state":"ok"}"#),
        (#"  { "a" : 1 }"#, #"{"trace_id":"4bf92f3577b34da6a3ce929d0e0e4736", "a" : 1 }"#),
        ("{}", #"{"trace_id":"4bf92f3577b34da6a3ce929d0e0e4736"}"#),
        ("{ }", #"{"trace_id":"4bf92f3577b34da6a3ce929d0e0e4736" }"#),
    ])
    func anObjectGetsTheTraceIDFirst(body: String, tagged: String) {
        let out = TraceSummary.tag(Array(body.utf8), traceID: id)
        #expect(String(decoding: out, as: UTF8.self) == tagged)
        #expect(TraceSummary.taggedTraceID(in: out) == id)
    }

    @Test(arguments: [#""text""#, "[1,2]", "42", "", "   "])
    func anythingElseIsLeftAsItIs(body: String) {
        #expect(TraceSummary.tag(Array(body.utf8), traceID: id) == Array(body.utf8))
    }

    @Test(arguments: [
        #"{"state":"ok"}"#,
        #"{"trace_id":"4BF92F3577B34DA6A3CE929D0E0E4736","a":1}"#,
        #"{"trace_id":"4bf92f3577b34da6a3ce929d0e0e47","a":1}"#,
        #"{"trace_id":"4bf92f3577b34da6a3ce929d0e0e4736"#,
        #"{"trace_id":"4bf92f3577b34da6a3ce929d0e0e4736x","a":1}"#,
        #"{"trace":{"trace_id":"4bf92f3577b34da6a3ce929d0e0e4736"}}"#,
    ])
    func onlyATagIsReadAsOne(body: String) {
        #expect(TraceSummary.taggedTraceID(in: Array(body.utf8)) == nil)
    }
}
