public import Synchronization

/// The live state of one `switchLatest`/`flatMapLatest` subscription.
///
/// For each outer element it runs `selector` (outside the lock), numbers the new inner sequence as
/// the latest, disposes the previous inner subscription and then subscribes the new one.
@usableFromInline
final class SwitchSink<SourceElement: Sendable, Element: Sendable>: ObserverType, Cancelable, EmittingSink {
    @usableFromInline let downstream: AnyObserver<Element>
    @usableFromInline let selector: @Sendable (SourceElement) throws -> Observable<Element>
    /// Set in `init`, not here: a class's initial values are not inlined, so they would run generically.
    @usableFromInline let state: Mutex<SwitchState<Element>>
    @usableFromInline let outer = SingleAssignmentDisposable()
    /// The latest inner subscription; assigning a new one disposes the previous one.
    @usableFromInline let inner = SerialDisposable()
    /// Set when the subscriber disposes: nothing more goes downstream.
    @usableFromInline let closed = Atomic<Bool>(false)
    @usableFromInline let resource = ResourceToken()

    @inlinable
    init(
        downstream: AnyObserver<Element>,
        selector: @escaping @Sendable (SourceElement) throws -> Observable<Element>
    ) {
        self.downstream = downstream
        self.selector = selector
        state = Mutex(SwitchState())
    }

    /// Subscribes to the outer sequence.
    @inlinable
    func run(_ source: Observable<SourceElement>) {
        outer.setDisposable(source.subscribe(self))
    }

    /// An event of the outer sequence.
    @inlinable
    func on(_ event: Event<SourceElement>) {
        switch event {
        case .next(let element):
            guard !closed.load(ordering: .acquiring) else { return }
            let next: Observable<Element>
            do {
                next = try selector(element)
            } catch {
                finish(if: state.withLock { $0.fail(error) })
                return
            }
            guard let id = state.withLock({ $0.switchToNext() }) else { return }
            let subscription = SingleAssignmentDisposable()
            inner.disposable = subscription  // disposes the previous inner subscription first
            subscription.setDisposable(
                next.subscribe(SwitchInnerObserver(sink: self, id: id, subscription: subscription)))
        case .error(let error):
            finish(if: state.withLock { $0.fail(error) })
        case .completed:
            let finished = state.withLock { $0.completeOuter() }
            outer.dispose()
            finish(if: finished)
        }
    }

    /// Inner sequence `id` sent `event`.
    @inlinable
    func innerEvent(_ event: Event<Element>, from id: UInt64) {
        finish(if: state.withLock { $0.receive(event, from: id) })
    }

    /// Delivers what was queued, then disposes everything if a terminal event was queued.
    @inlinable
    func finish(if finished: Bool) {
        state.deliver(to: SinkEmitter(self))
        if finished { disposeSources() }
    }

    @inlinable
    func emit(_ event: Event<Element>) {
        guard !closed.load(ordering: .acquiring) else { return }
        downstream.on(event)
    }

    @inlinable
    func disposeSources() {
        outer.dispose()
        inner.dispose()
    }

    @inlinable var isDisposed: Bool { inner.isDisposed }

    @inlinable
    func dispose() {
        closed.store(true, ordering: .releasing)
        disposeSources()
    }
}

/// Receives the events of one inner sequence of a `switchLatest`/`flatMapLatest`.
@usableFromInline
struct SwitchInnerObserver<SourceElement: Sendable, Element: Sendable>: ObserverType {
    @usableFromInline let sink: SwitchSink<SourceElement, Element>
    /// The inner sequence's number.
    @usableFromInline let id: UInt64
    /// This inner subscription, disposed when the inner sequence terminates.
    @usableFromInline let subscription: SingleAssignmentDisposable

    @inlinable
    init(sink: SwitchSink<SourceElement, Element>, id: UInt64, subscription: SingleAssignmentDisposable) {
        self.sink = sink
        self.id = id
        self.subscription = subscription
    }

    @inlinable
    func on(_ event: Event<Element>) {
        if event.isStopEvent { subscription.dispose() }
        sink.innerEvent(event, from: id)
    }
}
