// Conversions into Driver/Signal and the operators that keep their guarantees. Every operator here
// is written once for both traits (it is generic over the sharing strategy): the result never
// errors, delivers on the strategy's scheduler, and is shared again by the strategy.

// MARK: Making Drivers and Signals

extension ObservableConvertibleType {
    /// Turns the sequence into a `Driver`: delivery moves to `SharingScheduler.make()`, an error
    /// becomes `onErrorJustReturn` followed by completion, and the result is shared with replay of
    /// the latest element while connected.
    @inlinable
    public func asDriver(onErrorJustReturn: Element) -> Driver<Element> {
        asSharedSequence(DriverSharingStrategy.self) { _ in .just(onErrorJustReturn) }
    }

    /// Turns the sequence into a `Driver` that continues with `onErrorDriveWith` after an error.
    @inlinable
    public func asDriver(onErrorDriveWith: Driver<Element>) -> Driver<Element> {
        asSharedSequence(DriverSharingStrategy.self) { _ in onErrorDriveWith.asObservable() }
    }

    /// Turns the sequence into a `Driver` that continues with the `Driver` `onErrorRecover`
    /// returns for the error.
    @inlinable
    public func asDriver(
        onErrorRecover: @escaping @Sendable (any Error) -> Driver<Element>
    ) -> Driver<Element> {
        asSharedSequence(DriverSharingStrategy.self) { onErrorRecover($0).asObservable() }
    }

    /// Turns the sequence into a `Signal`: like `asDriver(onErrorJustReturn:)` without replay.
    @inlinable
    public func asSignal(onErrorJustReturn: Element) -> Signal<Element> {
        asSharedSequence(SignalSharingStrategy.self) { _ in .just(onErrorJustReturn) }
    }

    /// Turns the sequence into a `Signal` that continues with `onErrorSignalWith` after an error.
    @inlinable
    public func asSignal(onErrorSignalWith: Signal<Element>) -> Signal<Element> {
        asSharedSequence(SignalSharingStrategy.self) { _ in onErrorSignalWith.asObservable() }
    }

    /// Turns the sequence into a `Signal` that continues with the `Signal` `onErrorRecover`
    /// returns for the error.
    @inlinable
    public func asSignal(
        onErrorRecover: @escaping @Sendable (any Error) -> Signal<Element>
    ) -> Signal<Element> {
        asSharedSequence(SignalSharingStrategy.self) { onErrorRecover($0).asObservable() }
    }

    @inlinable
    func asSharedSequence<Strategy: SharingStrategyProtocol>(
        _ strategy: Strategy.Type,
        recover: @escaping @Sendable (any Error) -> Observable<Element>
    ) -> SharedSequence<Strategy, Element> {
        SharedSequence(asObservable().observe(on: Strategy.scheduler).catch { recover($0) })
    }
}

extension SharedSequence where Strategy == DriverSharingStrategy {
    /// This `Driver` as a `Signal` (no replay for new subscribers).
    @inlinable
    public func asSignal() -> Signal<Element> {
        Signal(source)
    }
}

// MARK: Creating

extension SharedSequence {
    /// One element, then completion, delivered on the strategy's scheduler.
    @inlinable
    public static func just(_ element: Element) -> SharedSequence {
        SharedSequence(raw: Observable.just(element).subscribe(on: Strategy.scheduler))
    }

    /// Completes at once (on the strategy's scheduler).
    @inlinable
    public static func empty() -> SharedSequence {
        SharedSequence(raw: Observable.empty().subscribe(on: Strategy.scheduler))
    }

    /// Never emits and never completes.
    @inlinable
    public static func never() -> SharedSequence {
        SharedSequence(raw: Observable.never())
    }

    /// The elements in order, then completion.
    @inlinable
    public static func of(_ elements: Element...) -> SharedSequence {
        SharedSequence(raw: Observable.from(elements, scheduler: Strategy.scheduler))
    }

