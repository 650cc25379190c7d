import Reactive
import ReactiveTestKit
import Testing

@Suite(.timeLimit(.minutes(1)))
struct ThrottleTests {
    // MARK: latest: false

    @Test func notLatestCompleted() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(250, 3), .next(310, 4), .next(350, 5), .next(410, 6),
            .next(450, 7), .completed(500),
        ])
        let res = scheduler.start { xs.throttle(.seconds(200), latest: false, scheduler: scheduler) }
        #expect(res.events == [.next(210, 2), .next(410, 6), .completed(500)])
        #expect(xs.subscriptions == [Subscription(200, 500)])
    }

    @Test func notLatestNever() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 0)])
        let res = scheduler.start { xs.throttle(.seconds(200), latest: false, scheduler: scheduler) }
        #expect(res.events == [])
        #expect(xs.subscriptions == [Subscription(200, 1000)])
    }

    @Test func notLatestEmpty() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 0), .completed(500)])
        let res = scheduler.start { xs.throttle(.seconds(200), latest: false, scheduler: scheduler) }
        #expect(res.events == [.completed(500)])
        #expect(xs.subscriptions == [Subscription(200, 500)])
    }

    @Test func notLatestError() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(250, 3), .next(310, 4), .next(350, 5),
            .error(410, testError), .next(450, 7), .completed(500),
        ])
        let res = scheduler.start { xs.throttle(.seconds(200), latest: false, scheduler: scheduler) }
        #expect(res.events == [.next(210, 2), .error(410, testError)])
        #expect(xs.subscriptions == [Subscription(200, 410)])
    }

    @Test func notLatestNoEnd() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(250, 3), .next(310, 4), .next(350, 5), .next(410, 6),
            .next(450, 7),
        ])
        let res = scheduler.start { xs.throttle(.seconds(200), latest: false, scheduler: scheduler) }
        #expect(res.events == [.next(210, 2), .next(410, 6)])
        #expect(xs.subscriptions == [Subscription(200, 1000)])
    }

    // MARK: latest: true

    /// The source completes at 500 while 7 is kept: completion waits for 7 at 610, but the source
    /// subscription ends at 500.
    @Test func latestCompleted() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(250, 3), .next(310, 4), .next(350, 5), .next(410, 6),
            .next(450, 7), .completed(500),
        ])
        let res = scheduler.start { xs.throttle(.seconds(200), scheduler: scheduler) }
        #expect(res.events == [.next(210, 2), .next(410, 6), .next(610, 7), .completed(610)])
        #expect(xs.subscriptions == [Subscription(200, 500)])
    }

    @Test func latestCompletedAfterDueTime() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(250, 3), .next(310, 4), .next(350, 5), .next(410, 6),
            .next(450, 7), .completed(900),
        ])
        let res = scheduler.start { xs.throttle(.seconds(200), scheduler: scheduler) }
        #expect(res.events == [.next(210, 2), .next(410, 6), .next(610, 7), .completed(900)])
        #expect(xs.subscriptions == [Subscription(200, 900)])
    }

    @Test func latestNever() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 0)])
        let res = scheduler.start { xs.throttle(.seconds(200), scheduler: scheduler) }
        #expect(res.events == [])
        #expect(xs.subscriptions == [Subscription(200, 1000)])
    }

    @Test func latestEmpty() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 0), .completed(500)])
        let res = scheduler.start { xs.throttle(.seconds(200), scheduler: scheduler) }
        #expect(res.events == [.completed(500)])
        #expect(xs.subscriptions == [Subscription(200, 500)])
    }

    @Test func latestErrorDropsTheKeptElement() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(250, 3), .next(310, 4), .next(350, 5),
            .error(410, testError), .next(450, 7), .completed(500),
        ])
        let res = scheduler.start { xs.throttle(.seconds(200), scheduler: scheduler) }
        #expect(res.events == [.next(210, 2), .error(410, testError)])
        #expect(xs.subscriptions == [Subscription(200, 410)])
    }

    @Test func latestNoEnd() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(250, 3), .next(310, 4), .next(350, 5), .next(410, 6),
            .next(450, 7),
        ])
        let res = scheduler.start { xs.throttle(.seconds(200), scheduler: scheduler) }
        #expect(res.events == [.next(210, 2), .next(410, 6), .next(610, 7)])
        #expect(xs.subscriptions == [Subscription(200, 1000)])
    }

    @Test func disposingWhileCompletionIsHeldCancelsTheKeptElement() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(210, 2), .next(250, 3), .next(450, 7), .completed(500),
        ])
        let res = scheduler.start(disposed: 550) { xs.throttle(.seconds(200), scheduler: scheduler) }
        #expect(res.events == [.next(210, 2), .next(410, 3)])
        #expect(xs.subscriptions == [Subscription(200, 500)])
    }

    @Test func elementsAtTheSameInstantKeepTheLatest() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable.of(1, 2, 3).throttle(.seconds(10), scheduler: scheduler) }
        #expect(res.events == [.next(200, 1), .next(210, 3), .completed(210)])
    }

    @Test func elementsAtTheSameInstantNotLatest() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start {
            Observable.of(1, 2, 3).throttle(.seconds(10), latest: false, scheduler: scheduler)
        }
        #expect(res.events == [.next(200, 1), .completed(200)])
    }

    @Test func remainingWaitIsRoundedInTheIntervalsUnit() {
        let scheduler = TestScheduler(initialClock: 0, resolution: 0.1)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(214, 2), .completed(300)])
        // 0.4 s after the first element, 0.6 s are left, which RxSwift rounds to 1 s.
        let res = scheduler.start { xs.throttle(.seconds(1), scheduler: scheduler) }
        #expect(res.events == [.next(210, 1), .next(224, 2), .completed(300)])
    }

    @Test func realSchedulerUnderLoadSendsTheFirstAndTheLastElement() async {
        let elements = await collectOnRealScheduler(count: 2_000) {
            $0.throttle(.microseconds(50), scheduler: $1)
        }
        #expect(elements.first == 0)
        #expect(elements.last == 1_999)
        #expect(elements == elements.sorted())
        #expect(Set(elements).count == elements.count)
    }

    @Test func noLeaks() {
        Resources.measure { scope in
            let scheduler = TestScheduler(initialClock: 0)
            _ = Observable.just(1).throttle(.seconds(0), latest: false, scheduler: scheduler).subscribe()
            _ = Observable<Int>.error(testError).throttle(.seconds(0), scheduler: scheduler).subscribe()
            _ = Observable.of(1, 2).throttle(.seconds(10), scheduler: scheduler).subscribe()
            let subject = PublishSubject<Int>()
            let open = subject.throttle(.seconds(10), scheduler: scheduler).subscribe()
            subject.onNext(1)
            scheduler.advanceTo(1)
            subject.onNext(2)
            open.dispose()
            scheduler.start()
            #expect(scope.total == 0)
        }
    }
}
