import Reactive
import ReactiveTestKit
import Testing

/// RxSwift's retry scenarios (Observable+CatchTests).
@Suite(.timeLimit(.minutes(1)))
struct RetryTests {
    @Test func basic() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([
            .next(100, 1), .next(150, 2), .next(200, 3), .completed(250),
        ])
        let res = scheduler.start { xs.retry() }
        #expect(res.events == [.next(300, 1), .next(350, 2), .next(400, 3), .completed(450)])
        #expect(xs.subscriptions == [Subscription(200, 450)])
    }

    @Test func infiniteSource() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(100, 1), .next(150, 2), .next(200, 3)])
        let res = scheduler.start { xs.retry() }
        #expect(res.events == [.next(300, 1), .next(350, 2), .next(400, 3)])
        #expect(xs.subscriptions == [Subscription(200, 1000)])
    }

    @Test func retriesForeverUntilDisposed() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([
            .next(100, 1), .next(150, 2), .next(200, 3), .error(250, testError),
        ])
        let res = scheduler.start(disposed: 1100) { xs.retry() }
        #expect(
            res.events == [
                .next(300, 1), .next(350, 2), .next(400, 3), .next(550, 1), .next(600, 2), .next(650, 3),
                .next(800, 1), .next(850, 2), .next(900, 3), .next(1050, 1),
            ])
        #expect(
            xs.subscriptions == [
                Subscription(200, 450), Subscription(450, 700), Subscription(700, 950),
                Subscription(950, 1100),
            ])
    }

    static func failingAt20(_ scheduler: TestScheduler) -> TestableObservable<Int> {
        scheduler.createColdObservable([.next(5, 1), .next(10, 2), .next(15, 3), .error(20, testError)])
    }

    @Test func countPassesOnTheLastError() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.failingAt20(scheduler)
        let res = scheduler.start { xs.retry(3) }
        #expect(
            res.events == [
                .next(205, 1), .next(210, 2), .next(215, 3), .next(225, 1), .next(230, 2), .next(235, 3),
                .next(245, 1), .next(250, 2), .next(255, 3), .error(260, testError),
            ])
        #expect(xs.subscriptions == [Subscription(200, 220), Subscription(220, 240), Subscription(240, 260)])
    }

    @Test func countDisposed() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.failingAt20(scheduler)
        let res = scheduler.start(disposed: 231) { xs.retry(3) }
        #expect(res.events == [.next(205, 1), .next(210, 2), .next(215, 3), .next(225, 1), .next(230, 2)])
        #expect(xs.subscriptions == [Subscription(200, 220), Subscription(220, 231)])
    }

    @Test func countCompleted() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([
            .next(100, 1), .next(150, 2), .next(200, 3), .completed(250),
        ])
        let res = scheduler.start { xs.retry(3) }
        #expect(res.events == [.next(300, 1), .next(350, 2), .next(400, 3), .completed(450)])
        #expect(xs.subscriptions == [Subscription(200, 450)])
    }

    @Test func countOneIsTheSourceItself() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.failingAt20(scheduler)
        let res = scheduler.start { xs.retry(1) }
        #expect(res.events == [.next(205, 1), .next(210, 2), .next(215, 3), .error(220, testError)])
        #expect(xs.subscriptions == [Subscription(200, 220)])
    }

    @Test func countZeroCompletesAtOnceWithoutSubscribing() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.failingAt20(scheduler)
        let res = scheduler.start { xs.retry(0) }
        #expect(res.events == [.completed(200)])
        #expect(xs.subscriptions == [])
    }

    @Test func tailRecursionResubscribesAfterSubscribeReturns() {
        let attempts = Shared(0)
        let source = Observable<Int>.create { observer in
            observer.onNext(0)
            observer.onNext(1)
            observer.onNext(2)
            if attempts.increment() < 2 { observer.onError(testError) }
            observer.onNext(3)
            observer.onNext(4)
            observer.onNext(5)
            observer.onCompleted()
            return Disposables.create()
        }
        let received = Shared<[Event<Int>]>([])
        _ = source.retry().subscribe { received.append($0) }
        #expect(
            received.value == [
                .next(0), .next(1), .next(2), .next(0), .next(1), .next(2), .next(3),
                .next(4), .next(5), .completed,
            ])
    }

    @Test func synchronouslyFailingSourceRetriedManyTimesDoesNotGrowTheStack() {
        Resources.measure { scope in
            let attempts = Shared(0)
            let source = Observable<Int>.create { observer in
                attempts.increment()
                observer.onError(testError)
                return Disposables.create()
            }
            let received = Shared<[Event<Int>]>([])
            _ = source.retry(100_000).subscribe { received.append($0) }
            #expect(attempts.value == 100_000)
            #expect(received.value == [.error(testError)])
            #expect(scope.total == 0)
        }
    }

    @Test func firstAttemptIsMadeInsideSubscribe() {
        // Not deferred to the trampoline: xs is subscribed before ys, so at the shared tick its
        // cold event comes first, as in RxSwift.
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1)])
        let ys = scheduler.createColdObservable([.next(10, 2)])
        let res = scheduler.start {
            Observable<Int>.create { observer in
                let first = xs.retry().subscribe(observer)
                let second = ys.subscribe(observer)
                return Disposables.create(first, second)
            }
        }
        #expect(res.events == [.next(210, 1), .next(210, 2)])
        #expect(xs.subscriptions == [Subscription(200, 1000)])
        #expect(ys.subscriptions == [Subscription(200, 1000)])
    }

    @Test func releasesResourcesOnEveryTermination() {
        Resources.measure { scope in
            let scheduler = TestScheduler(initialClock: 0)
            let completes = scheduler.createColdObservable([.next(10, 1), .completed(20)])
            let fails: TestableObservable<Int> = scheduler.createColdObservable([.error(10, testError)])
            _ = completes.retry().subscribe()
            _ = fails.retry(3).subscribe()
            _ = fails.retry(0).subscribe()
            let forever = fails.retry().subscribe()
            scheduler.advanceTo(100)
            forever.dispose()
            scheduler.start()
            #expect(scope.total == 0)
        }
    }
}
