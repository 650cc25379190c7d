// combineLatest: whenever any source emits, once every source has emitted, combine the latest element
// of each. Every arity and the collection form run on one sink, `CombineLatestSink`.
//
// Completion follows RxSwift: the result completes when every source has completed, or when a source
// emits while every other source has already completed (if one of those completed without ever
// emitting, no combination can ever be produced). An error from any source, or from the result
// selector, fails the result at once. A completed source's subscription is disposed when it completes.

extension ObservableType {
    /// Combines the latest elements of two sources with `resultSelector` whenever either emits, once
    /// both have emitted.
    ///
    /// ```swift
    /// Observable.combineLatest(phoneValid, passwordValid) { $0 && $1 }
    /// ```
    ///
    /// Completes when both sources have completed, or when one emits after the other completed
    /// without ever emitting. Fails with the first error of a source or of `resultSelector`.
    @inlinable
    public static func combineLatest<Source1: ObservableConvertibleType, Source2: ObservableConvertibleType>(
        _ source1: Source1, _ source2: Source2,
        resultSelector: @escaping @Sendable (Source1.Element, Source2.Element) throws -> Element
    ) -> Observable<Element> {
        let first = source1.asObservable()
        let second = source2.asObservable()
        return Observable(unsafeSubscribe: { downstream in
            let sink = CombineLatestSink<(Source1.Element?, Source2.Element?), Element>(
                downstream: downstream, values: (nil, nil), arity: 2,
                select: { values in
                    guard let a = values.0, let b = values.1 else { return nil }
                    return try resultSelector(a, b)
                })
            sink.subscribe(first, at: 0) { values, element in values.0 = element }
            sink.subscribe(second, at: 1) { values, element in values.1 = element }
            return sink
        })
    }

    /// Combines the latest elements of three sources with `resultSelector` whenever any emits, once
    /// all have emitted.
    ///
    /// Completes when every source has completed, or when one emits while all the others have
    /// completed. Fails with the first error of a source or of `resultSelector`.
    @inlinable
    public static func combineLatest<
        Source1: ObservableConvertibleType, Source2: ObservableConvertibleType,
        Source3: ObservableConvertibleType
    >(
        _ source1: Source1, _ source2: Source2, _ source3: Source3,
        resultSelector:
            @escaping @Sendable (Source1.Element, Source2.Element, Source3.Element) throws -> Element
    ) -> Observable<Element> {
        let first = source1.asObservable()
        let second = source2.asObservable()
        let third = source3.asObservable()
        return Observable(unsafeSubscribe: { downstream in
            let sink = CombineLatestSink<(Source1.Element?, Source2.Element?, Source3.Element?), Element>(
                downstream: downstream, values: (nil, nil, nil), arity: 3,
                select: { values in
                    guard let a = values.0, let b = values.1, let c = values.2 else { return nil }
                    return try resultSelector(a, b, c)
                })
            sink.subscribe(first, at: 0) { values, element in values.0 = element }
            sink.subscribe(second, at: 1) { values, element in values.1 = element }
            sink.subscribe(third, at: 2) { values, element in values.2 = element }
            return sink
        })
    }

    /// Combines the latest elements of four sources with `resultSelector` whenever any emits, once
    /// all have emitted.
    ///
    /// Completes when every source has completed, or when one emits while all the others have
    /// completed. Fails with the first error of a source or of `resultSelector`.
    @inlinable
    public static func combineLatest<
        Source1: ObservableConvertibleType, Source2: ObservableConvertibleType,
        Source3: ObservableConvertibleType, Source4: ObservableConvertibleType
    >(
        _ source1: Source1, _ source2: Source2, _ source3: Source3, _ source4: Source4,
        resultSelector:
            @escaping @Sendable (Source1.Element, Source2.Element, Source3.Element, Source4.Element) throws
            -> Element
    ) -> Observable<Element> {
        let first = source1.asObservable()
        let second = source2.asObservable()
        let third = source3.asObservable()
        let fourth = source4.asObservable()
        typealias Values = (Source1.Element?, Source2.Element?, Source3.Element?, Source4.Element?)
        return Observable(unsafeSubscribe: { downstream in
            let sink = CombineLatestSink<Values, Element>(
                downstream: downstream, values: (nil, nil, nil, nil), arity: 4,
                select: { values in
                    guard let a = values.0, let b = values.1, let c = values.2, let d = values.3 else {
                        return nil
                    }
                    return try resultSelector(a, b, c, d)
                })
            sink.subscribe(first, at: 0) { values, element in values.0 = element }
            sink.subscribe(second, at: 1) { values, element in values.1 = element }
            sink.subscribe(third, at: 2) { values, element in values.2 = element }
            sink.subscribe(fourth, at: 3) { values, element in values.3 = element }
            return sink
        })
    }

