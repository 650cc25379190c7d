public import Synchronization

extension ObservableType {
    /// Passes on an element only once `dueTime` has gone by without another element; each new
    /// element restarts the wait and replaces the one waiting.
    ///
    /// On completion the waiting element (if any) is sent at once, then completion. An error is
    /// passed on at once and the waiting element is dropped.
    ///
    /// ```swift
    /// query.debounce(.milliseconds(300), scheduler: scheduler)   // search once typing pauses
    /// ```
    @inlinable
    public func debounce(_ dueTime: RxTimeInterval, scheduler: any SchedulerType) -> Observable<Element> {
        let source = asObservable()
        return Observable(unsafeSubscribe: { downstream in
            let sink = DebounceSink(downstream: downstream, dueTime: dueTime, scheduler: scheduler)
            sink.upstream.assign(source.subscribe(sink))
            return sink
        })
    }
}

/// The live state of one `debounce` subscription.
@usableFromInline
final class DebounceSink<Element: Sendable>: ObserverType, Cancelable, CancellableDelivery {
    @usableFromInline typealias Queued = Element

    @usableFromInline
    struct State: SerialDeliveryState {
        @usableFromInline var delivery = SerialDelivery<Element>()
        /// Counts elements; a timer only fires for the element it was started for.
        @usableFromInline var generation: UInt64 = 0
        /// The element waiting for its quiet period to pass.
        @usableFromInline var waiting: Element?

        @inlinable init() {}
    }

    @usableFromInline let downstream: AnyObserver<Element>
    @usableFromInline let dueTime: RxTimeInterval
    @usableFromInline let scheduler: any SchedulerType
    /// Set in `init`, not here: a class's initial values are not inlined, so they would run generically.
    @usableFromInline let state: Mutex<State>
    @usableFromInline let upstream = SingleAssignmentState()
    @usableFromInline let timer = SerialState()
    @usableFromInline let cancelled = Atomic<Bool>(false)
    @usableFromInline let resource = ResourceToken()

    @inlinable
    init(downstream: AnyObserver<Element>, dueTime: RxTimeInterval, scheduler: any SchedulerType) {
        self.downstream = downstream
        self.dueTime = dueTime
        self.scheduler = scheduler
        state = Mutex(State())
    }

    @inlinable
    func on(_ event: Event<Element>) {
        guard !upstream.isDisposed else { return }
        switch event {
        case .next(let element):
            let generation: UInt64? = state.withLock { state in
                guard !state.delivery.isTerminated else { return nil }
                state.generation &+= 1
                state.waiting = element
                return state.generation
            }
            guard let generation else { return }
            timer.disposable = scheduler.scheduleRelative(generation, dueTime: dueTime) { [self] generation in
                fire(generation)
                return Disposables.create()
            }
        case .error:
            state.withLock { state in
                state.waiting = nil
                state.delivery.enqueue(event)
            }
            state.deliver(to: SinkEmitter(self))
            finish()
        case .completed:
            state.withLock { state in
                if let waiting = state.waiting {
                    state.waiting = nil
                    state.delivery.enqueue(.next(waiting))
                }
                state.delivery.enqueue(.completed)
            }
            state.deliver(to: SinkEmitter(self))
            finish()
        }
    }

    /// The quiet period of element number `generation` has passed: send it unless a later one came.
    @inlinable
    func fire(_ generation: UInt64) {
        let sent: Bool = state.withLock { state in
            guard state.generation == generation, let waiting = state.waiting else { return false }
            state.waiting = nil
            state.delivery.enqueue(.next(waiting))
            return true
        }
        if sent { state.deliver(to: SinkEmitter(self)) }
    }

    /// Releases the source subscription and the timer.
    @inlinable
    func finish() {
        upstream.dispose()
        timer.dispose()
    }

    @inlinable var isCancelled: Bool { cancelled.load(ordering: .acquiring) }
    @inlinable var isDisposed: Bool { upstream.isDisposed }

    @inlinable
    func dispose() {
        cancelled.store(true, ordering: .releasing)
        finish()
    }
}
