public import Synchronization

extension ObservableType {
    /// Fails with `RxError.timeout` if the source sends nothing for `dueTime`: neither its first
    /// element (counted from subscription) nor the next one (counted from the previous element).
    ///
    /// ```swift
    /// reply.timeout(.seconds(5), scheduler: scheduler)
    /// ```
    @inlinable
    public func timeout(_ dueTime: RxTimeInterval, scheduler: any SchedulerType) -> Observable<Element> {
        timeout(dueTime, other: Observable<Element>.error(RxError.timeout), scheduler: scheduler)
    }

    /// Switches to `other` if the source sends nothing for `dueTime` (see
    /// ``timeout(_:scheduler:)``): the source subscription is replaced by a subscription to
    /// `other`, whose events are passed on from then on.
    @inlinable
    public func timeout<Other: ObservableConvertibleType>(
        _ dueTime: RxTimeInterval, other: Other, scheduler: any SchedulerType
    ) -> Observable<Element> where Other.Element == Element {
        let source = asObservable()
        let other = other.asObservable()
        return Observable(unsafeSubscribe: { downstream in
            let sink = TimeoutSink(
                downstream: downstream, dueTime: dueTime, other: other, scheduler: scheduler)
            sink.run(source)
            return sink
        })
    }
}

/// The live state of one `timeout` subscription.
@usableFromInline
final class TimeoutSink<Element: Sendable>: ObserverType, Cancelable, CancellableDelivery {
    @usableFromInline typealias Queued = Element

    @usableFromInline
    struct State: SerialDeliveryState {
        @usableFromInline var delivery = SerialDelivery<Element>()
        /// Counts the source's events; a timer only fires for the silence it was started for.
        @usableFromInline var generation: UInt64 = 0
        /// The timer won: the source is ignored and `other` is subscribed.
        @usableFromInline var switched = false

        @inlinable init() {}
    }

    @usableFromInline let downstream: AnyObserver<Element>
    @usableFromInline let dueTime: RxTimeInterval
    @usableFromInline let other: Observable<Element>
    @usableFromInline let scheduler: any SchedulerType
    /// Set in `init`, not here: a class's initial values are not inlined, so they would run generically.
    @usableFromInline let state: Mutex<State>
    /// The source subscription, replaced by the subscription to `other` on timeout.
    @usableFromInline let subscription = SerialState()
    @usableFromInline let timer = SerialState()
    @usableFromInline let cancelled = Atomic<Bool>(false)
    @usableFromInline let resource = ResourceToken()

    @inlinable
    init(
        downstream: AnyObserver<Element>, dueTime: RxTimeInterval, other: Observable<Element>,
        scheduler: any SchedulerType
    ) {
        self.downstream = downstream
        self.dueTime = dueTime
        self.other = other
        self.scheduler = scheduler
        state = Mutex(State())
    }

    /// Starts the first timer, then subscribes the source (as RxSwift does).
    ///
    /// Inlinable: the sink is subscribed here, so this decides whether its `on` runs specialised.
    @inlinable
    func run(_ source: Observable<Element>) {
        let original = SingleAssignmentDisposable()
        subscription.disposable = original
        startTimer(0)
        original.setDisposable(source.subscribe(self))
    }

    @inlinable
    func on(_ event: Event<Element>) {
        let generation: UInt64? = state.withLock { state in
            guard !state.switched, !state.delivery.isTerminated else { return nil }
            state.generation &+= 1
            state.delivery.enqueue(event)
            return state.generation
        }
        guard let generation else { return }
        state.deliver(to: SinkEmitter(self))
        if event.isStopEvent {
            finish()
        } else {
            startTimer(generation)
        }
    }

    @inlinable
    func startTimer(_ generation: UInt64) {
        guard !timer.isDisposed else { return }
        timer.disposable = scheduler.scheduleRelative(generation, dueTime: dueTime) { [self] generation in
            expire(generation)
            return Disposables.create()
        }
    }

    /// `dueTime` passed after the source's event number `generation`: switch to `other` unless a
    /// later event came.
    @inlinable
    func expire(_ generation: UInt64) {
        let switching: Bool = state.withLock { state in
            guard state.generation == generation, !state.switched, !state.delivery.isTerminated else {
                return false
            }
            state.switched = true
            return true
        }
        guard switching else { return }
        subscription.disposable = other.subscribe(TimeoutOtherObserver(sink: self))
    }

    /// An event of `other`, after the switch.
    @inlinable
    func onOther(_ event: Event<Element>) {
        state.withLock { $0.delivery.enqueue(event) }
        state.deliver(to: SinkEmitter(self))
        if event.isStopEvent { finish() }
    }

    /// Releases the current subscription and the timer.
    @inlinable
    func finish() {
        subscription.dispose()
        timer.dispose()
    }

    @inlinable var isCancelled: Bool { cancelled.load(ordering: .acquiring) }
    @inlinable var isDisposed: Bool { subscription.isDisposed }

    @inlinable
    func dispose() {
        cancelled.store(true, ordering: .releasing)
        finish()
    }
}

/// Passes the events of `timeout`'s fallback sequence to its sink.
@usableFromInline
struct TimeoutOtherObserver<Element: Sendable>: ObserverType {
    @usableFromInline let sink: TimeoutSink<Element>

    @inlinable
    init(sink: TimeoutSink<Element>) {
        self.sink = sink
    }

    @inlinable
    func on(_ event: Event<Element>) { sink.onOther(event) }
}