    /// Combines the latest elements of every source in `collection` with `resultSelector` whenever
    /// any emits, once all have emitted; the array holds one element per source, in collection order.
    ///
    /// Completes when every source has completed, or when one emits while all the others have
    /// completed. Fails with the first error of a source or of `resultSelector`. An empty collection
    /// emits `resultSelector([])` and completes at once, as in RxSwift 6.
    @inlinable
    public static func combineLatest<Collection: Swift.Collection>(
        _ collection: Collection,
        resultSelector: @escaping @Sendable ([Collection.Element.Element]) throws -> Element
    ) -> Observable<Element> where Collection.Element: ObservableConvertibleType {
        let sources = collection.map { $0.asObservable() }
        return Observable(unsafeSubscribe: { downstream in
            let sink = CombineLatestSink<[Collection.Element.Element?], Element>(
                downstream: downstream, values: Array(repeating: nil, count: sources.count),
                arity: sources.count,
                select: { values in
                    let present = values.compactMap { $0 }
                    guard present.count == values.count else { return nil }
                    return try resultSelector(present)
                })
            for (index, source) in sources.enumerated() {
                sink.subscribe(source, at: index) { values, element in values[index] = element }
            }
            sink.finishSubscribing()
            return sink
        })
    }

    /// Combines the latest elements of every source in `collection` into an array whenever any
    /// emits, once all have emitted.
    ///
    /// Completes when every source has completed, or when one emits while all the others have
    /// completed. Fails with the first error of a source. An empty collection emits `[]` and
    /// completes at once, as in RxSwift 6.
    @inlinable
    public static func combineLatest<Collection: Swift.Collection>(
        _ collection: Collection
    ) -> Observable<[Element]>
    where Collection.Element: ObservableConvertibleType, Collection.Element.Element == Element {
        Observable<[Element]>.combineLatest(collection) { $0 }
    }
}

// The tuple forms. As in RxSwift (which constrains `Element == Any`), the constraint only lets
// `Observable.combineLatest(a, b)` be written without naming the element type; `Any` is not
// `Sendable`, so `any Sendable` stands in for it.
extension ObservableType where Element == any Sendable {
    /// Combines the latest elements of two sources into a tuple whenever either emits, once both
    /// have emitted. Completion and errors as in ``ObservableType/combineLatest(_:_:resultSelector:)``.
    @inlinable
    public static func combineLatest<Source1: ObservableConvertibleType, Source2: ObservableConvertibleType>(
        _ source1: Source1, _ source2: Source2
    ) -> Observable<(Source1.Element, Source2.Element)> {
        Observable<(Source1.Element, Source2.Element)>.combineLatest(source1, source2) { ($0, $1) }
    }

    /// Combines the latest elements of three sources into a tuple whenever any emits, once all have
    /// emitted. Completion and errors as in ``ObservableType/combineLatest(_:_:_:resultSelector:)``.
    @inlinable
    public static func combineLatest<
        Source1: ObservableConvertibleType, Source2: ObservableConvertibleType,
        Source3: ObservableConvertibleType
    >(
        _ source1: Source1, _ source2: Source2, _ source3: Source3
    ) -> Observable<(Source1.Element, Source2.Element, Source3.Element)> {
        Observable<(Source1.Element, Source2.Element, Source3.Element)>.combineLatest(
            source1, source2, source3
        ) { ($0, $1, $2) }
    }

    /// Combines the latest elements of four sources into a tuple whenever any emits, once all have
    /// emitted. Completion and errors as in ``ObservableType/combineLatest(_:_:_:_:resultSelector:)``.
    @inlinable
    public static func combineLatest<
        Source1: ObservableConvertibleType, Source2: ObservableConvertibleType,
        Source3: ObservableConvertibleType, Source4: ObservableConvertibleType
    >(
        _ source1: Source1, _ source2: Source2, _ source3: Source3, _ source4: Source4
    ) -> Observable<(Source1.Element, Source2.Element, Source3.Element, Source4.Element)> {
        Observable<(Source1.Element, Source2.Element, Source3.Element, Source4.Element)>.combineLatest(
            source1, source2, source3, source4
        ) { ($0, $1, $2, $3) }
    }
}