    /// The elements of `array` in order, then completion.
    @inlinable
    public static func from(_ array: [Element]) -> SharedSequence {
        SharedSequence(raw: Observable.from(array, scheduler: Strategy.scheduler))
    }

    /// A sequence made by `factory` for each subscriber.
    @inlinable
    public static func deferred(_ factory: @escaping @Sendable () -> SharedSequence) -> SharedSequence {
        SharedSequence(Observable.deferred { factory().asObservable() })
    }
}

// MARK: Transforming and filtering

extension SharedSequence {
    /// Transforms each element.
    @inlinable
    public func map<Result: Sendable>(
        _ transform: @escaping @Sendable (Element) -> Result
    ) -> SharedSequence<Strategy, Result> {
        SharedSequence<Strategy, Result>(source.map(transform))
    }

    /// Transforms each element, dropping nils.
    @inlinable
    public func compactMap<Result: Sendable>(
        _ transform: @escaping @Sendable (Element) -> Result?
    ) -> SharedSequence<Strategy, Result> {
        SharedSequence<Strategy, Result>(source.compactMap(transform))
    }

    /// Passes on the elements for which `predicate` holds.
    @inlinable
    public func filter(_ predicate: @escaping @Sendable (Element) -> Bool) -> SharedSequence {
        SharedSequence(source.filter(predicate))
    }

    /// Accumulates, emitting each intermediate result.
    @inlinable
    public func scan<Accumulate: Sendable>(
        _ seed: Accumulate, accumulator: @escaping @Sendable (Accumulate, Element) -> Accumulate
    ) -> SharedSequence<Strategy, Accumulate> {
        SharedSequence<Strategy, Accumulate>(source.scan(seed, accumulator: accumulator))
    }

    /// Emits `elements` first.
    @inlinable
    public func startWith(_ elements: Element...) -> SharedSequence {
        SharedSequence(Observable.from(elements, scheduler: Strategy.scheduler).concat(source))
    }

    /// Drops elements equal to the previous one by `comparer`.
    @inlinable
    public func distinctUntilChanged(
        _ comparer: @escaping @Sendable (Element, Element) -> Bool
    ) -> SharedSequence {
        SharedSequence(source.distinctUntilChanged(comparer))
    }

    /// Drops elements whose key equals the previous element's key.
    @inlinable
    public func distinctUntilChanged<Key: Equatable & Sendable>(
        _ keySelector: @escaping @Sendable (Element) -> Key
    ) -> SharedSequence {
        SharedSequence(source.distinctUntilChanged(keySelector))
    }

    /// Runs side effects for events without changing them.
    @inlinable
    public func `do`(
        onNext: (@Sendable (Element) -> Void)? = nil,
        afterNext: (@Sendable (Element) -> Void)? = nil,
        onCompleted: (@Sendable () -> Void)? = nil,
        afterCompleted: (@Sendable () -> Void)? = nil,
        onSubscribe: (@Sendable () -> Void)? = nil,
        onSubscribed: (@Sendable () -> Void)? = nil,
        onDispose: (@Sendable () -> Void)? = nil
    ) -> SharedSequence {
        SharedSequence(
            source.do(
                onNext: onNext, afterNext: afterNext, onCompleted: onCompleted,
                afterCompleted: afterCompleted, onSubscribe: onSubscribe, onSubscribed: onSubscribed,
                onDispose: onDispose))
    }
}

extension SharedSequence where Element: Equatable {
    /// Drops elements equal to the previous one.
    @inlinable
    public func distinctUntilChanged() -> SharedSequence {
        SharedSequence(source.distinctUntilChanged())
    }
}

// MARK: Flattening

extension SharedSequence {
    /// Maps each element to a sequence of the same trait and emits from the latest only; a new
    /// element disposes the previous inner subscription.
    @inlinable
    public func flatMapLatest<Result: Sendable>(
        _ selector: @escaping @Sendable (Element) -> SharedSequence<Strategy, Result>
    ) -> SharedSequence<Strategy, Result> {
        SharedSequence<Strategy, Result>(source.flatMapLatest { selector($0).asObservable() })
    }

