public import Foundation
public import Synchronization

extension ObservableType {
    /// Shifts every element and the completion `dueTime` later in time, keeping their spacing;
    /// an error is passed on at once (RxSwift semantics), dropping what is still waiting.
    ///
    /// The source subscription is disposed as soon as the source finishes, while the delayed
    /// events are still on their way.
    ///
    /// ```swift
    /// banner.delay(.seconds(2), scheduler: scheduler)
    /// ```
    @inlinable
    public func delay(_ dueTime: RxTimeInterval, scheduler: any SchedulerType) -> Observable<Element> {
        let source = asObservable()
        return Observable(unsafeSubscribe: { downstream in
            let sink = DelaySink(downstream: downstream, dueTime: dueTime, scheduler: scheduler)
            sink.upstream.assign(source.subscribe(sink))
            return sink
        })
    }
}

/// The live state of one `delay` subscription.
///
/// Events wait in a queue with the time they arrived. One recursive timer drains it: it fires
/// `dueTime` after the first event of a burst, sends one event per firing and re-arms itself for
/// the next queued event (at that event's arrival time plus `dueTime`), and stops when the queue is
/// empty.
@usableFromInline
final class DelaySink<Element: Sendable>: ObserverType, Cancelable, CancellableDelivery {
    @usableFromInline typealias Queued = Element

    @usableFromInline
    struct State: SerialDeliveryState {
        @usableFromInline var delivery = SerialDelivery<Element>()
        /// Events waiting, with their arrival times; `head` is the index of the first one.
        @usableFromInline var queue: [(time: RxTime, event: Event<Element>)] = []
        @usableFromInline var head = 0
        /// Whether the draining timer is armed.
        @usableFromInline var isDraining = false

        @inlinable init() {}

        @inlinable
        mutating func dequeue() -> Event<Element>? {
            guard head < queue.count else { return nil }
            let event = queue[head].event
            head += 1
            if head == queue.count {
                queue.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64, head * 2 >= queue.count {
                queue.removeFirst(head)
                head = 0
            }
            return event
        }
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
        if event.isStopEvent { upstream.dispose() }
        if case .error = event {
            state.withLock { state in
                state.queue.removeAll()
                state.head = 0
                state.delivery.enqueue(event)
            }
            state.deliver(to: SinkEmitter(self))
            finish()
            return
        }
        let now = scheduler.now
        let arm: Bool = state.withLock { state in
            guard !state.delivery.isTerminated else { return false }
            state.queue.append((now, event))
            defer { state.isDraining = true }
            return !state.isDraining
        }
        guard arm else { return }
        timer.disposable = scheduler.scheduleRecursive((), dueTime: dueTime) { [self] _, recurse in
            if let wait = drainOne() { recurse((), wait) }
        }
    }

    /// Sends the first queued event; returns when to fire again, or nil when the queue is empty or
    /// the sequence ended.
    @inlinable
    func drainOne() -> RxTimeInterval? {
        let sent: Event<Element>? = state.withLock { state in
            guard !state.delivery.isTerminated, let event = state.dequeue() else {
                state.isDraining = false
                return nil
            }
            state.delivery.enqueue(event)
            return event
        }
        guard let sent else { return nil }
        state.deliver(to: SinkEmitter(self))
        if sent.isCompleted {
            finish()
            return nil
        }
        let nextArrival: RxTime? = state.withLock { state in
            guard !state.delivery.isTerminated, state.head < state.queue.count else {
                state.isDraining = false
                return nil
            }
            return state.queue[state.head].time
        }
        guard let nextArrival else { return nil }
        return dueTime.remaining(afterElapsed: scheduler.now.timeIntervalSince(nextArrival))
    }

    /// Releases the source subscription and the timer.
    @inlinable
    func finish() {
        upstream.dispose()
        timer.dispose()
    }

    @inlinable var isCancelled: Bool { cancelled.load(ordering: .acquiring) }
    @inlinable var isDisposed: Bool { timer.isDisposed }

    @inlinable
    func dispose() {
        cancelled.store(true, ordering: .releasing)
        finish()
    }
}
