public import Synchronization

/// The live state of one `switchLatest`/`flatMapLatest` subscription.
///
/// For each outer element it runs `selector` (outside the lock), makes the new inner subscription the
/// latest, disposes the previous inner subscription and then subscribes the new one.
///
/// An outer element costs one object, the ``SwitchInner`` that is both the inner sequence's observer
/// and its subscription; the latest one is kept in the state, under the lock the transition takes
/// anyway (no separate serial disposable with a lock of its own).
@usableFromInline
final class SwitchSink<SourceElement: Sendable, Element: Sendable>: ObserverType, Cancelable, EmittingSink {
    @usableFromInline typealias Inner = SwitchInner<SourceElement, Element>

    @usableFromInline let downstream: AnyObserver<Element>
    @usableFromInline let selector: @Sendable (SourceElement) throws -> Observable<Element>
    /// Set in `init`, not here: a class's initial values are not inlined, so they would run generically.
    @usableFromInline let state: Mutex<SwitchState<Element, Inner>>
    @usableFromInline let outer = SingleAssignmentState()
    /// Set once the sources have been disposed.
    @usableFromInline let disposed = Atomic<Bool>(false)
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
        outer.assign(source.subscribe(self))
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
                finish(if: state.transition({ $0.fail(error) }, deliveringTo: SinkEmitter(self)))
                return
            }
            let inner = Inner(sink: self)
            let step = state.withLock { $0.switchTo(inner) }
            guard case .switched(let previous, let isCurrent) = step else { return }
            previous?.upstream.dispose()  // the previous inner subscription ends first
            if !isCurrent { inner.upstream.dispose() }  // the sources were disposed meanwhile
            inner.upstream.assign(next.subscribe(inner))
        case .error(let error):
            finish(if: state.transition({ $0.fail(error) }, deliveringTo: SinkEmitter(self)))
        case .completed:
            let finished = state.withLock { $0.completeOuter() }
            outer.dispose()
            state.deliver(to: SinkEmitter(self))
            finish(if: finished)
        }
    }

    /// `inner` sent `event`.
    @inlinable
    func innerEvent(_ event: Event<Element>, from inner: Inner) {
        finish(if: state.transition({ $0.receive(event, from: inner) }, deliveringTo: SinkEmitter(self)))
    }

    /// Disposes everything if a terminal event was queued.
    @inlinable
    func finish(if finished: Bool) {
        if finished { disposeSources() }
    }

    @inlinable
    func emit(_ event: Event<Element>) {
        guard !closed.load(ordering: .acquiring) else { return }
        downstream.on(event)
    }

    @inlinable
    func disposeSources() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        outer.dispose()
        state.withLock { $0.detachLatest() }?.upstream.dispose()
    }

    @inlinable var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    @inlinable
    func dispose() {
        closed.store(true, ordering: .releasing)
        disposeSources()
    }
}

/// One inner subscription of a `switchLatest`/`flatMapLatest`: the observer of the inner sequence
/// and the slot holding its subscription, disposed when the inner sequence terminates or a newer one
/// replaces it.
@usableFromInline
final class SwitchInner<SourceElement: Sendable, Element: Sendable>: ObserverType, Sendable {
    @usableFromInline let sink: SwitchSink<SourceElement, Element>
    @usableFromInline let upstream = SingleAssignmentState()

    @inlinable
    init(sink: SwitchSink<SourceElement, Element>) {
        self.sink = sink
    }

    @inlinable
    func on(_ event: Event<Element>) {
        if event.isStopEvent { upstream.dispose() }
        sink.innerEvent(event, from: self)
    }
}
