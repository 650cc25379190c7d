import Foundation
import Testing

@testable import Tracing

@Suite(.timeLimit(.minutes(1)))
struct ExporterTests {
    static func span(_ name: String = "s") -> Span {
        let context = TraceContext.newTrace(sampled: true)
        return Span(
            context: context, parentSpanID: 0x0102, name: name, kind: .server, startNanos: 1_700_000_000_000_000_000,
            endNanos: 1_700_000_000_000_500_000, attributes: [("rpc.method", .string("auth.login")), ("bytes", .int(42))],
            status: .error("timeout"))
    }

    @Test func theQueueIsBoundedAndDropsAreCounted() {
        let exporter = SpanExporter(
            .init(service: "test", targets: ExportTargets(), queueCapacity: 3), startThread: false)
        for _ in 0..<10 { exporter.submit(Self.span()) }
        #expect(exporter.queueLength == 3)
        #expect(exporter.counts.queued == 3)
        #expect(exporter.counts.dropped == 7)
    }

    @Test func writesOTLPJSONLinesToAFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("traces-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("spans.jsonl").path
        let exporter = SpanExporter(
            .init(service: "test", targets: ExportTargets(file: path), batchDelay: .milliseconds(10)))
        for index in 0..<5 { exporter.submit(Self.span("span-\(index)")) }
        exporter.stop()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(!lines.isEmpty)
        var names: [String] = []
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let resource = try #require((object["resourceSpans"] as? [[String: Any]])?.first)
            let scope = try #require((resource["scopeSpans"] as? [[String: Any]])?.first)
            for span in try #require(scope["spans"] as? [[String: Any]]) {
                names.append(try #require(span["name"] as? String))
                #expect((span["traceId"] as? String)?.count == 32)
                #expect((span["spanId"] as? String)?.count == 16)
                #expect(span["parentSpanId"] as? String == "0000000000000102")
                #expect(span["startTimeUnixNano"] as? String == "1700000000000000000")
                #expect(span["kind"] as? Int == 2)
            }
        }
        #expect(names == (0..<5).map { "span-\($0)" })
        #expect(exporter.counts.exported == 5)
    }

    @Test func anUnreachableCollectorCountsFailedBatches() {
        // Port 1 on loopback: nothing listens, the connection is refused at once.
        let exporter = SpanExporter(
            .init(
                service: "test", targets: ExportTargets(otlpEndpoint: "http://127.0.0.1:1"),
                batchDelay: .milliseconds(1)))
        exporter.submit(Self.span())
        exporter.stop()
        #expect(exporter.counts.failedBatches == 1)
        #expect(exporter.counts.exported == 0)
    }

    @Test func parsesCollectorURLs() {
        #expect(OTLPHTTP.parse("http://127.0.0.1:4318")! == ("127.0.0.1", 4318, "/v1/traces"))
        #expect(OTLPHTTP.parse("http://collector/custom")! == ("collector", 4318, "/custom"))
        #expect(OTLPHTTP.parse("https://x:1") == nil)
        #expect(OTLPHTTP.parse("http://:80") == nil)
        #expect(OTLPHTTP.parse("http://x:0") == nil)
    }
}
