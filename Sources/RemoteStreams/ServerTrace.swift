import RemoteProtocol
import Synchronization
import Tracing

/// The trace of one call a ``RemoteServer`` serves: its server span (when sampled), the context its
/// handler runs in, and whether its caller asked for the hops back (it sent a sampled
/// `traceparent`).
final class ServerTrace: Sendable {
    let span: ActiveSpan?
    /// The context the call's work runs in: the span's, or the caller's unsampled one.
    let context: TraceContext
    /// The caller sent a sampled `traceparent`: a request's answer carries the span's hops.
    let reportsHops: Bool
    /// Bytes of the elements sent so far (streams and channels).
    let responseBytes = Atomic<Int>(0)

    private init(span: ActiveSpan?, context: TraceContext, reportsHops: Bool) {
        self.span = span
        self.context = context
        self.reportsHops = reportsHops
    }

    /// The trace of a call of `method` opened with `body`: a child of the `traceparent` the body
    /// carries, else a new root if the sampler takes it (never for a channel of a server that
    /// traces each input instead). nil with tracing off, or outside any trace when unsampled
    /// contexts are not passed on.
    static func open(
        method: String, model: InteractionModel, body: [UInt8], shard: Int, tracesInputs: Bool
    ) -> ServerTrace? {
        guard let tracer = Tracing.tracer else { return nil }
        let parent = TraceBody.extract(from: body)
        let sampled: Bool
        if let parent {
            sampled = parent.isSampled
        } else if model == .channel && tracesInputs {
            sampled = false
        } else {
            sampled = tracer.sampler.samplesRoot(draw: tracer.draw())
        }
        guard sampled else {
            guard let context = parent ?? (tracer.propagatesUnsampled ? .unsampled : nil) else { return nil }
            return ServerTrace(span: nil, context: context, reportsHops: false)
        }
        let context = parent?.child() ?? TraceContext.newTrace(sampled: true)
        let span = ActiveSpan(
            tracer: tracer, context: context, parentSpanID: parent?.spanID ?? 0, name: method, kind: .server,
            attributes: [
                ("rpc.system", .string("reactive-login")), ("rpc.service", .string(tracer.service)),
                ("rpc.method", .string(method)), ("rpc.model", .string(model.rawValue)),
                ("shard", .int(Int64(shard))), ("request.bytes", .int(Int64(body.count))),
            ])
        return ServerTrace(span: span, context: context, reportsHops: parent != nil)
    }

    /// Runs `body` in the call's context.
    func run<Value, Failure: Error>(_ body: () throws(Failure) -> Value) throws(Failure) -> Value {
        let result = Tracing.with(context, span: span) { () -> Result<Value, Failure> in
            do throws(Failure) {
                return .success(try body())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Ends the span with `outcome` (`ok`, `cancelled` or an error code), once; returns its hops
    /// (nil when it has no span, or ended before).
    @discardableResult
    func end(_ outcome: String, responseBytes: Int? = nil) -> [Hop]? {
        guard let span else { return nil }
        let bytes = responseBytes ?? self.responseBytes.load(ordering: .relaxed)
        let failed = outcome != "ok" && outcome != "cancelled"
        return span.end(
            status: failed ? .error(outcome) : .unset,
            [("outcome", .string(outcome)), ("response.bytes", .int(Int64(bytes)))])
    }

    /// `answer` with the span's hops, when the caller asked for them.
    func answer(_ answer: [UInt8], hops: [Hop]?) -> [UInt8] {
        guard reportsHops, let hops else { return answer }
        return TraceSummary.inject(traceID: context.traceIDHex, hops: hops, into: answer)
    }

    /// The hops reported for a channel input that asked for its trace: first the input's own span
    /// (`service`'s handling of it, depth 0, from 0), then `hops`, the calls made under it and
    /// theirs, one level deeper.
    static func inputHops(_ span: Span, _ hops: [Hop], service: String, shard: Int) -> [Hop] {
        var outcome = "ok"
        if case .error(let message) = span.status { outcome = message }
        let own = Hop(
            service: service, shard: shard, method: span.name, startOffsetNanos: 0,
            durationNanos: span.endNanos >= span.startNanos ? span.endNanos - span.startNanos : 0,
            outcome: outcome)
        return [own]
            + hops.map { hop in
                var deeper = hop
                deeper.depth += 1
                return deeper
            }
    }

    /// The context and span a channel input element runs in: a span of its own when it carries a
    /// sampled `traceparent` (a child of the sender's span), or when the server traces each input
    /// and the sampler takes it (a root); otherwise the channel's own. `report` is called with the
    /// input span's trace id and ``inputHops(_:_:service:shard:)`` when it ends, if the input asked
    /// for its trace.
    static func input(
        _ body: [UInt8], method: String, channel: ServerTrace?, shard: Int, tracesInputs: Bool,
        report: (@Sendable (String, [Hop]) -> Void)?
    ) -> (context: TraceContext?, span: ActiveSpan?, own: Bool) {
        guard let tracer = Tracing.tracer else { return (nil, nil, false) }
        let parent = TraceBody.extract(from: body)
        let sampled: Bool
        if let parent {
            sampled = parent.isSampled
        } else if tracesInputs {
            sampled = tracer.sampler.samplesRoot(draw: tracer.draw())
        } else {
            return (channel?.context, channel?.span, false)
        }
        guard sampled else {
            return (parent ?? (tracer.propagatesUnsampled ? .unsampled : nil), nil, false)
        }
        let context = parent?.child() ?? TraceContext.newTrace(sampled: true)
        let name = TraceBody.string(named: "input", in: body)
        var attributes: [(key: String, value: AttributeValue)] = [
            ("rpc.system", .string("reactive-login")), ("rpc.service", .string(tracer.service)),
            ("rpc.method", .string(method)), ("rpc.model", .string(InteractionModel.channel.rawValue)),
            ("shard", .int(Int64(shard))), ("request.bytes", .int(Int64(body.count))),
        ]
        if let name { attributes.append(("input", .string(name))) }
        let spanName = name.map { "\(method) \($0)" } ?? "\(method) input"
        var onEnd: (@Sendable (Span, [Hop]) -> Void)? = nil
        if parent != nil, let report {
            let service = tracer.service
            onEnd = { span, hops in
                report(span.context.traceIDHex, Self.inputHops(span, hops, service: service, shard: shard))
            }
        }
        let kind: SpanKind = parent != nil ? .consumer : .server
        let span = ActiveSpan(
            tracer: tracer, context: context, parentSpanID: parent?.spanID ?? 0, name: spanName, kind: kind,
            attributes: attributes, onEnd: onEnd, tagsElements: onEnd != nil)
        return (context, span, true)
    }

    /// `body`, a channel element sent now, tagged with the trace id of the input being handled
    /// (``TraceSummary/tag(_:traceID:)``) when that input asked for its trace and its span is still
    /// open; else `body` as it is.
    static func tagged(_ body: [UInt8]) -> [UInt8] {
        guard let span = Tracing.currentSpan, span.tagsElements, !span.hasEnded else { return body }
        return TraceSummary.tag(body, traceID: span.context.traceIDHex)
    }
}
