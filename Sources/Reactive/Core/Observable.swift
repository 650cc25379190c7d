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
        let subscription = ClosureSubscription<Element>(
            onNext: onNext, onError: onError, onCompleted: onCompleted, onEvent: nil, onDisposed: onDisposed)
        subscription.assign(subscribe(subscription))
        return subscription
    }

    /// Subscribes with one closure that receives every event.
    @inlinable
    public func subscribe(_ on: @escaping @Sendable (Event<Element>) -> Void) -> any Disposable {
        let subscription = ClosureSubscription<Element>(
            onNext: nil, onError: nil, onCompleted: nil, onEvent: on, onDisposed: nil)
        subscription.assign(subscribe(subscription))
        return subscription
    }
}

/// The subscription behind `subscribe(onNext:…)` and `subscribe(_:)`: the observer, the
/// disposable and the closures in one object. It stops after the first terminal event (disposing
/// itself, which runs `onDisposed`) and, in debug builds, reports concurrent or post-terminal
/// delivery.
///
/// Disposing releases the handlers, as RxSwift's sink disposer does: a subscription kept in a
/// `DisposeBag` of the object its closures capture is no cycle once it has ended.
///
/// Unlike a sink it counts as a live resource until it is *disposed* (or terminates), not until it
/// is deallocated: the caller holding a finished subscription is not a leak.
///
/// `dispose()` and `deinit` are reached from outside the client's specialised code (through
/// `any Disposable`, and the runtime's release). There a value of a generic struct or enum (such
/// as `Mutex<Handlers<Element>?>`), or one passed through a generic function (`withLock`'s result,
/// `swap`), makes the runtime look up its type metadata on every call; a closure field does not.
/// So the lock guards a non-generic slot (the subscription to the source), the closures are
/// fields of their own beside it, read and cleared only under that lock, and they are moved in
/// and out of the lock's closure through captured locals, never through its result. (Through
/// the result, a closure would also be re-abstracted on the event path: one allocation per
/// event.)
@usableFromInline
final class ClosureSubscription<Element: Sendable>: ObserverType, Cancelable {
    /// The subscription to the source; its lock also guards the handlers below.
    @usableFromInline let upstream: Mutex<SingleAssignmentState.Slot>
    @usableFromInline let disposed = Atomic<Bool>(false)
    @usableFromInline let grammar = GrammarCheck()
    @usableFromInline let resourceScope: Resources.Scope?
    // The handlers, until the subscription is disposed. Stored by `init`, then read and cleared
    // only while `upstream`'s lock is held (`on(_:)`, `dispose()`), which makes the unchecked
    // access safe; once cleared they stay nil.
    @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) var onNext: (@Sendable (Element) -> Void)?
    @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) var onError:
        (@Sendable (any Error) -> Void)?
    @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) var onCompleted: (@Sendable () -> Void)?
    /// Receives every event instead of the three above (`subscribe(_:)`).
    @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) var onEvent:
        (@Sendable (Event<Element>) -> Void)?
    @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) var onDisposed: (@Sendable () -> Void)?

    @inlinable
    init(
        onNext: (@Sendable (Element) -> Void)?, onError: (@Sendable (any Error) -> Void)?,
        onCompleted: (@Sendable () -> Void)?, onEvent: (@Sendable (Event<Element>) -> Void)?,
        onDisposed: (@Sendable () -> Void)?
    ) {
        upstream = Mutex(.empty)
        self.onNext = onNext
        self.onError = onError
        self.onCompleted = onCompleted
        self.onEvent = onEvent
        self.onDisposed = onDisposed
        resourceScope = Resources.began()
    }

    @inlinable
    deinit {
        if !disposed.load(ordering: .relaxed) { Resources.ended(resourceScope) }
    }

    /// Stores the subscription to the source; if this one is already disposed, disposes it at once.
    /// One known to be disposed already (the source finished, or has nothing to release) is not
    /// kept.
    @inlinable
    func assign(_ disposable: any Disposable) {
        let finished = disposable.isKnownDisposed
        let accepted: Bool = upstream.withLock { slot in
            switch slot {
            case .empty:
                if !finished { slot = .assigned(disposable) }
                return true
            case .assigned:
                preconditionFailure("A subscription's upstream can be assigned only once.")
            case .released:
                return false
            }
        }
        if !accepted { disposable.dispose() }
    }

    @inlinable
    func on(_ event: Event<Element>) {
        let entry = grammar.begin(event, postTerminal: .report)
        if case .drop = entry { return }
        defer { grammar.end(entry) }
        // The handler is copied under the lock (nil once disposed) and called outside it.
        var onEvent: (@Sendable (Event<Element>) -> Void)?
        switch event {
        case .next(let element):
            var onNext: (@Sendable (Element) -> Void)?
            upstream.withLock { _ in
                onEvent = self.onEvent
                onNext = self.onNext
            }
            if let onEvent { onEvent(event) } else { onNext?(element) }
        case .error(let error):
            var onError: (@Sendable (any Error) -> Void)?
            upstream.withLock { _ in
                onEvent = self.onEvent
                onError = self.onError
            }
            if let onEvent { onEvent(event) } else { onError?(error) }
            dispose()
        case .completed:
            var onCompleted: (@Sendable () -> Void)?
            upstream.withLock { _ in
                onEvent = self.onEvent
                onCompleted = self.onCompleted
            }
            if let onEvent { onEvent(event) } else { onCompleted?() }
            dispose()
        }
    }

    @inlinable var isDisposed: Bool { disposed.load(ordering: .relaxed) }

    @inlinable
    func dispose() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        Resources.ended(resourceScope)
        // Taken out under the lock and released after it (a closure's captures may do anything in
        // their deinit), by plain assignments to locals (see above).
        var onNext: (@Sendable (Element) -> Void)?
        var onError: (@Sendable (any Error) -> Void)?
        var onCompleted: (@Sendable () -> Void)?
        var onEvent: (@Sendable (Event<Element>) -> Void)?
        var onDisposed: (@Sendable () -> Void)?
        var source: (any Disposable)?
        upstream.withLock { slot in
            onNext = self.onNext
            self.onNext = nil
            onError = self.onError
            self.onError = nil
            onCompleted = self.onCompleted
            self.onCompleted = nil
            onEvent = self.onEvent
            self.onEvent = nil
            onDisposed = self.onDisposed
            self.onDisposed = nil
            if case .assigned(let disposable) = slot { source = disposable }
            slot = .released
        }
        source?.dispose()
        onDisposed?()
        // The other handlers are released as these go out of scope.
        _ = onNext
        _ = onError
        _ = onCompleted
        _ = onEvent
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
