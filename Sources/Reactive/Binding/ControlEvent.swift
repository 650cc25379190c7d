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
        self.events = events.asObservable().controlStream(on: scheduler)
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

extension Observable {
    /// The controls' view of a widget's stream: subscribes and unsubscribes on `scheduler`, and
    /// turns an error into a report (debug builds) and completion.
    func controlStream(on scheduler: any ImmediateSchedulerType) -> Observable<Element> {
        let source = self
        return Observable(unsafeSubscribe: { downstream in
            let sink = ControlSink(downstream: downstream)
            sink.start(source, on: scheduler)
            return sink
        })
    }

    /// The sequence without its first element (the current value of a control property).
    func droppingFirst() -> Observable<Element> {
        let source = self
        return Observable(unsafeSubscribe: { downstream in
            let sink = DropFirstSink(downstream: downstream)
            sink.upstream.assign(source.subscribe(sink))
            return sink
        })
    }
}

/// The live state of one subscription to a control: subscribes on the scheduler, forwards elements
/// and completion, reports an error and completes instead.
final class ControlSink<Element: Sendable>: ObserverType, Cancelable {
    private let downstream: AnyObserver<Element>
    /// The pending subscription, then the subscription itself (disposed on the scheduler).
    private let subscription = SerialDisposable()
    private let disposed = Atomic<Bool>(false)
    private let resource = ResourceToken()

    init(downstream: AnyObserver<Element>) {
        self.downstream = downstream
    }

    /// Subscribes to `source` on `scheduler`; disposing before that runs cancels it.
    func start(_ source: Observable<Element>, on scheduler: any ImmediateSchedulerType) {
        let pending = SingleAssignmentDisposable()
        subscription.disposable = pending
        pending.setDisposable(
            scheduler.schedule(source) { [self] source in
                let inner = source.subscribe(self)
                subscription.disposable = ScheduledDisposal(scheduler: scheduler, disposable: inner)
                return Disposables.create()
            })
    }

    func on(_ event: Event<Element>) {
        guard !isDisposed else { return }
        switch event {
        case .next:
            downstream.on(event)
        case .completed:
            downstream.on(.completed)
            dispose()
        case .error(let error):
            reportBindingError(error)
            downstream.on(.completed)
            dispose()
        }
    }

    var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    func dispose() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        subscription.dispose()
    }
}

/// Disposes a subscription on the scheduler it was made on.
private struct ScheduledDisposal: Disposable {
    let scheduler: any ImmediateSchedulerType
    let disposable: any Disposable

    func dispose() {
        _ = scheduler.schedule(disposable) { disposable in
            disposable.dispose()
            return Disposables.create()
        }
    }
}

/// The live state of one `droppingFirst` subscription.
final class DropFirstSink<Element: Sendable>: ObserverType, Cancelable {
    private let downstream: AnyObserver<Element>
    let upstream = SingleAssignmentState()
    /// The first element has gone by (the source delivers serially; the atomic makes it Sendable).
    private let passedFirst = Atomic<Bool>(false)
    private let resource = ResourceToken()

    init(downstream: AnyObserver<Element>) {
        self.downstream = downstream
    }

    func on(_ event: Event<Element>) {
        guard !upstream.isDisposed else { return }
        switch event {
        case .next:
            if passedFirst.exchange(true, ordering: .relaxed) { downstream.on(event) }
        case .error, .completed:
            downstream.on(event)
            upstream.dispose()
        }
    }

    var isDisposed: Bool { upstream.isDisposed }
    func dispose() { upstream.dispose() }
}
