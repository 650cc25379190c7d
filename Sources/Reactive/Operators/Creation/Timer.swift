extension Observable where Element: FixedWidthInteger {
    /// Sends `0` after `dueTime`, then (with a `period`) `1`, `2`, … every `period`; without a
    /// period it completes right after the `0`. Runs its timers on `scheduler`; disposing stops
    /// them. The counter wraps around on overflow.
    ///
    /// ```swift
    /// Observable<Int>.timer(.seconds(5), scheduler: scheduler)   // 5 s later: 0, completed
    /// ```
    @inlinable
    public static func timer(
        _ dueTime: RxTimeInterval, period: RxTimeInterval? = nil, scheduler: any SchedulerType
    ) -> Observable<Element> {
        guard let period else {
            return Observable(unsafeSubscribe: { downstream in
                let sink = OneShotTimerSink(downstream: downstream)
                sink.timer.assign(
                    scheduler.scheduleRelative((), dueTime: dueTime) { [sink] _ in
                        sink.fire()
                        return Disposables.create()
                    })
                return sink
            })
        }
        return Observable(unsafeSubscribe: { downstream in
            let sink = PeriodicTimerSink(downstream: downstream)
            let ticks = scheduler.schedulePeriodic(
                Element.zero, startAfter: dueTime, period: period
            ) { [sink] count in
                sink.tick(count)
                return count &+ 1
            }
            sink.timer.assign(ticks)
            return sink
        })
    }

    /// Sends `0`, `1`, `2`, … one every `period`, the first one `period` after subscription; never
    /// completes. Same as `timer(period, period: period, scheduler: scheduler)`.
    @inlinable
    public static func interval(
        _ period: RxTimeInterval, scheduler: any SchedulerType
    ) -> Observable<Element> {
        timer(period, period: period, scheduler: scheduler)
    }
}

/// The live state of a `timer` without a period.
@usableFromInline
final class OneShotTimerSink<Element: FixedWidthInteger & Sendable>: Cancelable {
    @usableFromInline let downstream: AnyObserver<Element>
    @usableFromInline let timer = SingleAssignmentState()
    @usableFromInline let resource = ResourceToken()

    @inlinable
    init(downstream: AnyObserver<Element>) {
        self.downstream = downstream
    }

    @inlinable
    func fire() {
        guard !isDisposed else { return }
        downstream.on(.next(0))
        downstream.on(.completed)
        dispose()
    }

    @inlinable var isDisposed: Bool { timer.isDisposed }
    @inlinable func dispose() { timer.dispose() }
}

/// The live state of a periodic `timer` or an `interval`.
@usableFromInline
final class PeriodicTimerSink<Element: FixedWidthInteger & Sendable>: Cancelable {
    @usableFromInline let downstream: AnyObserver<Element>
    @usableFromInline let timer = SingleAssignmentState()
    @usableFromInline let resource = ResourceToken()

    @inlinable
    init(downstream: AnyObserver<Element>) {
        self.downstream = downstream
    }

    @inlinable
    func tick(_ count: Element) {
        guard !isDisposed else { return }
        downstream.on(.next(count))
    }

    @inlinable var isDisposed: Bool { timer.isDisposed }
    @inlinable func dispose() { timer.dispose() }
}
