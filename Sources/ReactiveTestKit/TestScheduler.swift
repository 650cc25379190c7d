public import Foundation
public import Reactive
import Synchronization

/// A virtual-time scheduler for marble tests, with RxTest's API and timing rules.
///
/// - Time is integer ticks; with the default `resolution` of 1, a time-based operator given this
///   scheduler counts `.seconds(n)` as `n` ticks (intervals round to the nearest tick).
/// - Work scheduled for the same tick runs in the order it was scheduled, so a hot observable's
///   event at the subscription tick is not seen (it was scheduled first), and actions at a tick run
///   after source events already scheduled for it.
/// - Scheduling for "now" (or the past) lands one tick later (`simulateProcessingDelay`).
///
/// The scheduler runs everything on the thread that calls `start()` or `advanceTo(_:)`.
public final class TestScheduler: SchedulerType {
    /// RxTest's default times: create at 100, subscribe at 200, dispose at 1000.
    public enum Defaults {
        public static let created: TestTime = 100
        public static let subscribed: TestTime = 200
        public static let disposed: TestTime = 1000
    }

    private struct State {
        var clock: TestTime
        var running = false
        var queue = ScheduleQueue()
    }

    private let state: Mutex<State>
    private let resolution: Double
    private let simulateProcessingDelay: Bool

    /// Creates a scheduler whose clock starts at `initialClock`.
    ///
    /// - Parameters:
    ///   - resolution: seconds per tick (`.seconds(n)` is `n / resolution` ticks).
    ///   - simulateProcessingDelay: whether work scheduled for now or the past runs one tick later.
    public init(initialClock: TestTime, resolution: Double = 1.0, simulateProcessingDelay: Bool = true) {
        state = Mutex(State(clock: initialClock))
        self.resolution = resolution
        self.simulateProcessingDelay = simulateProcessingDelay
    }

    /// The current virtual time in ticks.
    public var clock: TestTime { state.withLock { $0.clock } }

    public var now: RxTime { Date(timeIntervalSince1970: Double(clock) * resolution) }

    // MARK: Scheduling

    public func schedule<StateType: Sendable>(
        _ state: StateType, action: @escaping @Sendable (StateType) -> any Disposable
    ) -> any Disposable {
        scheduleRelative(state, dueTime: .nanoseconds(0), action: action)
    }

    public func scheduleRelative<StateType: Sendable>(
        _ state: StateType, dueTime: RxTimeInterval,
        action: @escaping @Sendable (StateType) -> any Disposable
    ) -> any Disposable {
        let seconds = dueTime.seconds
        guard seconds.isFinite else { return Disposables.create() }
        let time = TestTime((Double(clock) * resolution + seconds) / resolution + 0.5)
        return scheduleAbsoluteVirtual(state, time: adjustScheduledTime(time), action: action)
    }

    /// Schedules `action` `dueTime` ticks after the current clock (no processing-delay
    /// adjustment; cold observables use it).
    public func scheduleRelativeVirtual<StateType: Sendable>(
        _ state: StateType, dueTime: TestTime,
        action: @escaping @Sendable (StateType) -> any Disposable
    ) -> any Disposable {
        scheduleAbsoluteVirtual(state, time: clock + dueTime, action: action)
    }

    /// Schedules `action` at the absolute virtual time `time`.
    public func scheduleAbsoluteVirtual<StateType: Sendable>(
        _ state: StateType, time: TestTime,
        action: @escaping @Sendable (StateType) -> any Disposable
    ) -> any Disposable {
        let item = ScheduledItem(time: time) { action(state) }
        self.state.withLock { $0.queue.push(item) }
        return item
    }

    /// Runs `action` at the absolute virtual time `time`.
    public func scheduleAt(_ time: TestTime, action: @escaping @Sendable () -> Void) {
        _ = scheduleAbsoluteVirtual((), time: time) { _ in
            action()
            return Disposables.create()
        }
    }

    /// Where work scheduled for `time` lands: at or before the clock, one tick later (if
    /// `simulateProcessingDelay`).
    public func adjustScheduledTime(_ time: TestTime) -> TestTime {
        let clock = self.clock
        return time <= clock ? clock + (simulateProcessingDelay ? 1 : 0) : time
    }

    // MARK: Running

    /// Runs scheduled work in time order until nothing is left (or `stop()` is called).
    public func start() {
        let alreadyRunning = state.withLock { state in
            defer { state.running = true }
            return state.running
        }
        guard !alreadyRunning else { return }
        while let item = next(until: nil) { item.invoke() }
        state.withLock { $0.running = false }
    }

    /// Runs the work scheduled up to and including `time`, then sets the clock to `time`.
    public func advanceTo(_ time: TestTime) {
        let alreadyRunning = state.withLock { state in
            defer { state.running = true }
            return state.running
        }
        precondition(!alreadyRunning, "TestScheduler.advanceTo called while the scheduler is running")
        while let item = next(until: time) { item.invoke() }
        state.withLock { state in
            state.clock = max(state.clock, time)
            state.running = false
        }
    }

