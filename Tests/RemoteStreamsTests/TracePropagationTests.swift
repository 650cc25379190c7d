import Foundation
import Reactive
import RemoteProtocol
@testable import RemoteStreams
import Synchronization
import TestSupport
import Testing
import Tracing
import ZeroMQ

private let echo = RequestMethod<Pair, Int>("t.add")
private let chain = RequestMethod<Pair, Int>("t.chain")
private let swap = RequestMethod<Pair, Pair>("t.swap")
private struct Key: Codable, Sendable { var text: String }
private let typing = ChannelMethod<NoParameters, Key, String>("t.typing")
/// An element as a client that asked for its inputs' traces reads it: with the trace id of the
/// input that caused it, when one did.
private struct Tagged: Codable, Sendable, Equatable {
    var text: String
    var traceID: String?

    enum CodingKeys: String, CodingKey {
        case text, traceID = "trace_id"
    }
}
private let echoKeys = ChannelMethod<NoParameters, Key, Tagged>("t.echokeys")
private let forwardKeys = ChannelMethod<NoParameters, Key, Tagged>("t.forwardkeys")

/// What the spans of a run look like, read back from the exporter's file.
private struct ExportedSpan {
    let name: String
    let kind: Int
    let traceID: String
    let spanID: String
    let parentSpanID: String?
    let attributes: [String: String]
}

private func readSpans(_ path: String) throws -> [ExportedSpan] {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
    var spans: [ExportedSpan] = []
    for line in text.split(separator: "\n") {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        for resource in object["resourceSpans"] as? [[String: Any]] ?? [] {
            for scope in resource["scopeSpans"] as? [[String: Any]] ?? [] {
                for span in scope["spans"] as? [[String: Any]] ?? [] {
                    var attributes: [String: String] = [:]
                    for attribute in span["attributes"] as? [[String: Any]] ?? [] {
                        let value = attribute["value"] as? [String: Any] ?? [:]
                        attributes[attribute["key"] as? String ?? ""] =
                            (value["stringValue"] as? String) ?? (value["intValue"] as? String) ?? ""
                    }
                    spans.append(
                        ExportedSpan(
                            name: span["name"] as? String ?? "", kind: span["kind"] as? Int ?? 0,
                            traceID: span["traceId"] as? String ?? "",
                            spanID: span["spanId"] as? String ?? "",
                            parentSpanID: span["parentSpanId"] as? String, attributes: attributes))
                }
            }
        }
    }
    return spans
}

/// Subscribes to `single` on this thread inside `context`, and waits for its value.
private func value<T: Sendable>(of single: Single<T>, in context: TraceContext) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Tracing.with(context) {
            _ = single.subscribe(
                onSuccess: { continuation.resume(returning: $0) },
                onFailure: { continuation.resume(throwing: $0) })
        }
    }
}

/// A sampled root span standing for a keystroke, which hands the hops it ends with to `onEnd`.
private func keystrokeSpan(onEnd: @escaping @Sendable ([Hop]) -> Void) throws -> ActiveSpan {
    let tracer = try #require(Tracing.tracer)
    return ActiveSpan(
        tracer: tracer, context: .newTrace(sampled: true), parentSpanID: 0, name: "keystroke",
        kind: .internal, attributes: [], onEnd: { _, hops in onEnd(hops) })
}

