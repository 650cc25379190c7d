public import Synchronization

/// The live state of one `combineLatest` subscription, shared by every arity and by the collection
/// form: the latest values live in a `Values` container, and `select` turns a complete container into
/// a result.
///
/// The result selector is a user closure, so it never runs under the lock: transitions queue a
/// snapshot of the values, and `emit` applies the selector while delivering, in queue order.
@usableFromInline
final class CombineLatestSink<Values: Sendable, Result: Sendable>: Cancelable, EmittingSink {
    /// Turns a snapshot into a result; nil if some source has no value yet (never queued).
    @usableFromInline typealias Select = @Sendable (Values) throws -> Result?

    @usableFromInline let downstream: AnyObserver<Result>
    @usableFromInline let select: Select
    @usableFromInline let state: Mutex<CombineLatestState<Values>>
    @usableFromInline let subscriptions: [SingleAssignmentDisposable]
    /// Set once every source subscription has been disposed.
    @usableFromInline let disposed = Atomic<Bool>(false)
    /// Set when the subscriber disposes or the selector fails: nothing more goes downstream.
    @usableFromInline let closed = Atomic<Bool>(false)
    @usableFromInline let resource = ResourceToken()

    @inlinable
    init(downstream: AnyObserver<Result>, values: Values, arity: Int, select: @escaping Select) {
        self.downstream = downstream
        self.select = select
        state = Mutex(CombineLatestState(values: values, arity: arity))
        subscriptions = (0..<arity).map { _ in SingleAssignmentDisposable() }
    }

    /// Subscribes to the source at `index`; `store` writes its elements into the values.
    @inlinable
    func subscribe<Element: Sendable>(
        _ source: Observable<Element>, at index: Int,
        store: @escaping @Sendable (inout Values, Element) -> Void
    ) {
        let observer = CombineLatestObserver(sink: self, index: index, store: store)
        subscriptions[index].setDisposable(source.subscribe(observer))
    }

    /// Called once every source is subscribed: with no sources there is one empty combination.
    @inlinable
    func finishSubscribing() {
        guard subscriptions.isEmpty else { return }
        perform { $0.combineNothing() }
    }

    @inlinable
    func receive(at index: Int, update: @Sendable (inout Values) -> Void) {
        perform { $0.receive(at: index, update: update) }
    }

    @inlinable
    func complete(at index: Int) {
        perform { $0.complete(at: index) }
    }

    @inlinable
    func fail(_ error: any Error) {
        perform { $0.fail(error) }
    }

    /// Runs the transition, delivers what it queued, then carries out its action.
    @inlinable
    func perform(_ transition: (inout CombineLatestState<Values>) -> CombineLatestAction) {
        let action = state.transition(transition, deliveringTo: SinkEmitter(self))
        switch action {
        case .none: break
        case .release(let index): subscriptions[index].dispose()
        case .finish: disposeSources()
        }
    }

    @inlinable
    func emit(_ event: Event<Values>) {
        guard !closed.load(ordering: .acquiring) else { return }
        switch event {
        case .next(let values):
            let result: Result?
            do {
                result = try select(values)
            } catch {
                closed.store(true, ordering: .releasing)
                downstream.on(.error(error))
                disposeSources()
                return
            }
            if let result { downstream.on(.next(result)) }
        case .error(let error):
            downstream.on(.error(error))
        case .completed:
            downstream.on(.completed)
        }
    }

    @inlinable
    func disposeSources() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        for subscription in subscriptions { subscription.dispose() }
    }

    @inlinable var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    @inlinable
    func dispose() {
        closed.store(true, ordering: .releasing)
        disposeSources()
    }
}

/// Receives the events of one `combineLatest` source and hands them to the sink with its index.
///
/// A class, not a struct: the source holds it in an `AnyObserver`, whose closure then calls it with
/// the object as its context, instead of copying (and retaining) a boxed struct's fields on every
/// event.
@usableFromInline
final class CombineLatestObserver<Element: Sendable, Values: Sendable, Result: Sendable>: ObserverType {
    @usableFromInline let sink: CombineLatestSink<Values, Result>
    @usableFromInline let index: Int
    @usableFromInline let store: @Sendable (inout Values, Element) -> Void

    @inlinable
    init(
        sink: CombineLatestSink<Values, Result>, index: Int,
        store: @escaping @Sendable (inout Values, Element) -> Void
    ) {
        self.sink = sink
        self.index = index
        self.store = store
    }

    @inlinable
    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            sink.receive(at: index) { values in store(&values, element) }
        case .error(let error):
            sink.fail(error)
        case .completed:
            sink.complete(at: index)
        }
    }
}
