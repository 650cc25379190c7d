/// An observable sequence whose subscribers share one subscription to a source, made and broken
/// explicitly with ``connect()`` (or automatically with ``refCount()``).
public protocol ConnectableObservableType<Element>: ObservableType {
    /// Subscribes the shared subject to the source, if it is not already connected; disposing the
    /// result disconnects.
    func connect() -> any Disposable
}

/// A connectable observable sequence, as returned by `multicast`, `publish` and `replay`.
///
/// Subscribing subscribes to the current subject only; events flow from the source once
/// ``connect()`` is called, and stop when the connection is disposed or the source terminates.
public struct ConnectableObservable<Element: Sendable>: ConnectableObservableType {
    @usableFromInline let connectHandler: @Sendable () -> any Disposable
    @usableFromInline let subscribeHandler: @Sendable (AnyObserver<Element>) -> any Disposable

    /// Wraps `core`. The closures are made here, where the core's type is known, so connecting and
    /// subscribing (and the observers they set up, which every event goes through) run specialised
    /// in the client rather than generically behind an existential.
    @inlinable
    init<Core: ConnectableCore>(core: Core) where Core.Element == Element {
        connectHandler = { core.connect() }
        subscribeHandler = { core.subscribe($0) }
    }

    /// Connects the subject to the source. While connected, calling it again returns the same
    /// connection; disposing it (from any of the calls) disconnects.
    @inlinable
    public func connect() -> any Disposable { connectHandler() }

    /// Subscribes `observer` to the current subject (events flow while connected).
    @inlinable
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> any Disposable
    where Observer.Element == Element {
        subscribeHandler(AnyObserver(observer))
    }
}

/// What a ``ConnectableObservable`` delegates to.
@usableFromInline
protocol ConnectableCore<Element>: Sendable {
    associatedtype Element: Sendable

    /// Connects, or returns the live connection.
    func connect() -> any Disposable

    /// Subscribes `observer` to the current subject.
    func subscribe(_ observer: AnyObserver<Element>) -> any Disposable
}
