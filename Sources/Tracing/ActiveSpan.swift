/// A span that has started and not yet ended: what its end needs to record it.
public final class ActiveSpan: Sendable {
    public let context: TraceContext
    public let parentSpanID: UInt64
    public let name: String
    public let kind: SpanKind
    public let startNanos: UInt64
    public let attributes: [(key: String, value: AttributeValue)]
    let tracer: Tracer

    /// Starts a span now.
    public init(
        tracer: Tracer, context: TraceContext, parentSpanID: UInt64, name: String, kind: SpanKind,
        attributes: [(key: String, value: AttributeValue)], startNanos: UInt64 = WallClock.nanos()
    ) {
        self.tracer = tracer
        self.context = context
        self.parentSpanID = parentSpanID
        self.name = name
        self.kind = kind
        self.startNanos = startNanos
        self.attributes = attributes
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

    /// Ends the span now with `status` and `more` attributes, and hands it to the exporter.
    public func end(
        status: SpanStatus = .unset, _ more: [(key: String, value: AttributeValue)] = [],
        endNanos: UInt64 = WallClock.nanos()
    ) {
        tracer.record(
            Span(
                context: context, parentSpanID: parentSpanID, name: name, kind: kind, startNanos: startNanos,
                endNanos: endNanos, attributes: attributes + more, status: status))
    }
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
