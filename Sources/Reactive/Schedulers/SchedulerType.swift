public import Dispatch
public import Foundation

/// A span of time, as in RxSwift 6: `.seconds(1)`, `.milliseconds(300)`, `.never`.
public typealias RxTimeInterval = DispatchTimeInterval

/// A point in time.
public typealias RxTime = Date

/// Runs work now (or as soon as it can), in its own execution context.
public protocol ImmediateSchedulerType: Sendable {
    /// Schedules `action` to run with `state`. The action returns a disposable that cancels work it
    /// started itself; the returned disposable cancels the action if it has not run (best effort)
    /// and disposes what the action returned.
    func schedule<State: Sendable>(
        _ state: State, action: @escaping @Sendable (State) -> any Disposable
    ) -> any Disposable
}

/// A scheduler that also knows time: it can run work after a delay and periodically.
public protocol SchedulerType: ImmediateSchedulerType {
    /// The scheduler's current time.
    var now: RxTime { get }

    /// Schedules `action` to run after `dueTime`.
    func scheduleRelative<State: Sendable>(
        _ state: State, dueTime: RxTimeInterval,
        action: @escaping @Sendable (State) -> any Disposable
    ) -> any Disposable

    /// Schedules `action` to run first after `startAfter`, then every `period`, threading the state
    /// through; disposing stops it.
    func schedulePeriodic<State: Sendable>(
        _ state: State, startAfter: RxTimeInterval, period: RxTimeInterval,
        action: @escaping @Sendable (State) -> State
    ) -> any Disposable
}

extension ImmediateSchedulerType {
    /// Schedules a closure with no state.
    @inlinable
    @discardableResult
    public func schedule(_ action: @escaping @Sendable () -> Void) -> any Disposable {
        schedule(()) { _ in
            action()
            return Disposables.create()
        }
    }

    /// Schedules `action`, which may schedule itself again through `recurse`; disposing the result
    /// cancels the pending recursion.
    @inlinable @inline(__always)
    public func scheduleRecursive<State: Sendable>(
        _ state: State,
        action: @escaping @Sendable (_ state: State, _ recurse: (State) -> Void) -> Void
    ) -> any Disposable {
        let recursion = RecursiveScheduling(action: action) { state, body in
            self.schedule(state, action: body)
        }
        recursion.schedule(state)
        return recursion
    }
}

extension SchedulerType {
    /// Emulates periodic scheduling with recursive relative scheduling; schedulers with a native
    /// timer override it.
    public func schedulePeriodic<State: Sendable>(
        _ state: State, startAfter: RxTimeInterval, period: RxTimeInterval,
        action: @escaping @Sendable (State) -> State
    ) -> any Disposable {
        scheduleRecursive(state, dueTime: startAfter) { state, recurse in
            recurse(action(state), period)
        }
    }

    /// Schedules `action` after `dueTime`; the action may schedule itself again, each time after
    /// the delay it passes to `recurse`.
    @inlinable
    public func scheduleRecursive<State: Sendable>(
        _ state: State, dueTime: RxTimeInterval,
        action: @escaping @Sendable (_ state: State, _ recurse: (State, RxTimeInterval) -> Void) -> Void
    ) -> any Disposable {
        let recursion = RecursiveScheduling<(State, RxTimeInterval)>(
            action: { pair, recurse in action(pair.0) { recurse(($0, $1)) } },
            scheduleNext: { pair, body in self.scheduleRelative(pair, dueTime: pair.1, action: body) })
        recursion.schedule((state, dueTime))
        return recursion
    }
}

/// Keeps the pending steps of a recursive schedule so that disposing cancels them.
@usableFromInline
final class RecursiveScheduling<State: Sendable>: Cancelable {
    @usableFromInline typealias Action = @Sendable (_ state: State, _ recurse: (State) -> Void) -> Void
    @usableFromInline typealias ScheduleNext =
        @Sendable (State, @escaping @Sendable (State) -> any Disposable) -> any Disposable

    @usableFromInline let action: Action
    @usableFromInline let scheduleNext: ScheduleNext
    @usableFromInline let pending = CompositeDisposable()

    @inlinable
    init(action: @escaping Action, scheduleNext: @escaping ScheduleNext) {
        self.action = action
        self.scheduleNext = scheduleNext
    }

    @inlinable var isDisposed: Bool { pending.isDisposed }

    @inlinable
    func schedule(_ state: State) {
        let step = SingleAssignmentDisposable()
        guard let key = pending.insert(step) else { return }
        let scheduled = scheduleNext(state) { [self] state in
            pending.remove(for: key)
            if !pending.isDisposed { action(state, schedule) }
            return Disposables.create()
        }
        step.setDisposable(scheduled)
    }

    @inlinable func dispose() { pending.dispose() }
}

extension DispatchTimeInterval {
    /// The interval in seconds (`.never` is infinite).
    public var seconds: Double {
        switch self {
        case .seconds(let value): return Double(value)
        case .milliseconds(let value): return Double(value) / 1_000
        case .microseconds(let value): return Double(value) / 1_000_000
        case .nanoseconds(let value): return Double(value) / 1_000_000_000
        case .never: return .infinity
        @unknown default: return .infinity
        }
    }

    /// The interval in whole nanoseconds, saturating (`.never` is `Int.max`).
    public var nanoseconds: Int {
        switch self {
        case .seconds(let value):
            return saturated(value.multipliedReportingOverflow(by: 1_000_000_000), value)
        case .milliseconds(let value):
            return saturated(value.multipliedReportingOverflow(by: 1_000_000), value)
        case .microseconds(let value):
            return saturated(value.multipliedReportingOverflow(by: 1_000), value)
        case .nanoseconds(let value): return value
        case .never: return .max
        @unknown default: return .max
        }
    }
}

@inline(__always)
private func saturated(_ result: (partialValue: Int, overflow: Bool), _ sign: Int) -> Int {
    result.overflow ? (sign < 0 ? .min : .max) : result.partialValue
}
