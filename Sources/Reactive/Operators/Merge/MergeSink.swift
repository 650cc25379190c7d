public import Synchronization

/// The live state of one `merge`, `merge(maxConcurrent:)`, `flatMap` or `concat()` subscription.
///
/// It observes the outer sequence, maps each of its elements to an inner sequence with `selector`
/// (outside the lock) and subscribes to at most `maxConcurrent` inner sequences at once; the others
/// wait in order. The static `merge` forms have no outer sequence: `run(sources:)` subscribes the
/// given list at once.
@usableFromInline
final class MergeSink<SourceElement: Sendable, Element: Sendable>: ObserverType, Cancelable, EmittingSink {
    @usableFromInline let downstream: AnyObserver<Element>
    @usableFromInline let selector: @Sendable (SourceElement) throws -> Observable<Element>
    @usableFromInline let maxConcurrent: Int
    /// Set in `init`, not here: a class's initial values are not inlined, so they would run generically.
    @usableFromInline let state: Mutex<MergeState<Element>>
    /// Every inner subscription.
    @usableFromInline let group = CompositeDisposable()
    /// The outer subscription (none for the static forms).
    @usableFromInline let outer = SingleAssignmentState()
    /// Set when the subscriber disposes: nothing more goes downstream.
    @usableFromInline let closed = Atomic<Bool>(false)
    @usableFromInline let resource = ResourceToken()

    @inlinable
    init(
        downstream: AnyObserver<Element>, maxConcurrent: Int,
        selector: @escaping @Sendable (SourceElement) throws -> Observable<Element>
    ) {
        self.downstream = downstream
        self.maxConcurrent = maxConcurrent
        self.selector = selector
        state = Mutex(MergeState())
    }

    /// Subscribes to the outer sequence.
    @inlinable
    func run(_ source: Observable<SourceElement>) {
        outer.assign(source.subscribe(self))
    }

    /// Subscribes to every source at once; completes when all have completed (at once if there are
    /// none).
    @inlinable
    func run(sources: [Observable<Element>]) {
        state.withLock { $0.active = sources.count }
        for source in sources { subscribeInner(source) }
        perform(state.withLock { $0.completeOuter() })
    }

    /// An event of the outer sequence.
    @inlinable
    func on(_ event: Event<SourceElement>) {
        switch event {
        case .next(let element):
            guard !closed.load(ordering: .acquiring) else { return }
            let inner: Observable<Element>
            do {
                inner = try selector(element)
            } catch {
                perform(state.withLock { $0.fail(error) })
                return
            }
            if state.withLock({ $0.arrive(inner, maxConcurrent: maxConcurrent) }) {
                subscribeInner(inner)
            }
        case .error(let error):
            perform(state.withLock { $0.fail(error) })
        case .completed:
            let action = state.withLock { $0.completeOuter() }
            outer.dispose()
            perform(action)
        }
    }

    @inlinable
    func subscribeInner(_ inner: Observable<Element>) {
        let observer = MergeInner(sink: self)
        guard let key = group.insert(observer) else { return }
        observer.key = key
        observer.upstream.assign(inner.subscribe(observer))
    }

    @inlinable
    func innerNext(_ element: Element) {
        state.withLock { $0.delivery.enqueue(.next(element)) }
        state.deliver(to: SinkEmitter(self))
    }

    @inlinable
    func innerFailed(_ error: any Error) {
        perform(state.withLock { $0.fail(error) })
    }

    @inlinable
    func innerCompleted(_ key: CompositeDisposable.DisposeKey) {
        group.remove(for: key)
        perform(state.withLock { $0.completeInner() })
    }

    /// Delivers what the transition queued, then carries out its action.
    @inlinable
    func perform(_ action: MergeAction<Element>) {
        state.deliver(to: SinkEmitter(self))
        switch action {
        case .none:
            break
        case .subscribe(let next):
            // Through the trampoline: a waiting sequence that completes while being subscribed
            // frees its slot for the next one after this call returns, not inside it, so a long
            // queue of synchronous sequences (`concat()`) does not grow the stack.
            CurrentThreadScheduler.instance.schedule { [self] in subscribeInner(next) }
        case .finish:
            disposeSources()
        }
    }

    @inlinable
    func emit(_ event: Event<Element>) {
        guard !closed.load(ordering: .acquiring) else { return }
        downstream.on(event)
    }

    @inlinable var isDisposed: Bool { group.isDisposed }

    @inlinable
    func disposeSources() {
        outer.dispose()
        group.dispose()
    }

    @inlinable
    func dispose() {
        closed.store(true, ordering: .releasing)
        disposeSources()
    }
}

/// One inner subscription of a `merge`/`flatMap`: the observer of the inner sequence and the slot
/// holding its subscription, in one object (the sink's group holds it as the disposable).
@usableFromInline
final class MergeInner<SourceElement: Sendable, Element: Sendable>: ObserverType, Cancelable {
    @usableFromInline let sink: MergeSink<SourceElement, Element>
    @usableFromInline let upstream = SingleAssignmentState()
    /// The inner subscription's key in the sink's group. Written once, after the insertion into
    /// the group and before the inner sequence is subscribed (so before any event can arrive);
    /// only read after that, which makes the unchecked access safe.
    @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) var key: CompositeDisposable.DisposeKey?

    @inlinable
    init(sink: MergeSink<SourceElement, Element>) {
        self.sink = sink
    }

    @inlinable
    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element): sink.innerNext(element)
        case .error(let error): sink.innerFailed(error)
        case .completed:
            if let key { sink.innerCompleted(key) }
        }
    }

    @inlinable var isDisposed: Bool { upstream.isDisposed }
    @inlinable func dispose() { upstream.dispose() }
}
