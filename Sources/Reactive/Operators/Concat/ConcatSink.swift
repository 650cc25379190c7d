public import Synchronization

/// The state of one `concat` subscription.
@usableFromInline
struct ConcatState<Element: Sendable>: SerialDeliveryState {
    /// Events waiting to go downstream.
    @usableFromInline var delivery = SerialDelivery<Element>()
    /// The index of the next source to subscribe.
    @usableFromInline var nextIndex = 0

    @inlinable
    init() {}

    /// Moves to the next of `sources`: returns it, or queues completion and returns nil when there
    /// is none left (or the subscription is finished).
    @inlinable
    mutating func advance(in sources: [Observable<Element>]) -> Observable<Element>? {
        guard !delivery.isTerminated else { return nil }
        guard nextIndex < sources.count else {
            delivery.enqueue(.completed)
            return nil
        }
        defer { nextIndex += 1 }
        return sources[nextIndex]
    }
}

/// The live state of one `concat` subscription over a fixed list of sources: one source at a time,
/// the next one subscribed when the previous one completes.
///
/// The first source is subscribed at once. Each later move goes through ``CurrentThreadScheduler``:
/// when a source completes while it is being subscribed (a synchronous source), the move runs after
/// that subscription has returned instead of inside it, so any number of synchronous sources run
/// with a flat stack.
@usableFromInline
final class ConcatSink<Element: Sendable>: ObserverType, Cancelable, EmittingSink {
    @usableFromInline let downstream: AnyObserver<Element>
    @usableFromInline let sources: [Observable<Element>]
    /// Set in `init`, not here: a class's initial values are not inlined, so they would run generically.
    @usableFromInline let state: Mutex<ConcatState<Element>>
    /// The current source's subscription; assigning the next one disposes it.
    @usableFromInline let current = SerialState()
    /// Set when the subscriber disposes: nothing more goes downstream.
    @usableFromInline let closed = Atomic<Bool>(false)
    @usableFromInline let resource = ResourceToken()

    @inlinable
    init(downstream: AnyObserver<Element>, sources: [Observable<Element>]) {
        self.downstream = downstream
        self.sources = sources
        state = Mutex(ConcatState())
    }

    /// Subscribes to the next source, or completes if there is none.
    @inlinable
    func moveNext() {
        guard !current.isDisposed else { return }
        guard let source = state.withLock({ $0.advance(in: sources) }) else {
            state.deliver(to: SinkEmitter(self))
            current.dispose()
            return
        }
        let subscription = SingleAssignmentDisposable()
        current.disposable = subscription
        subscription.setDisposable(source.subscribe(self))
    }

    /// An event of the current source.
    @inlinable
    func on(_ event: Event<Element>) {
        switch event {
        case .next:
            state.withLock { $0.delivery.enqueue(event) }
            state.deliver(to: SinkEmitter(self))
        case .error:
            state.withLock { $0.delivery.enqueue(event) }
            state.deliver(to: SinkEmitter(self))
            current.dispose()
        case .completed:
            CurrentThreadScheduler.instance.schedule { [self] in moveNext() }
        }
    }

    @inlinable
    func emit(_ event: Event<Element>) {
        guard !closed.load(ordering: .acquiring) else { return }
        downstream.on(event)
    }

    @inlinable var isDisposed: Bool { current.isDisposed }

    @inlinable
    func dispose() {
        closed.store(true, ordering: .releasing)
        current.dispose()
    }
}
