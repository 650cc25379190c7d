extension ObservableType {
    /// Passes on only the elements for which `predicate` returns true.
    ///
    /// Completes and fails with the source. If `predicate` throws, the error is sent downstream and
    /// the source subscription is disposed.
    @inlinable
    public func filter(
        _ predicate: @escaping @Sendable (Element) throws -> Bool
    ) -> Observable<Element> {
        let source = asObservable()
        return Observable(unsafeSubscribe: { downstream in
            let sink = FilterSink(downstream: downstream, predicate: predicate)
            sink.upstream.assign(source.subscribe(sink))
            return sink
        })
    }
}

/// The live state of one `filter` subscription.
@usableFromInline
final class FilterSink<Element: Sendable>: ObserverType, Cancelable {
    @usableFromInline let downstream: AnyObserver<Element>
    @usableFromInline let predicate: @Sendable (Element) throws -> Bool
    @usableFromInline let upstream = SingleAssignmentState()
    @usableFromInline let resource = ResourceToken()

    @inlinable
    init(downstream: AnyObserver<Element>, predicate: @escaping @Sendable (Element) throws -> Bool) {
        self.downstream = downstream
        self.predicate = predicate
    }

    @inlinable
    func on(_ event: Event<Element>) {
        guard !upstream.isDisposed else { return }
        switch event {
        case .next(let element):
            let passes: Bool
            do {
                passes = try predicate(element)
            } catch {
                downstream.on(.error(error))
                upstream.dispose()
                return
            }
            if passes { downstream.on(.next(element)) }
        case .error, .completed:
            downstream.on(event)
            upstream.dispose()
        }
    }

    @inlinable var isDisposed: Bool { upstream.isDisposed }
    @inlinable func dispose() { upstream.dispose() }
}
