import Dispatch
import Reactive
import Synchronization
import Testing

/// A one-shot signal that async tests await without blocking a thread, with a deadline.
private final class Latch: Sendable {
    private struct State {
        var outcome: Bool?
        var waiter: CheckedContinuation<Bool, Never>?
    }

    private let state = Mutex(State())

    /// Releases the waiter (now or when it comes).
    func signal() { finish(true) }

    /// Waits for `signal()`; false if it did not come within ten seconds.
    func wait() async -> Bool {
        await withCheckedContinuation { continuation in
            let outcome: Bool? = state.withLock { state in
                if state.outcome == nil { state.waiter = continuation }
                return state.outcome
            }
            if let outcome { return continuation.resume(returning: outcome) }
            DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(10)) { self.finish(false) }
        }
    }

    private func finish(_ outcome: Bool) {
        let waiter: CheckedContinuation<Bool, Never>? = state.withLock { state in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: outcome)
    }
}

/// An observable that sends `elements`, then `end` (nil: nothing), and signals when it is
/// subscribed and disposed.
private func probe(
    _ elements: [Int], end: Event<Int>?, subscribed: Latch, disposed: Latch
) -> Observable<Int> {
    Observable.create { observer in
        subscribed.signal()
        for element in elements { observer.onNext(element) }
        if let end { observer.on(end) }
        return Disposables.create { disposed.signal() }
    }
}

@Suite(.timeLimit(.minutes(1)))
struct ObservableValuesTests {
    @Test func yieldsTheElementsThenFinishes() async throws {
        let disposed = Latch()
        let source = probe(
            Array(1...10), end: .completed, subscribed: Latch(), disposed: disposed)
        var values: [Int] = []
        for try await value in source.values { values.append(value) }
        #expect(values == Array(1...10))
        #expect(await disposed.wait())
    }

    @Test func throwsTheErrorAfterTheElements() async {
        let source = probe(
            [1, 2], end: .error(testError), subscribed: Latch(),
            disposed: Latch())
        var values: [Int] = []
        await #expect(throws: TestError.self) {
            for try await value in source.values { values.append(value) }
        }
        #expect(values == [1, 2])
    }

    @Test func cancellingTheConsumerDisposesTheSubscription() async {
        let subscribed = Latch()
        let disposed = Latch()
        let source = probe([1], end: nil, subscribed: subscribed, disposed: disposed)
        let consumer = Task {
            var values: [Int] = []
            do {
                for try await value in source.values { values.append(value) }
                return (values, "finished")
            } catch {
                return (values, "\(type(of: error))")
            }
        }
        #expect(await subscribed.wait())
        consumer.cancel()
        #expect(await disposed.wait())
        let (values, outcome) = await consumer.value
        #expect(values == [1] || values == [])
        #expect(outcome == "CancellationError")
    }

    @Test func leavingTheLoopEarlyDisposesTheSubscription() async throws {
        let disposed = Latch()
        let source = probe([1, 2, 3], end: nil, subscribed: Latch(), disposed: disposed)
        var first: Int?
        for try await value in source.values {
            first = value
            break
        }
        #expect(first == 1)
        #expect(await disposed.wait())
    }
}

@Suite(.timeLimit(.minutes(1)))
struct AsyncSequenceAsObservableTests {
    /// Subscribes and waits for the terminal event; returns every event as text.
    private func events(of source: Observable<Int>) async -> [String] {
        let events = Shared<[String]>([])
        let finished = Latch()
        let subscription = source.subscribe { event in
            events.append("\(event)")
            if event.isStopEvent { finished.signal() }
        }
        #expect(await finished.wait())
        subscription.dispose()
        return events.value
    }

    @Test func deliversTheElementsThenCompletes() async {
        let sequence = AsyncStream<Int> { continuation in
            for value in 1...5 { continuation.yield(value) }
            continuation.finish()
        }
        let events = await events(of: sequence.asObservable())
        #expect(events == ["next(1)", "next(2)", "next(3)", "next(4)", "next(5)", "completed"])
    }

    @Test func deliversTheError() async {
        let sequence = AsyncThrowingStream<Int, any Error> { continuation in
            continuation.yield(1)
            continuation.finish(throwing: testError)
        }
        let events = await events(of: sequence.asObservable(detached: true))
        #expect(events == ["next(1)", "error(TestError(0))"])
    }

    @Test func cancellationErrorCompletes() async {
        let sequence = AsyncThrowingStream<Int, any Error> { continuation in
            continuation.finish(throwing: CancellationError())
        }
        let events = await events(of: sequence.asObservable())
        #expect(events == ["completed"])
    }

    @Test func eachSubscriptionIteratesAgain() async {
        let sequence = Countdown(from: 3)
        #expect(await events(of: sequence.asObservable()) == ["next(3)", "next(2)", "next(1)", "completed"])
        #expect(await events(of: sequence.asObservable()) == ["next(3)", "next(2)", "next(1)", "completed"])
    }

    @Test func disposingCancelsTheTask() async {
        let (sequence, continuation) = AsyncStream<Int>.makeStream()
        let terminated = Latch()
        let received = Latch()
        continuation.onTermination = { termination in
            if case .cancelled = termination { terminated.signal() }
        }
        let events = Shared<[String]>([])
        let subscription = sequence.asObservable().subscribe { event in
            events.append("\(event)")
            received.signal()
        }
        continuation.yield(1)
        #expect(await received.wait())
        subscription.dispose()
        #expect(await terminated.wait())
        continuation.yield(2)
        #expect(events.value == ["next(1)"])
    }

    @Test func roundTripsThroughValues() async {
        let source = Observable<Int>.create { observer in
            observer.onNext(1)
            observer.onNext(2)
            observer.onCompleted()
            return Disposables.create()
        }
        #expect(await events(of: source.values.asObservable()) == ["next(1)", "next(2)", "completed"])
    }
}

/// A restartable async sequence: counts down to 1.
private struct Countdown: AsyncSequence, Sendable {
    let from: Int

    struct AsyncIterator: AsyncIteratorProtocol {
        var current: Int

        mutating func next() async -> Int? {
            guard current > 0 else { return nil }
            defer { current -= 1 }
            return current
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(current: from) }
}
