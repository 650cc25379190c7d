public import Synchronization

extension ObservableType {
    /// Delivers the source's events to the observer on `scheduler`.
    ///
    /// Events are queued as they arrive; a pump scheduled on `scheduler` delivers them in order:
    /// one scheduled step takes every event queued by then, delivers them, and looks again, until
    /// the queue is empty (the next event schedules it again). A burst therefore costs one step,
    /// not one per event. Subscription and disposal of the source still happen on the calling thread; use
    /// `subscribe(on:)` to move them.
    ///
    /// The source subscription is disposed as soon as the source delivers its terminal event (which
    /// then waits in the queue like any other event). Disposing the subscription disposes the
    /// source at once and drops queued events.
    @inlinable
    public func observe(on scheduler: any ImmediateSchedulerType) -> Observable<Element> {
        let source = asObservable()
        return Observable(unsafeSubscribe: { downstream in
            let sink = ObserveOnSink(downstream: downstream, scheduler: scheduler)
            sink.upstream.assign(source.subscribe(sink))
            return sink
        })
    }
}

/// The live state of one `observe(on:)` subscription.
@usableFromInline
final class ObserveOnSink<Element: Sendable>: ObserverType, Cancelable {
    @usableFromInline
    struct State {
        /// Events received and not yet taken by the pump, oldest first.
        @usableFromInline var queue: [Event<Element>] = []
        /// Whether a pump is scheduled or running.
        @usableFromInline var isPumping = false

        @inlinable init() {}

        /// Queues `event`; returns whether a pump must be started.
        @inlinable
        mutating func enqueue(_ event: Event<Element>) -> Bool {
            queue.append(event)
            defer { isPumping = true }
            return !isPumping
        }

        /// Swaps every queued event into `batch` (empty, its storage kept for reuse), or stops the
        /// pump when there is none.
        @inlinable
        mutating func take(into batch: inout [Event<Element>]) -> Bool {
            guard !queue.isEmpty else {
                isPumping = false
                return false
            }
            swap(&queue, &batch)
            return true
        }
    }

    @usableFromInline let downstream: AnyObserver<Element>
    @usableFromInline let scheduler: any ImmediateSchedulerType
    /// Set in `init`, not here: a class's initial values are not inlined, so they would run generically.
    @usableFromInline let state: Mutex<State>
    /// The source subscription; disposed on the source's terminal event or on `dispose()`.
    @usableFromInline let upstream = SingleAssignmentState()
    @usableFromInline let disposed = Atomic<Bool>(false)
    /// The scheduled pump (inline: no object of its own).
    @usableFromInline let pump = SerialState()
    @usableFromInline let resource = ResourceToken()

    @inlinable
    init(downstream: AnyObserver<Element>, scheduler: any ImmediateSchedulerType) {
        self.downstream = downstream
        self.scheduler = scheduler
        state = Mutex(State())
    }

    @inlinable
    func on(_ event: Event<Element>) {
        guard !isDisposed else { return }
        let start = state.withLock { $0.enqueue(event) }
        if event.isStopEvent { upstream.dispose() }
        if start { startPump() }
    }

    /// Inlinable, as is `drain`: the pump delivers every event.
    @inlinable
    func startPump() {
        pump.disposable = scheduler.schedule(()) { [self] _ in
            drain()
            return Disposables.create()
        }
    }

    /// Delivers batches of queued events until the queue is empty, in one scheduled step; events
    /// that come meanwhile (from the observer itself, or another thread) join the next batch.
    @inlinable
    func drain() {
        var batch: [Event<Element>] = []
        while state.withLock({ $0.take(into: &batch) }) {
            for event in batch {
                guard !isDisposed else { return }
                downstream.on(event)
                if event.isStopEvent {
                    dispose()
                    return
                }
            }
            batch.removeAll(keepingCapacity: true)
        }
    }

    @inlinable var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    @inlinable
    func dispose() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        upstream.dispose()
        pump.dispose()
    }
}
