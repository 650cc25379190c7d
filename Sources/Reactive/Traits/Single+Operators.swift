public import Synchronization

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
        let source = self.source
        return Single<Result>(
            raw: Observable(unsafeSubscribe: { downstream in
                let sink = SingleFlatMapSink(downstream: downstream, selector: selector)
                sink.outer.assign(source.subscribe(sink))
                return sink
            }))
    }

    /// On failure, continues with the single `handler` returns for the error (the failed
    /// subscription is disposed first). If `handler` throws, fails with that error.
    @inlinable
    public func `catch`(
        _ handler: @escaping @Sendable (any Error) throws -> Single<Element>
    ) -> Single<Element> {
        let source = self.source
        return Single(
            raw: Observable(unsafeSubscribe: { downstream in
                let sink = SingleCatchSink(downstream: downstream, handler: handler)
                sink.run(source)
                return sink
            }))
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
        let source = self.source
        let handlers = SingleDoHandlers(
            onSuccess: onSuccess, afterSuccess: afterSuccess, onError: onError, afterError: afterError)
        return Single(
            raw: Observable(unsafeSubscribe: { downstream in
                onSubscribe?()
                let sink = SingleDoSink(downstream: downstream, handlers: handlers)
                let subscription = source.subscribe(sink)
                onSubscribed?()
                // Assigned last, as RxSwift does: a source that finished during `subscribe` is
                // disposed (and `onDispose` runs) only now, after `onSubscribed`.
                guard let onDispose else {
                    sink.upstream.assign(subscription)
                    return sink
                }
                sink.upstream.assign(
                    Disposables.create {
                        subscription.dispose()
                        onDispose()
                    })
                return sink
            }))
    }
}

/// The live state of one `Single.flatMap` subscription: the outer single, then the inner one.
///
/// The outer single sends its element and completes; the inner one may finish on another thread
/// meanwhile, so output goes through a ``SerialDelivery``. The result completes once both have
/// completed, as `merge` would.
@usableFromInline
final class SingleFlatMapSink<Source: Sendable, Result: Sendable>:
    ObserverType, Cancelable, CancellableDelivery
{
    @usableFromInline
    struct State: SerialDeliveryState {
        @usableFromInline var delivery = SerialDelivery<Result>()
        @usableFromInline var innerStarted = false
        @usableFromInline var innerCompleted = false
        @usableFromInline var outerCompleted = false

        @inlinable init() {}
    }

    @usableFromInline let downstream: AnyObserver<Result>
    @usableFromInline let selector: @Sendable (Source) throws -> Single<Result>
    @usableFromInline let state = Mutex(State())
    @usableFromInline let outer = SingleAssignmentState()
    @usableFromInline let inner = SingleAssignmentDisposable()
    @usableFromInline let cancelled = Atomic<Bool>(false)
    @usableFromInline let resource = ResourceToken()

    @inlinable
    init(downstream: AnyObserver<Result>, selector: @escaping @Sendable (Source) throws -> Single<Result>) {
        self.downstream = downstream
        self.selector = selector
    }

    /// An event of the outer single.
    @inlinable
    func on(_ event: Event<Source>) {
        guard !outer.isDisposed else { return }
        switch event {
        case .next(let element):
            let first: Bool = state.withLock { state in
                defer { state.innerStarted = true }
                return !state.innerStarted && !state.delivery.isTerminated
            }
            guard first else { return }
            let next: Single<Result>
            do {
                next = try selector(element)
            } catch {
                fail(error)
                return
            }
            inner.setDisposable(next.asObservable().subscribe(SingleFlatMapInner(sink: self)))
        case .error(let error):
            fail(error)
        case .completed:
            let done: Bool = state.withLock { state in
                state.outerCompleted = true
                guard !state.innerStarted || state.innerCompleted else { return false }
                state.delivery.enqueue(.completed)
                return true
            }
            outer.dispose()
            if done { complete() }
        }
    }

    /// An event of the inner single.
    @usableFromInline
    func onInner(_ event: Event<Result>) {
        switch event {
        case .next:
            state.withLock { $0.delivery.enqueue(event) }
            state.deliver(to: DeliveryGate(self))
        case .error(let error):
            fail(error)
        case .completed:
            let done: Bool = state.withLock { state in
                state.innerCompleted = true
                guard state.outerCompleted else { return false }
                state.delivery.enqueue(.completed)
                return true
            }
            inner.dispose()
            if done { complete() }
        }
    }

    @usableFromInline
    func fail(_ error: any Error) {
        state.withLock { $0.delivery.enqueue(.error(error)) }
        complete()
    }

    /// Delivers the terminal event just queued and releases both subscriptions.
    @usableFromInline
    func complete() {
        state.deliver(to: DeliveryGate(self))
        finish()
    }

    @usableFromInline
    func finish() {
        outer.dispose()
        inner.dispose()
    }

    @inlinable var isCancelled: Bool { cancelled.load(ordering: .acquiring) }
    @inlinable var isDisposed: Bool { outer.isDisposed && inner.isDisposed }

    @inlinable
    func dispose() {
        cancelled.store(true, ordering: .releasing)
        finish()
    }
}

