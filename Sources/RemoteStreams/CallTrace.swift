import RemoteProtocol
import Synchronization
import Tracing

/// The trace of one call a ``RemoteClient`` makes: its client span (when the caller's trace is
/// sampled), the caller's context its answers are delivered in, and the caller's span, which the
/// call holds open and records its hop in.
final class CallTrace: Sendable {
    let span: ActiveSpan?
    let parentContext: TraceContext?
    let parentSpan: ActiveSpan?
    let service: String
    let method: String
    private let shardValue = Atomic<Int>(0)
    private let released = Atomic<Bool>(false)

    private init(
        span: ActiveSpan?, parentContext: TraceContext?, parentSpan: ActiveSpan?, service: String,
        method: String
    ) {
        self.span = span
        self.parentContext = parentContext
        self.parentSpan = parentSpan
        self.service = service
        self.method = method
    }

    /// The shard the call went to.
    var shard: Int {
        get { shardValue.load(ordering: .relaxed) }
        set { shardValue.store(newValue, ordering: .relaxed) }
    }

    /// The trace of a call made now, on the calling thread: nil outside any trace (or with tracing
    /// off), so an untraced call costs one atomic load.
    static func start(method: String, model: FrameType, service: String) -> CallTrace? {
        guard let tracer = Tracing.tracer, let current = Tracing.current else { return nil }
        let parentSpan = Tracing.currentSpan
        guard current.isSampled else {
            guard tracer.propagatesUnsampled else { return nil }
            return CallTrace(
                span: nil, parentContext: current, parentSpan: nil, service: service, method: method)
        }
        let modelName: String
        switch model {
        case .subscribe: modelName = InteractionModel.stream.rawValue
        case .open: modelName = InteractionModel.channel.rawValue
        default: modelName = InteractionModel.request.rawValue
        }
        let span = ActiveSpan(
            tracer: tracer, context: current.child(), parentSpanID: current.spanID, name: method,
            kind: .client,
            attributes: [
                ("rpc.system", .string("reactive-login")), ("rpc.service", .string(service)),
                ("rpc.method", .string(method)), ("rpc.model", .string(modelName)),
            ])
        parentSpan?.hold()
        return CallTrace(
            span: span, parentContext: current, parentSpan: parentSpan, service: service, method: method)
    }

    /// Ends the client span with `outcome` (`ok`, `cancelled` or an error code) and records the hop,
    /// and those the server returned in `answer`, in the caller's span.
    func finish(outcome: String, answer: [UInt8]?) {
        guard let span else { return }
        let end = WallClock.nanos()
        let shard = self.shard
        var more: [(key: String, value: AttributeValue)] = [
            ("outcome", .string(outcome)), ("shard", .int(Int64(shard))),
        ]
        if let answer { more.append(("response.bytes", .int(Int64(answer.count)))) }
        let failed = outcome != "ok" && outcome != "cancelled"
        guard span.end(status: failed ? .error(outcome) : .unset, more, endNanos: end) != nil,
            let parentSpan
        else { return }
        let offset = span.startNanos >= parentSpan.startNanos ? span.startNanos - parentSpan.startNanos : 0
        parentSpan.record(
            Hop(
                service: service, shard: shard, method: method, startOffsetNanos: offset,
                durationNanos: end >= span.startNanos ? end - span.startNanos : 0, outcome: outcome))
        if let answer, let nested = TraceSummary.hops(in: answer) {
            for var hop in nested {
                hop.depth += 1
                hop.startOffsetNanos &+= offset
                parentSpan.record(hop)
            }
        }
    }

    /// Runs `body` (a delivery of the call's frames) in the caller's context.
    func deliver(_ body: () -> Void) {
        Tracing.with(parentContext, span: parentSpan, body)
    }

    /// The call is over: lets the caller's span end (once).
    func release() {
        guard span != nil, !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        parentSpan?.release()
    }

    /// A channel input sent now: `element` with the current trace context, inside a trace.
    static func injectCurrent(into element: [UInt8]) -> [UInt8] {
        guard let tracer = Tracing.tracer, let current = Tracing.current,
            current.isSampled || tracer.propagatesUnsampled
        else { return element }
        return TraceBody.inject(current, into: element)
    }
}

/// The inputs a channel call sent inside a sampled trace, each holding the span it was sent from
/// until the server reports what handling it took (an element whose only member is `trace`,
/// ``TraceSummary/report(in:)``): its hops are then recorded in that span, so the caller's trace
/// shows the work a channel input caused downstream. Spans still waiting when the call is over are
/// let go.
final class InputTraces: Sendable {
    private struct Waiting: Sendable {
        let span: ActiveSpan
        let sentNanos: UInt64
    }

    private let waiting = Mutex<[String: Waiting]>([:])
    /// Whether an input went out in a sampled trace: only then can an element be a report.
    private let traced = Atomic<Bool>(false)

    init() {}

    deinit {
        for entry in waiting.withLock({ $0.values }) { entry.span.release() }
    }

    /// `element` as sent now: with the current trace context inside a trace; in a sampled one,
    /// the sender's span waits for the element's report.
    func send(_ element: [UInt8]) -> [UInt8] {
        let body = CallTrace.injectCurrent(into: element)
        guard let current = Tracing.current, current.isSampled, let span = Tracing.currentSpan else {
            return body
        }
        span.hold()
        let replaced = waiting.withLock { waiting in
            waiting.updateValue(Waiting(span: span, sentNanos: WallClock.nanos()), forKey: current.traceIDHex)
        }
        replaced?.span.release()
        traced.store(true, ordering: .relaxed)
        return body
    }

    /// The span that sent the input `body` was caused by, when `body` is an element tagged with the
    /// trace id of an input still waiting for its report (``TraceSummary/taggedTraceID(in:)``):
    /// the element is delivered in that span, so that what the caller makes of it is part of the
    /// input's trace.
    func sender(of body: [UInt8]) -> ActiveSpan? {
        guard traced.load(ordering: .relaxed), let traceID = TraceSummary.taggedTraceID(in: body) else {
            return nil
        }
        return waiting.withLock { $0[traceID]?.span }
    }

    /// Whether `body`, an element of the call, is the report of an input sent in a trace; its hops
    /// then go to the span that sent the input (their starts moved to that span's clock), which is
    /// let go, and the element is not the caller's.
    func consume(_ body: [UInt8]) -> Bool {
        guard traced.load(ordering: .relaxed), let report = TraceSummary.report(in: body) else {
            return false
        }
        guard let entry = waiting.withLock({ $0.removeValue(forKey: report.traceID) }) else { return true }
        let offset = entry.sentNanos >= entry.span.startNanos ? entry.sentNanos - entry.span.startNanos : 0
        for var hop in report.hops {
            hop.startOffsetNanos &+= offset
            entry.span.record(hop)
        }
        entry.span.release()
        return true
    }
}
