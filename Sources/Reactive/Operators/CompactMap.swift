extension ObservableType {
    /// Transforms each element with `transform` and passes on the non-nil results.
    ///
    /// Completes and fails with the source. If `transform` throws, the error is sent downstream
    /// and the source subscription is disposed.
    ///
    /// ```swift
    /// text.compactMap { Int($0) }   // "1", "x", "3" -> 1, 3
    /// ```
    @inlinable
    public func compactMap<Result: Sendable>(
        _ transform: @escaping @Sendable (Element) throws -> Result?
    ) -> Observable<Result> {
        let source = asObservable()
        return Observable(unsafeSubscribe: { downstream in
            let sink = CompactMapSink(downstream: downstream, transform: transform)
            sink.upstream.assign(source.subscribe(sink))
            return sink
        })
    }
}

/// The live state of one `compactMap` subscription.
@usableFromInline
final class CompactMapSink<Source: Sendable, Result: Sendable>: ObserverType, Cancelable {
    @usableFromInline let downstream: AnyObserver<Result>
    @usableFromInline let transform: @Sendable (Source) throws -> Result?
    @usableFromInline let upstream = SingleAssignmentState()
    @usableFromInline let resource = ResourceToken()

    @inlinable
    init(downstream: AnyObserver<Result>, transform: @escaping @Sendable (Source) throws -> Result?) {
        self.downstream = downstream
        self.transform = transform
    }

    @inlinable
    func on(_ event: Event<Source>) {
        guard !upstream.isDisposed else { return }
        switch event {
        case .next(let element):
            let result: Result?
            do {
                result = try transform(element)
            } catch {
                downstream.on(.error(error))
                upstream.dispose()
                return
            }
            if let result { downstream.on(.next(result)) }
        case .error(let error):
            downstream.on(.error(error))
            upstream.dispose()
        case .completed:
            downstream.on(.completed)
            upstream.dispose()
        }
    }

    @inlinable var isDisposed: Bool { upstream.isDisposed }
    @inlinable func dispose() { upstream.dispose() }
}
