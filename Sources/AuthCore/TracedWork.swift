import Reactive
import Synchronization
import Tracing

/// Where a call's blocking work records its spans: the trace context and span current on the
/// thread that handled the call (the work itself runs later, on the hashing pool's and the store's
/// threads, where no context is current).
struct TraceParent: Sendable {
    let context: TraceContext?
    let span: ActiveSpan?

    /// The calling thread's.
    static var current: TraceParent { TraceParent(context: Tracing.current, span: Tracing.currentSpan) }
}

extension Single {
    /// The single, timed as a child span `name` of `parent` from its subscription to its end (a
    /// disposal before it ends is `cancelled`), when `parent` is sampled; else the single itself.
    func traced(_ name: String, under parent: TraceParent) -> Single<Element> {
        guard let context = parent.context, context.isSampled, Tracing.tracer != nil else { return self }
        let running = Mutex<ActiveSpan?>(nil)
        return self.do(
            onSuccess: { _ in running.withLock { $0.take() }?.end() },
            onError: { error in running.withLock { $0.take() }?.end(status: .error("\(type(of: error))")) },
            onSubscribe: {
                let span = Tracing.with(context, span: parent.span) { ActiveSpan.childOfCurrent(name) }
                running.withLock { $0 = span }
            },
            onDispose: { running.withLock { $0.take() }?.end(status: .error("cancelled")) })
    }
}
