import Synchronization

/// One call a span made to another process, as the caller saw it: what a client that asked for a
/// trace gets back (docs/gateway/protocol.md, "Traces").
public struct Hop: Sendable, Hashable {
    /// The service called (`auth`, `validation`, ...), or the process itself for its own work.
    public var service: String
    /// The shard (replica) of that service the call went to, when known.
    public var shard: Int?
    /// The method called, or the name of the work.
    public var method: String
    /// Nanoseconds from the start of the traced input to the start of the hop.
    public var startOffsetNanos: UInt64
    /// How long the hop took, in nanoseconds.
    public var durationNanos: UInt64
    /// `ok`, `cancelled` or the error code it ended with.
    public var outcome: String
    /// How deep the hop is: 0 for a call made by the process that reports it, 1 for a call made by
    /// the service that call reached, and so on.
    public var depth: Int

    public init(
        service: String, shard: Int?, method: String, startOffsetNanos: UInt64, durationNanos: UInt64,
        outcome: String, depth: Int = 0
    ) {
        self.service = service
        self.shard = shard
        self.method = method
        self.startOffsetNanos = startOffsetNanos
        self.durationNanos = durationNanos
        self.outcome = outcome
        self.depth = depth
    }
}

/// A span that has started and not yet ended: what its end needs to record it.
///
/// A span may be *held* by work it started and that outlives the code that started it (a call to
/// another service): ``hold()`` and ``release()`` count that work, and a span ended with
/// ``endWhenReleased(status:_:)`` ends when the last of it is done. A span ends once; later ends are
/// ignored.
public final class ActiveSpan: Sendable {
    public let context: TraceContext
    public let parentSpanID: UInt64
    public let name: String
    public let kind: SpanKind
    public let startNanos: UInt64
    public let attributes: [(key: String, value: AttributeValue)]
    let tracer: Tracer
    private let state = Mutex(State())
    /// Called once with the finished span and the hops recorded under it.
    private let onEnd: (@Sendable (Span, [Hop]) -> Void)?
    /// Whether the channel elements a server sends in this span, while it is open, carry its trace
    /// id (``TraceSummary/tag(_:traceID:)``): the span of a channel input whose sender asked for
    /// its trace, so that the sender can tell which of its outputs that input caused.
    public let tagsElements: Bool

    private struct State {
        var holds = 0
        var endRequested: (status: SpanStatus, more: [(key: String, value: AttributeValue)])?
        var ended = false
        var hops: [Hop] = []
    }

    /// Starts a span now.
    public init(
        tracer: Tracer, context: TraceContext, parentSpanID: UInt64, name: String, kind: SpanKind,
        attributes: [(key: String, value: AttributeValue)], startNanos: UInt64 = WallClock.nanos(),
        onEnd: (@Sendable (Span, [Hop]) -> Void)? = nil, tagsElements: Bool = false
    ) {
        self.tagsElements = tagsElements
        self.tracer = tracer
        self.context = context
        self.parentSpanID = parentSpanID
        self.name = name
        self.kind = kind
        self.startNanos = startNanos
        self.attributes = attributes
        self.onEnd = onEnd
    }

    /// Starts a child span of `parent`, if `parent` is sampled; else nil.
    public static func child(
        of parent: TraceContext?, tracer: Tracer?, name: String, kind: SpanKind,
        attributes: @autoclosure () -> [(key: String, value: AttributeValue)] = []
    ) -> ActiveSpan? {
        guard let parent, parent.isSampled, let tracer else { return nil }
        return ActiveSpan(
            tracer: tracer, context: parent.child(), parentSpanID: parent.spanID, name: name, kind: kind,
            attributes: attributes())
    }

