/// A ``BehaviorSubject`` that can only carry elements: it holds a current ``value``, replays it to
/// each new subscriber, and never completes or fails.
public final class BehaviorRelay<Element: Sendable>: ObservableType {
    @usableFromInline let subject: BehaviorSubject<Element>

    /// Creates a relay whose current value is `value`.
    @inlinable
    public init(value: Element) {
        subject = BehaviorSubject(value: value)
    }

    /// The current value: the initial one, or the last accepted element.
    @inlinable
    public var value: Element { subject.latest }

    /// Makes `element` the current value and sends it to every current subscriber.
    @inlinable
    public func accept(_ element: Element) {
        subject.onNext(element)
    }

    /// Subscribes `observer`: it receives the current value at once, then every accepted element.
    @inlinable
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> any Disposable
    where Observer.Element == Element {
        subject.subscribe(observer)
    }

    /// The relay as an observable sequence: the current value, then every accepted element; it
    /// never terminates.
    @inlinable
    public func asObservable() -> Observable<Element> {
        subject.asObservable()
    }
}
