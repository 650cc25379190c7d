import Foundation
import ServiceKit
import Synchronization
import Testing
import Tracing

/// Collects the lines a logger writes.
private final class Lines: Sendable {
    private let lines = Mutex<[String]>([])
    var sink: LogSink { LogSink { line in self.lines.withLock { $0.append(line) } } }
    var all: [String] { lines.withLock { $0 } }
}

private func logger(_ lines: Lines, format: LogFormat = .logfmt, level: LogLevel = .info) -> Logger {
    Logger(
        service: "auth", level: level, format: format, sink: lines.sink,
        now: { Date(timeIntervalSince1970: 1_764_520_800.25) })
}

@Suite("Logger", .timeLimit(.minutes(1)))
struct LoggerTests {
    @Test("logfmt: fixed fields first, then metadata sorted by key")
    func logfmt() {
        let lines = Lines()
        logger(lines).with(["request": 7]).info("user logged in", ["user": "alice", "ok": true, "ms": 1.5])
        #expect(
            lines.all == [
                "ts=2025-11-30T16:40:00.250Z level=info service=auth msg=\"user logged in\" ms=1.5 ok=true "
                    + "request=7 user=alice"
            ])
    }

    @Test("a line logged while handling a sampled call carries its trace_id and span_id; unsampled, none")
    func traceIDs() throws {
        let lines = Lines()
        let log = logger(lines)
        let sampled = try #require(
            TraceContext(traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"))
        let unsampled = try #require(
            TraceContext(traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"))
        Tracing.with(sampled) { log.info("traced", ["trace_id": "mine"]) }
        Tracing.with(unsampled) { log.info("unsampled") }
        log.info("outside")
        #expect(
            lines.all == [
                "ts=2025-11-30T16:40:00.250Z level=info service=auth msg=traced "
                    + "trace_id=4bf92f3577b34da6a3ce929d0e0e4736 span_id=00f067aa0ba902b7 meta_trace_id=mine",
                "ts=2025-11-30T16:40:00.250Z level=info service=auth msg=unsampled",
                "ts=2025-11-30T16:40:00.250Z level=info service=auth msg=outside",
            ])
        let json = Lines()
        Tracing.with(sampled) { logger(json, format: .json).warning("slow") }
        #expect(
            json.all == [
                #"{"ts":"2025-11-30T16:40:00.250Z","level":"warning","service":"auth","msg":"slow","#
                    + #""trace_id":"4bf92f3577b34da6a3ce929d0e0e4736","span_id":"00f067aa0ba902b7"}"#
            ])
    }

    @Test("JSON lines carry the same fields with JSON types")
    func json() throws {
        let lines = Lines()
        logger(lines, format: .json).warning("slow", ["ms": 12, "peer": "a\"b"])
        let line = try #require(lines.all.first)
        let expected =
            #"{"ts":"2025-11-30T16:40:00.250Z","level":"warning","service":"auth","#
            + #""msg":"slow","ms":12,"peer":"a\"b"}"#
        #expect(line == expected)
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect(object?["peer"] as? String == "a\"b")
    }

    @Test("events below the level are dropped without building the message")
    func levels() {
        let lines = Lines()
        let log = logger(lines, level: .notice)
        log.info(
            { () -> String in
                Issue.record("message built for a disabled level")
                return "x"
            }())
        log.debug("no")
        log.notice("yes")
        log.error("yes")
        #expect(lines.all.count == 2)
        #expect(LogLevel.trace < .debug && LogLevel.warning < .error)
    }

    @Test("secrets never reach a line: Redacted values and secret-named keys")
    func redaction() throws {
        let lines = Lines()
        let password = Redacted("hunter2")
        let log = logger(lines)
        log.info(
            "login \(password)",
            [
                "password": "hunter2", "user_token": "abc", "api_key": 5, "clientSecret": "s",
                "Authorization": "Bearer x", "given": LogValue(password),
            ])
        logger(lines, format: .json).info("x", ["token": "abc"])
        let text = lines.all.joined(separator: "\n")
        for secret in ["hunter2", "abc", "Bearer", "=5", "=s "] {
            #expect(!text.contains(secret), "\(secret)")
        }
        #expect(text.contains("msg=\"login <redacted>\""))
        #expect(text.contains("password=<redacted>"))
        #expect(text.contains("given=<redacted>"))
        #expect(text.contains(#""token":"<redacted>""#))
        #expect("\(password)" == "<redacted>" && String(reflecting: password) == "<redacted>")
        var dumped = ""
        dump(password, to: &dumped)
        #expect(!dumped.contains("hunter2"))
        #expect(password.value == "hunter2")
    }

    @Test("quotes, newlines and control characters are escaped: one event is one line")
    func escaping() throws {
        let lines = Lines()
        let nasty = "a \"b\"\nlevel=error\r\t\u{1}\u{7F}\u{2028}\\ é"
        logger(lines).info(nasty, ["x y=": "", "v": .string(nasty)])
        logger(lines, format: .json).info(nasty, ["v": .string(nasty), "n": .double(.nan)])
        #expect(lines.all.count == 2)
        for line in lines.all {
            #expect(
                !line.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || $0.value == 0x2028 })
        }
        let logfmt = lines.all[0]
        #expect(logfmt.contains(#"msg="a \"b\"\nlevel=error\r\t\u0001\u007f\u2028\\ é""#))
        #expect(logfmt.contains(#"x_y_="""#))
        let object = try JSONSerialization.jsonObject(with: Data(lines.all[1].utf8)) as? [String: Any]
        #expect(object?["msg"] as? String == nasty)
        #expect(object?["v"] as? String == nasty)
        #expect(object?["n"] as? String == "nan")
    }

    @Test("metadata cannot overwrite the fixed fields")
    func reservedKeys() {
        let lines = Lines()
        logger(lines).info("real", ["msg": "fake", "level": "error"])
        #expect(lines.all.first?.hasSuffix("msg=real meta_level=error meta_msg=fake") == true)
    }

    @Test("lines written from many threads stay whole")
    func concurrentWrites() async {
        let lines = Lines()
        let log = logger(lines)
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<50 { log.info("event", ["task": .integer(task), "i": .integer(index)]) }
                }
            }
        }
        #expect(lines.all.count == 400)
        #expect(lines.all.allSatisfy { $0.hasPrefix("ts=") && $0.contains("msg=event") })
    }
}
