public import Synchronization

/// What a ``Single`` ends with: its one element, or an error.
public typealias SingleEvent<Element> = Result<Element, any Error>

/// A sequence that produces exactly one element or an error: the shape of a request and its
/// response.
///
/// A `Single` is built only by its factories (`create`, `just`, `error`, `never`, `deferred`), its
/// operators and `asSingle()`, so its observable form always sends either `next` followed at once
/// by `completed`, or `error`. Subscribe with `subscribe(onSuccess:onFailure:onDisposed:)`, await
/// ``value``, or use the full operator set on ``asObservable()``.
///
/// ```swift
/// let user: Single<User> = api.fetchUser(id)
/// let name = try await user.map(\.name).value
/// ```
@frozen
public struct Single<Element: Sendable>: ObservableConvertibleType {
    @usableFromInline let source: Observable<Element>

    /// Wraps `source`, which must keep the single grammar described above (operators, and modules
    /// of this package that keep it themselves).
    @inlinable
    package init(raw source: Observable<Element>) {
        self.source = source
    }

    /// This single as an observable: `next` then `completed` on success, `error` on failure.
    @inlinable
    public func asObservable() -> Observable<Element> { source }
}

extension Single {
    /// Creates a single from a subscribe function, which runs once per subscription with a
    /// callback to report the outcome and returns a disposable that stops the work.
    ///
    /// Only the first call of the callback counts. The returned disposable is disposed after that
    /// call or when the subscriber disposes, whichever comes first.
    ///
    /// ```swift
    /// let answer = Single<Int>.create { done in
    ///     done(.success(42))
    ///     return Disposables.create()
    /// }
    /// ```
    @inlinable
    public static func create(
        subscribe: @escaping @Sendable (@escaping @Sendable (SingleEvent<Element>) -> Void) -> any Disposable
    ) -> Single<Element> {
        Single(
            raw: Observable.create { observer in
                subscribe { event in
                    switch event {
                    case .success(let element):
                        observer.on(.next(element))
                        observer.on(.completed)
                    case .failure(let error):
                        observer.on(.error(error))
                    }
                }
            })
    }

    /// Subscribes `observer`, which is called once with the outcome (and not at all if the
    /// subscription is disposed first).
    @inlinable
    public func subscribe(_ observer: @escaping @Sendable (SingleEvent<Element>) -> Void) -> any Disposable {
        source.subscribe(SingleEventObserver(observer))
    }

    /// Subscribes with a closure for each outcome.
    ///
    /// `onDisposed` runs once, right after `onSuccess` or `onFailure`, or when the subscription is
    /// disposed before an outcome. An error with no `onFailure` handler is ignored.
    @inlinable
    public func subscribe(
        onSuccess: (@Sendable (Element) -> Void)? = nil,
        onFailure: (@Sendable (any Error) -> Void)? = nil,
        onDisposed: (@Sendable () -> Void)? = nil
    ) -> any Disposable {
        // Without `onDisposed` the subscription itself is all the caller needs to dispose.
        guard let onDisposed else {
            return subscribe { event in
                switch event {
                case .success(let element): onSuccess?(element)
                case .failure(let error): onFailure?(error)
                }
            }
        }
        let disposed = Disposables.create(with: onDisposed)
        let subscription = subscribe { event in
            switch event {
            case .success(let element): onSuccess?(element)
            case .failure(let error): onFailure?(error)
            }
            disposed.dispose()
        }
        return Disposables.create(subscription, disposed)
    }

    /// The element, awaited: subscribes, suspends until the outcome, and returns the element or
    /// throws the error.
    ///
    /// Cancelling the awaiting task disposes the subscription and throws `CancellationError`.
    public var value: Element {
        get async throws {
            let awaiting = SingleAwaiting<Element>()
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    awaiting.start(continuation, subscribe: self.subscribe)
                }
            } onCancel: {
                awaiting.cancel()
            }
        }
    }
}

extension ObservableType {
    /// This sequence as a ``Single``: succeeds with the only element when the source completes,
    /// fails with `RxError.noElements` if it completes empty, and with `RxError.moreThanOneElement`
    /// as soon as a second element arrives (disposing the source). Errors pass through.
    @inlinable
    public func asSingle() -> Single<Element> {
        let source = asObservable()
        return Single(
            raw: Observable(unsafeSubscribe: { downstream in
                let sink = AsSingleSink(downstream: downstream)
                sink.upstream.assign(source.subscribe(sink))
                return sink
            }))
    }
}

