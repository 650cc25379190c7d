public import Foundation
import Synchronization
import Tracing

#if canImport(Glibc)
    import Glibc
#endif

/// Where log lines go: one call per whole line (without its line break).
public struct LogSink: Sendable {
    private let writeLine: @Sendable (String) -> Void

    /// A sink that hands each line to `write` (tests collect lines this way).
    public init(_ write: @escaping @Sendable (String) -> Void) { writeLine = write }

    /// Writes `line` and a line break.
    public func write(_ line: String) { writeLine(line) }

    /// Standard error: each line and its line break in one locked write, so lines from different
    /// threads never interleave.
    public static let standardError = LogSink { line in
        standardErrorLock.withLock { _ in writeAll(2, Array((line + "\n").utf8)) }
    }

    private static let standardErrorLock = Mutex(())

    /// Writes every byte, retrying short writes and `EINTR`; gives up silently on other errors
    /// (there is nowhere left to report a failing stderr).
    private static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, base + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }
}

/// A structured logger: one line per event, logfmt or JSON lines, with a minimum level, a service
/// name and metadata. A value type: ``with(_:)`` makes a child with more metadata.
///
/// Every line starts with `ts`, `level`, `service` and `msg`, followed by the metadata sorted by
/// key. Values of keys that name secrets (see ``LogValue/isSensitiveKey(_:)``) and ``Redacted``
/// values are written as `<redacted>`.
///
/// ```swift
/// let logger = Logger(service: "auth", level: .info, format: .logfmt)
/// logger.info("listening", ["endpoint": "\(endpoint)"])
/// // ts=2026-11-30T16:40:00.123Z level=info service=auth msg=listening endpoint=tcp://*:5555
/// ```
public struct Logger: Sendable {
    /// The service name written in every line.
    public let service: String
    /// The minimum level written; events below it are dropped before being formatted.
    public var level: LogLevel
    /// The line format.
    public let format: LogFormat
    /// Metadata added to every event of this logger.
    public private(set) var metadata: [String: LogValue]
    private let sink: LogSink
    private let now: @Sendable () -> Date

    /// Makes a logger. `now` is injectable for tests.
    public init(
        service: String, level: LogLevel = .info, format: LogFormat = .logfmt,
        metadata: [String: LogValue] = [:], sink: LogSink = .standardError,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.service = service
        self.level = level
        self.format = format
        self.metadata = metadata
        self.sink = sink
        self.now = now
    }

    /// A logger with `metadata` added to this one's (the new values win).
    public func with(_ metadata: [String: LogValue]) -> Logger {
        var child = self
        child.metadata.merge(metadata) { _, new in new }
        return child
    }

    /// True when events at `level` are written.
    public func isEnabled(_ level: LogLevel) -> Bool { level >= self.level }

    /// Writes one event if `level` is enabled. The message is built only then.
    public func log(
        _ level: LogLevel, _ message: @autoclosure () -> String, _ metadata: [String: LogValue] = [:]
    ) {
        guard isEnabled(level) else { return }
        sink.write(line(level, message(), metadata))
    }

    /// Writes a `trace` event.
    public func trace(_ message: @autoclosure () -> String, _ metadata: [String: LogValue] = [:]) {
        log(.trace, message(), metadata)
    }

    /// Writes a `debug` event.
    public func debug(_ message: @autoclosure () -> String, _ metadata: [String: LogValue] = [:]) {
        log(.debug, message(), metadata)
    }

    /// Writes an `info` event.
    public func info(_ message: @autoclosure () -> String, _ metadata: [String: LogValue] = [:]) {
        log(.info, message(), metadata)
    }

    /// Writes a `notice` event.
    public func notice(_ message: @autoclosure () -> String, _ metadata: [String: LogValue] = [:]) {
        log(.notice, message(), metadata)
    }

    /// Writes a `warning` event.
    public func warning(_ message: @autoclosure () -> String, _ metadata: [String: LogValue] = [:]) {
        log(.warning, message(), metadata)
    }

    /// Writes an `error` event.
    public func error(_ message: @autoclosure () -> String, _ metadata: [String: LogValue] = [:]) {
        log(.error, message(), metadata)
    }

    /// The line for one event (without its line break).
    func line(_ level: LogLevel, _ message: String, _ extra: [String: LogValue]) -> String {
        let merged = metadata.merging(extra) { _, new in new }
        var fields: [(key: String, value: LogValue)] = [
            ("ts", .string(now().formatted(Self.timestampStyle))),
            ("level", .string(level.rawValue)),
            ("service", .string(service)),
            ("msg", .string(message)),
        ]
        // A line logged while the thread handles a traced call joins its trace.
        if let context = Tracing.current, context.isSampled {
            fields.append(("trace_id", .string(context.traceIDHex)))
            fields.append(("span_id", .string(context.spanIDHex)))
        }
        for key in merged.keys.sorted() {
            guard let value = merged[key] else { continue }
            let name = Self.reservedKeys.contains(key) ? "meta_\(key)" : key
            fields.append((name, LogValue.isSensitiveKey(key) ? .redacted : value))
        }
        return LogLine.render(fields, format: format)
    }

    private static let reservedKeys: Set = ["ts", "level", "service", "msg", "trace_id", "span_id"]
    private static let timestampStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
}
