extension ObservableConvertibleType {
    /// The elements as an async sequence. Each read of `values` subscribes once, at once; elements
    /// wait in the stream's buffer until the loop pulls them.
    ///
    /// ```swift
    /// for try await tip in viewModel.tip.values { print(tip) }
    /// ```
    ///
    /// - Completion ends the loop; an error is thrown from it after the elements before it.
    /// - Cancelling the consuming task (or dropping the stream) disposes the subscription, and the
    ///   loop throws `CancellationError` (as in RxSwift) unless the sequence had already finished.
    /// - Buffering is unbounded: the subscription never waits for the consumer, so a fast producer
    ///   with a slow consumer grows the buffer.
    public var values: AsyncThrowingStream<Element, any Error> {
        let source = asObservable()
        return AsyncThrowingStream(bufferingPolicy: .unbounded) { continuation in
            let subscription = SingleAssignmentDisposable()
            continuation.onTermination = { termination in
                guard case .cancelled = termination else { return }
                subscription.dispose()
                continuation.finish(throwing: CancellationError())
            }
            subscription.setDisposable(
                source.subscribe { event in
                    switch event {
                    case .next(let element): continuation.yield(element)
                    case .error(let error): continuation.finish(throwing: error)
                    case .completed: continuation.finish()
                    }
                })
        }
    }
}

extension AsyncSequence where Self: Sendable, Element: Sendable {
    /// An observable that iterates this sequence in a new task for each subscription.
    ///
    /// - Each element becomes `.next`; the end of the sequence becomes `.completed`; a thrown
    ///   error becomes `.error`, except `CancellationError`, which completes (as in RxSwift).
    /// - Disposing cancels the task; the iteration stops at the sequence's next cancellation point
    ///   (and at the latest before the next element), and nothing is delivered after disposal.
    /// - `detached: true` runs the iteration in a detached task (no inherited priority or task
    ///   locals).
    ///
    /// ```swift
    /// let lines = socketLines.asObservable()   // AsyncStream<String> -> Observable<String>
    /// ```
    public func asObservable(detached: Bool = false) -> Observable<Element> {
        let sequence = self
        return Observable.create { observer in
            let iterate: @Sendable () async -> Void = {
                do {
                    for try await element in sequence {
                        if Task.isCancelled { return }
                        observer.onNext(element)
                    }
                    observer.onCompleted()
                } catch is CancellationError {
                    observer.onCompleted()
                } catch {
                    observer.onError(error)
                }
            }
            let task = detached ? Task.detached(operation: iterate) : Task(operation: iterate)
            return Disposables.create { task.cancel() }
        }
    }
}
