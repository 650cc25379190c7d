import Synchronization

/// A type that can be viewed as a ``ControlEvent``.
public protocol ControlEventType<Element>: ObservableType {
    /// This value as a `ControlEvent`.
    func asControlEvent() -> ControlEvent<Element>
}

/// The events of a widget (a key press, a submit), as a sequence a screen can rely on:
///
/// - it sends no initial value;
/// - it never fails: an error from `events` is a programming error, reported in debug builds
///   through the grammar-violation handler, and the sequence completes instead;
/// - it completes when the widget goes away (the widget's `events` must complete then);
/// - it is subscribed, and unsubscribed, on `scheduler`, as RxSwift subscribes controls on the main
///   scheduler; the widget must send its events there too.
public struct ControlEvent<PropertyType: Sendable>: ControlEventType {
    /// The type of the events.
    public typealias Element = PropertyType

    @usableFromInline let events: Observable<PropertyType>

    /// A control event over the widget's `events`, subscribed on `scheduler`.
    public init<Events: ObservableType>(
        events: Events, scheduler: any ImmediateSchedulerType = ImmediateScheduler.instance
    ) where Events.Element == PropertyType {
        self.events = events.controlStream(on: scheduler)
    }

    /// A control event over a stream already prepared with `controlStream(on:)`.
    init(prepared events: Observable<PropertyType>) {
        self.events = events
    }

    @inlinable
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> any Disposable
    where Observer.Element == PropertyType {
        events.subscribe(observer)
    }

    @inlinable
    public func asObservable() -> Observable<PropertyType> { events }

    @inlinable
    public func asControlEvent() -> ControlEvent<PropertyType> { self }
}

extension ObservableType {
    /// The controls' view of a widget's stream: subscribes and unsubscribes on `scheduler` (the
    /// stream as it is, as RxCocoa does), and turns an error into a report (debug builds) and
    /// completion, since a control never fails.
    func controlStream(on scheduler: any ImmediateSchedulerType) -> Observable<Element> {
        subscribe(on: scheduler).catch { error in
            reportBindingError(error)
            return .empty()
        }
    }
}
