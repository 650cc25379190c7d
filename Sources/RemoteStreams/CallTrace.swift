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
