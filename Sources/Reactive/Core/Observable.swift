public import Synchronization

/// A sequence of events that observers can subscribe to.
///
/// Every observable in this module, subjects and traits included, conforms. Operators are written
/// as extensions of this protocol.
public protocol ObservableType<Element>: ObservableConvertibleType {

    /// Subscribes `observer`; the returned disposable cancels the subscription.
    func subscribe<Observer: ObserverType>(_ observer: Observer) -> any Disposable
    where Observer.Element == Element
}

extension ObservableType {
    /// This sequence as an `Observable`.
    ///
    /// The default wraps `subscribe` in `Observable.create`, as RxSwift does, so the grammar is
    /// enforced and the subscription to `self` ends at its terminal event even if `self` does not
    /// end it (a test observable, a custom type). Types trusted to keep the grammar (subjects,
    /// relays) return a plain wrapper instead.
    @inlinable
    public func asObservable() -> Observable<Element> {
        Observable.create { observer in self.subscribe(observer) }
    }
}

/// An observable sequence.
///
/// An `Observable` only *describes* a stream: it stores what its operator needs, and each
/// subscription builds its own chain of sinks that hold the live state. Subscribing twice gives two
/// independent subscriptions (unless the stream is shared with `share`).
@frozen
public struct Observable<Element: Sendable>: ObservableType {
    /// The function that starts one subscription.
    public typealias SubscribeHandler = @Sendable (AnyObserver<Element>) -> any Disposable

    @usableFromInline let subscribeHandler: SubscribeHandler

    /// Creates an observable from a function that is trusted to keep the event grammar and to
    /// return a disposable that stops delivery. Operators use it, and so may other modules of this
    /// package whose sources keep the grammar themselves (a remote call's answer); user code uses
    /// `create`.
    @inlinable
    package init(unsafeSubscribe subscribeHandler: @escaping SubscribeHandler) {
        self.subscribeHandler = subscribeHandler
    }

    /// Subscribes `observer`. The outermost subscription on a thread owns the
    /// ``CurrentThreadScheduler`` trampoline while the chain is wired, so sources that iterate
    /// start once every sink is in place.
    @inlinable
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> any Disposable
    where Observer.Element == Element {
        CurrentThreadScheduler.runAsOwner { subscribeHandler(AnyObserver(observer)) }
    }

    @inlinable
    public func asObservable() -> Observable<Element> { self }
}

extension ObservableType {
    /// Subscribes with closures for each kind of event.
    ///
    /// `onDisposed` runs once, after the terminal event's handler or when the subscription is
    /// disposed, whichever comes first. An error with no `onError` handler is ignored. Once the
    /// sequence has terminated the returned disposable reports `isDisposed`, so a `DisposeBag`
    /// drops it.
    @inlinable
    public func subscribe(
        onNext: (@Sendable (Element) -> Void)? = nil,
        onError: (@Sendable (any Error) -> Void)? = nil,
        onCompleted: (@Sendable () -> Void)? = nil,
        onDisposed: (@Sendable () -> Void)? = nil
    ) -> any Disposable {
        let handlers = EventHandlers<Element>(
            onNext: onNext, onError: onError, onCompleted: onCompleted, onEvent: nil)
        let subscription = ClosureSubscription<Element>(handlers, onDisposed: onDisposed)
        subscription.assign(subscribe(subscription))
        return subscription
    }

    /// Subscribes with one closure that receives every event.
    @inlinable
    public func subscribe(_ on: @escaping @Sendable (Event<Element>) -> Void) -> any Disposable {
        let handlers = EventHandlers<Element>(onNext: nil, onError: nil, onCompleted: nil, onEvent: on)
        let subscription = ClosureSubscription<Element>(handlers, onDisposed: nil)
        subscription.assign(subscribe(subscription))
        return subscription
    }
}

/// The closures of one `subscribe(onNext:…)` or `subscribe(_:)` subscription, in one object that the
/// subscription holds until it is disposed.
@usableFromInline
final class EventHandlers<Element: Sendable>: Sendable {
    @usableFromInline let onNext: (@Sendable (Element) -> Void)?
    @usableFromInline let onError: (@Sendable (any Error) -> Void)?
    @usableFromInline let onCompleted: (@Sendable () -> Void)?
    /// Receives every event instead of the three above (`subscribe(_:)`).
    @usableFromInline let onEvent: (@Sendable (Event<Element>) -> Void)?

    @inlinable
    init(
        onNext: (@Sendable (Element) -> Void)?, onError: (@Sendable (any Error) -> Void)?,
        onCompleted: (@Sendable () -> Void)?, onEvent: (@Sendable (Event<Element>) -> Void)?
    ) {
        self.onNext = onNext
        self.onError = onError
        self.onCompleted = onCompleted
        self.onEvent = onEvent
    }

