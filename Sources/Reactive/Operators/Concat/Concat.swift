// concat: the elements of several sequences one after the other. The forms over a list of sources
// run on `ConcatSink`; `concat()` over a sequence of sequences is `merge(maxConcurrent: 1)`, as in
// RxSwift.

extension ObservableType {
    /// Emits the elements of each source in turn, subscribing to the next one only when the previous
    /// one has completed.
    ///
    /// ```swift
    /// Observable.concat(cached, network)
    /// ```
    ///
    /// Completes when the last source completes (at once if there are none); fails with the first
    /// error, without subscribing the sources after it.
    @inlinable
    public static func concat(_ sources: Observable<Element>...) -> Observable<Element> {
        concat(sources)
    }

    /// Emits the elements of each source in turn, subscribing to the next one only when the previous
    /// one has completed.
    ///
    /// Completes when the last source completes (at once if there are none); fails with the first
    /// error, without subscribing the sources after it.
    @inlinable
    public static func concat(_ sources: [Observable<Element>]) -> Observable<Element> {
        Observable(unsafeSubscribe: { downstream in
            let sink = ConcatSink(downstream: downstream, sources: sources)
            sink.moveNext()
            return sink
        })
    }

    /// Emits the elements of each source in `collection` in turn, subscribing to the next one only
    /// when the previous one has completed.
    ///
    /// The collection is copied into an array when `concat` is called. Completes when the last
    /// source completes (at once if there are none); fails with the first error, without
    /// subscribing the sources after it.
    @inlinable
    public static func concat<Collection: Swift.Collection>(_ collection: Collection) -> Observable<Element>
    where Collection.Element == Observable<Element> {
        concat(Array(collection))
    }

    /// Emits the elements of each source in `sequence` in turn, subscribing to the next one only
    /// when the previous one has completed.
    ///
    /// The sequence is read into an array when `concat` is called, so it must be finite.
    /// Completes when the last source completes (at once if there are none); fails with the first
    /// error, without subscribing the sources after it.
    @inlinable
    public static func concat<Sequence: Swift.Sequence>(_ sequence: Sequence) -> Observable<Element>
    where Sequence.Element == Observable<Element> {
        concat(Array(sequence))
    }

    /// Emits the elements of this sequence, then, once it has completed, those of `second`.
    ///
    /// Completes when `second` completes; fails with the first error (an error of this sequence means
    /// `second` is never subscribed).
    @inlinable
    public func concat<Source: ObservableConvertibleType>(_ second: Source) -> Observable<Element>
    where Source.Element == Element {
        Observable.concat([asObservable(), second.asObservable()])
    }
}

extension ObservableType where Element: ObservableConvertibleType {
    /// Emits the elements of each inner sequence in turn: an inner sequence is subscribed only when
    /// the previous one has completed, and waits (in order) until then.
    ///
    /// This is `merge(maxConcurrent: 1)`, as in RxSwift. Completes when the outer sequence and every
    /// inner sequence have completed; fails with the first error, disposing the rest.
    @inlinable
    public func concat() -> Observable<Element.Element> {
        merge(maxConcurrent: 1)
    }
}