    /// Maps each element to a sequence of the same trait and merges them all.
    @inlinable
    public func flatMap<Result: Sendable>(
        _ selector: @escaping @Sendable (Element) -> SharedSequence<Strategy, Result>
    ) -> SharedSequence<Strategy, Result> {
        SharedSequence<Strategy, Result>(source.flatMap { selector($0).asObservable() })
    }
}

// MARK: Time

extension SharedSequence {
    /// Emits an element once `dueTime` passes without a newer one (on the strategy's scheduler).
    @inlinable
    public func debounce(_ dueTime: RxTimeInterval) -> SharedSequence {
        SharedSequence(source.debounce(dueTime, scheduler: Strategy.scheduler))
    }

    /// Emits at most one element per `dueTime` (on the strategy's scheduler).
    @inlinable
    public func throttle(_ dueTime: RxTimeInterval, latest: Bool = true) -> SharedSequence {
        SharedSequence(source.throttle(dueTime, latest: latest, scheduler: Strategy.scheduler))
    }

    /// Delays every element by `dueTime` (on the strategy's scheduler).
    @inlinable
    public func delay(_ dueTime: RxTimeInterval) -> SharedSequence {
        SharedSequence(source.delay(dueTime, scheduler: Strategy.scheduler))
    }
}

// MARK: Combining

extension SharedSequence {
    /// Combines each element with the latest of `second`.
    @inlinable
    public func withLatestFrom<SecondStrategy, Second: Sendable, Result: Sendable>(
        _ second: SharedSequence<SecondStrategy, Second>,
        resultSelector: @escaping @Sendable (Element, Second) -> Result
    ) -> SharedSequence<Strategy, Result> {
        SharedSequence<Strategy, Result>(
            source.withLatestFrom(second.asObservable(), resultSelector: resultSelector))
    }

    /// Emits the latest element of `second` whenever this sequence emits.
    @inlinable
    public func withLatestFrom<SecondStrategy, Second: Sendable>(
        _ second: SharedSequence<SecondStrategy, Second>
    ) -> SharedSequence<Strategy, Second> {
        SharedSequence<Strategy, Second>(source.withLatestFrom(second.asObservable()))
    }

    /// Merges sequences of the same trait.
    @inlinable
    public static func merge(_ sources: SharedSequence...) -> SharedSequence {
        SharedSequence(Observable.merge(sources.map { $0.asObservable() }))
    }

    /// Merges sequences of the same trait.
    @inlinable
    public static func merge(_ sources: [SharedSequence]) -> SharedSequence {
        SharedSequence(Observable.merge(sources.map { $0.asObservable() }))
    }

    /// The latest elements of two sequences, combined, whenever either emits.
    @inlinable
    public static func combineLatest<A: Sendable, B: Sendable>(
        _ a: SharedSequence<Strategy, A>, _ b: SharedSequence<Strategy, B>,
        resultSelector: @escaping @Sendable (A, B) -> Element
    ) -> SharedSequence {
        SharedSequence(Observable.combineLatest(a.source, b.source, resultSelector: resultSelector))
    }

    /// The latest elements of three sequences, combined, whenever any emits.
    @inlinable
    public static func combineLatest<A: Sendable, B: Sendable, C: Sendable>(
        _ a: SharedSequence<Strategy, A>, _ b: SharedSequence<Strategy, B>, _ c: SharedSequence<Strategy, C>,
        resultSelector: @escaping @Sendable (A, B, C) -> Element
    ) -> SharedSequence {
        SharedSequence(Observable.combineLatest(a.source, b.source, c.source, resultSelector: resultSelector))
    }

