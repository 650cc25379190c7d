import Contracts
import Foundation
import GatewayMessages
import Testing

/// A sign-in's tap as the gateway reports it.
let signinTrace = FlowTrace(
    traceID: "4bf92f3577b34da6a3ce929d0e0e4736",
    hops: [
        .init(
            service: "gateway", shard: 0, method: "flow.signin loginTap", startMicros: 0,
            durationMicros: 40_000),
        .init(
            service: "auth", shard: 1, method: "auth.login", startMicros: 2_000, durationMicros: 36_000,
            depth: 1),
        .init(service: "auth", method: "store commit", startMicros: 30_000, durationMicros: 6_000, depth: 2),
        .init(
            service: "auth", method: "argon2id verify", startMicros: 4_000, durationMicros: 24_000, depth: 2),
    ])

@Suite(.timeLimit(.minutes(1)))
struct TraceWaterfallTests {
    @Test("80×24: a row per hop by start, indented by depth, bars on the trace's span")
    func standardTerminal() {
        let lines = TraceWaterfall.lines(signinTrace, width: 80, height: 24)
        #expect(
            lines == [
                "trace 4bf92f3577b34da6a3ce929d0e0e4736  40.0 ms  4 hops",
                "hop                            start ms   dur ms  0                      40.0 ms",
                "gateway:0 flow.signin loginTap      0.0     40.0  ██████████████████████████████",
                "  auth:1 auth.login                 2.0     36.0  ░███████████████████████████",
                "    auth argon2id verify            4.0     24.0  ░░░██████████████████",
                "    auth store commit              30.0      6.0  ░░░░░░░░░░░░░░░░░░░░░░█████",
            ])
        #expect(lines.allSatisfy { $0.count <= 80 })
    }

    @Test("narrow: no bars below 48 columns, no start column below 30, labels cut with …")
    func narrowTerminal() {
        let forty = TraceWaterfall.lines(signinTrace, width: 40, height: 24)
        #expect(
            forty == [
                "trace 4bf92f3577b34da6a3ce929d0e0e4736 …",
                "hop                    start ms   dur ms",
                "gateway:0 flow.signin…      0.0     40.0",
                "  auth:1 auth.login         2.0     36.0",
                "    auth argon2id ver…      4.0     24.0",
                "    auth store commit      30.0      6.0",
            ])
        let twenty = TraceWaterfall.lines(signinTrace, width: 20, height: 24)
        #expect(twenty.allSatisfy { $0.count <= 20 })
        #expect(twenty[2] == "gateway:0 …     40.0")
        for width in 1...120 {
            #expect(
                TraceWaterfall.lines(signinTrace, width: width, height: 24).allSatisfy { $0.count <= width })
        }
    }

    @Test("short: the hops that do not fit are counted on the last line")
    func fewRows() {
        let lines = TraceWaterfall.lines(signinTrace, width: 80, height: 5)
        #expect(lines.count == 5)
        #expect(lines[2].hasPrefix("gateway:0"))
        #expect(lines[3].hasPrefix("  auth:1"))
        #expect(lines[4] == "… 2 more hops")
        #expect(TraceWaterfall.lines(signinTrace, width: 80, height: 1).count == 1)
        #expect(TraceWaterfall.lines(signinTrace, width: 0, height: 24).isEmpty)
    }

    @Test("a failed hop shows its outcome; a trace without hops or duration still renders")
    func outcomesAndEmptyTraces() {
        var failed = signinTrace
        failed.hops[1].outcome = "timeout"
        #expect(
            TraceWaterfall.lines(failed, width: 80, height: 24)[3].hasPrefix("  auth:1 auth.login [timeout]"))
        let empty = FlowTrace(traceID: "ab", hops: [])
        #expect(TraceWaterfall.lines(empty, width: 80, height: 24).count == 2)
        let instant = FlowTrace(
            traceID: "ab", hops: [.init(service: "gateway", method: "m", startMicros: 0, durationMicros: 0)])
        #expect(TraceWaterfall.lines(instant, width: 60, height: 24)[2].hasSuffix("█"))
        #expect(TraceWaterfall.milliseconds(0) == "0.0")
        #expect(TraceWaterfall.milliseconds(1_250) == "1.3")
        #expect(TraceWaterfall.milliseconds(12_034_000) == "12034.0")
    }
}

