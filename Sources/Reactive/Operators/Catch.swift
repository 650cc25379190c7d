public import Synchronization

extension ObservableType {
    /// Continues a sequence that fails with the sequence `handler` returns for the error.
    ///
    /// Elements and completion of the source pass through. When the source fails, its
    /// subscription is replaced by a subscription to `handler(error)`, made at once, whose events
    /// are passed on, terminal event included. If `handler` throws, that error is sent downstream.
    ///
    /// ```swift
    /// auth.login(phone, password).catch { error in .just(.failed(error)) }
    /// ```
    @inlinable
    public func `catch`(
        _ handler: @escaping @Sendable (any Error) throws -> Observable<Element>
    ) -> Observable<Element> {
        let source = asObservable()
        return Observable(unsafeSubscribe: { downstream in
            let sink = CatchSink(downstream: downstream, handler: handler)
            sink.assignSource(source.subscribe(sink))
            return sink
        })
    }

    /// Continues a sequence that fails with one `element`, then completes.
    ///
    /// ```swift
    /// usernameTaken.catchAndReturn(false)
    /// ```
    @inlinable
    public func catchAndReturn(_ element: Element) -> Observable<Element> {
        let fallback = Observable<Element>(unsafeSubscribe: { downstream in
            downstream.on(.next(element))
            downstream.on(.completed)
            return Disposables.create()
        })
        return self.catch { _ in fallback }
    }
}

/// The live state of one `catch` subscription. It observes the source itself; after the source
/// fails, a ``CatchFallbackObserver`` observes the fallback sequence. The subscription to the
/// source, then to the fallback, is held in the sink's own slot (no disposable objects of its own).
@usableFromInline
final class CatchSink<Element: Sendable>: ObserverType, Cancelable {
    /// What the slot holds.
    @usableFromInline
    enum Current: Sendable {
        /// Subscribed to the source; its subscription once `subscribe` has returned it.
        case source((any Disposable)?)
        /// The source failed: subscribed to the fallback (its subscription once returned).
        case fallback((any Disposable)?)
        /// Disposed: anything assigned now is disposed at once.
        case disposed
    }

    @usableFromInline let downstream: AnyObserver<Element>
    @usableFromInline let handler: @Sendable (any Error) throws -> Observable<Element>
    /// The subscription to the source, then to the fallback.
    @usableFromInline let current = Mutex<Current>(.source(nil))
    @usableFromInline let disposed = Atomic<Bool>(false)
    @usableFromInline let resource = ResourceToken()

    @inlinable
    init(
        downstream: AnyObserver<Element>,
        handler: @escaping @Sendable (any Error) throws -> Observable<Element>
    ) {
        self.downstream = downstream
        self.handler = handler
    }

    /// Keeps the source's subscription, unless the source failed (or the sink was disposed)
    /// while it was being made: then it is disposed at once.
    @inlinable
    func assignSource(_ subscription: any Disposable) {
        let kept: Bool = current.withLock { current in
            guard case .source = current else { return false }
            current = .source(subscription)
            return true
        }
        if !kept { subscription.dispose() }
    }

    @inlinable
    func on(_ event: Event<Element>) {
        guard !isDisposed else { return }
        switch event {
        case .next:
            downstream.on(event)
        case .completed:
            downstream.on(event)
            dispose()
        case .error(let error):
            let fallback: Observable<Element>
            do {
                fallback = try handler(error)
            } catch {
                downstream.on(.error(error))
                dispose()
                return
            }
            let subscription = fallback.subscribe(CatchFallbackObserver(sink: self))
            // The fallback's subscription replaces the source's, which is disposed.
            let replaced: (any Disposable)? = current.withLock { current in
                switch current {
                case .source(let previous), .fallback(let previous):
                    current = .fallback(subscription)
                    return previous
                case .disposed:
                    return subscription
                }
            }
            replaced?.dispose()
        }
    }

    @inlinable var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    @inlinable
    func dispose() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let held: (any Disposable)? = current.withLock { current in
            defer { current = .disposed }
            switch current {
            case .source(let held), .fallback(let held): return held
            case .disposed: return nil
            }
        }
        held?.dispose()
    }
}

/// Passes the fallback sequence's events to the downstream of a ``CatchSink``.
@usableFromInline
struct CatchFallbackObserver<Element: Sendable>: ObserverType {
    @usableFromInline let sink: CatchSink<Element>

    @inlinable
    init(sink: CatchSink<Element>) {
        self.sink = sink
    }

    @inlinable
    func on(_ event: Event<Element>) {
        guard !sink.isDisposed else { return }
        sink.downstream.on(event)
        if event.isStopEvent { sink.dispose() }
    }
}
