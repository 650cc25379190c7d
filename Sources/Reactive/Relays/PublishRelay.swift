/// A ``PublishSubject`` that can only carry elements: it never completes and never fails, so what
/// subscribes to it (typically a screen's bindings) cannot be torn down by an error.
///
/// ``accept(_:)`` sends an element to the observers subscribed at that moment; late subscribers see
/// nothing of what came before.
public final class PublishRelay<Element: Sendable>: ObservableType {
    @usableFromInline let subject = PublishSubject<Element>()

    /// Creates a relay with no observers.
    public init() {}

    /// Sends `element` to every current subscriber.
    @inlinable
    public func accept(_ element: Element) {
        subject.onNext(element)
    }

    /// Subscribes `observer` to the elements accepted from now on.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> any Disposable
    where Observer.Element == Element {
        subject.subscribe(observer)
    }

    /// The relay as an observable sequence (which never terminates).
    public func asObservable() -> Observable<Element> {
        subject.asObservable()
    }
}
