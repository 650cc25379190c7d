public import Synchronization

/// A subject that holds a current value: each new subscriber first receives the current value (the
/// initial one until an element arrives), then every later event.
///
/// - After a terminal event, new subscribers receive only that terminal event (not the last value),
///   and ``value()`` returns the last value after `.completed` and throws the error after `.error`.
/// - Events after the terminal event are ignored.
/// - After `dispose()`, `on` is ignored, new subscribers receive `RxError.disposed` and ``value()``
///   throws `RxError.disposed`.
/// - As in RxSwift, a terminal event does not detach the observers: each stays counted by
///   ``hasObservers`` until it unsubscribes (operators unsubscribe as soon as they see the terminal
///   event).
public final class BehaviorSubject<Element: Sendable>: SubjectType, ObserverType, Cancelable,
    KeyedObserverRemoval
{
    @usableFromInline
    struct State {
        @usableFromInline var value: Element
        @usableFromInline var observers = Bag<AnyObserver<Element>>()
        @usableFromInline var stopEvent: Event<Element>?
        @usableFromInline var isDisposed = false

        @inlinable init(value: Element) {
            self.value = value
        }
    }

    /// Removes a subscriber by key for ``KeyedSubscription``. Made in `init`, so it is specialised in
    /// the client; it refers to the subject `unowned(unsafe)` (no cycle), which is sound because it
    /// runs only from ``removeObserver(_:)``, called on a strong reference. Written once, in `init`.
    @usableFromInline nonisolated(unsafe) var removal: (@Sendable (UInt64) -> Void)?
    @usableFromInline let state: Mutex<State>
    @usableFromInline let grammar = GrammarCheck()

    /// Creates a subject whose current value is `value` until the first element arrives.
    @inlinable
    public init(value: Element) {
        state = Mutex(State(value: value))
        removal = { [unowned(unsafe) self] key in self.unsubscribe(key) }
    }

    /// Whether any observer is subscribed.
    public var hasObservers: Bool { state.withLock { !$0.observers.isEmpty } }

    /// Whether `dispose()` was called.
    public var isDisposed: Bool { state.withLock { $0.isDisposed } }

    /// The current value.
    ///
    /// - Throws: the error the subject failed with, or `RxError.disposed` after `dispose()`.
    @inlinable
    public func value() throws -> Element {
        try state.withLock { state throws -> Element in
            if state.isDisposed { throw RxError.disposed }
            if let error = state.stopEvent?.error { throw error }
            return state.value
        }
    }

    /// The current value, whatever happened to the subject (for ``BehaviorRelay``, whose subject
    /// never fails and is never disposed).
    @inlinable
    var latest: Element { state.withLock { $0.value } }

    /// Records `event` and sends it to the current observers; ignored after a terminal event or
    /// `dispose()`.
    @inlinable
    public func on(_ event: Event<Element>) {
        let entry = grammar.begin(event, postTerminal: .drop)
        if case .drop = entry { return }
        defer { grammar.end(entry) }
        let observers = deliveryList(for: event)
        observers.forEach { $0.on(event) }
    }

    /// Records `event` and returns the observers to deliver it to.
    @inlinable
    func deliveryList(for event: Event<Element>) -> Bag<AnyObserver<Element>> {
        state.withLock { state in
            guard !state.isDisposed, state.stopEvent == nil else { return Bag() }
            switch event {
            case .next(let element): state.value = element
            case .error, .completed: state.stopEvent = event
            }
            return state.observers
        }
    }

    /// Subscribes `observer`: it receives the current value at once, then every later event. After a
    /// terminal event it receives only that event; after `dispose()`, `RxError.disposed`.
    ///
    /// Inlinable so that the gate wrapped around the observer, which every later event goes
    /// through, is specialised in the client.
    @inlinable
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> any Disposable
    where Observer.Element == Element {
        let erased = AnyObserver(observer)
        let outcome: SubscribeOutcome = state.withLock { state in
            if state.isDisposed { return .rejected(.error(RxError.disposed)) }
            if let stop = state.stopEvent { return .rejected(stop) }
            let gate = ReplayingObserver(erased)
            let key = state.observers.insert(AnyObserver(gate))
            return .subscribed(key, gate, state.value)
        }
        switch outcome {
        case .subscribed(let key, let gate, let value):
            gate.replay([.next(value)])
            // Replayed: the observer takes the gate's place, which is freed.
            state.withLock { $0.observers.replace(key, with: erased) }
            return KeyedSubscription(self, key: key)
        case .rejected(let event):
            erased.on(event)
            return Disposables.create()
        }
    }

    /// What `subscribe` found under the lock.
    @usableFromInline
    enum SubscribeOutcome {
        case subscribed(UInt64, ReplayingObserver<Element>, Element)
        case rejected(Event<Element>)
    }

    /// Removes the subscriber with `key`; removing twice is harmless.
    @inlinable
    func unsubscribe(_ key: UInt64) {
        _ = state.withLock { state in
            state.isDisposed ? nil : state.observers.remove(key)
        }
    }

    @usableFromInline
    func removeObserver(_ key: UInt64) { removal?(key) }

    /// Detaches every observer; later events are ignored, later subscribers get
    /// `RxError.disposed` and ``value()`` throws it.
    public func dispose() {
        state.withLock { state in
            state.isDisposed = true
            state.observers = Bag()
            state.stopEvent = nil
        }
    }

    /// The subject's observer side (inlinable, so the observer is specialised in the client).
    @inlinable
    public func asObserver() -> AnyObserver<Element> { AnyObserver(self) }
}
