extension Observable {
    /// A sequence with no elements that completes during `subscribe`.
    @inlinable
    public static func empty() -> Observable<Element> {
        Observable(unsafeSubscribe: { downstream in
            downstream.on(.completed)
            return Disposables.create()
        })
    }

    /// A sequence that never sends anything, not even a terminal event. Useful as a placeholder
    /// (for example `timeout(_:other:scheduler:)` that should stay silent) and in tests.
    @inlinable
    public static func never() -> Observable<Element> {
        Observable(unsafeSubscribe: { _ in Disposables.create() })
    }

    /// A sequence with no elements that fails with `error` during `subscribe`.
    @inlinable
    public static func error(_ error: any Error) -> Observable<Element> {
        Observable(unsafeSubscribe: { downstream in
            downstream.on(.error(error))
            return Disposables.create()
        })
    }
}
