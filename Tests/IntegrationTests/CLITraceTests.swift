import Contracts
import Foundation
import Testing

/// `gateway-cli --trace` against the four servers: every input the CLI sends asks for its trace,
/// and the gateway's answer reaches the script as `trace` lines (`--json`) or waterfalls.
@Suite("end to end: gateway-cli --trace", .timeLimit(.minutes(2)), .serialized)
struct CLITraceTests {
    /// The `trace` lines of a `--json --trace` run, decoded.
    struct TraceLine: Decodable {
        var output: String
        var input: String?
        var trace: FlowTrace
    }

    /// The output lines of a `--json --trace` run, decoded: the output's name, a field's state,
    /// and the trace of the input that caused it.
    struct OutputLine: Decodable {
        var output: String
        var state: String?
        var trace: FlowTrace?
    }

    @Test("signin --json --trace: a trace line per input; the username's spans gateway, validation and auth")
    func signinTraces() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let stack = try await GatewayStack.start(in: directory)
        do {
            let username = "trc" + randomDigits(9)
            try await stack.register(username)
            let run = try await stack.cli(
                ["signin", "--username", username, "--password-stdin", "--json", "--trace", "--lang", "en"],
                input: "secret1\n")
            #expect(run.status == .exited(0), "\(run)")
            let lines = run.standardOutput.split(separator: "\n").map(String.init)
            let traces = lines.compactMap { line -> TraceLine? in
                guard line.hasPrefix(#"{"output":"trace""#) else { return nil }
                return try? JSONDecoder().decode(TraceLine.self, from: Data(line.utf8))
            }
            // One per input sent, each before the result line, with its own trace id.
            #expect(Set(traces.compactMap(\.input)) == ["username", "password", "loginTap"], "\(run)")
            #expect(Set(traces.map(\.trace.traceID)).count == traces.count)
            #expect(lines.last?.hasPrefix(#"{"result":"succeeded""#) == true)
            for line in traces {
                #expect(line.trace.traceID.count == 32)
                #expect(line.trace.hops.first?.service == "gateway")
                #expect(line.trace.hops.first?.depth == 0)
                #expect(line.trace.hops.first?.startMicros == 0)
            }
            let typed = try #require(traces.first { $0.input == "username" })
            #expect(
                Set(typed.trace.hops.map(\.service)).isSuperset(of: ["gateway", "validation", "auth"]),
                "\(typed.trace.hops)")
            #expect(typed.trace.hops.contains { $0.service == "auth" && $0.method == "auth.exists" })
            let tap = try #require(traces.first { $0.input == "loginTap" })
            #expect(tap.trace.hops.contains { $0.service == "auth" && $0.method == "auth.login" })
            #expect(tap.trace.hops.contains { $0.method == "argon2id verify" && $0.depth == 2 })
            // The outputs are what they are without --trace, and each one an input caused carries
            // that input's trace, printed before the input's own trace line.
            #expect(lines.contains { $0.hasPrefix(#"{"output":"session""#) })
            let byID = Dictionary(
                traces.map { ($0.trace.traceID, $0) }, uniquingKeysWith: { first, _ in first })
            var outputs: [(index: Int, line: OutputLine)] = []
            for (index, line) in lines.enumerated() where !line.hasPrefix(#"{"output":"trace""#) {
                guard line.hasPrefix(#"{"output""#) else { continue }
                outputs.append((index, try JSONDecoder().decode(OutputLine.self, from: Data(line.utf8))))
            }
            for (index, output) in outputs {
                guard let trace = output.trace else { continue }
                let input = try #require(
                    byID[trace.traceID], "\(output.output) carries an unknown trace: \(run)")
                #expect(trace == input.trace, "\(output.output) waits for the whole trace")
                let traceLine = try #require(
                    lines.firstIndex { $0.contains(trace.traceID) && $0.hasPrefix(#"{"output":"trace""#) })
                #expect(index < traceLine)
            }
            let session = try #require(outputs.first { $0.line.output == "session" })
            #expect(session.line.trace?.traceID == tap.trace.traceID, "\(run)")
            let verdict = try #require(
                outputs.first { $0.line.output == "username" && $0.line.state == "ok" })
            #expect(verdict.line.trace?.traceID == typed.trace.traceID, "\(run)")

            // Without --json: the result on standard output as ever, a waterfall per input on
            // standard error.
            let plain = try await stack.cli(
                ["signin", "--username", username, "--password-stdin", "--trace", "--lang", "en"],
                input: "secret1\n")
            #expect(plain.status == .exited(0), "\(plain)")
            #expect(plain.lines.count == 2)
            #expect(plain.standardError.contains("[loginTap] trace "), "\(plain)")
            #expect(plain.standardError.contains("auth:"))
            #expect(plain.standardError.contains("auth.login"))
            #expect(plain.standardError.split(separator: "\n").allSatisfy { $0.count <= 80 })
        } catch {
            Issue.record("logs:\n\(stack.logs)")
            await stack.stop()
            throw error
        }
        await stack.stop()
    }
}
