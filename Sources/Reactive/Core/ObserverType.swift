/// Receives the events of an observable sequence.
///
/// Observers are `Sendable`: a sequence may deliver from any thread, but never concurrently and
/// never after a terminal event (see ``Event``).
public protocol ObserverType<Element>: Sendable {
    /// The type of the elements received.
    associatedtype Element

    /// Receives one event.
    func on(_ event: Event<Element>)
}

extension ObserverType {
    /// Sends `.next(element)`.
    @inlinable
    public func onNext(_ element: Element) { on(.next(element)) }

    /// Sends `.completed`.
    @inlinable
    public func onCompleted() { on(.completed) }

    /// Sends `.error(error)`.
    @inlinable
    public func onError(_ error: any Error) { on(.error(error)) }

    /// Type-erases this observer.
    @inlinable
    public func asObserver() -> AnyObserver<Element> { AnyObserver(self) }

    /// An observer that transforms elements with `transform` before passing them to this one.
    @inlinable
    public func mapObserver<Result>(
        _ transform: @escaping @Sendable (Result) throws -> Element
    ) -> AnyObserver<Result> {
        AnyObserver { event in self.on(event.map(transform)) }
    }
}

/// A type-erased observer: forwards every event to a closure.
@frozen
public struct AnyObserver<Element>: ObserverType {
    /// The closure that receives the events.
    public typealias EventHandler = @Sendable (Event<Element>) -> Void

    @usableFromInline let handler: EventHandler

    /// Creates an observer that calls `eventHandler` for every event.
    @inlinable
    public init(eventHandler: @escaping EventHandler) {
        handler = eventHandler
    }

    /// Wraps `observer`.
    @inlinable
    public init<Observer: ObserverType>(_ observer: Observer) where Observer.Element == Element {
        if let erased = observer as? AnyObserver<Element> {
            self = erased
        } else {
            handler = observer.on
        }
    }

    @inlinable
    public func on(_ event: Event<Element>) { handler(event) }

    @inlinable
    public func asObserver() -> AnyObserver<Element> { self }
}
