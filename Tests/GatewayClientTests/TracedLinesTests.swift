import Contracts
import Foundation
import GatewayClient
import Testing

@Suite("gateway-cli --json --trace lines", .timeLimit(.minutes(1)))
struct TracedLinesTests {
    let typed = Self.gatewayTrace("a", input: "username", micros: 900)
    let tapped = Self.gatewayTrace("b", input: "loginTap", micros: 50)

    /// A trace whose id is 32 × `digit`, with the gateway's handling of `input` as its one hop.
    static func gatewayTrace(_ digit: Character, input: String, micros: Int) -> FlowTrace {
        FlowTrace(
            traceID: String(repeating: digit, count: 32),
            hops: [
                FlowTrace.Hop(
                    service: "gateway", shard: 0, method: "flow.signin \(input)", startMicros: 0,
                    durationMicros: micros)
            ])
    }

    func output(_ name: FlowOutput.Name, _ value: Bool, traceID: String? = nil) -> FlowOutput {
        var output = FlowOutput(name, value: value)
        output.traceID = traceID
        return output
    }

    /// The output name and the trace id and hop count of each output line; the input of each trace line.
    func shape(_ lines: [String]) throws -> [String] {
        try lines.map { line in
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let name = object["output"] as? String ?? "?"
            #expect(object["trace_id"] == nil, "the bare tag is not printed: \(line)")
            guard let trace = object["trace"] as? [String: Any] else { return name }
            let id = (trace["trace_id"] as? String)?.prefix(1) ?? "?"
            let hops = (trace["hops"] as? [Any])?.count ?? -1
            if name == "trace" { return "trace(\(object["input"] as? String ?? "?"))" }
            return "\(name)@\(id)/\(hops)"
        }
    }

    @Test func anOutputNoInputCausedIsPrintedAtOnceWithoutATrace() throws {
        var lines = TracedLines()
        #expect(try shape(lines.output(output(.loginEnabled, false), at: 0)) == ["loginEnabled"])
        #expect(!lines.isHolding)
        #expect(lines.nextDeadline == nil)
    }

    @Test func tracedOutputsWaitForTheirTraceAndKeepTheirOrder() throws {
        var lines = TracedLines()
        #expect(lines.output(output(.loginEnabled, true, traceID: typed.traceID), at: 10).isEmpty)
        // Lines after a held one wait behind it, traced or not.
        #expect(lines.output(output(.loggingIn, false), at: 20).isEmpty)
        #expect(lines.output(output(.loggingIn, true, traceID: tapped.traceID), at: 30).isEmpty)
        #expect(lines.nextDeadline == 10 + 2_000_000_000)
        let first = try shape(lines.trace(InputTrace(input: "username", trace: typed), at: 40))
        #expect(first == ["loginEnabled@a/1", "loggingIn"])
        #expect(lines.nextDeadline == 30 + 2_000_000_000)
        let second = try shape(lines.trace(InputTrace(input: "loginTap", trace: tapped), at: 50))
        // Arrival order: the username's trace line came after the tap's output.
        #expect(second == ["loggingIn@b/1", "trace(username)", "trace(loginTap)"])
        #expect(!lines.isHolding)
    }

    @Test func aTraceThatNeverComesLetsTheLineGoAfterTheHoldWithNoHops() throws {
        var lines = TracedLines(hold: .milliseconds(100))
        #expect(lines.output(output(.loginEnabled, true, traceID: typed.traceID), at: 1_000).isEmpty)
        #expect(lines.expire(at: 1_000 + 99_999_999).isEmpty)
        #expect(try shape(lines.expire(at: 1_000 + 100_000_000)) == ["loginEnabled@a/0"])
        // A trace that comes later still gets its own line.
        #expect(
            try shape(lines.trace(InputTrace(input: "username", trace: typed), at: 200_000_000)) == [
                "trace(username)"
            ])
    }

    @Test func theEndOfARunFlushesWhatIsHeld() throws {
        var lines = TracedLines()
        #expect(lines.output(output(.loginEnabled, true, traceID: typed.traceID), at: 0).isEmpty)
        #expect(lines.output(output(.loggingIn, false), at: 1).isEmpty)
        #expect(try shape(lines.flush()) == ["loginEnabled@a/0", "loggingIn"])
        #expect(lines.flush().isEmpty)
    }

    @Test func anOutputAfterItsTraceCameGetsItAtOnce() throws {
        var lines = TracedLines()
        _ = lines.trace(InputTrace(input: "username", trace: typed), at: 0)
        #expect(
            try shape(lines.output(output(.loginEnabled, true, traceID: typed.traceID), at: 1)) == [
                "loginEnabled@a/1"
            ])
    }

    @Test func theLineIsTheOutputsWireEncodingWithTheTrace() throws {
        var session = FlowOutput(.session, name: "ann", token: "t", deviceToken: "secret-device")
        session.traceID = tapped.traceID
        let line = ScriptPrinter.jsonLine(session, trace: tapped)
        let decoded = try JSONDecoder().decode(FlowOutput.self, from: Data(line.utf8))
        #expect(decoded == FlowOutput(.session, name: "ann", token: "t", trace: tapped))
        #expect(!line.contains("secret-device"))
        #expect(ScriptPrinter.jsonLine(session) == #"{"output":"session","name":"ann","token":"t"}"#)
    }
}
