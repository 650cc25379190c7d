import Dispatch
import Reactive
import ReactiveTestKit
import Testing

@Suite(.timeLimit(.minutes(1)))
struct SubscribeOnTests {
    @Test func subscribesAndDisposesOnTheScheduler() {
        let scheduler = TestScheduler(initialClock: 0)
        let subscribed = Shared<TestTime?>(nil)
        let disposed = Shared<TestTime?>(nil)
        let xs = Observable<Int>.create { _ in
            subscribed.value = scheduler.clock
            return Disposables.create { disposed.value = scheduler.clock }
        }
        let res = scheduler.start { xs.subscribe(on: scheduler) }
        #expect(res.events.isEmpty)
        #expect(subscribed.value == 201)
        #expect(disposed.value == 1001)
    }

    @Test func completed() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([Recorded<Event<Int>>.completed(300)])
        let res = scheduler.start { xs.subscribe(on: scheduler) }
        #expect(res.events == [.completed(300)])
        #expect(xs.subscriptions == [Subscription(201, 301)])
    }

    @Test func error() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([Recorded<Event<Int>>.error(300, testError)])
        let res = scheduler.start { xs.subscribe(on: scheduler) }
        #expect(res.events == [.error(300, testError)])
        #expect(xs.subscriptions == [Subscription(201, 301)])
    }

    @Test func dispose() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .next(210, 2)])
        let res = scheduler.start { xs.subscribe(on: scheduler) }
        #expect(res.events == [.next(210, 2)])
        #expect(xs.subscriptions == [Subscription(201, 1001)])
    }

    @Test func disposeBeforeTheSubscriptionRanCancelsIt() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 2)])
        let res = scheduler.start(disposed: 200) { xs.subscribe(on: scheduler) }
        #expect(res.events.isEmpty)
        #expect(xs.subscriptions == [])
    }

    /// The source stays subscribed until the scheduled disposal runs (251); what it sends meanwhile
    /// is dropped.
    @Test func eventsAfterDisposeAreDropped() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(250, 2), .next(251, 3)])
        let res = scheduler.start(disposed: 250) { xs.subscribe(on: scheduler) }
        #expect(res.events == [.next(210, 1), .next(250, 2)])
        #expect(xs.subscriptions == [Subscription(201, 251)])
    }

    @Test func noLeaks() {
        Resources.measure { scope in
            let scheduler = TestScheduler(initialClock: 0)
            let just = Observable<Int>.create { observer in
                observer.onNext(1)
                observer.onCompleted()
                return Disposables.create()
            }
            let received = Shared<[Event<Int>]>([])
            _ = just.subscribe(on: scheduler).subscribe { received.append($0) }
            let xs = scheduler.createHotObservable([.next(210, 1)])
            let early = Shared<(any Disposable)?>(nil)
            scheduler.scheduleAt(200) { early.value = xs.subscribe(on: scheduler).subscribe { _ in } }
            scheduler.scheduleAt(300) { early.value?.dispose() }
            scheduler.start()
            early.value = nil
            #expect(received.value == [.next(1), .completed])
            #expect(scope.total == 0)
        }
    }

    @Test func subscribesAndDisposesOnARealScheduler() {
        let scheduler = RecordingQueueScheduler()
        let subscribedOnScheduler = Shared<Bool?>(nil)
        let disposedOnScheduler = Shared<Bool?>(nil)
        let subscribed = DispatchSemaphore(value: 0)
        let disposed = DispatchSemaphore(value: 0)
        let xs = Observable<Int>.create { _ in
            subscribedOnScheduler.value = scheduler.isCurrent
            subscribed.signal()
            return Disposables.create {
                disposedOnScheduler.value = scheduler.isCurrent
                disposed.signal()
            }
        }
        let subscription = xs.subscribe(on: scheduler).subscribe { _ in }
        #expect(subscribed.wait(timeout: .now() + 30) == .success)
        subscription.dispose()
        #expect(disposed.wait(timeout: .now() + 30) == .success)
        #expect(subscribedOnScheduler.value == true)
        #expect(disposedOnScheduler.value == true)
    }
}
