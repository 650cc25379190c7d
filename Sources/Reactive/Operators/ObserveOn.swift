public import Synchronization

extension ObservableType {
    /// Delivers the source's events to the observer on `scheduler`.
    ///
    /// Events are queued as they arrive; a pump scheduled on `scheduler` delivers them in order,
    /// one per scheduled step, and stops when the queue is empty (the next event schedules it
    /// again). Subscription and disposal of the source still happen on the calling thread; use
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
        /// Events received and not yet delivered, oldest at `head`.
        @usableFromInline var queue: [Event<Element>] = []
        @usableFromInline var head = 0
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

        /// Takes the oldest queued event, or stops the pump when there is none.
        @inlinable
        mutating func next() -> Event<Element>? {
            guard head < queue.count else {
                queue.removeAll(keepingCapacity: true)
                head = 0
                isPumping = false
                return nil
            }
            defer { head += 1 }
            return queue[head]
        }

        /// Whether the pump should run another step; stops it when the queue is empty.
        @inlinable
        mutating func shouldContinue() -> Bool {
            if head < queue.count { return true }
            queue.removeAll(keepingCapacity: true)
            head = 0
            isPumping = false
            return false
        }
    }

    @usableFromInline let downstream: AnyObserver<Element>
    @usableFromInline let scheduler: any ImmediateSchedulerType
    /// Set in `init`, not here: a class's initial values are not inlined, so they would run generically.
    @usableFromInline let state: Mutex<State>
    /// The source subscription; disposed on the source's terminal event or on `dispose()`.
    @usableFromInline let upstream = SingleAssignmentState()
    @usableFromInline let disposed = Atomic<Bool>(false)
    /// The scheduled pump.
    @usableFromInline let pump = SerialDisposable()
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

    /// Inlinable, as is `step`: the pump delivers every event.
    @inlinable
    func startPump() {
        pump.disposable = scheduler.scheduleRecursive(()) { [self] _, recurse in
            if step() { recurse(()) }
        }
    }

    /// Delivers one queued event; returns whether to schedule another step.
    @inlinable
    func step() -> Bool {
        guard let event = state.withLock({ $0.next() }), !isDisposed else { return false }
        downstream.on(event)
        if event.isStopEvent {
            dispose()
            return false
        }
        return state.withLock { $0.shouldContinue() }
    }

    @inlinable var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    @inlinable
    func dispose() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        upstream.dispose()
        pump.dispose()
    }
}
