import Dispatch
import Reactive
import ReactiveTestKit
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A scheduler on a serial dispatch queue that can tell whether the calling code runs inside one
/// of its actions.
final class RecordingQueueScheduler: ImmediateSchedulerType {
    private let queue = DispatchQueue(label: "reactive.tests.queue-scheduler")
    /// The thread running an action now, if any.
    private let runner = Shared<UInt?>(nil)

    /// Whether the caller runs inside an action of this scheduler.
    var isCurrent: Bool { runner.value == Self.currentThread }

    private static var currentThread: UInt { UInt(bitPattern: Int(bitPattern: pthread_self())) }

    func schedule<State: Sendable>(
        _ state: State, action: @escaping @Sendable (State) -> any Disposable
    ) -> any Disposable {
        let result = SingleAssignmentDisposable()
        queue.async { [runner] in
            guard !result.isDisposed else { return }
            runner.value = Self.currentThread
            defer { runner.value = nil }
            result.setDisposable(action(state))
        }
        return result
    }
}

@Suite(.timeLimit(.minutes(1)))
struct ObserveOnTests {
    @Test func deliversEachEventOneTickLater() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(220, 3), .next(240, 4), .completed(300),
        ])
        let res = scheduler.start { xs.observe(on: scheduler) }
        #expect(res.events == [.next(211, 2), .next(221, 3), .next(241, 4), .completed(301)])
        #expect(xs.subscriptions == [Subscription(200, 300)])
    }

    /// Events queued by the time the pump runs go out in that one step, in order.
    @Test func queuedEventsAreDeliveredInOneStep() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .next(10, 2), .next(10, 3), .completed(10)])
        let res = scheduler.start { xs.observe(on: scheduler) }
        #expect(res.events == [.next(211, 1), .next(211, 2), .next(211, 3), .completed(211)])
        #expect(xs.subscriptions == [Subscription(200, 210)])
    }

    /// A burst sent while the scheduler is busy costs one scheduled step, not one per event; every
    /// event still arrives, in order, on the scheduler's thread.
    @Test func aBurstCostsOneStep() {
        final class Counting: ImmediateSchedulerType, Sendable {
            let inner: SerialScheduler
            let steps = Atomic<Int>(0)
            init(_ inner: SerialScheduler) { self.inner = inner }
            func schedule<State: Sendable>(
                _ state: State, action: @escaping @Sendable (State) -> any Disposable
            ) -> any Disposable {
                steps.add(1, ordering: .relaxed)
                return inner.schedule(state, action: action)
            }
        }
        let serial = SerialScheduler(name: "observe-on-burst")
        defer { serial.dispose() }
        let scheduler = Counting(serial)
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        // Hold the scheduler's thread while the burst is queued.
        _ = serial.schedule(()) { _ in
            gate.wait()
            return Disposables.create()
        }
        let received = Mutex<[Int]>([])
        let subject = PublishSubject<Int>()
        let subscription = subject.observe(on: scheduler).subscribe(onNext: { value in
            received.withLock { $0.append(value) }
            if value == 999 { done.signal() }
        })
        for value in 0..<1_000 { subject.onNext(value) }
        gate.signal()
        #expect(done.wait(timeout: .now() + 10) == .success)
        subscription.dispose()
        #expect(received.withLock { $0 } == Array(0..<1_000))
        #expect(scheduler.steps.load(ordering: .relaxed) == 1)
    }

    @Test func error() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(250, testError), .next(260, 2)])
        let res = scheduler.start { xs.observe(on: scheduler) }
        #expect(res.events == [.next(211, 1), .error(251, testError)])
        #expect(xs.subscriptions == [Subscription(200, 250)])
    }

    @Test func disposeDropsPendingEvents() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        let res = scheduler.start(disposed: 220) { xs.observe(on: scheduler) }
        #expect(res.events == [.next(211, 1)])
        #expect(xs.subscriptions == [Subscription(200, 220)])
    }

    @Test func synchronousSourceIsDeliveredLater() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start {
            Observable<Int>.create { observer in
                observer.onNext(1)
                observer.onNext(2)
                observer.onCompleted()
                return Disposables.create()
            }
            .observe(on: scheduler)
        }
        #expect(res.events == [.next(201, 1), .next(201, 2), .completed(201)])
    }

    @Test func noLeaks() {
        Resources.measure { scope in
            let scheduler = TestScheduler(initialClock: 0)
            let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
            let completed = scheduler.createObserver(Int.self)
            let disposedEarly = scheduler.createObserver(Int.self)
            let early = Shared<(any Disposable)?>(nil)
            scheduler.scheduleAt(200) {
                _ = xs.observe(on: scheduler).subscribe(completed)
                early.value = xs.observe(on: scheduler).subscribe(disposedEarly)
            }
            scheduler.scheduleAt(220) { early.value?.dispose() }
            scheduler.start()
            early.value = nil
            #expect(completed.events == [.next(211, 1), .next(221, 2), .completed(231)])
            #expect(scope.total == 0)
        }
    }

    @Test func synchronousSchedulersDeliverInOrder() {
        let schedulers: [any ImmediateSchedulerType] = [
            ImmediateScheduler.instance, CurrentThreadScheduler.instance,
        ]
        for scheduler in schedulers {
            let subject = PublishSubject<Int>()
            let received = Shared<[Event<Int>]>([])
            let subscription = subject.observe(on: scheduler).subscribe { event in
                received.append(event)
                // Reentrant emission is queued behind the event being delivered.
                if event == .next(1) { subject.onNext(2) }
            }
            subject.onNext(1)
            subject.onCompleted()
            #expect(received.value == [.next(1), .next(2), .completed])
            subscription.dispose()
        }
    }

    @Test func deliversOnTheSchedulerInOrder() {
        let scheduler = RecordingQueueScheduler()
        let subject = PublishSubject<Int>()
        let received = Shared<[Int]>([])
        let offScheduler = Shared(0)
        let done = DispatchSemaphore(value: 0)
        let subscription = subject.observe(on: scheduler).subscribe(
            onNext: { value in
                if !scheduler.isCurrent { offScheduler.increment() }
                received.append(value)
            },
            onCompleted: { done.signal() })
        for value in 1...100 { subject.onNext(value) }
        subject.onCompleted()
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(received.value == Array(1...100))
        #expect(offScheduler.value == 0)
        subscription.dispose()
    }
}
