public import Synchronization

extension ObservableType {
    /// Resubscribes to the source each time it fails, until it completes.
    ///
    /// Elements pass through from every attempt. The resubscription happens at once, when the
    /// error arrives; a source that fails synchronously is retried in a loop, not by recursion,
    /// so the stack does not grow. **This may never end.**
    ///
    /// ```swift
    /// fetch.retry()
    /// ```
    @inlinable
    public func retry() -> Observable<Element> {
        retry(attempts: nil)
    }

    /// Subscribes to the source up to `maxAttemptCount` times in all, resubscribing each time it
    /// fails; the error of the last attempt is passed on.
    ///
    /// `retry(1)` is the source itself and `retry(2)` retries once. `retry(0)` completes at once
    /// without subscribing. `maxAttemptCount` must not be negative.
    ///
    /// ```swift
    /// fetch.retry(3)
    /// ```
    @inlinable
    public func retry(_ maxAttemptCount: Int) -> Observable<Element> {
        precondition(maxAttemptCount >= 0, "retry: maxAttemptCount can't be negative")
        return retry(attempts: maxAttemptCount)
    }

    /// `retry` with `attempts` subscriptions in all, or unlimited if nil.
    @inlinable
    func retry(attempts: Int?) -> Observable<Element> {
        let source = asObservable()
        return Observable(unsafeSubscribe: { downstream in
            let sink = RetrySink(downstream: downstream, source: source, attempts: attempts)
            sink.subscribeNext()
            return sink
        })
    }
}

/// The mutable state of one `retry` subscription.
@usableFromInline
struct RetryState {
    /// Subscriptions still allowed; nil for unlimited.
    @usableFromInline var attemptsLeft: Int?
    /// The error of the latest attempt.
    @usableFromInline var lastError: (any Error)?
    /// A subscribe loop is running (on some thread's stack).
    @usableFromInline var isSubscribing = false
    /// Another attempt was asked for while the loop was running; the loop makes it next.
    @usableFromInline var isAttemptPending = false

    @inlinable
    init(attemptsLeft: Int?) {
        self.attemptsLeft = attemptsLeft
    }
}

/// What the subscribe loop does next.
@usableFromInline
enum RetryStep {
    /// Subscribe to the source again.
    case subscribe
    /// No attempts left: finish with the last error, or complete if there was none.
    case finish((any Error)?)
}

/// The live state of one `retry` subscription.
///
/// Resubscriptions go through a gate, as RxSwift's tail-recursive sink does: an attempt asked for
/// while another is being subscribed (a source failing inside `subscribe`) is queued and made by
/// the loop already running, once `subscribe` returns, instead of nesting on the stack.
@usableFromInline
final class RetrySink<Element: Sendable>: ObserverType, Cancelable {
    @usableFromInline let downstream: AnyObserver<Element>
    @usableFromInline let source: Observable<Element>
    @usableFromInline let state: Mutex<RetryState>
    /// The subscription of the current attempt.
    @usableFromInline let current = SerialState()
    @usableFromInline let disposed = Atomic<Bool>(false)
    @usableFromInline let resource = ResourceToken()

    @inlinable
    init(downstream: AnyObserver<Element>, source: Observable<Element>, attempts: Int?) {
        self.downstream = downstream
        self.source = source
        state = Mutex(RetryState(attemptsLeft: attempts))
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
            state.withLock { $0.lastError = error }
            subscribeNext()
        }
    }

    /// Makes the next attempt, or queues it for the loop already running.
    @inlinable
    func subscribeNext() {
        let owner = state.withLock { state in
            if state.isSubscribing {
                state.isAttemptPending = true
                return false
            }
            state.isSubscribing = true
            return true
        }
        guard owner else { return }
        repeat {
            attempt()
        } while state.withLock({ state in
            if state.isAttemptPending {
                state.isAttemptPending = false
                return true
            }
            state.isSubscribing = false
            return false
        })
    }

    @inlinable
    func attempt() {
        guard !isDisposed else { return }
        let step = state.withLock { state -> RetryStep in
            guard let left = state.attemptsLeft else { return .subscribe }
            guard left > 0 else { return .finish(state.lastError) }
            state.attemptsLeft = left - 1
            return .subscribe
        }
        switch step {
        case .subscribe:
            let subscription = SingleAssignmentDisposable()
            current.disposable = subscription
            subscription.setDisposable(source.subscribe(self))
        case .finish(let error):
            downstream.on(error.map { .error($0) } ?? .completed)
            dispose()
        }
    }

    @inlinable var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    @inlinable
    func dispose() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        current.dispose()
    }
}