    @inlinable
    func on(_ event: Event<Element>) {
        if let onEvent { return onEvent(event) }
        switch event {
        case .next(let element): onNext?(element)
        case .error(let error): onError?(error)
        case .completed: onCompleted?()
        }
    }
}

/// The subscription behind `subscribe(onNext:…)`: the observer and the disposable in one object.
/// It stops after the first terminal event (disposing itself, which runs `onDisposed`) and, in
/// debug builds, reports concurrent or post-terminal delivery.
///
/// Disposing releases the handlers, as RxSwift's sink disposer does: a subscription kept in a
/// `DisposeBag` of the object its closures capture is no cycle once it has ended.
///
/// Unlike a sink it counts as a live resource until it is *disposed* (or terminates), not until it
/// is deallocated: the caller holding a finished subscription is not a leak.
///
/// Everything `dispose()` and `deinit` touch is of non-generic types. Both are reached from outside
/// the client's specialised code (through `any Disposable`, and the runtime's release), where a
/// field of a generic type such as `Mutex<EventHandlers<Element>?>` would make the runtime look up
/// its generic metadata on every call; so the handlers are held as `AnyObject` and cast back on the
/// event path, which is specialised. The upstream subscription and the handlers share one lock.
@usableFromInline
final class ClosureSubscription<Element: Sendable>: ObserverType, Cancelable {
    @usableFromInline let state: Mutex<ClosureSubscriptionState>
    @usableFromInline let disposed = Atomic<Bool>(false)
    @usableFromInline let grammar = GrammarCheck()
    @usableFromInline let resourceScope: Resources.Scope?

    @inlinable
    init(_ handlers: EventHandlers<Element>, onDisposed: (@Sendable () -> Void)?) {
        state = Mutex(
            ClosureSubscriptionState(held: HeldHandlers(handlers: handlers, onDisposed: onDisposed)))
        resourceScope = Resources.began()
    }

    @inlinable
    deinit {
        if !disposed.load(ordering: .relaxed) { Resources.ended(resourceScope) }
    }

    /// Stores the subscription to the source; if this one is already disposed, disposes it at once.
    @inlinable
    func assign(_ upstream: any Disposable) {
        let accepted: Bool = state.withLock { state in
            switch state.upstream {
            case .empty:
                state.upstream = .assigned(upstream)
                return true
            case .assigned:
                preconditionFailure("A subscription's upstream can be assigned only once.")
            case .released:
                return false
            }
        }
        if !accepted { upstream.dispose() }
    }

    @inlinable
    func on(_ event: Event<Element>) {
        let entry = grammar.begin(event, postTerminal: .report)
        if case .drop = entry { return }
        defer { grammar.end(entry) }
        guard let handlers = state.withLock({ $0.held?.handlers }) else { return }
        // Only `init` stores the handlers, always an `EventHandlers<Element>`.
        unsafeDowncast(handlers, to: EventHandlers<Element>.self).on(event)
        if event.isStopEvent { dispose() }
    }

    @inlinable var isDisposed: Bool { disposed.load(ordering: .relaxed) }

    @inlinable
    func dispose() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        Resources.ended(resourceScope)
        let (upstream, held) = state.withLock { $0.release() }
        upstream?.dispose()
        held?.onDisposed?()
    }
}

/// The state of a ``ClosureSubscription``: the subscription to its source and the handlers, both
/// given up on dispose. Not nested in the class, where it would be generic.
@usableFromInline
struct ClosureSubscriptionState: Sendable {
    @usableFromInline var upstream = SingleAssignmentState.Slot.empty
    /// The handlers until the subscription is disposed.
    @usableFromInline var held: HeldHandlers?

    @inlinable
    init(held: HeldHandlers) {
        self.held = held
    }

    /// Gives up the source's subscription and the handlers, for disposing outside the lock.
    @inlinable
    mutating func release() -> (upstream: (any Disposable)?, held: HeldHandlers?) {
        let released: (any Disposable)?
        if case .assigned(let disposable) = upstream { released = disposable } else { released = nil }
        upstream = .released
        defer { held = nil }
        return (released, held)
    }
}

/// What a ``ClosureSubscription`` releases on dispose.
@usableFromInline
struct HeldHandlers: Sendable {
    /// The subscription's `EventHandlers<Element>`.
    @usableFromInline let handlers: any AnyObject & Sendable
    @usableFromInline let onDisposed: (@Sendable () -> Void)?

    @inlinable
    init(handlers: any AnyObject & Sendable, onDisposed: (@Sendable () -> Void)?) {
        self.handlers = handlers
        self.onDisposed = onDisposed
    }
}

/// A type that can be turned into an `Observable`: observables themselves and the traits
/// (`Single`, `Driver`, `Signal`, controls).
public protocol ObservableConvertibleType<Element>: Sendable {
    /// The type of the elements.
    associatedtype Element: Sendable

    /// This value as an `Observable`.
    func asObservable() -> Observable<Element>
}
