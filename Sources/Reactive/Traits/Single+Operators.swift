extension Single {
    /// A single that succeeds with `element` during `subscribe`.
    @inlinable
    public static func just(_ element: Element) -> Single<Element> {
        Single(raw: .just(element))
    }

    /// A single that succeeds with `element` on `scheduler` (see `Observable.just(_:scheduler:)`).
    @inlinable
    public static func just(_ element: Element, scheduler: any ImmediateSchedulerType) -> Single<Element> {
        Single(raw: .just(element, scheduler: scheduler))
    }

    /// A single that fails with `error` during `subscribe`.
    @inlinable
    public static func error(_ error: any Error) -> Single<Element> {
        Single(raw: .error(error))
    }

    /// A single that never finishes.
    @inlinable
    public static func never() -> Single<Element> {
        Single(raw: .never())
    }

    /// A single built anew for each subscriber by `factory`; if `factory` throws, the subscriber
    /// receives the error.
    @inlinable
    public static func deferred(
        _ factory: @escaping @Sendable () throws -> Single<Element>
    ) -> Single<Element> {
        Single(raw: .deferred { try factory().asObservable() })
    }

    /// Transforms the element; if `transform` throws, the single fails with that error.
    @inlinable
    public func map<Result: Sendable>(
        _ transform: @escaping @Sendable (Element) throws -> Result
    ) -> Single<Result> {
        Single<Result>(raw: source.map(transform))
    }

    /// Continues with the single `selector` returns for the element: succeeds or fails with it.
    /// If `selector` throws, fails with that error.
    @inlinable
    public func flatMap<Result: Sendable>(
        _ selector: @escaping @Sendable (Element) throws -> Single<Result>
    ) -> Single<Result> {
        Single<Result>(raw: source.flatMap { try selector($0).asObservable() })
    }

    /// On failure, continues with the single `handler` returns for the error (the failed
    /// subscription is disposed first). If `handler` throws, fails with that error.
    @inlinable
    public func `catch`(
        _ handler: @escaping @Sendable (any Error) throws -> Single<Element>
    ) -> Single<Element> {
        Single(raw: source.catch { try handler($0).asObservable() })
    }

    /// On failure, succeeds with `element` instead.
    @inlinable
    public func catchAndReturn(_ element: Element) -> Single<Element> {
        self.catch { _ in .just(element) }
    }

    /// Runs side effects at points of the single's life, passing its events through unchanged.
    ///
    /// - Parameters:
    ///   - onSuccess: before the element is passed on; if it throws, the single fails instead.
    ///   - afterSuccess: after the element is passed on; if it throws, the error follows.
    ///   - onError: before the error is passed on; if it throws, that error is passed on instead.
    ///   - afterError: after the error is passed on.
    ///   - onSubscribe: before the source is subscribed.
    ///   - onSubscribed: after the source is subscribed.
    ///   - onDispose: once, after the source subscription is disposed, whether because the single
    ///     finished or because the subscriber disposed.
    @inlinable
    public func `do`(
        onSuccess: (@Sendable (Element) throws -> Void)? = nil,
        afterSuccess: (@Sendable (Element) throws -> Void)? = nil,
        onError: (@Sendable (any Error) throws -> Void)? = nil,
        afterError: (@Sendable (any Error) throws -> Void)? = nil,
        onSubscribe: (@Sendable () -> Void)? = nil,
        onSubscribed: (@Sendable () -> Void)? = nil,
        onDispose: (@Sendable () -> Void)? = nil
    ) -> Single<Element> {
        Single(
            raw: source.do(
                onNext: onSuccess, afterNext: afterSuccess, onError: onError, afterError: afterError,
                onSubscribe: onSubscribe, onSubscribed: onSubscribed, onDispose: onDispose))
    }
}

// MARK: Time, retries and scheduling

extension Single {
    /// Fails with `RxError.timeout` if the single has not succeeded or failed within `dueTime`;
    /// the source subscription is disposed then (which is how a request's deadline cancels the
    /// work behind it).
    @inlinable
    public func timeout(_ dueTime: RxTimeInterval, scheduler: any SchedulerType) -> Single<Element> {
        Single(raw: source.timeout(dueTime, scheduler: scheduler))
    }

    /// Continues with `other` if the single has not finished within `dueTime`.
    @inlinable
    public func timeout(
        _ dueTime: RxTimeInterval, other: Single<Element>, scheduler: any SchedulerType
    ) -> Single<Element> {
        Single(raw: source.timeout(dueTime, other: other.source, scheduler: scheduler))
    }

    /// Subscribes again after a failure, up to `maxAttemptCount` attempts in all; the last
    /// failure is passed on.
    @inlinable
    public func retry(_ maxAttemptCount: Int) -> Single<Element> {
        Single(raw: source.retry(maxAttemptCount))
    }

    /// Delivers the outcome on `scheduler`.
    @inlinable
    public func observe(on scheduler: any ImmediateSchedulerType) -> Single<Element> {
        Single(raw: source.observe(on: scheduler))
    }

    /// Subscribes to (and later disposes) the source on `scheduler`.
    @inlinable
    public func subscribe(on scheduler: any ImmediateSchedulerType) -> Single<Element> {
        Single(raw: source.subscribe(on: scheduler))
    }

    /// Delays the outcome by `dueTime` (a failure is delivered at once, as `delay` does).
    @inlinable
    public func delay(_ dueTime: RxTimeInterval, scheduler: any SchedulerType) -> Single<Element> {
        Single(raw: source.delay(dueTime, scheduler: scheduler))
    }
}
