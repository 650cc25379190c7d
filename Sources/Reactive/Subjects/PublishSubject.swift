public import Synchronization

/// A subject that forwards each event to the observers subscribed at that moment.
///
/// - Late subscribers see nothing of what came before; after a terminal event, new subscribers get
///   that terminal event at once.
/// - Events after the terminal event are ignored.
/// - After `dispose()`, `on` is ignored and new subscribers receive `RxError.disposed`.
public final class PublishSubject<Element: Sendable>: ObservableType, ObserverType, Cancelable,
    KeyedObserverRemoval
{
    @usableFromInline
    struct State {
        @usableFromInline var observers = Bag<AnyObserver<Element>>()
        @usableFromInline var stopEvent: Event<Element>?
        @usableFromInline var isDisposed = false

        @inlinable init() {}
    }

    /// Removes a subscriber by key for ``KeyedSubscription``. Made in `init`, so it is specialised in
    /// the client; it refers to the subject `unowned(unsafe)` (no cycle), which is sound because it
    /// runs only from ``removeObserver(_:)``, called on a strong reference. Written once, in `init`.
    @usableFromInline nonisolated(unsafe) var removal: (@Sendable (UInt64) -> Void)?
    @usableFromInline let state = Mutex(State())
    @usableFromInline let grammar = GrammarCheck()

    /// Creates a subject with no observers.
    @inlinable public init() {
        removal = { [unowned(unsafe) self] key in self.unsubscribe(key) }
    }

    /// Whether any observer is subscribed.
    public var hasObservers: Bool { state.withLock { !$0.observers.isEmpty } }

    public var isDisposed: Bool { state.withLock { $0.isDisposed } }

    @inlinable
    public func on(_ event: Event<Element>) {
        let entry = grammar.begin(event, postTerminal: .drop)
        if case .drop = entry { return }
        defer { grammar.end(entry) }
        let observers = deliveryList(for: event)
        observers.forEach { $0.on(event) }
    }

    /// The observers to deliver `event` to; a terminal event also detaches them.
    @inlinable
    func deliveryList(for event: Event<Element>) -> Bag<AnyObserver<Element>> {
        state.withLock { state in
            guard !state.isDisposed, state.stopEvent == nil else { return Bag() }
            if case .next = event { return state.observers }
            state.stopEvent = event
            defer { state.observers = Bag() }
            return state.observers
        }
    }

    @inlinable
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> any Disposable
    where Observer.Element == Element {
        let erased = AnyObserver(observer)
        let outcome: SubscribeOutcome = state.withLock { state in
            if state.isDisposed { return .disposed }
            if let stop = state.stopEvent { return .stopped(stop) }
            return .subscribed(state.observers.insert(erased))
        }
        switch outcome {
        case .subscribed(let key):
            return KeyedSubscription(self, key: key)
        case .stopped(let event):
            erased.on(event)
        case .disposed:
            erased.on(.error(RxError.disposed))
        }
        return Disposables.create()
    }

    /// What `subscribe` found under the lock.
    @usableFromInline
    enum SubscribeOutcome {
        case subscribed(UInt64)
        case stopped(Event<Element>)
        case disposed
    }

    @inlinable
    func unsubscribe(_ key: UInt64) {
        _ = state.withLock { $0.observers.remove(key) }
    }

    @usableFromInline
    func removeObserver(_ key: UInt64) { removal?(key) }

    /// Detaches every observer; later events are ignored and later subscribers get
    /// `RxError.disposed`.
    public func dispose() {
        state.withLock { state in
            state.isDisposed = true
            state.observers = Bag()
            state.stopEvent = nil
        }
    }

    public func asObserver() -> AnyObserver<Element> { AnyObserver(self) }

    /// The subject as an `Observable` (it keeps the grammar itself, so no `create` wrapper).
    @inlinable
    public func asObservable() -> Observable<Element> {
        Observable(unsafeSubscribe: { observer in self.subscribe(observer) })
    }
}
