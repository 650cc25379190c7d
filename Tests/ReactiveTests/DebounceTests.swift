import Reactive
import ReactiveTestKit
import Testing

@Suite(.timeLimit(.minutes(1)))
struct DebounceTests {
    @Test func elementsFarApartAllPass() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(240, 3), .next(270, 4), .next(300, 5), .completed(400),
        ])
        let res = scheduler.start { xs.debounce(.seconds(20), scheduler: scheduler) }
        #expect(res.events == [.next(230, 2), .next(260, 3), .next(290, 4), .next(320, 5), .completed(400)])
        #expect(xs.subscriptions == [Subscription(200, 400)])
    }

    @Test func burstsKeepTheirLastElement() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(215, 3), .next(230, 4), .next(260, 5), .next(290, 6),
            .completed(300),
        ])
        let res = scheduler.start { xs.debounce(.seconds(20), scheduler: scheduler) }
        #expect(res.events == [.next(250, 4), .next(280, 5), .next(300, 6), .completed(300)])
        #expect(xs.subscriptions == [Subscription(200, 300)])
    }

    /// An element arriving exactly when the previous one's quiet period ends wins: the source's
    /// event was scheduled before the timer.
    @Test func elementAtTheEndOfTheQuietPeriodReplacesTheWaitingOne() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(230, 2), .completed(400)])
        let res = scheduler.start { xs.debounce(.seconds(20), scheduler: scheduler) }
        #expect(res.events == [.next(250, 2), .completed(400)])
        #expect(xs.subscriptions == [Subscription(200, 400)])
    }

    @Test func completionSendsTheWaitingElementFirst() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .next(20, 2), .completed(25)])
        let res = scheduler.start { xs.debounce(.seconds(40), scheduler: scheduler) }
        #expect(res.events == [.next(225, 2), .completed(225)])
        #expect(xs.subscriptions == [Subscription(200, 225)])
    }

    @Test func errorDropsTheWaitingElement() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(250, 3), .next(255, 4), .error(260, testError),
        ])
        let res = scheduler.start { xs.debounce(.seconds(20), scheduler: scheduler) }
        #expect(res.events == [.next(230, 2), .error(260, testError)])
        #expect(xs.subscriptions == [Subscription(200, 260)])
    }

    @Test func empty() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .completed(300)])
        let res = scheduler.start { xs.debounce(.seconds(10), scheduler: scheduler) }
        #expect(res.events == [.completed(300)])
        #expect(xs.subscriptions == [Subscription(200, 300)])
    }

    @Test func never() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1)])
        let res = scheduler.start { xs.debounce(.seconds(10), scheduler: scheduler) }
        #expect(res.events == [])
        #expect(xs.subscriptions == [Subscription(200, 1000)])
    }

    @Test func disposingCancelsTheWaitingElement() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(250, 2), .completed(400)])
        let res = scheduler.start(disposed: 260) { xs.debounce(.seconds(20), scheduler: scheduler) }
        #expect(res.events == [.next(230, 1)])
        #expect(xs.subscriptions == [Subscription(200, 260)])
    }

    @Test func realSchedulerUnderLoadEndsWithTheLastElement() async {
        let elements = await collectOnRealScheduler(count: 2_000) {
            $0.debounce(.microseconds(50), scheduler: $1)
        }
        #expect(elements.last == 1_999)
        #expect(elements == elements.sorted())
        #expect(Set(elements).count == elements.count)
    }

    @Test func noLeaks() {
        Resources.measure { scope in
            let scheduler = TestScheduler(initialClock: 0)
            _ = Observable.just(1).debounce(.seconds(10), scheduler: scheduler).subscribe()
            _ = Observable<Int>.error(testError).debounce(.seconds(10), scheduler: scheduler).subscribe()
            let subject = PublishSubject<Int>()
            let open = subject.debounce(.seconds(10), scheduler: scheduler).subscribe()
            subject.onNext(1)
            scheduler.advanceTo(5)
            open.dispose()
            scheduler.start()
            #expect(scope.total == 0)
        }
    }
}