/// Turns a single's observable events into one ``SingleEvent``: the element (its `completed` is
/// then ignored) or the error.
@usableFromInline
final class SingleEventObserver<Element: Sendable>: ObserverType {
    @usableFromInline let handler: @Sendable (SingleEvent<Element>) -> Void
    @usableFromInline let stopped = Atomic<Bool>(false)
    @usableFromInline let resource = ResourceToken()

    @inlinable
    init(_ handler: @escaping @Sendable (SingleEvent<Element>) -> Void) {
        self.handler = handler
    }

    @inlinable
    func on(_ event: Event<Element>) {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        switch event {
        case .next(let element): handler(.success(element))
        case .error(let error): handler(.failure(error))
        // Unreachable through the public API, which never builds a single that completes empty.
        case .completed: handler(.failure(RxError.noElements))
        }
    }
}

/// The live state of one `asSingle` subscription.
@usableFromInline
final class AsSingleSink<Element: Sendable>: ObserverType, Cancelable {
    @usableFromInline let downstream: AnyObserver<Element>
    /// The element received so far.
    @usableFromInline let element = Mutex<Element?>(nil)
    @usableFromInline let upstream = SingleAssignmentState()
    @usableFromInline let resource = ResourceToken()

    @inlinable
    init(downstream: AnyObserver<Element>) {
        self.downstream = downstream
    }

    @inlinable
    func on(_ event: Event<Element>) {
        guard !upstream.isDisposed else { return }
        switch event {
        case .next(let next):
            let isSecond: Bool = element.withLock { element in
                defer { element = next }
                return element != nil
            }
            guard isSecond else { return }
            downstream.on(.error(RxError.moreThanOneElement))
        case .error:
            downstream.on(event)
        case .completed:
            if let only = element.withLock({ $0 }) {
                downstream.on(.next(only))
                downstream.on(.completed)
            } else {
                downstream.on(.error(RxError.noElements))
            }
        }
        upstream.dispose()
    }

    @inlinable var isDisposed: Bool { upstream.isDisposed }
    @inlinable func dispose() { upstream.dispose() }
}

/// Connects one `await single.value` to its subscription: resumes the continuation exactly once,
/// with the outcome or with `CancellationError` when the task is cancelled (which also disposes
/// the subscription).
final class SingleAwaiting<Element: Sendable>: Sendable {
    private enum State {
        /// Not subscribed yet.
        case idle
        /// Subscribed; the continuation waits for the outcome.
        case waiting(CheckedContinuation<Element, any Error>)
        /// The task was cancelled before the outcome.
        case cancelled
        /// The continuation was resumed with the outcome.
        case finished
    }

    private let state = Mutex(State.idle)
    private let subscription = SingleAssignmentDisposable()

    func start(
        _ continuation: CheckedContinuation<Element, any Error>,
        subscribe: (@escaping @Sendable (SingleEvent<Element>) -> Void) -> any Disposable
    ) {
        let proceed: Bool = state.withLock { state in
            guard case .idle = state else { return false }
            state = .waiting(continuation)
            return true
        }
        guard proceed else {
            continuation.resume(throwing: CancellationError())
            return
        }
        subscription.setDisposable(subscribe { [self] event in finish(event) })
    }

    private func finish(_ event: SingleEvent<Element>) {
        let continuation: CheckedContinuation<Element, any Error>? = state.withLock { state in
            guard case .waiting(let continuation) = state else { return nil }
            state = .finished
            return continuation
        }
        continuation?.resume(with: event)
    }

    func cancel() {
        let continuation: CheckedContinuation<Element, any Error>? = state.withLock { state in
            switch state {
            case .idle:
                state = .cancelled
                return nil
            case .waiting(let continuation):
                state = .cancelled
                return continuation
            case .cancelled, .finished:
                return nil
            }
        }
        guard let continuation else { return }
        subscription.dispose()
        continuation.resume(throwing: CancellationError())
    }
}