    /// The latest elements of four sequences, combined, whenever any emits.
    @inlinable
    public static func combineLatest<A: Sendable, B: Sendable, C: Sendable, D: Sendable>(
        _ a: SharedSequence<Strategy, A>, _ b: SharedSequence<Strategy, B>,
        _ c: SharedSequence<Strategy, C>, _ d: SharedSequence<Strategy, D>,
        resultSelector: @escaping @Sendable (A, B, C, D) -> Element
    ) -> SharedSequence {
        SharedSequence(
            Observable.combineLatest(a.source, b.source, c.source, d.source, resultSelector: resultSelector))
    }

    /// The latest elements of all `sources`, combined, whenever any emits.
    @inlinable
    public static func combineLatest<Item: Sendable>(
        _ sources: [SharedSequence<Strategy, Item>],
        resultSelector: @escaping @Sendable ([Item]) -> Element
    ) -> SharedSequence {
        SharedSequence(Observable.combineLatest(sources.map(\.source), resultSelector: resultSelector))
    }
}

// MARK: Consuming

extension SharedSequence where Strategy == DriverSharingStrategy {
    /// Subscribes with closures; the `Driver` delivers on its scheduler and never errors.
    @inlinable
    public func drive(
        onNext: (@Sendable (Element) -> Void)? = nil,
        onCompleted: (@Sendable () -> Void)? = nil,
        onDisposed: (@Sendable () -> Void)? = nil
    ) -> any Disposable {
        source.subscribe(onNext: onNext, onCompleted: onCompleted, onDisposed: onDisposed)
    }

    /// Sends the elements to each of `observers`.
    @inlinable
    public func drive<Observer: ObserverType>(_ observers: Observer...) -> any Disposable
    where Observer.Element == Element {
        source.subscribe { event in observers.forEach { $0.on(event) } }
    }

    /// Sends the elements to each of `observers` of optional elements.
    @inlinable
    public func drive<Observer: ObserverType>(_ observers: Observer...) -> any Disposable
    where Observer.Element == Element? {
        source.map { Optional($0) }.subscribe { event in observers.forEach { $0.on(event) } }
    }

    /// Passes the elements to the relays.
    @inlinable
    public func drive(_ relays: BehaviorRelay<Element>...) -> any Disposable {
        source.subscribe(onNext: { element in relays.forEach { $0.accept(element) } })
    }

    /// Passes the elements to the relays.
    @inlinable
    public func drive(_ relays: PublishRelay<Element>...) -> any Disposable {
        source.subscribe(onNext: { element in relays.forEach { $0.accept(element) } })
    }
}

extension SharedSequence where Strategy == SignalSharingStrategy {
    /// Subscribes with closures; the `Signal` delivers on its scheduler and never errors.
    @inlinable
    public func emit(
        onNext: (@Sendable (Element) -> Void)? = nil,
        onCompleted: (@Sendable () -> Void)? = nil,
        onDisposed: (@Sendable () -> Void)? = nil
    ) -> any Disposable {
        source.subscribe(onNext: onNext, onCompleted: onCompleted, onDisposed: onDisposed)
    }

    /// Sends the elements to each of `observers`.
    @inlinable
    public func emit<Observer: ObserverType>(to observers: Observer...) -> any Disposable
    where Observer.Element == Element {
        source.subscribe { event in observers.forEach { $0.on(event) } }
    }

    /// Passes the elements to the relays.
    @inlinable
    public func emit(to relays: PublishRelay<Element>...) -> any Disposable {
        source.subscribe(onNext: { element in relays.forEach { $0.accept(element) } })
    }

    /// Passes the elements to the relays.
    @inlinable
    public func emit(to relays: BehaviorRelay<Element>...) -> any Disposable {
        source.subscribe(onNext: { element in relays.forEach { $0.accept(element) } })
    }
}

extension PublishRelay {
    /// The relay as a `Signal` (relays never error).
    public func asSignal() -> Signal<Element> {
        asSignal(onErrorSignalWith: .empty())
    }
}

extension BehaviorRelay {
    /// The relay as a `Driver` (relays never error).
    public func asDriver() -> Driver<Element> {
        asDriver(onErrorDriveWith: .empty())
    }
}
