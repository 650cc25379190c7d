extension ObservableType {
    /// Maps each element to an inner sequence with `selector` and merges the elements of all inner
    /// sequences, in the order they arrive.
    ///
    /// ```swift
    /// taps.flatMap { _ in api.send(request) }   // every request runs to its end
    /// ```
    ///
    /// Each inner sequence is subscribed as soon as its element arrives. Completes when the source
    /// and every inner sequence have completed; fails with the first error of the source, of an
    /// inner sequence or of `selector`, disposing the rest. The source subscription is disposed
    /// when the source completes, even while inner sequences go on.
    @inlinable
    public func flatMap<Source: ObservableConvertibleType>(
        _ selector: @escaping @Sendable (Element) throws -> Source
    ) -> Observable<Source.Element> {
        let source = asObservable()
        return Observable(unsafeSubscribe: { downstream in
            let sink = MergeSink<Element, Source.Element>(
                downstream: downstream, maxConcurrent: .max,
                selector: { try selector($0).asObservable() })
            sink.run(source)
            return sink
        })
    }
}