/// Passes the events of `Single.flatMap`'s inner single to its sink.
@usableFromInline
struct SingleFlatMapInner<Source: Sendable, Result: Sendable>: ObserverType {
    @usableFromInline let sink: SingleFlatMapSink<Source, Result>

    @inlinable
    init(sink: SingleFlatMapSink<Source, Result>) {
        self.sink = sink
    }

    @inlinable
    func on(_ event: Event<Result>) { sink.onInner(event) }
}

/// The live state of one `Single.catch` subscription: the source, then (after its error) the
/// single the handler returned. The two never deliver at the same time, so events are forwarded
/// directly.
@usableFromInline
final class SingleCatchSink<Element: Sendable>: ObserverType, Cancelable {
    @usableFromInline let downstream: AnyObserver<Element>
    @usableFromInline let handler: @Sendable (any Error) throws -> Single<Element>
    /// The source subscription, replaced by the fallback's on error.
    @usableFromInline let subscription = SerialDisposable()
    @usableFromInline let disposed = Atomic<Bool>(false)
    @usableFromInline let resource = ResourceToken()

    @inlinable
    init(
        downstream: AnyObserver<Element>, handler: @escaping @Sendable (any Error) throws -> Single<Element>
    ) {
        self.downstream = downstream
        self.handler = handler
    }

    @usableFromInline
    func run(_ source: Observable<Element>) {
        let original = SingleAssignmentDisposable()
        subscription.disposable = original
        original.setDisposable(source.subscribe(self))
    }

    /// An event of the source.
    @inlinable
    func on(_ event: Event<Element>) {
        guard !isDisposed else { return }
        guard case .error(let error) = event else {
            forward(event)
            return
        }
        let fallback: Single<Element>
        do {
            fallback = try handler(error)
        } catch {
            forward(.error(error))
            return
        }
        subscription.disposable = fallback.asObservable().subscribe(SingleCatchFallback(sink: self))
    }

    /// Passes on an event of the source or the fallback, releasing everything after a terminal one.
    @usableFromInline
    func forward(_ event: Event<Element>) {
        guard !isDisposed else { return }
        downstream.on(event)
        if event.isStopEvent { dispose() }
    }

    @inlinable var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    @inlinable
    func dispose() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        subscription.dispose()
    }
}

/// Passes the events of `Single.catch`'s fallback single to its sink.
@usableFromInline
struct SingleCatchFallback<Element: Sendable>: ObserverType {
    @usableFromInline let sink: SingleCatchSink<Element>

    @inlinable
    init(sink: SingleCatchSink<Element>) {
        self.sink = sink
    }

    @inlinable
    func on(_ event: Event<Element>) { sink.forward(event) }
}

/// The event closures of one `Single.do` call.
@usableFromInline
struct SingleDoHandlers<Element: Sendable>: Sendable {
    @usableFromInline let onSuccess: (@Sendable (Element) throws -> Void)?
    @usableFromInline let afterSuccess: (@Sendable (Element) throws -> Void)?
    @usableFromInline let onError: (@Sendable (any Error) throws -> Void)?
    @usableFromInline let afterError: (@Sendable (any Error) throws -> Void)?

    @inlinable
    init(
        onSuccess: (@Sendable (Element) throws -> Void)?, afterSuccess: (@Sendable (Element) throws -> Void)?,
        onError: (@Sendable (any Error) throws -> Void)?, afterError: (@Sendable (any Error) throws -> Void)?
    ) {
        self.onSuccess = onSuccess
        self.afterSuccess = afterSuccess
        self.onError = onError
        self.afterError = afterError
    }
}

/// The live state of one `Single.do` subscription.
@usableFromInline
final class SingleDoSink<Element: Sendable>: ObserverType, Cancelable {
    @usableFromInline let downstream: AnyObserver<Element>
    @usableFromInline let handlers: SingleDoHandlers<Element>
    @usableFromInline let upstream = SingleAssignmentState()
    @usableFromInline let resource = ResourceToken()

    @inlinable
    init(downstream: AnyObserver<Element>, handlers: SingleDoHandlers<Element>) {
        self.downstream = downstream
        self.handlers = handlers
    }

    @inlinable
    func on(_ event: Event<Element>) {
        guard !upstream.isDisposed else { return }
        do {
            switch event {
            case .next(let element): try handlers.onSuccess?(element)
            case .error(let error): try handlers.onError?(error)
            case .completed: break
            }
        } catch {
            downstream.on(.error(error))
            dispose()
            return
        }
        downstream.on(event)
        let failure: (any Error)?
        do {
            switch event {
            case .next(let element): try handlers.afterSuccess?(element)
            case .error(let error): try handlers.afterError?(error)
            case .completed: break
            }
            failure = nil
        } catch {
            failure = error
        }
        // An error thrown by `afterError` has nowhere to go: the sequence already ended.
        if let failure, !event.isStopEvent { downstream.on(.error(failure)) }
        if failure != nil || event.isStopEvent { dispose() }
    }

    @inlinable var isDisposed: Bool { upstream.isDisposed }
    @inlinable func dispose() { upstream.dispose() }
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
