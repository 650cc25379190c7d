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
        let subscription = ClosureSubscription<Element>(onDisposed: onDisposed) { event in
            switch event {
            case .next(let element): onNext?(element)
            case .error(let error): onError?(error)
            case .completed: onCompleted?()
            }
        }
        subscription.upstream.assign(subscribe(subscription))
        return subscription
    }

    /// Subscribes with one closure that receives every event.
    @inlinable
    public func subscribe(_ on: @escaping @Sendable (Event<Element>) -> Void) -> any Disposable {
        let subscription = ClosureSubscription<Element>(onDisposed: nil, handler: on)
        subscription.upstream.assign(subscribe(subscription))
        return subscription
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
@usableFromInline
final class ClosureSubscription<Element: Sendable>: ObserverType, Cancelable {
    @usableFromInline
    struct Handlers: Sendable {
        @usableFromInline let on: @Sendable (Event<Element>) -> Void
        @usableFromInline let onDisposed: (@Sendable () -> Void)?

        @inlinable
        init(on: @escaping @Sendable (Event<Element>) -> Void, onDisposed: (@Sendable () -> Void)?) {
            self.on = on
            self.onDisposed = onDisposed
        }
    }

    /// The handlers until the subscription is disposed.
    @usableFromInline let handlers: Mutex<Handlers?>
    @usableFromInline let grammar = GrammarCheck()
    @usableFromInline let upstream = SingleAssignmentState()
    @usableFromInline let resourceScope: Resources.Scope?

    @inlinable
    init(onDisposed: (@Sendable () -> Void)?, handler: @escaping @Sendable (Event<Element>) -> Void) {
        handlers = Mutex(Handlers(on: handler, onDisposed: onDisposed))
        resourceScope = Resources.began()
    }

    @inlinable
    deinit {
        if !upstream.isDisposed { Resources.ended(resourceScope) }
    }

    @inlinable
    func on(_ event: Event<Element>) {
        let entry = grammar.begin(event, postTerminal: .report)
        if case .drop = entry { return }
        defer { grammar.end(entry) }
        guard let handler = handlers.withLock({ $0?.on }) else { return }
        handler(event)
        if event.isStopEvent { dispose() }
    }

    @inlinable var isDisposed: Bool { upstream.isDisposed }

    @inlinable
    func dispose() {
        guard upstream.dispose() else { return }
        Resources.ended(resourceScope)
        let released = handlers.withLock { handlers in
            defer { handlers = nil }
            return handlers
        }
        released?.onDisposed?()
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
