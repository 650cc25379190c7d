public import Dispatch
public import Foundation
import Synchronization

/// Runs work on a Dispatch queue, by default a concurrent queue of its own at a quality of service
/// (RxSwift's `ConcurrentDispatchQueueScheduler`). Work items may run in parallel, so operators
/// that need serial delivery serialise it themselves.
///
/// - `scheduleRelative` uses `asyncAfter`; disposing before the deadline cancels the work and
///   releases its closure at once.
/// - `schedulePeriodic` uses a `DispatchSourceTimer` (whose handler never overlaps itself);
///   disposing cancels the timer.
/// - Work disposed before it started never runs.
///
/// `now` is the wall clock.
public final class ConcurrentScheduler: SchedulerType {
    /// The queue the work runs on.
    public let queue: DispatchQueue
    private let leeway: DispatchTimeInterval

    /// A scheduler on `queue` (concurrent or serial). `leeway` is the periodic timer's tolerance.
    public init(queue: DispatchQueue, leeway: DispatchTimeInterval = .nanoseconds(0)) {
        self.queue = queue
        self.leeway = leeway
    }

    /// A scheduler on a new concurrent queue with quality of service `qos`.
    public convenience init(qos: DispatchQoS = .default, leeway: DispatchTimeInterval = .nanoseconds(0)) {
        let queue = DispatchQueue(
            label: "reactive.concurrent.\(qos.qosClass)", qos: qos, attributes: .concurrent)
        self.init(queue: queue, leeway: leeway)
    }

    /// The wall-clock time.
    public var now: RxTime { Date() }

    public func schedule<State: Sendable>(
        _ state: State, action: @escaping @Sendable (State) -> any Disposable
    ) -> any Disposable {
        let work = ScheduledAction { action(state) }
        queue.async { work.invoke() }
        return work
    }

    public func scheduleRelative<State: Sendable>(
        _ state: State, dueTime: RxTimeInterval,
        action: @escaping @Sendable (State) -> any Disposable
    ) -> any Disposable {
        guard dueTime != .never else { return Disposables.create() }
        let work = ScheduledAction { action(state) }
        queue.asyncAfter(deadline: .now() + dueTime) { work.invoke() }
        return work
    }

    public func schedulePeriodic<State: Sendable>(
        _ state: State, startAfter: RxTimeInterval, period: RxTimeInterval,
        action: @escaping @Sendable (State) -> State
    ) -> any Disposable {
        guard startAfter != .never else { return Disposables.create() }
        let step = PeriodicStep(state: state, action: action)
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + startAfter, repeating: period, leeway: leeway)
        timer.setEventHandler { step.fire() }
        timer.resume()
        return PeriodicTimer(timer: timer, step: step)
    }
}

/// The state and action of a periodic timer. The timer's handler never runs concurrently with
/// itself; the `Mutex` makes that visible to the compiler and orders the runs.
private final class PeriodicStep<State: Sendable>: Sendable {
    private struct Slot {
        var state: State
        let action: @Sendable (State) -> State
    }

    private let slot: Mutex<Slot?>
    let disposed = Atomic<Bool>(false)

    init(state: State, action: @escaping @Sendable (State) -> State) {
        slot = Mutex(Slot(state: state, action: action))
    }

    /// One tick: runs the action unless disposed, outside the lock.
    func fire() {
        let taken = slot.withLock { slot in
            defer { slot = nil }
            return slot
        }
        guard var armed = taken else { return }
        armed.state = armed.action(armed.state)
        slot.withLock { slot in
            if !disposed.load(ordering: .acquiring) { slot = armed }
        }
    }

    /// Stops later ticks and releases the state and action.
    func cancel() {
        disposed.store(true, ordering: .releasing)
        slot.withLock { $0 = nil }
    }
}

/// Disposes a periodic Dispatch timer.
private final class PeriodicTimer<State: Sendable>: Cancelable {
    private let timer: Mutex<(any DispatchSourceTimer)?>
    private let step: PeriodicStep<State>

    init(timer: sending any DispatchSourceTimer, step: PeriodicStep<State>) {
        self.timer = Mutex(timer)
        self.step = step
    }

    var isDisposed: Bool { step.disposed.load(ordering: .acquiring) }

    func dispose() {
        step.cancel()
        timer.withLock { timer in
            timer?.cancel()
            timer = nil
        }
    }
}
