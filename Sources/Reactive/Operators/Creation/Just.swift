extension Observable {
    /// A sequence of one element: `element`, then completion, both delivered during `subscribe`.
    ///
    /// ```swift
    /// Observable.just(42)   // 42, completed
    /// ```
    @inlinable
    public static func just(_ element: Element) -> Observable<Element> {
        Observable(unsafeSubscribe: { downstream in
            downstream.on(.next(element))
            downstream.on(.completed)
            return Disposables.create()
        })
    }

    /// A sequence of one element delivered on `scheduler`: `element` in one scheduled action, then
    /// completion in the next one (on a `TestScheduler` subscribed at 200: `next` at 201, `completed`
    /// at 202). Disposing before an action runs cancels it.
    @inlinable
    public static func just(
        _ element: Element, scheduler: any ImmediateSchedulerType
    ) -> Observable<Element> {
        Observable(unsafeSubscribe: { downstream in
            let sink = ScheduledOptionalSink(downstream: downstream, scheduler: scheduler)
            sink.run(element)
            return sink
        })
    }

    /// The wrapped value followed by completion, or just completion for `nil`, delivered during
    /// `subscribe`.
    @inlinable
    public static func from(optional: Element?) -> Observable<Element> {
        Observable(unsafeSubscribe: { downstream in
            if let element = optional { downstream.on(.next(element)) }
            downstream.on(.completed)
            return Disposables.create()
        })
    }

    /// The wrapped value followed by completion, or just completion for `nil`, delivered on
    /// `scheduler`: the value in one scheduled action and completion in the next, or completion in
    /// the first action for `nil`.
    @inlinable
    public static func from(
        optional: Element?, scheduler: any ImmediateSchedulerType
    ) -> Observable<Element> {
        Observable(unsafeSubscribe: { downstream in
            let sink = ScheduledOptionalSink(downstream: downstream, scheduler: scheduler)
            sink.run(optional)
            return sink
        })
    }
}

/// The live state of `just(_:scheduler:)` and `from(optional:scheduler:)`: delivers at most one
/// element and then completion, each in its own scheduled action.
@usableFromInline
final class ScheduledOptionalSink<Element: Sendable>: Cancelable {
    @usableFromInline let downstream: AnyObserver<Element>
    @usableFromInline let scheduler: any ImmediateSchedulerType
    /// The scheduled work (the element's action, which owns the completion's action).
    @usableFromInline let scheduled = SingleAssignmentState()
    @usableFromInline let resource = ResourceToken()

    @inlinable
    init(downstream: AnyObserver<Element>, scheduler: any ImmediateSchedulerType) {
        self.downstream = downstream
        self.scheduler = scheduler
    }

    @inlinable
    func run(_ element: Element?) {
        scheduled.assign(scheduler.schedule(element) { [self] element in emit(element) })
    }

    /// The first action: the element (then schedules completion), or completion for `nil`.
    @inlinable
    func emit(_ element: Element?) -> any Disposable {
        guard !isDisposed else { return Disposables.create() }
        guard let element else {
            complete()
            return Disposables.create()
        }
        downstream.on(.next(element))
        guard !isDisposed else { return Disposables.create() }
        return scheduler.schedule(()) { [self] _ in
            complete()
            return Disposables.create()
        }
    }

    @inlinable
    func complete() {
        guard !isDisposed else { return }
        downstream.on(.completed)
        dispose()
    }

    @inlinable var isDisposed: Bool { scheduled.isDisposed }
    @inlinable func dispose() { scheduled.dispose() }
}
