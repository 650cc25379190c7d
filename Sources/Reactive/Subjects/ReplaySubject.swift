public import Synchronization

/// A subject that replays the elements it has buffered to each new subscriber, then forwards every
/// later event; after a terminal event, new subscribers receive the buffered elements followed by
/// that terminal event.
///
/// Create one with ``create(bufferSize:)`` (keeps the last `bufferSize` elements) or
/// ``createUnbounded()`` (keeps everything: make sure the sequence stays reasonably short).
///
/// - Events after the terminal event are ignored.
/// - After `dispose()`, `on` is ignored, the buffer is emptied and new subscribers receive
///   `RxError.disposed`.
public final class ReplaySubject<Element: Sendable>: SubjectType, ObserverType, Cancelable,
    KeyedObserverRemoval
{
    @usableFromInline
    struct State {
        @usableFromInline var buffer: ReplayBuffer<Element>
        @usableFromInline var observers = Bag<AnyObserver<Element>>()
        @usableFromInline var stopEvent: Event<Element>?
        @usableFromInline var isDisposed = false

        @inlinable init(buffer: ReplayBuffer<Element>) {
            self.buffer = buffer
        }
    }

    /// Removes a subscriber by key for ``KeyedSubscription``. Made in `init`, so it is specialised in
    /// the client; it refers to the subject `unowned(unsafe)` (no cycle), which is sound because it
    /// runs only from ``removeObserver(_:)``, called on a strong reference. Written once, in `init`.
    @usableFromInline nonisolated(unsafe) var removal: (@Sendable (UInt64) -> Void)?
    @usableFromInline let state: Mutex<State>
    @usableFromInline let grammar = GrammarCheck()

    @inlinable
    init(limit: Int) {
        state = Mutex(State(buffer: ReplayBuffer(limit: limit)))
        removal = { [unowned(unsafe) self] key in self.unsubscribe(key) }
    }

    /// A subject that replays at most the last `bufferSize` elements (`bufferSize` ≥ 0; 0 replays
    /// only the terminal event).
    @inlinable
    public static func create(bufferSize: Int) -> ReplaySubject<Element> {
        precondition(bufferSize >= 0, "ReplaySubject.create(bufferSize:) needs bufferSize >= 0")
        return ReplaySubject(limit: bufferSize)
    }

    /// A subject that replays every element it has received.
    @inlinable
    public static func createUnbounded() -> ReplaySubject<Element> {
        ReplaySubject(limit: .max)
    }

    /// Whether any observer is subscribed.
    public var hasObservers: Bool { state.withLock { !$0.observers.isEmpty } }

    /// Whether `dispose()` was called.
    public var isDisposed: Bool { state.withLock { $0.isDisposed } }

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

    /// Records `event` and returns the observers to deliver it to; a terminal event also detaches
    /// them.
    @inlinable
    func deliveryList(for event: Event<Element>) -> Bag<AnyObserver<Element>> {
        state.withLock { state in
            guard !state.isDisposed, state.stopEvent == nil else { return Bag() }
            if case .next(let element) = event {
                state.buffer.append(element)
                return state.observers
            }
            state.stopEvent = event
            defer { state.observers = Bag() }
            return state.observers
        }
    }

    /// Subscribes `observer`: it receives the buffered elements at once, then every later event.
    /// After a terminal event it receives the buffered elements and that event; after `dispose()`,
    /// `RxError.disposed`.
    ///
    /// Inlinable so that the gate wrapped around the observer, which every later event goes
    /// through, is specialised in the client.
    @inlinable
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> any Disposable
    where Observer.Element == Element {
        let erased = AnyObserver(observer)
        let outcome: SubscribeOutcome = state.withLock { state in
            if state.isDisposed { return .rejected([.error(RxError.disposed)]) }
            if let stop = state.stopEvent { return .rejected(state.buffer.events + [stop]) }
            if state.buffer.isEmpty {
                return .subscribed(state.observers.insert(erased), nil, [])
            }
            let gate = ReplayingObserver(erased)
            return .subscribed(state.observers.insert(AnyObserver(gate)), gate, state.buffer.events)
        }
        switch outcome {
        case .subscribed(let key, let gate, let replay):
            if let gate {
                gate.replay(replay)
                // Replayed: the observer takes the gate's place, which is freed.
                state.withLock { $0.observers.replace(key, with: erased) }
            }
            return KeyedSubscription(self, key: key)
        case .rejected(let events):
            for event in events { erased.on(event) }
            return Disposables.create()
        }
    }

    /// What `subscribe` found under the lock.
    @usableFromInline
    enum SubscribeOutcome {
        /// Subscribed with this key; the gate (if any) must replay these events.
        case subscribed(UInt64, ReplayingObserver<Element>?, [Event<Element>])
        /// Not subscribed: deliver these events and finish.
        case rejected([Event<Element>])
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

    /// Detaches every observer and empties the buffer; later events are ignored and later
    /// subscribers get `RxError.disposed`.
    public func dispose() {
        state.withLock { state in
            state.isDisposed = true
            state.observers = Bag()
            state.buffer.removeAll()
        }
    }

    /// The subject's observer side (inlinable, so the observer is specialised in the client).
    @inlinable
    public func asObserver() -> AnyObserver<Element> { AnyObserver(self) }
}
