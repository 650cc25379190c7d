public import Synchronization

extension ObservableType {
    /// Combines each element of this sequence with the latest element of `second`, if there is one.
    ///
    /// ```swift
    /// loginTap.withLatestFrom(credentials) { _, credentials in credentials }
    /// ```
    ///
    /// `second` is subscribed first, then this sequence. Elements of this sequence that arrive before
    /// `second` has emitted are dropped. Completes when this sequence completes (the completion of
    /// `second` only ends its subscription); fails with the first error of either sequence or of
    /// `resultSelector`.
    @inlinable
    public func withLatestFrom<Source: ObservableConvertibleType, Result: Sendable>(
        _ second: Source,
        resultSelector: @escaping @Sendable (Element, Source.Element) throws -> Result
    ) -> Observable<Result> {
        let first = asObservable()
        let second = second.asObservable()
        return Observable(unsafeSubscribe: { downstream in
            let sink = WithLatestFromSink(downstream: downstream, resultSelector: resultSelector)
            sink.run(first: first, second: second)
            return sink
        })
    }

    /// Replaces each element of this sequence with the latest element of `second`, if there is one.
    ///
    /// Completion and errors as in ``ObservableType/withLatestFrom(_:resultSelector:)``.
    @inlinable
    public func withLatestFrom<Source: ObservableConvertibleType>(
        _ second: Source
    ) -> Observable<Source.Element> {
        withLatestFrom(second) { $1 }
    }
}

/// The state of one `withLatestFrom` subscription.
@usableFromInline
struct WithLatestFromState<Second: Sendable, Result: Sendable>: SerialDeliveryState {
    /// Events waiting to go downstream.
    @usableFromInline var delivery = SerialDelivery<Result>()
    /// The latest element of the second sequence.
    @usableFromInline var latest: Second?

    @inlinable
    init() {}
}

/// The live state of one `withLatestFrom` subscription. It observes the first sequence itself and
/// the second one through ``WithLatestFromSecondObserver``.
@usableFromInline
final class WithLatestFromSink<First: Sendable, Second: Sendable, Result: Sendable>:
    ObserverType, Cancelable, EmittingSink
{
    @usableFromInline let downstream: AnyObserver<Result>
    @usableFromInline let resultSelector: @Sendable (First, Second) throws -> Result
    /// Set in `init`, not here: a class's initial values are not inlined, so they would run generically.
    @usableFromInline let state: Mutex<WithLatestFromState<Second, Result>>
    @usableFromInline let firstSubscription = SingleAssignmentState()
    @usableFromInline let secondSubscription = SingleAssignmentState()
    /// Set when the subscriber disposes: nothing more goes downstream.
    @usableFromInline let closed = Atomic<Bool>(false)
    @usableFromInline let resource = ResourceToken()

    @inlinable
    init(
        downstream: AnyObserver<Result>, resultSelector: @escaping @Sendable (First, Second) throws -> Result
    ) {
        self.downstream = downstream
        self.resultSelector = resultSelector
        state = Mutex(WithLatestFromState())
    }

    /// Subscribes to `second`, then to `first`, as RxSwift does.
    @inlinable
    func run(first: Observable<First>, second: Observable<Second>) {
        secondSubscription.assign(second.subscribe(WithLatestFromSecondObserver(sink: self)))
        firstSubscription.assign(first.subscribe(self))
    }

    /// An event of the first sequence. It delivers serially, so the selector (run outside the lock)
    /// produces results in order.
    @inlinable
    func on(_ event: Event<First>) {
        switch event {
        case .next(let element):
            guard !closed.load(ordering: .acquiring) else { return }
            let latest = state.withLock { state in state.delivery.isTerminated ? nil : state.latest }
            guard let latest else { return }
            let result: Event<Result>
            do {
                result = .next(try resultSelector(element, latest))
            } catch {
                result = .error(error)
            }
            queue(result)
        case .error(let error):
            queue(.error(error))
        case .completed:
            queue(.completed)
        }
    }

    /// An element of the second sequence.
    @inlinable
    func secondNext(_ element: Second) {
        state.withLock { $0.latest = element }
    }

    /// Queues `event` and delivers it; a terminal event disposes both subscriptions.
    @inlinable
    func queue(_ event: Event<Result>) {
        state.withLock { $0.delivery.enqueue(event) }
        state.deliver(to: SinkEmitter(self))
        if event.isStopEvent { disposeSources() }
    }

    @inlinable
    func emit(_ event: Event<Result>) {
        guard !closed.load(ordering: .acquiring) else { return }
        downstream.on(event)
    }

    @inlinable
    func disposeSources() {
        firstSubscription.dispose()
        secondSubscription.dispose()
    }

    @inlinable var isDisposed: Bool { firstSubscription.isDisposed }

    @inlinable
    func dispose() {
        closed.store(true, ordering: .releasing)
        disposeSources()
    }
}

/// Receives the events of `withLatestFrom`'s second sequence.
@usableFromInline
struct WithLatestFromSecondObserver<First: Sendable, Second: Sendable, Result: Sendable>: ObserverType {
    @usableFromInline let sink: WithLatestFromSink<First, Second, Result>

    @inlinable
    init(sink: WithLatestFromSink<First, Second, Result>) {
        self.sink = sink
    }

    @inlinable
    func on(_ event: Event<Second>) {
        switch event {
        case .next(let element): sink.secondNext(element)
        case .error(let error): sink.queue(.error(error))
        case .completed: sink.secondSubscription.dispose()
        }
    }
}
