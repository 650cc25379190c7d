import Contracts
import Foundation
import RemoteStreams
import TestSupport
import Testing

/// The four servers exporting spans, checked with the OpenTelemetry project's own protobuf
/// definitions (PyPI's `opentelemetry-proto`, installed by `make test` in .build/otel-venv):
/// Tests/Python/otlp_receiver.py parses every batch with `json_format.Parse` into an
/// `ExportTraceServiceRequest`.
@Suite("traces: one sign-in is one trace across three processes", .timeLimit(.minutes(2)), .serialized)
struct TraceIntegrationTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let python = root + "/.build/otel-venv/bin/python"
    static let receiver = root + "/Tests/Python/otlp_receiver.py"

    /// One span as the receiver wrote it.
    struct Received: Sendable {
        let service: String
        let traceID: String
        let spanID: String
        let parentSpanID: String
        let name: String
        let kind: Int
    }

    static func received(_ path: String) throws -> [Received] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return try text.split(separator: "\n").map { line in
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            if let error = object["error"] as? String {
                throw SupportError("the receiver could not parse a batch: \(error)")
            }
            return Received(
                service: object["service"] as? String ?? "", traceID: object["trace_id"] as? String ?? "",
                spanID: object["span_id"] as? String ?? "",
                parentSpanID: object["parent_span_id"] as? String ?? "",
                name: object["name"] as? String ?? "", kind: object["kind"] as? Int ?? 0)
        }
    }

    @Test("a sign-in's spans reach an OTLP receiver: one trace, three processes, every parent in it")
    func aSigninIsOneTrace() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python) else {
            throw SupportError("\(Self.python) is missing: `make test` (or `make otel-venv`) installs it")
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let spansFile = directory.file("received.jsonl")
        let portFile = directory.file("receiver.out")
        let receiver = try ChildProcess(
            executable: Self.python, arguments: [Self.receiver, spansFile], standardOutput: portFile,
            standardError: directory.file("receiver.err"))
        defer { Task { await receiver.stop() } }
        var port = 0
        let listening = await eventually(within: .seconds(30)) {
            let text = (try? String(contentsOfFile: portFile, encoding: .utf8)) ?? ""
            guard let line = text.split(separator: "\n").first, line.hasPrefix("port=") else {
                return receiver.ended != nil
            }
            port = Int(line.dropFirst("port=".count)) ?? 0
            return true
        }
        #expect(
            listening && port > 0,
            "receiver: \((try? String(contentsOfFile: directory.file("receiver.err"), encoding: .utf8)) ?? "")"
        )
        guard port > 0 else { return }
        let stack = try await GatewayStack.start(
            in: directory,
            everyServer: [
                "--trace-sample", "1", "--otlp-endpoint", "http://127.0.0.1:\(port)", "--log-format", "json",
            ])
        do {
            let password = "tr4ce-Secret-pw"
            let registered = try await stack.client.request(
                Methods.Command.register, RegisterCommand(username: "tracer01", password: password)
            ).value
            #expect(registered.ok)
            let signedIn = try await stack.client.request(
                Methods.Command.signin, SigninCommand(username: "tracer01", password: password)
            ).value
            #expect(signedIn.ok)
            var trace: [Received] = []
            let complete = await eventually(within: .seconds(20), every: .milliseconds(100)) {
                let spans = (try? Self.received(spansFile)) ?? []
                guard let root = spans.first(where: { $0.name == "signin" && $0.parentSpanID.isEmpty }) else {
                    return false
                }
                trace = spans.filter { $0.traceID == root.traceID }
                return Set(trace.map(\.service)).isSuperset(of: ["gateway", "validation", "auth"])
                    && trace.contains { $0.name == "auth.login" && $0.kind == 2 }
                    && trace.contains { $0.name == "auth.exists" && $0.kind == 2 }
                    && trace.contains { $0.name == "store commit" }
            }
            #expect(complete, "spans of the sign-in: \(trace.map { "\($0.service) \($0.name) \($0.kind)" })")
            #expect(Set(trace.map(\.traceID)).count == 1)
            let ids = Set(trace.map(\.spanID))
            #expect(trace.filter(\.parentSpanID.isEmpty).count == 1, "one root")
            for span in trace where !span.parentSpanID.isEmpty {
                #expect(
                    ids.contains(span.parentSpanID),
                    "\(span.service) \(span.name): its parent is in the trace")
            }
            // Every server span of a call is the child of the client span that made it.
            let byID = Dictionary(trace.map { ($0.spanID, $0) }, uniquingKeysWith: { first, _ in first })
            for server in trace where server.kind == 2 && server.name != "signin" {
                let parent = try #require(byID[server.parentSpanID])
                #expect(
                    parent.kind == 3 && parent.name == server.name,
                    "\(server.name)'s parent is its client span")
                #expect(parent.service != server.service)
            }
            let hashing = try #require(trace.first { $0.name == "argon2id verify" })
            #expect(byID[hashing.parentSpanID]?.name == "auth.login")

            // No password or token in any log line of any process.
            let secrets = [password, signedIn.token, signedIn.deviceToken].compactMap { $0 }.filter {
                !$0.isEmpty
            }
            #expect(secrets.count == 3)
            for process in stack.servers {
                for secret in secrets {
                    #expect(!process.log.contains(secret), "\(process.executable)'s log shows a secret")
                }
            }
        } catch {
            Issue.record("logs:\n\(stack.logs)")
            await stack.stop()
            throw error
        }
        await stack.stop()
    }

    @Test("--trace-file writes OTLP JSON lines that the OpenTelemetry definitions parse")
    func traceFilesParse() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python) else {
            throw SupportError("\(Self.python) is missing: `make test` (or `make otel-venv`) installs it")
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let traceFile = directory.file("spans.jsonl")
        // All four append to one file: each batch is one write of one line.
        let stack = try await GatewayStack.start(
            in: directory, everyServer: ["--trace-sample", "1", "--trace-file", traceFile])
        do {
            _ = try await stack.client.request(
                Methods.Command.register, RegisterCommand(username: "13500135000", password: "secret1")
            ).value
            _ = try await stack.client.request(
                Methods.Command.login, LoginCommand(phone: "13500135000", password: "secret1")
            ).value
        } catch {
            Issue.record("logs:\n\(stack.logs)")
            await stack.stop()
            throw error
        }
        // Stopped, each server writes what its exporter still holds.
        await stack.stop()
        let text = try String(contentsOfFile: traceFile, encoding: .utf8)
        #expect(text.split(separator: "\n").count >= 3)
        let check = try await Tool.run(Self.python, [Self.receiver, "--check", traceFile], in: directory)
        #expect(check.status == .exited(0), "\(check.output)")
        #expect(check.output.hasPrefix("spans="))
    }
}
