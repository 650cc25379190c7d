public import Foundation
public import Synchronization

extension ObservableType {
    /// Passes on the first element at once and then at most one element per `dueTime`.
    ///
    /// An element that arrives less than `dueTime` after the last one sent is dropped when
    /// `latest` is false. When `latest` is true the most recent such element is kept and sent when
    /// `dueTime` has passed since the last one sent; completion of the source is then held back
    /// until that element has been sent. An error is passed on at once and a kept element dropped.
    ///
    /// ```swift
    /// taps.throttle(.seconds(1), latest: false, scheduler: scheduler)   // ignore double taps
    /// ```
    @inlinable
    public func throttle(
        _ dueTime: RxTimeInterval, latest: Bool = true, scheduler: any SchedulerType
    ) -> Observable<Element> {
        let source = asObservable()
        return Observable(unsafeSubscribe: { downstream in
            let sink = ThrottleSink(
                downstream: downstream, dueTime: dueTime, latest: latest, scheduler: scheduler)
            sink.upstream.assign(source.subscribe(sink))
            return sink
        })
    }
}

/// The live state of one `throttle` subscription.
@usableFromInline
final class ThrottleSink<Element: Sendable>: ObserverType, Cancelable, CancellableDelivery {
    @usableFromInline typealias Queued = Element

    @usableFromInline
    struct State: SerialDeliveryState {
        @usableFromInline var delivery = SerialDelivery<Element>()
        /// The latest element that arrived too early, to be sent when the period ends.
        @usableFromInline var kept: Element?
        /// When the last element was sent.
        @usableFromInline var lastSent: RxTime?
        /// The source completed while an element was kept: complete once it is sent.
        @usableFromInline var completionHeld = false

        @inlinable init() {}
    }

    @usableFromInline let downstream: AnyObserver<Element>
    @usableFromInline let dueTime: RxTimeInterval
    @usableFromInline let latest: Bool
    @usableFromInline let scheduler: any SchedulerType
    /// Set in `init`, not here: a class's initial values are not inlined, so they would run generically.
    @usableFromInline let state: Mutex<State>
    @usableFromInline let upstream = SingleAssignmentState()
    @usableFromInline let timer = SerialState()
    @usableFromInline let cancelled = Atomic<Bool>(false)
    @usableFromInline let resource = ResourceToken()

    @inlinable
    init(
        downstream: AnyObserver<Element>, dueTime: RxTimeInterval, latest: Bool, scheduler: any SchedulerType
    ) {
        self.downstream = downstream
        self.dueTime = dueTime
        self.latest = latest
        self.scheduler = scheduler
        state = Mutex(State())
    }

    @inlinable
    func on(_ event: Event<Element>) {
        guard !upstream.isDisposed else { return }
        switch event {
        case .next(let element):
            let now = scheduler.now
            let wait: RxTimeInterval? = state.withLock { state in
                guard !state.delivery.isTerminated else { return nil }
                let remaining =
                    state.lastSent.map { dueTime.remaining(afterElapsed: now.timeIntervalSince($0)) }
                    ?? .nanoseconds(0)
                if remaining.isZeroLength {
                    state.kept = nil
                    state.delivery.enqueue(.next(element))
                    state.lastSent = now
                    return nil
                }
                guard latest else { return nil }
                let timerRunning = state.kept != nil
                state.kept = element
                return timerRunning ? nil : remaining
            }
            state.deliver(to: SinkEmitter(self))
            guard let wait else { return }
            timer.disposable = scheduler.scheduleRelative((), dueTime: wait) { [self] _ in
                endPeriod()
                return Disposables.create()
            }
        case .error:
            state.withLock { state in
                state.kept = nil
                state.delivery.enqueue(event)
            }
            state.deliver(to: SinkEmitter(self))
            finish()
        case .completed:
            let held: Bool = state.withLock { state in
                if state.kept != nil {
                    state.completionHeld = true
                    return true
                }
                state.delivery.enqueue(.completed)
                return false
            }
            if held {
                upstream.dispose()
            } else {
                state.deliver(to: SinkEmitter(self))
                finish()
            }
        }
    }

    /// The period after the last sent element ended: send the kept element, then the held
    /// completion.
    @inlinable
    func endPeriod() {
        let now = scheduler.now
        let completed: Bool = state.withLock { state in
            if let kept = state.kept {
                state.kept = nil
                state.delivery.enqueue(.next(kept))
                state.lastSent = now
            }
            guard state.completionHeld else { return false }
            state.delivery.enqueue(.completed)
            return true
        }
        state.deliver(to: SinkEmitter(self))
        if completed { finish() }
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

extension DispatchTimeInterval {
    /// What is left of this interval once `elapsed` seconds have passed, as RxSwift 6 computes it
    /// for `throttle` and `delay`: in this interval's own unit, rounded to the nearest unit (so
    /// `.seconds(1)` after 0.4 s leaves `.seconds(1)`), never negative; `.never` stays `.never`.
    /// A negative `elapsed` (the wall clock was set back) counts as none, so the wait never
    /// exceeds the interval.
    @usableFromInline
    func remaining(afterElapsed elapsed: TimeInterval) -> DispatchTimeInterval {
        let elapsed = max(elapsed, 0)
        func reduce(_ value: Int, unitsPerSecond: Double) -> Int {
            let remainder = Double(value) - elapsed * unitsPerSecond
            return remainder > 0 ? Int(remainder.rounded(.toNearestOrAwayFromZero)) : 0
        }
        switch self {
        case .seconds(let value): return .seconds(reduce(value, unitsPerSecond: 1))
        case .milliseconds(let value): return .milliseconds(reduce(value, unitsPerSecond: 1e3))
        case .microseconds(let value): return .microseconds(reduce(value, unitsPerSecond: 1e6))
        case .nanoseconds(let value): return .nanoseconds(reduce(value, unitsPerSecond: 1e9))
        case .never: return .never
        @unknown default: return self
        }
    }

    /// Whether this is a zero interval (in any unit).
    @usableFromInline
    var isZeroLength: Bool {
        switch self {
        case .seconds(let value), .milliseconds(let value), .microseconds(let value),
            .nanoseconds(let value):
            return value == 0
        case .never: return false
        @unknown default: return false
        }
    }
}
