import Synchronization

extension Observable {
    /// Creates an observable from a subscribe function.
    ///
    /// `subscribe` runs once per subscription with an observer to send events to, and returns a
    /// disposable that stops the work. Events after the first terminal event are ignored, and the
    /// returned disposable is disposed after a terminal event or when the subscriber disposes.
    ///
    /// ```swift
    /// let numbers = Observable<Int>.create { observer in
    ///     observer.onNext(1)
    ///     observer.onCompleted()
    ///     return Disposables.create()
    /// }
    /// ```
    @inlinable
    public static func create(
        _ subscribe: @escaping @Sendable (AnyObserver<Element>) -> any Disposable
    ) -> Observable<Element> {
        Observable(unsafeSubscribe: { downstream in
            let sink = CreateSink(downstream: downstream)
            sink.upstream.assign(subscribe(AnyObserver(sink)))
            return sink
        })
    }
}

/// Stands between a `create` closure and its subscriber: keeps the grammar and stops delivering
/// once disposed.
@usableFromInline
final class CreateSink<Element: Sendable>: ObserverType, Cancelable {
    @usableFromInline let downstream: AnyObserver<Element>
    @usableFromInline let grammar = GrammarCheck()
    @usableFromInline let upstream = SingleAssignmentState()
    @usableFromInline let resource = ResourceToken()

    @inlinable
    init(downstream: AnyObserver<Element>) {
        self.downstream = downstream
    }

    @inlinable
    func on(_ event: Event<Element>) {
        let entry = grammar.begin(event, postTerminal: .drop)
        if case .drop = entry { return }
        defer { grammar.end(entry) }
        guard !upstream.isDisposed else { return }
        downstream.on(event)
        if event.isStopEvent { upstream.dispose() }
    }

    @inlinable var isDisposed: Bool { upstream.isDisposed }
    @inlinable func dispose() { upstream.dispose() }
}