    /// Moves the clock forward by `ticks` without running anything.
    public func sleep(_ ticks: TestTime) {
        state.withLock { state in
            precondition(ticks >= 0, "TestScheduler cannot sleep into the past")
            state.clock += ticks
        }
    }

    /// Stops `start()` after the item running now.
    public func stop() {
        state.withLock { $0.running = false }
    }

    private func next(until limit: TestTime?) -> ScheduledItem? {
        state.withLock { state in
            guard state.running else { return nil }
            while let item = state.queue.peek() {
                if item.isDisposed {
                    _ = state.queue.pop()
                    continue
                }
                if let limit, item.time > limit { return nil }
                _ = state.queue.pop()
                if item.time > state.clock { state.clock = item.time }
                return item
            }
            return nil
        }
    }

    // MARK: Test doubles

    /// A hot observable: its events happen at their absolute times whether or not anyone is
    /// subscribed.
    public func createHotObservable<Element: Sendable>(
        _ events: [Recorded<Event<Element>>]
    ) -> TestableObservable<Element> {
        TestableObservable(kind: .hot, scheduler: self, recordedEvents: events)
    }

    /// A cold observable: each subscriber gets the events at their times counted from its
    /// subscription.
    public func createColdObservable<Element: Sendable>(
        _ events: [Recorded<Event<Element>>]
    ) -> TestableObservable<Element> {
        TestableObservable(kind: .cold, scheduler: self, recordedEvents: events)
    }

    /// An observer that records what it receives with the virtual time.
    public func createObserver<Element: Sendable>(_ type: Element.Type) -> TestableObserver<Element> {
        TestableObserver(scheduler: self)
    }

    /// Creates the sequence at `created`, subscribes at `subscribed`, disposes at `disposed`, runs
    /// the scheduler and returns what the subscription received.
    public func start<Source: ObservableConvertibleType>(
        created: TestTime = Defaults.created,
        subscribed: TestTime = Defaults.subscribed,
        disposed: TestTime = Defaults.disposed,
        create: @escaping @Sendable () -> Source
    ) -> TestableObserver<Source.Element> {
        let observer = createObserver(Source.Element.self)
        let source = Mutex<Observable<Source.Element>?>(nil)
        let subscription = SingleAssignmentDisposable()
        scheduleAt(created) { source.withLock { $0 = create().asObservable() } }
        scheduleAt(subscribed) {
            guard let sequence = source.withLock({ $0 }) else { return }
            subscription.setDisposable(sequence.subscribe(observer))
        }
        scheduleAt(disposed) { subscription.dispose() }
        start()
        return observer
    }

    /// `start(created: 100, subscribed: 200, disposed: disposed, create: create)`.
    public func start<Source: ObservableConvertibleType>(
        disposed: TestTime, create: @escaping @Sendable () -> Source
    ) -> TestableObserver<Source.Element> {
        start(created: Defaults.created, subscribed: Defaults.subscribed, disposed: disposed, create: create)
    }
}

/// One piece of scheduled work. Disposing it releases the action at once (and with it whatever
/// the action captured, such as a sink), so a disposed timer does not keep a subscription alive
/// until the clock reaches it.
final class ScheduledItem: Cancelable {
    let time: TestTime
    let id: UInt64
    private let action: Mutex<(@Sendable () -> any Disposable)?>
    private let result = SingleAssignmentDisposable()

    private static let ids = Atomic<UInt64>(0)

    init(time: TestTime, action: @escaping @Sendable () -> any Disposable) {
        self.time = time
        self.id = Self.ids.add(1, ordering: .relaxed).newValue
        self.action = Mutex(action)
    }

    var isDisposed: Bool { result.isDisposed }

    func invoke() {
        let action = self.action.withLock { action in
            defer { action = nil }
            return action
        }
        guard let action else { return }
        result.setDisposable(action())
    }

    func dispose() {
        result.dispose()
        action.withLock { $0 = nil }
    }
}

/// A binary min-heap of scheduled items by (time, insertion order).
struct ScheduleQueue {
    private var heap: [ScheduledItem] = []

    private static func before(_ a: ScheduledItem, _ b: ScheduledItem) -> Bool {
        a.time != b.time ? a.time < b.time : a.id < b.id
    }

    func peek() -> ScheduledItem? { heap.first }

    mutating func push(_ item: ScheduledItem) {
        heap.append(item)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.before(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> ScheduledItem? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let top = heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var first = parent
            if left < heap.count, Self.before(heap[left], heap[first]) { first = left }
            if right < heap.count, Self.before(heap[right], heap[first]) { first = right }
            if first == parent { break }
            heap.swapAt(parent, first)
            parent = first
        }
        return top
    }
}