@Suite(.timeLimit(.minutes(1)))
struct FlowTraceTests {
    @Test("the trace output decodes and encodes with the gateway's member names")
    func traceOutputCoding() throws {
        let line = #"""
            {"output":"trace","trace":{"trace_id":"4bf92f3577b34da6a3ce929d0e0e4736","hops":[{"service":"gateway","shard":0,"method":"flow.signin loginTap","start_us":0,"duration_us":40000,"outcome":"ok","depth":0},{"service":"auth","method":"argon2id verify","start_us":4000,"duration_us":24000,"outcome":"ok","depth":2}]}}
            """#
        let output = try JSONDecoder().decode(FlowOutput.self, from: Data(line.utf8))
        #expect(output.outputName == .trace)
        let trace = try #require(output.trace)
        #expect(trace.traceID == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(trace.hops == [signinTrace.hops[0], signinTrace.hops[3]])
        #expect(trace.spanMicros == 40_000)
        #expect(output.description == "trace: 4bf92f3577b34da6a3ce929d0e0e4736 2 hops")
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let again = try JSONDecoder().decode(FlowOutput.self, from: try encoder.encode(output))
        #expect(again == output)
        let hop = String(decoding: try encoder.encode(signinTrace.hops[1]), as: UTF8.self)
        #expect(
            hop
                == #"{"depth":1,"duration_us":36000,"method":"auth.login","outcome":"ok","service":"auth","shard":1,"start_us":2000}"#
        )
        // Members a hop may lack take their defaults; negative numbers are clamped.
        let sparse = try JSONDecoder().decode(
            FlowTrace.Hop.self, from: Data(#"{"service":"a","method":"m","start_us":-5}"#.utf8))
        #expect(sparse == FlowTrace.Hop(service: "a", method: "m", startMicros: 0, durationMicros: 0))
        #expect(FlowOutput.Name(rawValue: "trace") == .trace)
    }

    @Test("an input with a traceparent carries it as a top-level member; without, none")
    func tracedInputCoding() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        let traced = FlowInput.tap(.loginTap).traced(parent)
        #expect(
            String(decoding: try encoder.encode(traced), as: UTF8.self)
                == #"{"input":"loginTap","traceparent":"\#(parent)"}"#)
        #expect(
            String(decoding: try encoder.encode(FlowInput.tap(.loginTap)), as: UTF8.self)
                == #"{"input":"loginTap"}"#)
        #expect(try JSONDecoder().decode(FlowInput.self, from: try encoder.encode(traced)) == traced)
    }

    @Test("newTraceparent: W3C version 00, sampled, lower-case hex, random, never an all-zero id")
    func traceparents() {
        var seen: Set<String> = []
        for _ in 0..<200 {
            let value = FlowTrace.newTraceparent()
            let parts = value.split(separator: "-", omittingEmptySubsequences: false)
            #expect(parts.count == 4)
            #expect(parts[0] == "00")
            #expect(parts[1].count == 32 && parts[2].count == 16)
            #expect(parts[3] == "01")
            #expect(value.allSatisfy { "0123456789abcdef-".contains($0) })
            #expect(parts[1].contains { $0 != "0" } && parts[2].contains { $0 != "0" })
            #expect(FlowTrace.traceID(of: value) == String(parts[1]))
            seen.insert(String(parts[1]))
        }
        #expect(seen.count == 200)
        // A generator that gives zeros first: the ids still are not all zero.
        var zeros = Zeros(left: 3)
        let value = FlowTrace.newTraceparent(using: &zeros)
        #expect(value == "00-0000000000000000000000000000002a-000000000000002a-01")
        #expect(FlowTrace.traceID(of: "01-abc-def-01") == nil)
    }

    /// Gives `left` zeros, then 42 forever.
    struct Zeros: RandomNumberGenerator {
        var left: Int
        mutating func next() -> UInt64 {
            guard left > 0 else { return 42 }
            left -= 1
            return 0
        }
    }
}
