public import Synchronization

extension ObservableType {
    /// Emits each intermediate result of folding the elements into an accumulator that starts at
    /// `seed` and is updated in place by `accumulator`.
    ///
    /// Every subscription starts again from `seed`. The seed itself is not emitted. Completes and
    /// fails with the source; if `accumulator` throws, the error is sent downstream and the source
    /// subscription is disposed.
    ///
    /// ```swift
    /// keys.scan(into: [String]()) { $0.append($1) }   // "a", "b" -> ["a"], ["a", "b"]
    /// ```
    @inlinable
    public func scan<Accumulate: Sendable>(
        into seed: Accumulate,
        accumulator: @escaping @Sendable (inout Accumulate, Element) throws -> Void
    ) -> Observable<Accumulate> {
        let source = asObservable()
        return Observable(unsafeSubscribe: { downstream in
            let sink = ScanSink(downstream: downstream, seed: seed, accumulator: accumulator)
            sink.upstream.assign(source.subscribe(sink))
            return sink
        })
    }

    /// Emits each intermediate result of folding the elements with `accumulator`, starting from
    /// `seed`.
    ///
    /// Every subscription starts again from `seed`. The seed itself is not emitted. Completes and
    /// fails with the source; if `accumulator` throws, the error is sent downstream and the source
    /// subscription is disposed.
    ///
    /// ```swift
    /// numbers.scan(0, accumulator: +)   // 1, 2, 3 -> 1, 3, 6
    /// ```
    @inlinable
    public func scan<Accumulate: Sendable>(
        _ seed: Accumulate,
        accumulator: @escaping @Sendable (Accumulate, Element) throws -> Accumulate
    ) -> Observable<Accumulate> {
        scan(into: seed) { accumulate, element in
            accumulate = try accumulator(accumulate, element)
        }
    }
}

/// The live state of one `scan` subscription.
@usableFromInline
final class ScanSink<Element: Sendable, Accumulate: Sendable>: ObserverType, Cancelable {
    @usableFromInline let downstream: AnyObserver<Accumulate>
    @usableFromInline let accumulator: @Sendable (inout Accumulate, Element) throws -> Void
    /// The accumulator value; `nil` only while `accumulator` runs on it, so that it is mutated in
    /// place (no copy of an array or dictionary per element) without holding the lock.
    @usableFromInline let accumulate: Mutex<Accumulate?>
    @usableFromInline let upstream = SingleAssignmentState()
    @usableFromInline let resource = ResourceToken()

    @inlinable
    init(
        downstream: AnyObserver<Accumulate>, seed: Accumulate,
        accumulator: @escaping @Sendable (inout Accumulate, Element) throws -> Void
    ) {
        self.downstream = downstream
        self.accumulator = accumulator
        accumulate = Mutex(seed)
    }

    @inlinable
    func on(_ event: Event<Element>) {
        guard !upstream.isDisposed else { return }
        switch event {
        case .next(let element):
            guard var value = accumulate.withLock({ $0.take() }) else {
                preconditionFailure("scan: the accumulator fed its own source reentrantly")
            }
            do {
                try accumulator(&value, element)
            } catch {
                downstream.on(.error(error))
                upstream.dispose()
                return
            }
            accumulate.withLock { $0 = value }
            downstream.on(.next(value))
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
