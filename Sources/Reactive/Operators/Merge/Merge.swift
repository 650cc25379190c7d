// merge: the elements of several sequences, interleaved as they arrive. All forms run on `MergeSink`.

extension ObservableType {
    /// Merges the elements of `sources` into one sequence, in the order they arrive.
    ///
    /// Every source is subscribed at once. Completes when all have completed (at once if there are
    /// none); fails with the first error, disposing the others.
    @inlinable
    public static func merge(_ sources: Observable<Element>...) -> Observable<Element> {
        merge(sources)
    }

    /// Merges the elements of `sources` into one sequence, in the order they arrive.
    ///
    /// Every source is subscribed at once. Completes when all have completed (at once if there are
    /// none); fails with the first error, disposing the others.
    @inlinable
    public static func merge(_ sources: [Observable<Element>]) -> Observable<Element> {
        Observable(unsafeSubscribe: { downstream in
            let sink = MergeSink<Observable<Element>, Element>(
                downstream: downstream, maxConcurrent: .max, selector: { $0 })
            sink.run(sources: sources)
            return sink
        })
    }

    /// Merges the elements of the sequences in `sources` into one sequence, in the order they
    /// arrive.
    ///
    /// Every source is subscribed at once. Completes when all have completed (at once if there are
    /// none); fails with the first error, disposing the others.
    @inlinable
    public static func merge<Collection: Swift.Collection>(_ sources: Collection) -> Observable<Element>
    where Collection.Element == Observable<Element> {
        merge(Array(sources))
    }
}

extension ObservableType where Element: ObservableConvertibleType {
    /// Merges the elements of every inner sequence into one sequence, in the order they arrive.
    ///
    /// Each inner sequence is subscribed as soon as the outer sequence emits it. Completes when the
    /// outer sequence and every inner sequence have completed; fails with the first error of any of
    /// them, disposing the rest. The outer subscription is disposed when the outer sequence
    /// completes, even while inner sequences go on.
    @inlinable
    public func merge() -> Observable<Element.Element> {
        let source = asObservable()
        return Observable(unsafeSubscribe: { downstream in
            let sink = MergeSink<Element, Element.Element>(
                downstream: downstream, maxConcurrent: .max, selector: { $0.asObservable() })
            sink.run(source)
            return sink
        })
    }

    /// Merges the elements of the inner sequences into one sequence, subscribed to at most
    /// `maxConcurrent` at a time.
    ///
    /// An inner sequence emitted while `maxConcurrent` are active waits; when one completes, the
    /// oldest waiting sequence is subscribed in its place. Completes when the outer sequence and
    /// every inner sequence (waiting ones included) have completed; fails with the first error,
    /// disposing the rest. `maxConcurrent` should be positive: as in RxSwift it is not checked, and
    /// with 0 no inner sequence is ever subscribed.
    @inlinable
    public func merge(maxConcurrent: Int) -> Observable<Element.Element> {
        let source = asObservable()
        return Observable(unsafeSubscribe: { downstream in
            let sink = MergeSink<Element, Element.Element>(
                downstream: downstream, maxConcurrent: maxConcurrent, selector: { $0.asObservable() })
            sink.run(source)
            return sink
        })
    }
}
