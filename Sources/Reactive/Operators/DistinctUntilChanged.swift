public import Synchronization

extension ObservableType where Element: Equatable {
    /// Passes on an element only if it differs (`!=`) from the last element passed on.
    ///
    /// The first element always passes. Completes and fails with the source.
    ///
    /// ```swift
    /// username.distinctUntilChanged()   // "a", "a", "ab", "a" -> "a", "ab", "a"
    /// ```
    @inlinable
    public func distinctUntilChanged() -> Observable<Element> {
        distinctUntilChanged({ $0 }, comparer: { $0 == $1 })
    }
}

extension ObservableType {
    /// Passes on an element only if its key, computed by `keySelector`, differs from the key of
    /// the last element passed on.
    ///
    /// The first element always passes. If `keySelector` throws, the error is sent downstream and
    /// the source subscription is disposed.
    @inlinable
    public func distinctUntilChanged<Key: Equatable & Sendable>(
        _ keySelector: @escaping @Sendable (Element) throws -> Key
    ) -> Observable<Element> {
        distinctUntilChanged(keySelector, comparer: { $0 == $1 })
    }

    /// Passes on an element unless `comparer` says it equals the last element passed on.
    ///
    /// `comparer(last, new)` returns true when the two count as equal. The first element always
    /// passes. If `comparer` throws, the error is sent downstream and the source subscription is
    /// disposed.
    @inlinable
    public func distinctUntilChanged(
        _ comparer: @escaping @Sendable (Element, Element) throws -> Bool
    ) -> Observable<Element> {
        distinctUntilChanged({ $0 }, comparer: comparer)
    }

    /// Passes on an element unless `comparer` says its key, computed by `keySelector`, equals the
    /// key of the last element passed on.
    ///
    /// `comparer(lastKey, newKey)` returns true when the keys count as equal. The first element
    /// always passes. If either closure throws, the error is sent downstream and the source
    /// subscription is disposed.
    @inlinable
    public func distinctUntilChanged<Key: Sendable>(
        _ keySelector: @escaping @Sendable (Element) throws -> Key,
        comparer: @escaping @Sendable (Key, Key) throws -> Bool
    ) -> Observable<Element> {
        let source = asObservable()
        return Observable(unsafeSubscribe: { downstream in
            let sink = DistinctUntilChangedSink(
                downstream: downstream, keySelector: keySelector, comparer: comparer)
            sink.upstream.assign(source.subscribe(sink))
            return sink
        })
    }

    /// Passes on an element only if the value at `keyPath` differs from that of the last element
    /// passed on.
    ///
    /// ```swift
    /// users.distinctUntilChanged(at: \.name)
    /// ```
    @inlinable
    public func distinctUntilChanged<Property: Equatable & Sendable>(
        at keyPath: any KeyPath<Element, Property> & Sendable
    ) -> Observable<Element> {
        distinctUntilChanged({ $0[keyPath: keyPath] }, comparer: { $0 == $1 })
    }
}

/// The live state of one `distinctUntilChanged` subscription.
@usableFromInline
final class DistinctUntilChangedSink<Element: Sendable, Key: Sendable>: ObserverType, Cancelable {
    @usableFromInline let downstream: AnyObserver<Element>
    @usableFromInline let keySelector: @Sendable (Element) throws -> Key
    @usableFromInline let comparer: @Sendable (Key, Key) throws -> Bool
    /// The key of the last element passed on; nil before the first.
    @usableFromInline let lastKey: Mutex<Key?>
    @usableFromInline let upstream = SingleAssignmentState()
    @usableFromInline let resource = ResourceToken()

    @inlinable
    init(
        downstream: AnyObserver<Element>,
        keySelector: @escaping @Sendable (Element) throws -> Key,
        comparer: @escaping @Sendable (Key, Key) throws -> Bool
    ) {
        self.downstream = downstream
        self.keySelector = keySelector
        self.comparer = comparer
        lastKey = Mutex(nil)
    }

    @inlinable
    func on(_ event: Event<Element>) {
        guard !upstream.isDisposed else { return }
        switch event {
        case .next(let element):
            let key: Key
            do {
                key = try keySelector(element)
                if let last = lastKey.withLock({ $0 }), try comparer(last, key) { return }
            } catch {
                downstream.on(.error(error))
                upstream.dispose()
                return
            }
            // Recorded before forwarding, so an element fed back reentrantly compares with it.
            lastKey.withLock { $0 = key }
            downstream.on(event)
        case .error, .completed:
            downstream.on(event)
            upstream.dispose()
        }
    }

    @inlinable var isDisposed: Bool { upstream.isDisposed }
    @inlinable func dispose() { upstream.dispose() }
}
