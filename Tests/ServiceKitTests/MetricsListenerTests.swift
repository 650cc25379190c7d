import Contracts
import Foundation
import ProcessSupport
import Reactive
@testable import RemoteStreams
import ServiceKit
import TestSupport
import Testing
import ZeroMQ

#if canImport(Glibc)
    import Glibc
#endif

@Suite("The metrics listener of a host: endpoints, bad input, bounds", .timeLimit(.minutes(1)))
struct MetricsListenerTests {
    @Test("GET /metrics counts the calls by method and outcome; /healthz and /readyz follow the health")
    func metricsAndHealth() async throws {
        try await withTemporaryDirectory { root in
            let rig = try HostRig(root: root, metricsLimits: HTTPResponder.Limits())
            let run = rig.start()
            try await rig.events.wait(for: "serving")
            let port = try rig.metricsPort()
            let client = try rig.client()
            for _ in 0..<3 { _ = try await client.request(Methods.System.health).value }
            await #expect(throws: (any Error).self) {
                _ = try await client.request("no.such", NoParameters(), as: Int.self).value
            }
            let metrics = try await HTTPExchange.get("/metrics", port: port)
            #expect(metrics.status == 200, "\(metrics.text)")
            #expect(metrics.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
            #expect(
                metrics.text.contains("reactive_login_requests_total{method=\"sys.health\",code=\"ok\"} 3"))
            #expect(
                metrics.text.contains(
                    "reactive_login_request_duration_seconds_count{method=\"sys.health\"} 3"))
            #expect(metrics.text.contains("reactive_login_errors_sent_total{code=\"unknown_method\"} 1"))
            #expect(metrics.text.contains("reactive_login_build_info{service=\"test\",version=\"1.2.3\"} 1"))
            #expect(metrics.text.contains("reactive_login_health_status{status=\"ready\"} 1"))
            #expect(metrics.text.contains("\nprocess_resident_memory_bytes "))
            #expect(!metrics.text.contains("method=\"no.such\""))

            #expect(try await HTTPExchange.get("/healthz", port: port).text == "ready\n")
            #expect(try await HTTPExchange.get("/readyz", port: port).status == 200)
            rig.health?.shard(0).set(.degraded, reasons: ["upstream gone"])
            #expect(try await HTTPExchange.get("/healthz", port: port).status == 200)
            let degraded = try await HTTPExchange.get("/readyz", port: port)
            #expect(degraded.status == 200 && degraded.text == "degraded: upstream gone\n")
            rig.health?.set(.starting)
            let unready = try await HTTPExchange.get("/readyz", port: port)
            #expect(unready.status == 503 && unready.text == "starting\n")
            #expect(try await HTTPExchange.get("/healthz", port: port).status == 200)
            rig.health?.set(.ready)
            let head = try await HTTPExchange.send("HEAD /metrics HTTP/1.1\r\nHost: t\r\n\r\n", port: port)
            #expect(
                head.status == 200 && head.body.isEmpty && Int(head.header("Content-Length") ?? "") ?? 0 > 0)
            await client.stop()
            rig.signals.deliver(SIGTERM)
            try await run.value
            #expect(throws: (any Error).self) { try HTTPExchange.connect(port: port) }
        }
    }

    @Test("404, 405 with Allow, 400, 505 and 431: each answered and the connection closed, ZeroMQ unaffected")
    func badRequests() async throws {
        try await withTemporaryDirectory { root in
            let rig = try HostRig(root: root, metricsLimits: HTTPResponder.Limits(maximumHeadBytes: 1_024))
            let run = rig.start()
            try await rig.events.wait(for: "serving")
            let port = try rig.metricsPort()
            let client = try rig.client()
            let cases: [(String, Int)] = [
                ("GET /nothing HTTP/1.1\r\nHost: t\r\n\r\n", 404),
                ("DELETE /metrics HTTP/1.1\r\nHost: t\r\n\r\n", 405),
                ("POST /healthz HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello", 405),
                ("GET /metrics HTTP/1.1\r\n\r\n", 400),
                ("\u{16}\u{3}\u{1}\u{2}\u{0}hello", 400),
                ("GET /metrics HTTP/3.0\r\nHost: t\r\n\r\n", 505),
                (
                    "GET /metrics HTTP/1.1\r\nHost: t\r\nX: " + String(repeating: "y", count: 2_000)
                        + "\r\n\r\n", 431
                ),
            ]
            for (request, status) in cases {
                let answer = try await HTTPExchange.send(request, port: port)
                #expect(answer.status == status, "\(request.prefix(40).debugDescription): \(answer.text)")
                #expect(answer.closed, "the connection stayed open")
                if status == 405 { #expect(answer.header("Allow") == "GET, HEAD") }
                #expect(try await client.request(Methods.System.health).value.ready)
            }
            await client.stop()
            rig.signals.deliver(SIGTERM)
            try await run.value
        }
    }

    @Test("a slow client gets 408 at the read deadline; meanwhile ZeroMQ round trips are not delayed")
    func slowClient() async throws {
        try await withTemporaryDirectory { root in
            let rig = try HostRig(
                root: root, metricsLimits: HTTPResponder.Limits(readTimeout: .milliseconds(600)))
            let run = rig.start()
            try await rig.events.wait(for: "serving")
            let port = try rig.metricsPort()
            let client = try rig.client()
            _ = try await client.request(Methods.System.health).value
            let slow = try HTTPExchange.connect(port: port)
            defer { close(slow) }
            try HTTPExchange.write("GET /metr", to: slow)
            let opened = ContinuousClock.now
            // While the head is unfinished, the service answers at its usual pace.
            var slowest = Duration.zero
            while ContinuousClock.now - opened < .milliseconds(400) {
                let start = ContinuousClock.now
                _ = try await client.request(Methods.System.health).value
                slowest = max(slowest, ContinuousClock.now - start)
            }
            #expect(slowest < .milliseconds(200), "a round trip took \(slowest)")
            let answer = try HTTPExchange.read(slow, within: .seconds(5))
            #expect(answer.status == 408 && answer.closed)
            #expect(ContinuousClock.now - opened >= .milliseconds(500))
            await client.stop()
            rig.signals.deliver(SIGTERM)
            try await run.value
        }
    }

    @Test("connections past the bound are refused with 503; the ones within it are still served")
    func connectionCap() async throws {
        try await withTemporaryDirectory { root in
            let rig = try HostRig(
                root: root,
                metricsLimits: HTTPResponder.Limits(maximumConnections: 3, readTimeout: .seconds(20)))
            let run = rig.start()
            try await rig.events.wait(for: "serving")
            let port = try rig.metricsPort()
            let client = try rig.client()
            let idle = try (0..<3).map { _ in try HTTPExchange.connect(port: port) }
            defer { for descriptor in idle { close(descriptor) } }
            // The listener has taken the three in once it counts them as accepted.
            #expect(
                await eventually {
                    (try? await HTTPExchange.get("/metrics", port: port).status) == 503
                })
            let refused = try await HTTPExchange.get("/healthz", port: port)
            #expect(refused.status == 503 && refused.text.contains("too many connections"))
            #expect(try await client.request(Methods.System.health).value.ready)
            // One of the three sends its request: it is answered.
            try HTTPExchange.write("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n", to: idle[0])
            let answer = try HTTPExchange.read(idle[0], within: .seconds(5))
            #expect(answer.status == 200 && answer.text == "ready\n")
            await client.stop()
            rig.signals.deliver(SIGTERM)
            try await run.value
        }
    }

    @Test("a listen address that cannot be bound fails the start with a clear error")
    func bindFailure() async throws {
        try await withTemporaryDirectory { root in
            let holder = try HTTPResponder(listen: ListenAddress(host: "127.0.0.1", port: 0)) { _, respond in
                respond(.text(.ok, "taken"))
            }
            let state = try StateDirectory(creating: root + "/state")
            let log = LogRecorder()
            let host = ServiceHost(
                RecordingService(events: Recorder<String>(), failure: nil, startGate: false),
                settings: .init(
                    name: "test", version: "1", endpoint: try #require(Endpoint("ipc://\(root)/t.sock")),
                    curve: .off,
                    maxStreamsTotal: 10, maxStreamsPerClient: 10, drainTimeout: .seconds(1),
                    metricsListen: holder.address),
                state: state, logger: Logger(service: "test", sink: log.sink),
                signals: ProcessSignals(.manual))
            await #expect(throws: StateError.self) { try await host.run() }
            #expect(
                log.line("cannot start")?.contains("\(holder.address): bind failed: Address already in use")
                    == true)
            #expect(!FileManager.default.fileExists(atPath: state.file("test.pid")))
            #expect(try await HTTPExchange.get("/", port: Int(holder.address.port)).text == "taken\n")
            await holder.stop()
        }
    }
}

extension HostRig {
    /// The metrics listener's port, from the `listening` line.
    func metricsPort() throws -> Int {
        let line = try #require(log.line("listening"))
        let field = try #require(line.split(separator: " ").first { $0.hasPrefix("metrics=") })
        return try #require(Int(field.split(separator: ":").last ?? ""))
    }
}
