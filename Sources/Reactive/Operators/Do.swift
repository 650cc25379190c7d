extension ObservableType {
    /// Runs side effects for the events and the lifecycle of each subscription, passing every
    /// event through unchanged.
    ///
    /// - `onNext`, `onError`, `onCompleted` run before the event is passed on; `afterNext`,
    ///   `afterError`, `afterCompleted` run after it.
    /// - `onSubscribe` runs before the source is subscribed, `onSubscribed` after
    ///   `subscribe` on the source returns, `onDispose` after the source subscription is disposed
    ///   (by a terminal event or by the subscriber), once.
    ///
    /// If an event handler throws, the thrown error is sent downstream instead of (for `on…`) or
    /// after (for `afterNext`) the event, and the source subscription is disposed. An error thrown
    /// by `afterError` or `afterCompleted` is dropped: the sequence has already terminated.
    ///
    /// ```swift
    /// request.do(onSubscribe: { spinner.on() }, onDispose: { spinner.off() })
    /// ```
    @inlinable
    public func `do`(
        onNext: (@Sendable (Element) throws -> Void)? = nil,
        afterNext: (@Sendable (Element) throws -> Void)? = nil,
        onError: (@Sendable (any Error) throws -> Void)? = nil,
        afterError: (@Sendable (any Error) throws -> Void)? = nil,
        onCompleted: (@Sendable () throws -> Void)? = nil,
        afterCompleted: (@Sendable () throws -> Void)? = nil,
        onSubscribe: (@Sendable () -> Void)? = nil,
        onSubscribed: (@Sendable () -> Void)? = nil,
        onDispose: (@Sendable () -> Void)? = nil
    ) -> Observable<Element> {
        let source = asObservable()
        let handlers = DoHandlers(
            onNext: onNext, afterNext: afterNext, onError: onError, afterError: afterError,
            onCompleted: onCompleted, afterCompleted: afterCompleted)
        return Observable(unsafeSubscribe: { downstream in
            onSubscribe?()
            let sink = DoSink(downstream: downstream, handlers: handlers)
            let subscription = source.subscribe(sink)
            onSubscribed?()
            if let onDispose {
                sink.upstream.assign(
                    Disposables.create {
                        subscription.dispose()
                        onDispose()
                    })
            } else {
                sink.upstream.assign(subscription)
            }
            return sink
        })
    }
}

/// The event handlers of one `do` operator.
@usableFromInline
struct DoHandlers<Element>: Sendable {
    @usableFromInline let onNext: (@Sendable (Element) throws -> Void)?
    @usableFromInline let afterNext: (@Sendable (Element) throws -> Void)?
    @usableFromInline let onError: (@Sendable (any Error) throws -> Void)?
    @usableFromInline let afterError: (@Sendable (any Error) throws -> Void)?
    @usableFromInline let onCompleted: (@Sendable () throws -> Void)?
    @usableFromInline let afterCompleted: (@Sendable () throws -> Void)?

    @inlinable
    init(
        onNext: (@Sendable (Element) throws -> Void)?,
        afterNext: (@Sendable (Element) throws -> Void)?,
        onError: (@Sendable (any Error) throws -> Void)?,
        afterError: (@Sendable (any Error) throws -> Void)?,
        onCompleted: (@Sendable () throws -> Void)?,
        afterCompleted: (@Sendable () throws -> Void)?
    ) {
        self.onNext = onNext
        self.afterNext = afterNext
        self.onError = onError
        self.afterError = afterError
        self.onCompleted = onCompleted
        self.afterCompleted = afterCompleted
    }
}

/// The live state of one `do` subscription.
@usableFromInline
final class DoSink<Element: Sendable>: ObserverType, Cancelable {
    @usableFromInline let downstream: AnyObserver<Element>
    @usableFromInline let handlers: DoHandlers<Element>
    @usableFromInline let upstream = SingleAssignmentState()
    @usableFromInline let resource = ResourceToken()

    @inlinable
    init(downstream: AnyObserver<Element>, handlers: DoHandlers<Element>) {
        self.downstream = downstream
        self.handlers = handlers
    }

    @inlinable
    func on(_ event: Event<Element>) {
        guard !upstream.isDisposed else { return }
        do {
            switch event {
            case .next(let element):
                try handlers.onNext?(element)
                downstream.on(event)
                try handlers.afterNext?(element)
            case .error(let error):
                try handlers.onError?(error)
                downstream.on(event)
                // Errors from here on cannot be delivered: the sequence has terminated.
                try? handlers.afterError?(error)
                upstream.dispose()
            case .completed:
                try handlers.onCompleted?()
                downstream.on(event)
                try? handlers.afterCompleted?()
                upstream.dispose()
            }
        } catch {
            // Not if downstream disposed this subscription while handling the element.
            if !upstream.isDisposed { downstream.on(.error(error)) }
            upstream.dispose()
        }
    }

    @inlinable var isDisposed: Bool { upstream.isDisposed }
    @inlinable func dispose() { upstream.dispose() }
}
