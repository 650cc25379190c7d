/// A ``PublishSubject`` that can only carry elements: it never completes and never fails, so what
/// subscribes to it (typically a screen's bindings) cannot be torn down by an error.
///
/// ``accept(_:)`` sends an element to the observers subscribed at that moment; late subscribers see
/// nothing of what came before.
public final class PublishRelay<Element: Sendable>: ObservableType {
    @usableFromInline let subject = PublishSubject<Element>()

    /// Creates a relay with no observers.
    @inlinable
    public init() {}

    /// Sends `element` to every current subscriber.
    @inlinable
    public func accept(_ element: Element) {
        subject.onNext(element)
    }

    /// Subscribes `observer` to the elements accepted from now on.
    ///
    /// The observer is erased here, in the client, because `PublishSubject.subscribe` is not
    /// inlinable: erased there, its `on` would run unspecialised for every element.
    @inlinable
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> any Disposable
    where Observer.Element == Element {
        subject.subscribe(AnyObserver(observer))
    }

    /// The relay as an observable sequence (which never terminates).
    @inlinable
    public func asObservable() -> Observable<Element> {
        subject.asObservable()
    }
}
