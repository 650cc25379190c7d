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
    @usableFromInline let core: any ConnectableCore<Element>

    @usableFromInline
    init(core: any ConnectableCore<Element>) {
        self.core = core
    }

    /// Connects the subject to the source. While connected, calling it again returns the same
    /// connection; disposing it (from any of the calls) disconnects.
    public func connect() -> any Disposable { core.connect() }

    /// Subscribes `observer` to the current subject (events flow while connected).
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> any Disposable
    where Observer.Element == Element {
        core.subscribe(AnyObserver(observer))
    }
}

/// What a ``ConnectableObservable`` delegates to (the subject type is erased here).
@usableFromInline
protocol ConnectableCore<Element>: Sendable {
    associatedtype Element: Sendable

    /// Connects, or returns the live connection.
    func connect() -> any Disposable

    /// Subscribes `observer` to the current subject.
    func subscribe(_ observer: AnyObserver<Element>) -> any Disposable
}
