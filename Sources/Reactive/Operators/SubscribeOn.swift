public import Synchronization

extension ObservableType {
    /// Subscribes to the source, and later disposes that subscription, on `scheduler`.
    ///
    /// Subscribing schedules the subscription to the source; disposing before it ran cancels it,
    /// and disposing afterwards schedules the disposal of the source subscription on `scheduler`.
    /// Events are delivered wherever the source produces them; use `observe(on:)` to move
    /// delivery. After forwarding a terminal event the source subscription is disposed the same
    /// way, on `scheduler`.
    ///
    /// As in RxSwift, the source is subscribed as it is (not through `asObservable()`), so even a
    /// source that does not end its subscription at a terminal event is unsubscribed on
    /// `scheduler`: a test observable completing at 300 shows `Subscription(201, 301)`.
    @inlinable
    public func subscribe(on scheduler: any ImmediateSchedulerType) -> Observable<Element> {
        let source = self
        return Observable(unsafeSubscribe: { downstream in
            let sink = SubscribeOnSink(downstream: downstream)
            let cancelSchedule = SingleAssignmentDisposable()
            sink.everything.disposable = cancelSchedule
            let scheduled = scheduler.schedule(sink) { sink in
                let subscription = source.subscribe(sink)
                sink.everything.disposable = ScheduledDisposable(scheduler: scheduler, inner: subscription)
                return Disposables.create()
            }
            cancelSchedule.setDisposable(scheduled)
            return sink
        })
    }
}

/// The live state of one `subscribe(on:)` subscription.
@usableFromInline
final class SubscribeOnSink<Element: Sendable>: ObserverType, Cancelable {
    @usableFromInline let downstream: AnyObserver<Element>
    /// First the pending subscription, then the scheduled disposal of the source subscription.
    @usableFromInline let everything = SerialState()
    @usableFromInline let disposed = Atomic<Bool>(false)
    @usableFromInline let resource = ResourceToken()

    @inlinable
    init(downstream: AnyObserver<Element>) {
        self.downstream = downstream
    }

    @inlinable
    func on(_ event: Event<Element>) {
        guard !isDisposed else { return }
        downstream.on(event)
        if event.isStopEvent { dispose() }
    }

    @inlinable var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    @inlinable
    func dispose() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        everything.dispose()
    }
}

/// Disposes `inner` on `scheduler` when disposed.
@usableFromInline
final class ScheduledDisposable: Cancelable {
    let scheduler: any ImmediateSchedulerType
    let inner: any Disposable
    let disposed = Atomic<Bool>(false)

    @usableFromInline
    init(scheduler: any ImmediateSchedulerType, inner: any Disposable) {
        self.scheduler = scheduler
        self.inner = inner
    }

    @usableFromInline var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    @usableFromInline
    func dispose() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        _ = scheduler.schedule(inner) { inner in
            inner.dispose()
            return Disposables.create()
        }
    }
}
