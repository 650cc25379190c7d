// flatMapLatest and switchLatest: only the latest inner sequence counts. Both run on `SwitchSink`.

extension ObservableType {
    /// Maps each element to an inner sequence with `selector` and emits the elements of the latest
    /// inner sequence only.
    ///
    /// ```swift
    /// searchText.flatMapLatest { api.search($0) }   // a new query cancels the previous request
    /// ```
    ///
    /// Each new element first disposes the previous inner subscription, then subscribes the new
    /// inner sequence. Completes when the source has completed and the latest inner sequence has
    /// completed; fails with the first error of the source, of the latest inner sequence or of
    /// `selector`.
    @inlinable
    public func flatMapLatest<Source: ObservableConvertibleType>(
        _ selector: @escaping @Sendable (Element) throws -> Source
    ) -> Observable<Source.Element> {
        let source = asObservable()
        return Observable(unsafeSubscribe: { downstream in
            let sink = SwitchSink<Element, Source.Element>(
                downstream: downstream, selector: { try selector($0).asObservable() })
            sink.run(source)
            return sink
        })
    }
}

extension ObservableType where Element: ObservableConvertibleType {
    /// Emits the elements of the latest inner sequence only.
    ///
    /// Each new inner sequence first disposes the previous inner subscription, then is subscribed.
    /// Completes when the outer sequence has completed and the latest inner sequence has completed;
    /// fails with the first error of the outer sequence or of the latest inner sequence.
    @inlinable
    public func switchLatest() -> Observable<Element.Element> {
        let source = asObservable()
        return Observable(unsafeSubscribe: { downstream in
            let sink = SwitchSink<Element, Element.Element>(
                downstream: downstream, selector: { $0.asObservable() })
            sink.run(source)
            return sink
        })
    }
}
