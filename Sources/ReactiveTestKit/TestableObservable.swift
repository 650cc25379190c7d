public import Reactive
import Synchronization

/// An observable for marble tests that records when it was subscribed and disposed.
///
/// Hot observables play their events at absolute times to whoever is subscribed then; cold ones
/// play them to each subscriber at times counted from its subscription.
public final class TestableObservable<Element: Sendable>: ObservableType {
    /// How the recorded events are played.
    enum Kind {
        case hot
        case cold
    }

    /// The events this observable plays.
    public let recordedEvents: [Recorded<Event<Element>>]

    private let kind: Kind
    private let scheduler: TestScheduler
    private let state = Mutex(State())

    private struct State {
        var subscriptions: [Subscription] = []
        /// Hot observables' current observers, in subscription order.
        var observers: [(key: UInt64, observer: AnyObserver<Element>)] = []
        var nextKey: UInt64 = 0
    }

    init(kind: Kind, scheduler: TestScheduler, recordedEvents: [Recorded<Event<Element>>]) {
        self.kind = kind
        self.scheduler = scheduler
        self.recordedEvents = recordedEvents
        if kind == .hot {
            for recorded in recordedEvents {
                scheduler.scheduleAt(recorded.time) { [weak self] in self?.broadcast(recorded.value) }
            }
        }
    }

    /// Every subscription so far: `Subscription(200, 300)`, or `Subscription(200)` if still open.
    public var subscriptions: [Subscription] { state.withLock { $0.subscriptions } }

    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> any Disposable
    where Observer.Element == Element {
        switch kind {
        case .hot: subscribeHot(AnyObserver(observer))
        case .cold: subscribeCold(AnyObserver(observer))
        }
    }

    private func subscribeHot(_ observer: AnyObserver<Element>) -> any Disposable {
        let key: UInt64 = state.withLock { state in
            defer { state.nextKey += 1 }
            state.observers.append((state.nextKey, observer))
            return state.nextKey
        }
        let index = recordSubscription()
        return Disposables.create { [self] in
            state.withLock { $0.observers.removeAll { $0.key == key } }
            recordDisposal(index)
        }
    }

    private func subscribeCold(_ observer: AnyObserver<Element>) -> any Disposable {
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

    private func broadcast(_ event: Event<Element>) {
        let observers = state.withLock { $0.observers.map(\.observer) }
        for observer in observers { observer.on(event) }
    }

    /// Records a new subscription at the current clock; returns its index.
    private func recordSubscription() -> Int {
        let now = scheduler.clock
        return state.withLock { state in
            state.subscriptions.append(Subscription(now))
            return state.subscriptions.count - 1
        }
    }

    /// Records that the subscription at `index` was disposed now.
    private func recordDisposal(_ index: Int) {
        let now = scheduler.clock
        state.withLock { state in
            let existing = state.subscriptions[index]
            state.subscriptions[index] = Subscription(existing.subscribe, now)
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
