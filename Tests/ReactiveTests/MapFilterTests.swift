import Reactive
import ReactiveTestKit
import Testing

@Suite(.timeLimit(.minutes(1)))
struct MapTests {
    @Test func mapsElements() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(240, 3), .completed(300), .next(310, 9),
        ])
        let res = scheduler.start { xs.map { $0 * 2 } }
        #expect(res.events == [.next(210, 4), .next(240, 6), .completed(300)])
        #expect(xs.subscriptions == [Subscription(200, 300)])
    }

    @Test func transformErrorDisposesSource() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(300)])
        let res = scheduler.start {
            xs.map { value -> Int in
                if value == 2 { throw testError }
                return value
            }
        }
        #expect(res.events == [.next(210, 1), .error(220, testError)])
        #expect(xs.subscriptions == [Subscription(200, 220)])
    }

    @Test func coldFilterDisposedEarly() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .next(20, 2), .next(30, 3), .completed(40)])
        let res = scheduler.start(disposed: 225) { xs.filter { $0 % 2 == 1 } }
        #expect(res.events == [.next(210, 1)])
        #expect(xs.subscriptions == [Subscription(200, 225)])
    }
}

/// Whether `number` is prime (RxSwift's filter and compactMap scenarios use it).
func isPrime(_ number: Int) -> Bool {
    guard number > 1 else { return false }
    var divisor = 2
    while divisor * divisor <= number {
        if number % divisor == 0 { return false }
        divisor += 1
    }
    return true
}

/// RxSwift's map scenarios (Observable+MapTests).
@Suite(.timeLimit(.minutes(1)))
struct MapScenarioTests {
    /// The hot source most map scenarios share, ending with `end` at 300.
    static func source(
        _ scheduler: TestScheduler, end: Recorded<Event<Int>>
    ) -> TestableObservable<Int> {
        scheduler.createHotObservable([
            .next(150, 1), .next(210, 0), .next(220, 1), .next(230, 2), .next(240, 4), end,
        ])
    }

    @Test func never() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1)])
        let res = scheduler.start { xs.map { $0 * 2 } }
        #expect(res.events == [])
        #expect(xs.subscriptions == [Subscription(200, 1000)])
    }

    @Test func empty() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .completed(300)])
        let res = scheduler.start { xs.map { $0 * 2 } }
        #expect(res.events == [.completed(300)])
        #expect(xs.subscriptions == [Subscription(200, 300)])
    }

    @Test func range() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.source(scheduler, end: .completed(300))
        let res = scheduler.start { xs.map { $0 * 2 } }
        #expect(res.events == [.next(210, 0), .next(220, 2), .next(230, 4), .next(240, 8), .completed(300)])
        #expect(xs.subscriptions == [Subscription(200, 300)])
    }

    @Test func error() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.source(scheduler, end: .error(300, testError))
        let res = scheduler.start { xs.map { $0 * 2 } }
        #expect(
            res.events == [
                .next(210, 0), .next(220, 2), .next(230, 4), .next(240, 8), .error(300, testError),
            ])
        #expect(xs.subscriptions == [Subscription(200, 300)])
    }

    @Test func dispose() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.source(scheduler, end: .error(300, testError))
        let res = scheduler.start(disposed: 290) { xs.map { $0 * 2 } }
        #expect(res.events == [.next(210, 0), .next(220, 2), .next(230, 4), .next(240, 8)])
        #expect(xs.subscriptions == [Subscription(200, 290)])
    }

    @Test func selectorThrows() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.source(scheduler, end: .error(300, testError))
        let res = scheduler.start {
            xs.map { value -> Int in
                guard value < 2 else { throw testError }
                return value * 2
            }
        }
        #expect(res.events == [.next(210, 0), .next(220, 2), .error(230, testError)])
        #expect(xs.subscriptions == [Subscription(200, 230)])
    }

    @Test func composeRange() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.source(scheduler, end: .completed(300))
        let res = scheduler.start { xs.map { $0 * 10 }.map { $0 + 1 } }
        #expect(
            res.events == [.next(210, 1), .next(220, 11), .next(230, 21), .next(240, 41), .completed(300)])
        #expect(xs.subscriptions == [Subscription(200, 300)])
    }

    @Test func composeError() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.source(scheduler, end: .error(300, testError))
        let res = scheduler.start { xs.map { $0 * 10 }.map { $0 + 1 } }
        #expect(
            res.events == [
                .next(210, 1), .next(220, 11), .next(230, 21), .next(240, 41), .error(300, testError),
            ])
        #expect(xs.subscriptions == [Subscription(200, 300)])
    }

    @Test func composeDispose() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.source(scheduler, end: .error(300, testError))
        let res = scheduler.start(disposed: 290) { xs.map { $0 * 10 }.map { $0 + 1 } }
        #expect(res.events == [.next(210, 1), .next(220, 11), .next(230, 21), .next(240, 41)])
        #expect(xs.subscriptions == [Subscription(200, 290)])
    }

    @Test func composeFirstSelectorThrows() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.source(scheduler, end: .error(300, testError))
        let res = scheduler.start {
            xs.map { value -> Int in
                guard value < 2 else { throw testError }
                return value * 10
            }
            .map { $0 + 1 }
        }
        #expect(res.events == [.next(210, 1), .next(220, 11), .error(230, testError)])
        #expect(xs.subscriptions == [Subscription(200, 230)])
    }

    @Test func composeSecondSelectorThrows() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.source(scheduler, end: .error(300, testError))
        let res = scheduler.start {
            xs.map { $0 * 10 }.map { value -> Int in
                guard value < 20 else { throw testError }
                return value + 1
            }
        }
        #expect(res.events == [.next(210, 1), .next(220, 11), .error(230, testError)])
        #expect(xs.subscriptions == [Subscription(200, 230)])
    }

    @Test func releasesResourcesOnEveryTermination() {
        Resources.measure { scope in
            let scheduler = TestScheduler(initialClock: 0)
            let completes = scheduler.createColdObservable([.next(10, 1), .completed(20)])
            let fails = scheduler.createColdObservable([.next(10, 1), .error(20, testError)])
            _ = completes.map { $0 }.subscribe()
            _ = fails.map { $0 }.subscribe()
            _ = completes.map { _ -> Int in throw testError }.subscribe()
            scheduler.start()
            #expect(scope.total == 0)
        }
    }
}

