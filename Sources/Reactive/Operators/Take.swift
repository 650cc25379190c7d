public import Synchronization

extension ObservableType {
    /// Passes on the first `count` elements, then completes and disposes the source.
    ///
    /// `take(0)` completes at once without subscribing to the source. Completes or fails earlier
    /// with the source. `count` must not be negative.
    ///
    /// ```swift
    /// taps.take(1)   // the first tap, then completed
    /// ```
    @inlinable
    public func take(_ count: Int) -> Observable<Element> {
        precondition(count >= 0, "take: count can't be negative")
        guard count > 0 else {
            return Observable(unsafeSubscribe: { downstream in
                downstream.on(.completed)
                return Disposables.create()
            })
        }
        let source = asObservable()
        return Observable(unsafeSubscribe: { downstream in
            let sink = TakeCountSink(downstream: downstream, count: count)
            sink.upstream.assign(source.subscribe(sink))
            return sink
        })
    }

    /// Passes on the elements that arrive within `duration` of subscribing, then completes and
    /// disposes the source.
    ///
    /// The timer runs on `scheduler` and starts before the source is subscribed. Completes or
    /// fails earlier with the source, which cancels the timer.
    ///
    /// ```swift
    /// readings.take(for: .seconds(5), scheduler: scheduler)
    /// ```
    @inlinable
    public func take(for duration: RxTimeInterval, scheduler: any SchedulerType) -> Observable<Element> {
        let source = asObservable()
        return Observable(unsafeSubscribe: { downstream in
            let sink = TakeTimeSink(downstream: downstream)
            sink.timer.assign(
                scheduler.scheduleRelative(sink, dueTime: duration) { sink in
                    sink.tick()
                    return Disposables.create()
                })
            sink.upstream.assign(source.subscribe(sink))
            return sink
        })
    }
}

/// The live state of one `take(_ count:)` subscription.
@usableFromInline
final class TakeCountSink<Element: Sendable>: ObserverType, Cancelable {
    @usableFromInline let downstream: AnyObserver<Element>
    /// Elements still to pass on. Decremented before forwarding, so an element fed back
    /// reentrantly by downstream is counted (and dropped once the count is used up).
    @usableFromInline let remaining: Atomic<Int>
    @usableFromInline let upstream = SingleAssignmentState()
    @usableFromInline let resource = ResourceToken()

    @inlinable
    init(downstream: AnyObserver<Element>, count: Int) {
        self.downstream = downstream
        remaining = Atomic(count)
    }

    @inlinable
    func on(_ event: Event<Element>) {
        guard !upstream.isDisposed else { return }
        switch event {
        case .next:
            let left = remaining.wrappingSubtract(1, ordering: .relaxed).newValue
            guard left >= 0 else { return }
            downstream.on(event)
            if left == 0 {
                // Not if downstream disposed this subscription while handling the element.
                if !upstream.isDisposed { downstream.on(.completed) }
                upstream.dispose()
            }
        case .error, .completed:
            downstream.on(event)
            upstream.dispose()
        }
    }

    @inlinable var isDisposed: Bool { upstream.isDisposed }
    @inlinable func dispose() { upstream.dispose() }
}

/// The state of one `take(for:scheduler:)` subscription: fed by the source and the timer, so
/// its output goes through a serial delivery queue.
@usableFromInline
struct TakeTimeState<Element: Sendable>: SerialDeliveryState {
    @usableFromInline var delivery = SerialDelivery<Element>()

    @inlinable init() {}
}

/// The live state of one `take(for:scheduler:)` subscription.
@usableFromInline
final class TakeTimeSink<Element: Sendable>: ObserverType, Cancelable {
    @usableFromInline let downstream: AnyObserver<Element>
    @usableFromInline let state = Mutex(TakeTimeState<Element>())
    @usableFromInline let timer = SingleAssignmentState()
    @usableFromInline let upstream = SingleAssignmentState()
    @usableFromInline let resource = ResourceToken()

    @inlinable
    init(downstream: AnyObserver<Element>) {
        self.downstream = downstream
    }

    @inlinable
    func on(_ event: Event<Element>) {
        guard !upstream.isDisposed else { return }
        state.withLock { $0.delivery.enqueue(event) }
        state.deliver(to: downstream)
        if event.isStopEvent { dispose() }
    }

    /// The duration is over: complete.
    @inlinable
    func tick() {
        guard !upstream.isDisposed else { return }
        state.withLock { $0.delivery.enqueue(.completed) }
        state.deliver(to: downstream)
        dispose()
    }

    @inlinable var isDisposed: Bool { upstream.isDisposed }

    @inlinable
    func dispose() {
        upstream.dispose()
        timer.dispose()
    }
}
