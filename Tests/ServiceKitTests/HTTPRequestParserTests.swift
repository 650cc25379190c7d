import Contracts
import ServiceKit
import Testing

@Suite("HTTPRequestParser: golden, truncated and random heads", .timeLimit(.minutes(1)))
struct HTTPRequestParserTests {
    static let golden = Array(
        "GET /metrics?name[]=x HTTP/1.1\r\nHost: 127.0.0.1:9560\r\nUser-Agent: Prometheus/2.42.0\r\n"
            .utf8) + Array("Accept:  text/plain \r\nX-Empty:\r\n\r\n".utf8)

    @Test("a Prometheus scrape's head: method, target, path, version and fields")
    func golden() throws {
        guard case .complete(let head, let length) = HTTPRequestParser.parse(Self.golden) else {
            Issue.record("not complete: \(HTTPRequestParser.parse(Self.golden))")
            return
        }
        #expect(length == Self.golden.count)
        #expect(head.method == "GET" && head.target == "/metrics?name[]=x" && head.path == "/metrics")
        #expect(head.minorVersion == 1)
        #expect(head.headers.map(\.name) == ["Host", "User-Agent", "Accept", "X-Empty"])
        #expect(head.header("accept") == "text/plain" && head.header("x-empty") == "")
        #expect(head.header("missing") == nil)
    }

    @Test("bytes after the head (a body, another request) are not part of it")
    func trailingBytes() {
        let bytes = Array("HEAD /healthz HTTP/1.0\r\n\r\nGET / HTTP/1.1\r\n".utf8)
        guard case .complete(let head, let length) = HTTPRequestParser.parse(bytes) else {
            Issue.record("not complete")
            return
        }
        #expect(head.method == "HEAD" && head.minorVersion == 0 && length == 26)
    }

    @Test("every proper prefix of a valid head is incomplete, never invalid")
    func truncated() {
        for count in 0..<Self.golden.count {
            #expect(HTTPRequestParser.parse(Array(Self.golden.prefix(count))) == .incomplete, "prefix \(count)")
        }
    }