/// RxSwift's filter scenarios (Observable+FilterTests).
@Suite(.timeLimit(.minutes(1)))
struct FilterTests {
    static func source(_ scheduler: TestScheduler) -> TestableObservable<Int> {
        scheduler.createHotObservable([
            .next(110, 1), .next(180, 2), .next(230, 3), .next(270, 4), .next(340, 5), .next(380, 6),
            .next(390, 7), .next(450, 8), .next(470, 9), .next(560, 10), .next(580, 11),
            .completed(600), .next(610, 12), .error(620, testError), .completed(630),
        ])
    }

    @Test func complete() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.source(scheduler)
        let invoked = Shared(0)
        let res = scheduler.start {
            xs.filter { value in
                invoked.increment()
                return isPrime(value)
            }
        }
        #expect(res.events == [.next(230, 3), .next(340, 5), .next(390, 7), .next(580, 11), .completed(600)])
        #expect(xs.subscriptions == [Subscription(200, 600)])
        #expect(invoked.value == 9)
    }

    @Test func alwaysTrue() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.source(scheduler)
        let invoked = Shared(0)
        let res = scheduler.start {
            xs.filter { _ in
                invoked.increment()
                return true
            }
        }
        #expect(
            res.events == [
                .next(230, 3), .next(270, 4), .next(340, 5), .next(380, 6), .next(390, 7), .next(450, 8),
                .next(470, 9), .next(560, 10), .next(580, 11), .completed(600),
            ])
        #expect(xs.subscriptions == [Subscription(200, 600)])
        #expect(invoked.value == 9)
    }

    @Test func alwaysFalse() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.source(scheduler)
        let invoked = Shared(0)
        let res = scheduler.start {
            xs.filter { _ in
                invoked.increment()
                return false
            }
        }
        #expect(res.events == [.completed(600)])
        #expect(xs.subscriptions == [Subscription(200, 600)])
        #expect(invoked.value == 9)
    }

    @Test func disposed() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.source(scheduler)
        let invoked = Shared(0)
        let res = scheduler.start(disposed: 400) {
            xs.filter { value in
                invoked.increment()
                return isPrime(value)
            }
        }
        #expect(res.events == [.next(230, 3), .next(340, 5), .next(390, 7)])
        #expect(xs.subscriptions == [Subscription(200, 400)])
        #expect(invoked.value == 5)
    }

    @Test func error() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 2), .next(220, 3), .error(230, testError)])
        let res = scheduler.start { xs.filter(isPrime) }
        #expect(res.events == [.next(210, 2), .next(220, 3), .error(230, testError)])
        #expect(xs.subscriptions == [Subscription(200, 230)])
    }

    @Test func predicateThrows() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 2), .next(220, 3), .completed(230)])
        let res = scheduler.start {
            xs.filter { value in
                guard value < 3 else { throw testError }
                return true
            }
        }
        #expect(res.events == [.next(210, 2), .error(220, testError)])
        #expect(xs.subscriptions == [Subscription(200, 220)])
    }

    @Test func releasesResourcesOnEveryTermination() {
        Resources.measure { scope in
            let scheduler = TestScheduler(initialClock: 0)
            let completes = scheduler.createColdObservable([.next(10, 1), .completed(20)])
            let fails = scheduler.createColdObservable([.next(10, 1), .error(20, testError)])
            _ = completes.filter { _ in true }.subscribe()
            _ = fails.filter { _ in true }.subscribe()
            _ = completes.filter { _ -> Bool in throw testError }.subscribe()
            scheduler.start()
            #expect(scope.total == 0)
        }
    }
}
