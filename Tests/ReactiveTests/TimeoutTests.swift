import Reactive
import ReactiveTestKit
import Testing

@Suite(.timeLimit(.minutes(1)))
struct TimeoutTests {
    @Test func empty() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 0), .completed(300)])
        let res = scheduler.start { xs.timeout(.seconds(200), scheduler: scheduler) }
        #expect(res.events == [.completed(300)])
        #expect(xs.subscriptions == [Subscription(200, 300)])
    }

    @Test func error() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 0), .error(300, testError)])
        let res = scheduler.start { xs.timeout(.seconds(200), scheduler: scheduler) }
        #expect(res.events == [.error(300, testError)])
        #expect(xs.subscriptions == [Subscription(200, 300)])
    }

    @Test func never() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 0)])
        let res = scheduler.start { xs.timeout(.seconds(1000), scheduler: scheduler) }
        #expect(res.events == [])
        #expect(xs.subscriptions == [Subscription(200, 1000)])
    }

    @Test func elementsInTime() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([
            .next(10, 42), .next(25, 43), .next(40, 44), .next(50, 45), .completed(60),
        ])
        let res = scheduler.start { xs.timeout(.seconds(30), scheduler: scheduler) }
        #expect(
            res.events == [.next(210, 42), .next(225, 43), .next(240, 44), .next(250, 45), .completed(260)])
        #expect(xs.subscriptions == [Subscription(200, 260)])
    }

    /// An element due at the very tick the timer expires wins: it was scheduled first.
    @Test func elementExactlyAtTheDeadline() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([
            .next(10, 42), .next(20, 43), .next(50, 44), .next(60, 45), .completed(70),
        ])
        let res = scheduler.start { xs.timeout(.seconds(30), scheduler: scheduler) }
        #expect(
            res.events == [.next(210, 42), .next(220, 43), .next(250, 44), .next(260, 45), .completed(270)])
        #expect(xs.subscriptions == [Subscription(200, 270)])
    }

    @Test func timesOut() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([
            .next(10, 42), .next(20, 43), .next(50, 44), .next(60, 45), .completed(70),
        ])
        let res = scheduler.start { xs.timeout(.seconds(25), scheduler: scheduler) }
        #expect(res.events == [.next(210, 42), .next(220, 43), .error(245, RxError.timeout)])
        #expect(xs.subscriptions == [Subscription(200, 245)])
    }

    @Test func disposed() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(205, 1), .next(210, 2), .next(240, 3), .next(280, 4), .next(320, 5), .next(350, 6),
            .next(370, 7), .next(420, 8), .next(470, 9), .completed(600),
        ])
        let res = scheduler.start(disposed: 370) { xs.timeout(.seconds(40), scheduler: scheduler) }
        #expect(
            res.events == [
                .next(205, 1), .next(210, 2), .next(240, 3), .next(280, 4), .next(320, 5), .next(350, 6),
                .next(370, 7),
            ])
        #expect(xs.subscriptions == [Subscription(200, 370)])
    }

    @Test func switchesToOther() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(70, 1), .next(130, 2), .next(310, 3), .next(400, 4), .completed(500),
        ])
        let ys = scheduler.createColdObservable([
            .next(50, -1), .next(200, -2), .next(310, -3), .completed(320),
        ])
        let res = scheduler.start { xs.timeout(.seconds(100), other: ys, scheduler: scheduler) }
        #expect(res.events == [.next(350, -1), .next(500, -2), .next(610, -3), .completed(620)])
        #expect(xs.subscriptions == [Subscription(200, 300)])
        #expect(ys.subscriptions == [Subscription(300, 620)])
    }

    @Test func switchesToOtherAfterSomeElements() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(70, 1), .next(130, 2), .next(240, 3), .next(310, 4), .next(430, 5), .completed(500),
        ])
        let ys = scheduler.createColdObservable([
            .next(50, -1), .next(200, -2), .next(310, -3), .completed(320),
        ])
        let res = scheduler.start { xs.timeout(.seconds(100), other: ys, scheduler: scheduler) }
        #expect(
            res.events == [
                .next(240, 3), .next(310, 4), .next(460, -1), .next(610, -2), .next(720, -3), .completed(730),
            ])
        #expect(xs.subscriptions == [Subscription(200, 410)])
        #expect(ys.subscriptions == [Subscription(410, 730)])
    }

    @Test func switchesToASilentOther() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(70, 1), .next(130, 2), .next(240, 3), .next(310, 4), .next(430, 5), .completed(500),
        ])
        let ys: TestableObservable<Int> = scheduler.createColdObservable([])
        let res = scheduler.start { xs.timeout(.seconds(100), other: ys, scheduler: scheduler) }
        #expect(res.events == [.next(240, 3), .next(310, 4)])
        #expect(xs.subscriptions == [Subscription(200, 410)])
        #expect(ys.subscriptions == [Subscription(410, 1000)])
    }

    @Test func sourceCompletionAfterTheSwitchIsIgnored() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Int> = scheduler.createHotObservable([.completed(500)])
        let ys = scheduler.createColdObservable([.next(100, -1)])
        let res = scheduler.start { xs.timeout(.seconds(100), other: ys, scheduler: scheduler) }
        #expect(res.events == [.next(400, -1)])
        #expect(xs.subscriptions == [Subscription(200, 300)])
        #expect(ys.subscriptions == [Subscription(300, 1000)])
    }

    @Test func sourceErrorAfterTheSwitchIsIgnored() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Int> = scheduler.createHotObservable([.error(500, testError)])
        let ys = scheduler.createColdObservable([.next(100, -1)])
        let res = scheduler.start { xs.timeout(.seconds(100), other: ys, scheduler: scheduler) }
        #expect(res.events == [.next(400, -1)])
        #expect(xs.subscriptions == [Subscription(200, 300)])
        #expect(ys.subscriptions == [Subscription(300, 1000)])
    }

    @Test func otherFails() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Int> = scheduler.createHotObservable([.next(500, 42)])
        let ys: TestableObservable<Int> = scheduler.createColdObservable([.error(100, testError)])
        let res = scheduler.start { xs.timeout(.seconds(100), other: ys, scheduler: scheduler) }
        #expect(res.events == [.error(400, testError)])
        #expect(xs.subscriptions == [Subscription(200, 300)])
        #expect(ys.subscriptions == [Subscription(300, 400)])
    }

    @Test func completionInTimeNeverSubscribesOther() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Int> = scheduler.createHotObservable([.completed(250)])
        let ys: TestableObservable<Int> = scheduler.createColdObservable([.next(100, -1)])
        let res = scheduler.start { xs.timeout(.seconds(100), other: ys, scheduler: scheduler) }
        #expect(res.events == [.completed(250)])
        #expect(xs.subscriptions == [Subscription(200, 250)])
        #expect(ys.subscriptions == [])
    }

    @Test func errorInTimeNeverSubscribesOther() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Int> = scheduler.createHotObservable([.error(250, testError)])
        let ys: TestableObservable<Int> = scheduler.createColdObservable([.next(100, -1)])
        let res = scheduler.start { xs.timeout(.seconds(100), other: ys, scheduler: scheduler) }
        #expect(res.events == [.error(250, testError)])
        #expect(xs.subscriptions == [Subscription(200, 250)])
        #expect(ys.subscriptions == [])
    }

    @Test func elementsInTimeNeverSubscribeOther() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(70, 1), .next(130, 2), .next(240, 3), .next(320, 4), .next(410, 5), .completed(500),
        ])
        let ys = scheduler.createColdObservable([
            .next(50, -1), .next(200, -2), .next(310, -3), .completed(320),
        ])
        let res = scheduler.start { xs.timeout(.seconds(100), other: ys, scheduler: scheduler) }
        #expect(res.events == [.next(240, 3), .next(320, 4), .next(410, 5), .completed(500)])
        #expect(xs.subscriptions == [Subscription(200, 500)])
        #expect(ys.subscriptions == [])
    }

    @Test func disposingAfterTheSwitchDisposesOther() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(250, 1), .completed(700)])
        let ys = scheduler.createColdObservable([.next(50, -1), .next(300, -2), .completed(400)])
        let res = scheduler.start(disposed: 500) {
            xs.timeout(.seconds(100), other: ys, scheduler: scheduler)
        }
        #expect(res.events == [.next(250, 1), .next(400, -1)])
        #expect(xs.subscriptions == [Subscription(200, 350)])
        #expect(ys.subscriptions == [Subscription(350, 500)])
    }

    @Test func noLeaks() {
        Resources.measure { scope in
            let scheduler = TestScheduler(initialClock: 0)
            _ = Observable.just(1).timeout(.seconds(100), other: Observable.empty(), scheduler: scheduler)
                .subscribe()
            _ = Observable<Int>.error(testError).timeout(.seconds(100), scheduler: scheduler).subscribe()
            _ = Observable<Int>.never().timeout(.seconds(100), scheduler: scheduler).subscribe()
            let switched = Observable<Int>.never()
                .timeout(.seconds(10), other: Observable.never(), scheduler: scheduler).subscribe()
            scheduler.start()
            switched.dispose()
            #expect(scope.total == 0)
        }
    }
}
