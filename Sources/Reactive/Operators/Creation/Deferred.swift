extension Observable {
    /// A sequence built anew for each subscriber: `factory` runs on every `subscribe` and the
    /// subscriber is subscribed to the sequence it returns.
    ///
    /// If `factory` throws, the subscriber receives the error at once.
    ///
    /// ```swift
    /// let now = Observable.deferred { Observable.just(Date()) }   // the time of each subscription
    /// ```
    @inlinable
    public static func deferred(
        _ factory: @escaping @Sendable () throws -> Observable<Element>
    ) -> Observable<Element> {
        Observable(unsafeSubscribe: { downstream in
            let sink = DeferredSink(downstream: downstream)
            do {
                let source = try factory()
                sink.upstream.assign(source.subscribe(sink))
            } catch {
                sink.on(.error(error))
            }
            return sink
        })
    }
}

/// The live state of one `deferred` subscription: forwards the built sequence and disposes it after
/// its terminal event.
@usableFromInline
final class DeferredSink<Element: Sendable>: ObserverType, Cancelable {
    @usableFromInline let downstream: AnyObserver<Element>
    @usableFromInline let upstream = SingleAssignmentState()
    @usableFromInline let resource = ResourceToken()

    @inlinable
    init(downstream: AnyObserver<Element>) {
        self.downstream = downstream
    }

    @inlinable
    func on(_ event: Event<Element>) {
        guard !upstream.isDisposed else { return }
        downstream.on(event)
        if event.isStopEvent { upstream.dispose() }
    }

    @inlinable var isDisposed: Bool { upstream.isDisposed }
    @inlinable func dispose() { upstream.dispose() }
}