    @Test(
        "malformed heads are refused with 400 (505 for another version)",
        arguments: [
            ("GET /metrics\r\n\r\n", 400),
            ("GET  /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 400),
            ("G(T /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 400),
            ("GET metrics HTTP/1.1\r\nHost: x\r\n\r\n", 400),
            ("GET http://x/metrics HTTP/1.1\r\nHost: x\r\n\r\n", 400),
            ("GET /metrics HTTP/1.1\nHost: x\n\n", 400),
            ("GET /metrics HTTP/1.1\r\nHost: x\rX\r\n\r\n", 400),
            ("GET /metrics HTTP/1.1\r\n\r\n", 400),
            ("GET /metrics HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
            ("GET /metrics HTTP/1.1\r\nHost : x\r\n\r\n", 400),
            ("GET /metrics HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n", 400),
            ("GET /metrics HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n", 400),
            ("GET /metrics HTTP/1.1\r\nHost: x\u{1}\r\n\r\n", 400),
            ("GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", 400),
            ("GET /metrics HTTP/x.1\r\nHost: x\r\n\r\n", 400),
            ("\r\nGET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 400),
            ("GET /metrics HTTP/2.0\r\nHost: x\r\n\r\n", 505),
            ("GET /metrics HTTP/1.2\r\nHost: x\r\n\r\n", 505),
        ])
    func malformed(text: String, status: Int) {
        guard case .invalid(let got, _) = HTTPRequestParser.parse(Array(text.utf8)) else {
            Issue.record("accepted: \(text.debugDescription)")
            return
        }
        #expect(got.code == status, "\(text.debugDescription)")
    }

    @Test("garbage is refused as soon as its first bytes show it, not at the head limit")
    func garbageEarly() {
        #expect(HTTPRequestParser.parse(Array("\u{16}\u{3}\u{1}".utf8)) != .incomplete)
        #expect(HTTPRequestParser.parse(Array("GET /x HTTP/1.1 extra\r\n".utf8)) != .incomplete)
    }

    @Test("a head over the limit is 431, whether or not its end has come")
    func oversized() {
        let field = "X-Filler: " + String(repeating: "a", count: 200) + "\r\n"
        let head = "GET /metrics HTTP/1.1\r\nHost: x\r\n" + String(repeating: field, count: 50)
        let unfinished = Array(head.utf8)
        guard case .invalid(let status, _) = HTTPRequestParser.parse(unfinished, maximumHeadBytes: 4_096) else {
            Issue.record("not refused")
            return
        }
        #expect(status == .headerFieldsTooLarge)
        let finished = unfinished + Array("\r\n".utf8)
        #expect(HTTPRequestParser.parse(finished, maximumHeadBytes: 4_096) == .invalid(
            .headerFieldsTooLarge, reason: "the request head is over 4096 bytes"))
        guard case .complete = HTTPRequestParser.parse(finished, maximumHeadBytes: finished.count) else {
            Issue.record("a head of exactly the limit is refused")
            return
        }
    }

    @Test("random bytes: never a crash, always the same answer, a head only when it parses back")
    func random() {
        var generator = SplitMix(seed: 0x5EED)
        let alphabet = Array("GET /metrics HTTP/1.1\r\nHost: x:\t ".utf8) + [0, 0x7F, 0xFF, 0x80]
        for round in 0..<5_000 {
            let count = Int(generator.next() % 96)
            let bytes: [UInt8] =
                round.isMultiple(of: 2)
                ? (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
                : (0..<count).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }
            let outcome = HTTPRequestParser.parse(bytes, maximumHeadBytes: 64)
            #expect(outcome == HTTPRequestParser.parse(bytes, maximumHeadBytes: 64))
            if case .complete(let head, let length) = outcome {
                #expect(length <= bytes.count && length <= 64)
                #expect(head.path.hasPrefix("/"))
            }
        }
    }
}

@Suite("MetricsEndpoints: paths, methods and health", .timeLimit(.minutes(1)))
struct MetricsEndpointsTests {
    func head(_ method: String, _ path: String) -> HTTPRequestHead {
        guard case .complete(let head, _) = HTTPRequestParser.parse(Array("\(method) \(path) HTTP/1.0\r\n\r\n".utf8))
        else { preconditionFailure("test head does not parse") }
        return head
    }

    func report(_ status: HealthReport.Status, _ reasons: [String] = []) -> HealthReport {
        HealthReport(service: "test", version: "1", status: status, reasons: reasons)
    }

    @Test(
        "healthz is 200 in every status; readyz is 200 while the service takes work (ready or degraded)",
        arguments: [
            (HealthReport.Status.starting, 200, 503), (.ready, 200, 200), (.degraded, 200, 200), (.draining, 200, 503),
        ])
    func health(status: HealthReport.Status, healthz: Int, readyz: Int) {
        let health = report(status, status == .degraded ? ["auth unreachable"] : [])
        guard case .now(let live) = MetricsEndpoints.answer(head("GET", "/healthz"), health: health),
            case .now(let ready) = MetricsEndpoints.answer(head("HEAD", "/readyz?verbose"), health: health)
        else {
            Issue.record("not answered at once")
            return
        }
        #expect(live.status.code == healthz && ready.status.code == readyz)
        let expected = status == .degraded ? "degraded: auth unreachable\n" : "\(status.rawValue)\n"
        #expect(String(decoding: live.body, as: UTF8.self) == expected)
    }

    @Test("/metrics is collected; unknown paths 404; other methods 405 with Allow")
    func routes() {
        #expect(MetricsEndpoints.answer(head("GET", "/metrics"), health: report(.ready)) == .metrics)
        guard case .now(let missing) = MetricsEndpoints.answer(head("GET", "/metricsx"), health: report(.ready)),
            case .now(let posted) = MetricsEndpoints.answer(head("POST", "/metrics"), health: report(.ready))
        else {
            Issue.record("not answered at once")
            return
        }
        #expect(missing.status == .notFound)
        #expect(posted.status == .methodNotAllowed && posted.headers.contains(HTTPHeader("Allow", "GET, HEAD")))
    }

    @Test("a response: status line, fields, length and close; HEAD keeps the length and drops the body")
    func serialized() {
        let response = HTTPResponse.text(.ok, "ready")
        #expect(
            String(decoding: response.bytes(), as: UTF8.self)
                == "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 6\r\n"
                + "Connection: close\r\n\r\nready\n")
        #expect(String(decoding: response.bytes(includingBody: false), as: UTF8.self).hasSuffix("close\r\n\r\n"))
    }

    @Test("HOST:PORT addresses: IPv4, bracketed IPv6, names; malformed ones refused")
    func addresses() {
        #expect(ListenAddress("127.0.0.1:9560") == ListenAddress(host: "127.0.0.1", port: 9560))
        #expect(ListenAddress("[::1]:0")?.host == "::1" && ListenAddress("[::1]:0")?.description == "[::1]:0")
        #expect(ListenAddress("localhost:80")?.port == 80)
        for bad in ["", ":9560", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "::1:9560", "[]:1", "a b:1", "h:-1", "h:1x"] {
            #expect(ListenAddress(bad) == nil, "\(bad)")
        }
    }
}

/// A small deterministic generator for the random-input test.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
