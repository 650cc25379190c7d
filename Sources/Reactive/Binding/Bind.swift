extension ObservableType {
    /// Subscribes `observers` to this sequence: every event goes to each of them, in order.
    ///
    /// The same as `subscribe`, but says that the sequence drives something (a widget, a subject).
    /// Errors and completion are forwarded too; a ``Binder`` ignores completion and reports errors.
    @inlinable
    public func bind<Observer: ObserverType>(to observers: Observer...) -> any Disposable
    where Observer.Element == Element {
        bind(toAll: observers)
    }

    /// Subscribes `observers` of optional elements to this sequence, wrapping each element.
    @inlinable
    public func bind<Observer: ObserverType>(to observers: Observer...) -> any Disposable
    where Observer.Element == Element? {
        map { $0 as Element? }.bind(toAll: observers)
    }

    @inlinable
    func bind<Observer: ObserverType>(toAll observers: [Observer]) -> any Disposable
    where Observer.Element == Element {
        asObservable().subscribe { event in
            for observer in observers { observer.on(event) }
        }
    }

    /// Binds with a function that subscribes `self`: `bind(to: f)` is `f(self)`.
    @inlinable
    public func bind<Result>(to binder: (Self) -> Result) -> Result {
        binder(self)
    }

    /// Binds with a curried function: `bind(to: f, curriedArgument: a)` is `f(self)(a)`.
    @inlinable
    public func bind<Argument, Result>(
        to binder: (Self) -> (Argument) -> Result, curriedArgument: Argument
    ) -> Result {
        binder(self)(curriedArgument)
    }

    /// Subscribes `onNext` to the elements. An error is a programming error: debug builds report
    /// it through the grammar-violation handler, release builds ignore it.
    @inlinable
    public func bind(onNext: @escaping @Sendable (Element) -> Void) -> any Disposable {
        asObservable().subscribe(onNext: onNext, onError: { reportBindingError($0) })
    }
}

extension ObservableType {
    /// Passes every element to each of `relays`. Relays cannot end, so completion is ignored, and
    /// an error is a programming error (reported in debug builds, as for a ``Binder``).
    @inlinable
    public func bind(to relays: PublishRelay<Element>...) -> any Disposable {
        bind(onNext: { element in relays.forEach { $0.accept(element) } })
    }

    /// Passes every element to each of `relays` (see `bind(to:)` for publish relays).
    @inlinable
    public func bind(to relays: BehaviorRelay<Element>...) -> any Disposable {
        bind(onNext: { element in relays.forEach { $0.accept(element) } })
    }

    /// Passes every element, wrapped, to each of `relays` of optional elements.
    @inlinable
    public func bind(to relays: PublishRelay<Element?>...) -> any Disposable {
        bind(onNext: { element in relays.forEach { $0.accept(element) } })
    }

    /// Passes every element, wrapped, to each of `relays` of optional elements.
    @inlinable
    public func bind(to relays: BehaviorRelay<Element?>...) -> any Disposable {
        bind(onNext: { element in relays.forEach { $0.accept(element) } })
    }
}
