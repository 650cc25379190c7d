/// A type that can be viewed as a ``ControlProperty``.
public protocol ControlPropertyType<Element>: ObservableType, ObserverType {
    /// This value as a `ControlProperty`.
    func asControlProperty() -> ControlProperty<Element>
}

/// A widget's property as a two-way binding point: an observable of its values and an observer that
/// sets it (RxCocoa's `ControlProperty`, for the terminal client's widgets).
///
/// As an observable:
/// - it sends the current value on subscription, then each value the *user* enters (values set
///   through the property itself are not reported);
/// - it never fails: an error from `values` is a programming error, reported in debug builds
///   through the grammar-violation handler, and the sequence completes instead;
/// - it completes when the widget goes away (the widget's `values` must complete then);
/// - it is subscribed, and unsubscribed, on `scheduler`, as RxSwift subscribes controls on the main
///   scheduler; the widget must send its values there too.
///
/// As an observer: `.next` sets the value through `valueSink`, `.completed` is passed on to
/// `valueSink` (a ``Binder`` ignores it), and `.error` is reported in debug builds and dropped.
///
/// ```swift
/// let phone = ControlProperty(values: field.textValues, valueSink: Binder(field) { $0.text = $1 })
/// viewModel.bind(phone: phone.orEmpty.asObservable())
/// ```
public struct ControlProperty<PropertyType: Sendable>: ControlPropertyType {
    /// The type of the property's values.
    public typealias Element = PropertyType

    @usableFromInline let source: Observable<PropertyType>
    @usableFromInline let valueSink: AnyObserver<PropertyType>

    /// A control property reading the widget's `values` (subscribed on `scheduler`) and writing
    /// through `valueSink`.
    public init<Values: ObservableType, Sink: ObserverType>(
        values: Values, valueSink: Sink,
        scheduler: any ImmediateSchedulerType = ImmediateScheduler.instance
    ) where Values.Element == PropertyType, Sink.Element == PropertyType {
        self.init(
            prepared: values.controlStream(on: scheduler), valueSink: valueSink.asObserver())
    }

    /// A control property over a stream already prepared with `controlStream(on:)`.
    init(prepared source: Observable<PropertyType>, valueSink: AnyObserver<PropertyType>) {
        self.source = source
        self.valueSink = valueSink
    }

    @inlinable
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> any Disposable
    where Observer.Element == PropertyType {
        source.subscribe(observer)
    }

    /// The values the user enters after subscription: every value but the first (the current one).
    /// Consecutive values may be equal.
    public var changed: ControlEvent<PropertyType> {
        ControlEvent(prepared: source.skip(1))
    }

    @inlinable
    public func asObservable() -> Observable<PropertyType> { source }

    @inlinable
    public func asControlProperty() -> ControlProperty<PropertyType> { self }

    /// Sets `.next` values through the sink, passes `.completed` on, reports `.error` (debug builds)
    /// and drops it.
    public func on(_ event: Event<PropertyType>) {
        switch event {
        case .next, .completed:
            valueSink.on(event)
        case .error(let error):
            reportBindingError(error)
        }
    }
}

extension ControlPropertyType where Element == String? {
    /// The property with `nil` read as the empty string (a text field's text).
    public var orEmpty: ControlProperty<String> {
        let original = asControlProperty()
        return ControlProperty(
            prepared: original.source.map { $0 ?? "" },
            valueSink: original.valueSink.mapObserver { $0 })
    }
}
