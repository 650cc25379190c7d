public import Reactive
import Synchronization

/// An observable for marble tests that records when it was subscribed and disposed.
public class TestableObservable<Element: Sendable>: ObservableType, @unchecked Sendable {
    // @unchecked: the class is not final only so that hot and cold observables can share this
    // interface; neither subclass adds stored properties, and all mutable state is in `state`, a
    // Mutex.

    /// The events this observable plays.
    public let recordedEvents: [Recorded<Event<Element>>]

    let scheduler: TestScheduler
    let state = Mutex(State())

    struct State {
        var subscriptions: [Subscription] = []
        var observers = [UInt64: AnyObserver<Element>]()
        var order: [UInt64] = []
        var nextKey: UInt64 = 0
    }

    init(scheduler: TestScheduler, recordedEvents: [Recorded<Event<Element>>]) {
        self.scheduler = scheduler
        self.recordedEvents = recordedEvents
    }

    /// Every subscription so far: `Subscription(200, 300)`, or `Subscription(200)` if still open.
    public var subscriptions: [Subscription] { state.withLock { $0.subscriptions } }

    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> any Disposable
    where Observer.Element == Element {
        fatalError("TestableObservable is abstract: use createHotObservable or createColdObservable")
    }

    /// Records a new subscription at the current clock; returns its index.
    func recordSubscription() -> Int {
        let now = scheduler.clock
        return state.withLock { state in
            state.subscriptions.append(Subscription(now))
            return state.subscriptions.count - 1
        }
    }

    /// Records that the subscription at `index` was disposed now.
    func recordDisposal(_ index: Int) {
        let now = scheduler.clock
        state.withLock { state in
            let existing = state.subscriptions[index]
            state.subscriptions[index] = Subscription(existing.subscribe, now)
        }
    }
}

/// Plays its events at their absolute times to whoever is subscribed then.
final class HotObservable<Element: Sendable>: TestableObservable<Element>, @unchecked Sendable {
    // @unchecked: see TestableObservable; no stored properties are added here.

    override init(scheduler: TestScheduler, recordedEvents: [Recorded<Event<Element>>]) {
        super.init(scheduler: scheduler, recordedEvents: recordedEvents)
        for recorded in recordedEvents {
            scheduler.scheduleAt(recorded.time) { [weak self] in
                guard let self else { return }
                let observers = self.state.withLock { state in state.order.compactMap { state.observers[$0] } }
                for observer in observers { observer.on(recorded.value) }
            }
        }
    }

    override func subscribe<Observer: ObserverType>(_ observer: Observer) -> any Disposable
    where Observer.Element == Element {
        let key: UInt64 = state.withLock { state in
            let key = state.nextKey
            state.nextKey += 1
            state.observers[key] = AnyObserver(observer)
            state.order.append(key)
            return key
        }
        let index = recordSubscription()
        return Disposables.create { [self] in
            state.withLock { state in
                state.observers[key] = nil
                state.order.removeAll { $0 == key }
            }
            recordDisposal(index)
        }
    }
}

/// Plays its events to each subscriber at times counted from that subscription.
final class ColdObservable<Element: Sendable>: TestableObservable<Element>, @unchecked Sendable {
    // @unchecked: see TestableObservable; no stored properties are added here.

    override func subscribe<Observer: ObserverType>(_ observer: Observer) -> any Disposable
    where Observer.Element == Element {
        let index = recordSubscription()
        let disposed = BooleanDisposable()
        for recorded in recordedEvents {
            _ = scheduler.scheduleRelativeVirtual((), dueTime: recorded.time) { _ in
                if !disposed.isDisposed { observer.on(recorded.value) }
                return Disposables.create()
            }
        }
        return Disposables.create { [self] in
            disposed.dispose()
            recordDisposal(index)
        }
    }
}

/// Records the events it receives with the virtual time at which each arrived.
public final class TestableObserver<Element: Sendable>: ObserverType {
    private let scheduler: TestScheduler
    private let recorded = Mutex<[Recorded<Event<Element>>]>([])

    init(scheduler: TestScheduler) {
        self.scheduler = scheduler
    }

    /// What was received, in order.
    public var events: [Recorded<Event<Element>>] { recorded.withLock { $0 } }

    public func on(_ event: Event<Element>) {
        let now = scheduler.clock
        recorded.withLock { $0.append(Recorded(time: now, value: event)) }
    }
}
