public import Synchronization

extension ObservableType {
    /// Drops the first `count` elements and passes on the rest.
    ///
    /// Completes and fails with the source, also while still skipping. A `count` of zero or less
    /// skips nothing.
    ///
    /// ```swift
    /// settings.skip(1)   // ignore the initial value, react to changes
    /// ```
    @inlinable
    public func skip(_ count: Int) -> Observable<Element> {
        let source = asObservable()
        return Observable(unsafeSubscribe: { downstream in
            let sink = SkipCountSink(downstream: downstream, count: count)
            sink.upstream.assign(source.subscribe(sink))
            return sink
        })
    }

    /// Drops the elements that arrive within `duration` of subscribing and passes on the rest.
    ///
    /// The timer runs on `scheduler` and starts before the source is subscribed; an element that
    /// arrives at the same instant as the timer, but is delivered before it, is dropped. Completes
    /// and fails with the source, which cancels the timer.
    ///
    /// ```swift
    /// events.skip(for: .seconds(1), scheduler: scheduler)
    /// ```
    @inlinable
    public func skip(for duration: RxTimeInterval, scheduler: any SchedulerType) -> Observable<Element> {
        let source = asObservable()
        return Observable(unsafeSubscribe: { downstream in
            let sink = SkipTimeSink(downstream: downstream)
            sink.timer.assign(
                scheduler.scheduleRelative(sink, dueTime: duration) { sink in
                    sink.open.store(true, ordering: .releasing)
                    return Disposables.create()
                })
            sink.upstream.assign(source.subscribe(sink))
            return sink
        })
    }

    /// RxSwift 6's spelling of ``skip(for:scheduler:)``.
    @inlinable
    public func skip(_ duration: RxTimeInterval, scheduler: any SchedulerType) -> Observable<Element> {
        skip(for: duration, scheduler: scheduler)
    }
}

/// The live state of one `skip(_ count:)` subscription.
@usableFromInline
final class SkipCountSink<Element: Sendable>: ObserverType, Cancelable {
    @usableFromInline let downstream: AnyObserver<Element>
    /// Elements still to drop.
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
            // The source delivers serially, so a load followed by a store cannot lose a count.
            let left = remaining.load(ordering: .relaxed)
            if left > 0 {
                remaining.store(left - 1, ordering: .relaxed)
            } else {
                downstream.on(event)
            }
        case .error, .completed:
            downstream.on(event)
            upstream.dispose()
        }
    }

    @inlinable var isDisposed: Bool { upstream.isDisposed }
    @inlinable func dispose() { upstream.dispose() }
}

/// The live state of one `skip(for:scheduler:)` subscription. The timer only opens the gate; all
/// output comes from the source, so no delivery queue is needed.
@usableFromInline
final class SkipTimeSink<Element: Sendable>: ObserverType, Cancelable {
    @usableFromInline let downstream: AnyObserver<Element>
    /// Set by the timer: elements pass from then on.
    @usableFromInline let open = Atomic<Bool>(false)
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
        switch event {
        case .next:
            if open.load(ordering: .acquiring) { downstream.on(event) }
        case .error, .completed:
            downstream.on(event)
            dispose()
        }
    }

    @inlinable var isDisposed: Bool { upstream.isDisposed }

    @inlinable
    func dispose() {
        upstream.dispose()
        timer.dispose()
    }
}