@Suite("Trace context across a client and a server", .serialized, .timeLimit(.minutes(1)))
struct TracePropagationTests {
    /// Installs a tracer (sampling no roots, so the process's other tests see nothing change) that
    /// writes to a file in a temp directory, runs `body`, then uninstalls it.
    func withTracer(_ body: (_ exporter: SpanExporter, _ path: String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trace-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("spans.jsonl").path
        let exporter = SpanExporter(
            .init(service: "test", targets: ExportTargets(file: path), batchDelay: .milliseconds(5)))
        Tracing.install(
            Tracer(
                service: "test", sampler: Sampler(ratio: 0), exporter: exporter, propagatesUnsampled: false))
        defer { Tracing.install(nil) }
        try await body(exporter, path)
        exporter.stop()
    }

    @Test func aServerSpanIsTheChildOfTheClientSpanAndNestedCallsFollow() async throws {
        try await withTracer { exporter, path in
            let context = try Context()
            let inner = try RemoteServer(
                context: context, configuration: .init(endpoints: ["tcp://127.0.0.1:*"], name: "inner"),
                handlers: {
                    var handlers = RemoteHandlers()
                    handlers.handle(echo) { pair in .just(pair.a + pair.b) }
                    return handlers
                }())
            let innerClient = try RemoteClient(
                context: context, configuration: .init(endpoints: inner.endpoints, name: "inner-service"))
            var handlers = RemoteHandlers()
            handlers.handle(chain) { pair in innerClient.request(echo, pair).map { $0 * 10 } }
            let outer = try RemoteServer(
                context: context, configuration: .init(endpoints: ["tcp://127.0.0.1:*"], name: "outer"),
                handlers: handlers)
            let client = try RemoteClient(
                context: context, configuration: .init(endpoints: outer.endpoints, name: "outer-service"))
            let root = TraceContext.newTrace(sampled: true)
            #expect(try await value(of: client.request(chain, Pair(a: 2, b: 3)), in: root) == 50)
            // Outside a trace nothing is recorded.
            #expect(try await client.request(chain, Pair(a: 1, b: 1)).value == 20)
            exporter.stop()
            let spans = try readSpans(path)
            #expect(spans.count == 4)
            #expect(Set(spans.map(\.traceID)) == [root.traceIDHex])
            let byName = { (name: String, kind: Int) in spans.first { $0.name == name && $0.kind == kind } }
            let outerClient = try #require(byName("t.chain", 3))
            let outerServer = try #require(byName("t.chain", 2))
            let innerCall = try #require(byName("t.add", 3))
            let innerServer = try #require(byName("t.add", 2))
            #expect(outerClient.parentSpanID == root.spanIDHex)
            #expect(outerServer.parentSpanID == outerClient.spanID)
            #expect(innerCall.parentSpanID == outerServer.spanID)
            #expect(innerServer.parentSpanID == innerCall.spanID)
            #expect(outerServer.attributes["rpc.method"] == "t.chain")
            #expect(outerServer.attributes["rpc.model"] == "request")
            #expect(outerServer.attributes["outcome"] == "ok")
            #expect(outerClient.attributes["rpc.service"] == "outer")
            await client.stop()
            await innerClient.stop()
            await outer.stop()
            await inner.stop()
            context.terminate()
        }
    }

    @Test func aSampledCallerGetsTheServersHopsAndAnUnsampledOneDoesNot() async throws {
        try await withTracer { _, _ in
            var handlers = RemoteHandlers()
            handlers.handle(swap) { pair in
                // Work of the server's own, as a child span of the call's.
                let work = ActiveSpan.childOfCurrent("work")
                work?.end()
                return .just(Pair(a: pair.b, b: pair.a))
            }
            let fixture = try Fixture(handlers: handlers)
            // The caller's span records the call as a hop, and the server's own hop from its answer.
            let tracer = try #require(Tracing.tracer)
            let root = ActiveSpan(
                tracer: tracer, context: .newTrace(sampled: true), parentSpanID: 0, name: "root",
                kind: .internal,
                attributes: [])
            let answer = try await withCheckedThrowingContinuation { continuation in
                Tracing.with(root) {
                    _ = fixture.client.request(swap, Pair(a: 1, b: 2)).subscribe(
                        onSuccess: { continuation.resume(returning: $0) },
                        onFailure: { continuation.resume(throwing: $0) })
                }
            }
            #expect(answer.a == 2 && answer.b == 1)
            let hops = try #require(root.end())
            #expect(hops.map(\.method) == ["t.swap", "work"])
            #expect(hops.map(\.depth) == [0, 1])
            #expect(hops.first?.outcome == "ok")
            await fixture.stop()
        }
    }

    @Test func channelInputsCarryTheSendersContext() async throws {
        try await withTracer { exporter, path in
            var handlers = RemoteHandlers()
            handlers.handle(typing) { _, input in input.map { $0.text.uppercased() } }
            let fixture = try Fixture(handlers: handlers)
            let input = PublishSubject<Key>()
            let received = Mutex<[String]>([])
            let subscription = fixture.client.channel(typing, NoParameters(), input: input.asObservable())
                .subscribe(onNext: { text in received.withLock { $0.append(text) } })
            let keystroke = TraceContext.newTrace(sampled: true)
            Tracing.with(keystroke) { input.onNext(Key(text: "a")) }
            input.onNext(Key(text: "b"))
            #expect(await eventually { received.withLock { $0 } == ["A", "B"] })
            subscription.dispose()
            await fixture.stop()
            exporter.stop()
            let spans = try readSpans(path)
            #expect(spans.count == 1)
            #expect(spans.first?.kind == 5)
            #expect(spans.first?.traceID == keystroke.traceIDHex)
            #expect(spans.first?.parentSpanID == keystroke.spanIDHex)
        }
    }

    @Test func aChannelInputsHopsComeBackToTheSpanThatSentIt() async throws {
        try await withTracer { _, _ in
            var handlers = RemoteHandlers()
            handlers.handle(typing) { _, input in
                input.map { key in
                    ActiveSpan.childOfCurrent("work")?.end()
                    return key.text.uppercased()
                }
            }
            let context = try Context()
            var configuration = RemoteServer.Configuration(endpoints: ["tcp://127.0.0.1:*"], name: "typing")
            configuration.inputTraceReport = { TraceSummary.report(traceID: $0, hops: $1) }
            let server = try RemoteServer(context: context, configuration: configuration, handlers: handlers)
            let fixture = try Fixture(server: server, context: context)
            let input = PublishSubject<Key>()
            let received = Mutex<[String]>([])
            let subscription = fixture.client.channel(typing, NoParameters(), input: input.asObservable())
                .subscribe(onNext: { text in received.withLock { $0.append(text) } })
            let reported = Mutex<[Hop]?>(nil)
            let keystroke = try keystrokeSpan { hops in reported.withLock { $0 = hops } }
            Tracing.with(keystroke) { input.onNext(Key(text: "a")) }
            // The keystroke's span waits for the server's report of the input before it ends.
            keystroke.endWhenReleased()
            input.onNext(Key(text: "b"))
            #expect(await eventually { reported.withLock { $0 } != nil })
            let hops = try #require(reported.withLock { $0 })
            #expect(hops.map(\.method) == ["t.typing input", "work"])
            #expect(hops.map(\.depth) == [0, 1])
            #expect(hops.first?.shard == 0)
            // The report is the trace's: the caller sees only its outputs.
            #expect(await eventually { received.withLock { $0 } == ["A", "B"] })
            #expect(received.withLock { $0 } == ["A", "B"])
            subscription.dispose()
            await fixture.stop()
            context.terminate()
        }
    }

    @Test func elementsCausedByATracedInputCarryItsTraceIDThroughAChainOfChannels() async throws {
        try await withTracer { _, _ in
            // inner answers each key; middle passes its channel's input on to inner and forwards
            // inner's answers: what inner sends while handling a traced input is delivered to middle
            // in the span that sent that input, so middle's forwarded element is tagged too.
            let context = try Context()
            var innerHandlers = RemoteHandlers()
            innerHandlers.handle(echoKeys) { _, input in input.map { Tagged(text: $0.text.uppercased()) } }
            var innerConfiguration = RemoteServer.Configuration(
                endpoints: ["tcp://127.0.0.1:*"], name: "inner")
            innerConfiguration.inputTraceReport = { TraceSummary.report(traceID: $0, hops: $1) }
            let inner = try RemoteServer(
                context: context, configuration: innerConfiguration, handlers: innerHandlers)
            let innerClient = try RemoteClient(
                context: context, configuration: .init(endpoints: inner.endpoints, name: "inner"))
            var middleHandlers = RemoteHandlers()
            middleHandlers.handle(forwardKeys) { _, input in
                innerClient.channel(echoKeys, NoParameters(), input: input).map {
                    Tagged(text: $0.text + "!")
                }
            }
            var middleConfiguration = RemoteServer.Configuration(
                endpoints: ["tcp://127.0.0.1:*"], name: "middle")
            middleConfiguration.inputTraceReport = { TraceSummary.report(traceID: $0, hops: $1) }
            let middle = try RemoteServer(
                context: context, configuration: middleConfiguration, handlers: middleHandlers)
            let fixture = try Fixture(server: middle, context: context)
            let input = PublishSubject<Key>()
            let received = Mutex<[Tagged]>([])
            let subscription = fixture.client.channel(
                forwardKeys, NoParameters(), input: input.asObservable()
            )
            .subscribe(onNext: { element in received.withLock { $0.append(element) } })
            let reported = Mutex<[Hop]?>(nil)
            let keystroke = try keystrokeSpan { hops in reported.withLock { $0 = hops } }
            Tracing.with(keystroke) { input.onNext(Key(text: "a")) }
            keystroke.endWhenReleased()
            #expect(await eventually { reported.withLock { $0 } != nil })
            // An input sent outside any trace causes an element without a trace id.
            input.onNext(Key(text: "b"))
            #expect(await eventually { received.withLock { $0.count } == 2 })
            #expect(
                received.withLock { $0 } == [
                    Tagged(text: "A!", traceID: keystroke.context.traceIDHex),
                    Tagged(text: "B!", traceID: nil),
                ])
            // The trace holds middle's handling of the input, its call to inner and inner's handling.
            let hops = try #require(reported.withLock { $0 })
            #expect(hops.map(\.method) == ["t.forwardkeys input", "t.echokeys input"], "\(hops)")
            subscription.dispose()
            await fixture.client.stop()
            await innerClient.stop()
            await middle.stop()
            await inner.stop()
            context.terminate()
        }
    }

    @Test func anUnreadableTraceparentIsIgnored() async throws {
        try await withTracer { exporter, path in
            var handlers = RemoteHandlers()
            handlers.request("t.add") { (pair: Pair) in Single.just(pair.a + pair.b) }
            let fixture = try Fixture(handlers: handlers)
            struct Odd: Codable, Sendable {
                let traceparent: String
                let a: Int
                let b: Int
            }
            for bad in [
                "", "00-zz", "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                String(repeating: "0", count: 55),
            ] {
                #expect(
                    try await fixture.client.request("t.add", Odd(traceparent: bad, a: 1, b: 2), as: Int.self)
                        .value == 3)
            }
            await fixture.stop()
            exporter.stop()
            #expect(try readSpans(path).isEmpty)
        }
    }
}
