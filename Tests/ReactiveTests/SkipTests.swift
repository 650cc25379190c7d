import Reactive
import ReactiveTestKit
import Testing

/// RxSwift's skip(count) scenarios (Observable+SkipTests).
@Suite(.timeLimit(.minutes(1)))
struct SkipCountTests {
    static let elements = TakeCountTests.elements

    static func source(_ scheduler: TestScheduler, end: Recorded<Event<Int>>?) -> TestableObservable<Int> {
        TakeCountTests.source(scheduler, end: end)
    }

    /// The elements from 210 on, after dropping the first `count` of them.
    static func expected(droppingFirst count: Int) -> [Recorded<Event<Int>>] {
        Array(elements.filter { $0.time > 200 }.dropFirst(count))
    }

    @Test func completesAfterSkippingEverything() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.source(scheduler, end: .completed(690))
        let res = scheduler.start { xs.skip(20) }
        #expect(res.events == [.completed(690)])
        #expect(xs.subscriptions == [Subscription(200, 690)])
    }

    @Test func completesAfterSkippingExactlyEverything() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.source(scheduler, end: .completed(690))
        let res = scheduler.start { xs.skip(17) }
        #expect(res.events == [.completed(690)])
        #expect(xs.subscriptions == [Subscription(200, 690)])
    }

    @Test func completesAfterSkippingSome() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.source(scheduler, end: .completed(690))
        let res = scheduler.start { xs.skip(10) }
        #expect(res.events == Self.expected(droppingFirst: 10) + [.completed(690)])
        #expect(xs.subscriptions == [Subscription(200, 690)])
    }

    @Test func zeroSkipsNothing() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.source(scheduler, end: .completed(690))
        let res = scheduler.start { xs.skip(0) }
        #expect(res.events == Self.expected(droppingFirst: 0) + [.completed(690)])
        #expect(xs.subscriptions == [Subscription(200, 690)])
    }

    @Test func errorWhileSkipping() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.source(scheduler, end: .error(690, testError))
        let res = scheduler.start { xs.skip(20) }
        #expect(res.events == [.error(690, testError)])
        #expect(xs.subscriptions == [Subscription(200, 690)])
    }

    @Test func errorAfterSkippingExactlyEverything() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.source(scheduler, end: .error(690, testError))
        let res = scheduler.start { xs.skip(17) }
        #expect(res.events == [.error(690, testError)])
        #expect(xs.subscriptions == [Subscription(200, 690)])
    }

    @Test func errorAfterSkippingSome() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.source(scheduler, end: .error(690, testError))
        let res = scheduler.start { xs.skip(3) }
        #expect(res.events == Self.expected(droppingFirst: 3) + [.error(690, testError)])
        #expect(xs.subscriptions == [Subscription(200, 690)])
    }

    @Test func disposedWhileSkipping() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.source(scheduler, end: nil)
        let res = scheduler.start(disposed: 250) { xs.skip(3) }
        #expect(res.events == [])
        #expect(xs.subscriptions == [Subscription(200, 250)])
    }

    @Test func disposedAfterSkipping() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.source(scheduler, end: nil)
        let res = scheduler.start(disposed: 400) { xs.skip(3) }
        #expect(res.events == [.next(280, 1), .next(300, -1), .next(310, 3), .next(340, 8), .next(370, 11)])
        #expect(xs.subscriptions == [Subscription(200, 400)])
    }

    @Test func negativeCountSkipsNothing() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .completed(220)])
        let res = scheduler.start { xs.skip(-1) }
        #expect(res.events == [.next(210, 1), .completed(220)])
        #expect(xs.subscriptions == [Subscription(200, 220)])
    }

    @Test func releasesResourcesOnEveryTermination() {
        Resources.measure { scope in
            let scheduler = TestScheduler(initialClock: 0)
            let completes = scheduler.createColdObservable([.next(10, 1), .completed(20)])
            let fails: TestableObservable<Int> = scheduler.createColdObservable([.error(10, testError)])
            _ = completes.skip(1).subscribe()
            _ = fails.skip(1).subscribe()
            scheduler.start()
            #expect(scope.total == 0)
        }
    }
}

/// RxSwift's skip(for:scheduler:) scenarios (Observable+SkipTests).
@Suite(.timeLimit(.minutes(1)))
struct SkipForTests {
    static func threeEvents(_ scheduler: TestScheduler) -> TestableObservable<Int> {
        scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
    }

    @Test func zeroDurationSkipsNothingAfterTheSubscriptionTick() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.threeEvents(scheduler)
        let res = scheduler.start { xs.skip(for: .seconds(0), scheduler: scheduler) }
        #expect(res.events == [.next(210, 1), .next(220, 2), .completed(230)])
        #expect(xs.subscriptions == [Subscription(200, 230)])
    }

    @Test func some() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.threeEvents(scheduler)
        let res = scheduler.start { xs.skip(for: .seconds(15), scheduler: scheduler) }
        #expect(res.events == [.next(220, 2), .completed(230)])
        #expect(xs.subscriptions == [Subscription(200, 230)])
    }

    @Test func rxSwiftSpelling() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.threeEvents(scheduler)
        let res = scheduler.start { xs.skip(.seconds(15), scheduler: scheduler) }
        #expect(res.events == [.next(220, 2), .completed(230)])
        #expect(xs.subscriptions == [Subscription(200, 230)])
    }

    @Test func late() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.threeEvents(scheduler)
        let res = scheduler.start { xs.skip(for: .seconds(50), scheduler: scheduler) }
        #expect(res.events == [.completed(230)])
        #expect(xs.subscriptions == [Subscription(200, 230)])
    }

    @Test func elementAtTheTimerTickIsSkipped() {
        // The source's event was scheduled before the timer, so it runs first at tick 220.
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.threeEvents(scheduler)
        let res = scheduler.start { xs.skip(for: .seconds(20), scheduler: scheduler) }
        #expect(res.events == [.completed(230)])
        #expect(xs.subscriptions == [Subscription(200, 230)])
    }

    @Test func error() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Int> = scheduler.createHotObservable([.error(210, testError)])
        let res = scheduler.start { xs.skip(for: .seconds(50), scheduler: scheduler) }
        #expect(res.events == [.error(210, testError)])
        #expect(xs.subscriptions == [Subscription(200, 210)])
    }

    @Test func never() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Int> = scheduler.createHotObservable([])
        let res = scheduler.start { xs.skip(for: .seconds(50), scheduler: scheduler) }
        #expect(res.events == [])
        #expect(xs.subscriptions == [Subscription(200, 1000)])
    }

    @Test func disposedEarly() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(240, 3)])
        let res = scheduler.start(disposed: 230) { xs.skip(for: .seconds(15), scheduler: scheduler) }
        #expect(res.events == [.next(220, 2)])
        #expect(xs.subscriptions == [Subscription(200, 230)])
    }

    @Test func releasesResourcesOnEveryTermination() {
        Resources.measure { scope in
            let scheduler = TestScheduler(initialClock: 0)
            let completes = scheduler.createColdObservable([.next(10, 1), .completed(20)])
            let fails: TestableObservable<Int> = scheduler.createColdObservable([.error(10, testError)])
            let never = scheduler.createColdObservable([.next(10, 1)])
            _ = completes.skip(for: .seconds(35), scheduler: scheduler).subscribe()
            _ = fails.skip(for: .seconds(35), scheduler: scheduler).subscribe()
            let open = never.skip(for: .seconds(5), scheduler: scheduler).subscribe()
            scheduler.start()
            #expect(scope.total > 0)
            open.dispose()
            #expect(scope.total == 0)
        }
    }
}