    /// A child span of the span the current thread works in (``Tracing/current``), if that one is
    /// sampled. When it ends, it is recorded as a hop of this process's span it was started in
    /// (``Tracing/currentSpan``), for a caller that asked for the trace.
    public static func childOfCurrent(
        _ name: String, kind: SpanKind = .internal,
        attributes: @autoclosure () -> [(key: String, value: AttributeValue)] = []
    ) -> ActiveSpan? {
        guard let parent = Tracing.current, parent.isSampled, let tracer = Tracing.tracer else { return nil }
        var onEnd: (@Sendable (Span, [Hop]) -> Void)? = nil
        if let enclosing = Tracing.currentSpan {
            let service = tracer.service
            onEnd = { span, _ in enclosing.record(Self.hop(of: span, in: enclosing, service: service)) }
        }
        return ActiveSpan(
            tracer: tracer, context: parent.child(), parentSpanID: parent.spanID, name: name, kind: kind,
            attributes: attributes(), onEnd: onEnd)
    }

    /// `span`, a piece of work of this process under `enclosing`, as a hop.
    static func hop(of span: Span, in enclosing: ActiveSpan, service: String) -> Hop {
        let start = span.startNanos >= enclosing.startNanos ? span.startNanos - enclosing.startNanos : 0
        let duration = span.endNanos >= span.startNanos ? span.endNanos - span.startNanos : 0
        var outcome = "ok"
        if case .error(let message) = span.status { outcome = message }
        return Hop(
            service: service, shard: nil, method: span.name, startOffsetNanos: start, durationNanos: duration,
            outcome: outcome)
    }

    /// Ends the span now with `status` and `more` attributes, and hands it to the exporter. Returns
    /// the hops recorded under it; nil if it had ended already.
    @discardableResult
    public func end(
        status: SpanStatus = .unset, _ more: [(key: String, value: AttributeValue)] = [],
        endNanos: UInt64 = WallClock.nanos()
    ) -> [Hop]? {
        let hops = state.withLock { state -> [Hop]? in
            guard !state.ended else { return nil }
            state.ended = true
            return state.hops
        }
        guard let hops else { return nil }
        let span = Span(
            context: context, parentSpanID: parentSpanID, name: name, kind: kind, startNanos: startNanos,
            endNanos: endNanos, attributes: attributes + more, status: status)
        tracer.record(span)
        onEnd?(span, hops)
        return hops
    }

    /// Counts one piece of work that must finish before the span ends.
    public func hold() {
        state.withLock { $0.holds += 1 }
    }

    /// The work counted by ``hold()`` is done; the span ends now if its end was asked for and
    /// nothing else holds it.
    public func release() {
        let end = state.withLock { state -> (SpanStatus, [(key: String, value: AttributeValue)])? in
            state.holds = max(0, state.holds - 1)
            guard state.holds == 0, let request = state.endRequested else { return nil }
            return (request.status, request.more)
        }
        if let (status, more) = end { self.end(status: status, more) }
    }

    /// Ends the span once nothing holds it (now, if nothing does).
    public func endWhenReleased(
        status: SpanStatus = .unset, _ more: [(key: String, value: AttributeValue)] = []
    ) {
        let now = state.withLock { state -> Bool in
            guard !state.ended, state.endRequested == nil else { return false }
            state.endRequested = (status, more)
            return state.holds == 0
        }
        if now { end(status: status, more) }
    }

    /// Records a hop made under this span (a client call, or a downstream service's own).
    public func record(_ hop: Hop) {
        state.withLock { state in
            guard !state.ended, state.hops.count < Self.maximumHops else { return }
            state.hops.append(hop)
        }
    }

    /// The most hops one span keeps.
    public static let maximumHops = 64

    /// Whether the span has ended.
    public var hasEnded: Bool { state.withLock { $0.ended } }
}

extension TraceContext {
    /// The context a process passes on for work its sampler did not take: valid ids made once per
    /// process, the sampled flag off, so that the services it calls do not start traces of their own
    /// for it (parent-based sampling).
    public static let unsampled: TraceContext = {
        var context = TraceContext.newTrace(sampled: false)
        context.flags = 0
        return context
    }()
}
