import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where exported batches go: an OTLP/HTTP collector, a file of OTLP JSON lines, or both.
public struct ExportTargets: Sendable, Hashable {
    /// `http://HOST:PORT` (the batches are POSTed to `/v1/traces`) or a URL with its own path.
    public var otlpEndpoint: String?
    /// A file each batch is appended to as one line of OTLP JSON.
    public var file: String?

    public init(otlpEndpoint: String? = nil, file: String? = nil) {
        self.otlpEndpoint = otlpEndpoint
        self.file = file
    }

    public var isEmpty: Bool { otlpEndpoint == nil && file == nil }
}

/// The counts an exporter keeps, for the process's metrics.
public struct ExporterCounts: Sendable, Hashable {
    /// Spans handed to the exporter and queued.
    public var queued: UInt64 = 0
    /// Spans dropped because the queue was full.
    public var dropped: UInt64 = 0
    /// Spans written to every target.
    public var exported: UInt64 = 0
    /// Batches a target refused or could not be reached for (their spans are lost).
    public var failedBatches: UInt64 = 0

    public init() {}
}

/// Sends finished spans out in batches from a thread of its own.
///
/// ``submit(_:)`` never waits: it appends to a bounded queue under a short lock and, when the queue
/// is full, drops the span and counts it. The exporter's thread wakes when spans arrive, waits up to
/// the batch delay for more (or until a batch is full), encodes them as one OTLP JSON
/// `ExportTraceServiceRequest` and writes it to each target. A collector that is slow or down delays
/// only that thread; spans that arrive meanwhile queue up to the bound and are then dropped.
public final class SpanExporter: Sendable {
    public struct Configuration: Sendable {
        /// The `service.name` of the resource the spans are reported under.
        public var service: String
        public var targets: ExportTargets
        /// The most spans the queue holds; more are dropped and counted.
        public var queueCapacity: Int
        /// The most spans in one batch.
        public var maxBatch: Int
        /// How long the thread waits for a batch to fill after the first span arrives.
        public var batchDelay: Duration
        /// The time an HTTP export may take (connect, send, answer).
        public var httpTimeout: Duration

        public init(
            service: String, targets: ExportTargets, queueCapacity: Int = 2_048, maxBatch: Int = 512,
            batchDelay: Duration = .milliseconds(200), httpTimeout: Duration = .seconds(2)
        ) {
            self.service = service
            self.targets = targets
            self.queueCapacity = queueCapacity
            self.maxBatch = maxBatch
            self.batchDelay = batchDelay
            self.httpTimeout = httpTimeout
        }
    }

    private struct State {
        var queue: [Span] = []
        var counts = ExporterCounts()
        var stopping = false
    }

    public let configuration: Configuration
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let started: Bool

    /// An exporter for `configuration`; with `startThread` (the default) its thread starts at once.
    /// Without it nothing leaves the queue (tests of the bound).
    public init(_ configuration: Configuration, startThread: Bool = true) {
        self.configuration = configuration
        self.started = startThread
        if startThread {
            let thread = Thread { [self] in run() }
            thread.name = "trace-export"
            thread.start()
        }
    }

    /// Queues a finished span, or drops and counts it when the queue is full. Never waits.
    public func submit(_ span: Span) {
        let signal = state.withLock { state -> Bool in
            guard !state.stopping, state.queue.count < configuration.queueCapacity else {
                state.counts.dropped += 1
                return false
            }
            state.queue.append(span)
            state.counts.queued += 1
            return state.queue.count == 1
        }
        if signal { wake.signal() }
    }

    /// What the exporter has done so far.
    public var counts: ExporterCounts { state.withLock { $0.counts } }

    /// The spans waiting in the queue.
    public var queueLength: Int { state.withLock { $0.queue.count } }

    /// Writes what is queued, then ends the thread. Returns once the last batch is written (or at
    /// once without a thread).
    public func stop() {
        let wasStopping = state.withLock { state -> Bool in
            defer { state.stopping = true }
            return state.stopping
        }
        guard started, !wasStopping else { return }
        wake.signal()
        finished.wait()
    }

    private func run() {
        while true {
            // A signal comes when the queue turns non-empty, and on stop.
            wake.wait()
            // Let a batch gather, unless one is full already or the exporter stops.
            let deadline = DispatchTime.now() + .nanoseconds(Int(configuration.batchDelay.nanoseconds))
            // A signal that comes meanwhile is the stop's, or a stale one from a queue that emptied
            // and refilled while the last batch was written: either way the condition is checked again.
            while !state.withLock({ $0.stopping || $0.queue.count >= configuration.maxBatch }) {
                if wake.wait(timeout: deadline) == .timedOut { break }
            }
            var stopping = false
            while true {
                let batch = state.withLock { state -> [Span] in
                    stopping = state.stopping
                    let count = min(state.queue.count, configuration.maxBatch)
                    defer { state.queue.removeFirst(count) }
                    return Array(state.queue.prefix(count))
                }
                if batch.isEmpty { break }
                write(batch)
            }
            if stopping {
                finished.signal()
                return
            }
        }
    }

    private func write(_ batch: [Span]) {
        let line = OTLPJSON.exportRequest(batch, service: configuration.service)
        var failed = 0
        if let path = configuration.targets.file, !Self.append(line + "\n", to: path) { failed += 1 }
        if let endpoint = configuration.targets.otlpEndpoint,
            !OTLPHTTP.post(Array(line.utf8), to: endpoint, timeout: configuration.httpTimeout)
        {
            failed += 1
        }
        state.withLock { state in
            if failed > 0 { state.counts.failedBatches += UInt64(failed) }
            if failed == 0 { state.counts.exported += UInt64(batch.count) }
        }
    }

    /// Appends `text` to the file at `path` in one write (created if need be).
    static func append(_ text: String, to path: String) -> Bool {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let result = bytes[written...].withUnsafeBytes {
                Glibc.write(descriptor, $0.baseAddress, $0.count)
            }
            if result < 0 {
                if errno == EINTR { continue }
                return false
            }
            written += result
        }
        return true
    }
}

extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
