import Reactive
import ReactiveTestKit
import Testing

/// RxSwift's compactMap scenarios (Observable+CompactMapTests) and the error cases.
@Suite(.timeLimit(.minutes(1)))
struct CompactMapTests {
    static func source(_ scheduler: TestScheduler) -> TestableObservable<Int> {
        scheduler.createHotObservable([
            .next(110, 1), .next(180, 2), .next(230, 3), .next(270, 4), .next(340, 5), .next(380, 6),
            .next(390, 7), .next(450, 8), .next(470, 9), .next(560, 10), .next(580, 11),
            .completed(600), .next(610, 12), .error(620, testError), .completed(630),
        ])
    }

    @Test func dropsNilFromClosure() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.source(scheduler)
        let invoked = Shared(0)
        let res = scheduler.start {
            xs.compactMap { value -> Int? in
                invoked.increment()
                return isPrime(value) ? value : nil
            }
        }
        #expect(res.events == [.next(230, 3), .next(340, 5), .next(390, 7), .next(580, 11), .completed(600)])
        #expect(xs.subscriptions == [Subscription(200, 600)])
        #expect(invoked.value == 9)
    }

    @Test func dropsNilElements() {
        let scheduler = TestScheduler(initialClock: 0)
        let invoked = Shared(0)
        let xs: TestableObservable<Int?> = scheduler.createHotObservable([
            .next(110, 1), .next(180, 2), .next(230, 3), .next(270, nil), .next(340, 5),
            .completed(400), .next(410, 7), .error(420, testError), .completed(430),
        ])
        let res = scheduler.start {
            xs.compactMap { value -> Int? in
                invoked.increment()
                return value
            }
        }
        #expect(res.events == [.next(230, 3), .next(340, 5), .completed(400)])
        #expect(xs.subscriptions == [Subscription(200, 400)])
        #expect(invoked.value == 3)
    }

    @Test func disposed() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.source(scheduler)
        let invoked = Shared(0)
        let res = scheduler.start(disposed: 400) {
            xs.compactMap { value -> Int? in
                invoked.increment()
                return isPrime(value) ? value : nil
            }
        }
        #expect(res.events == [.next(230, 3), .next(340, 5), .next(390, 7)])
        #expect(xs.subscriptions == [Subscription(200, 400)])
        #expect(invoked.value == 5)
    }

    @Test func error() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, "1"), .next(220, "x"), .error(230, testError)])
        let res = scheduler.start { xs.compactMap { Int($0) } }
        #expect(res.events == [.next(210, 1), .error(230, testError)])
        #expect(xs.subscriptions == [Subscription(200, 230)])
    }

    @Test func transformThrows() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        let res = scheduler.start {
            xs.compactMap { value -> Int? in
                guard value < 2 else { throw testError }
                return value
            }
        }
        #expect(res.events == [.next(210, 1), .error(220, testError)])
        #expect(xs.subscriptions == [Subscription(200, 220)])
    }

    @Test func releasesResourcesOnEveryTermination() {
        Resources.measure { scope in
            let scheduler = TestScheduler(initialClock: 0)
            let completes = scheduler.createColdObservable([.next(10, 1), .completed(20)])
            let fails = scheduler.createColdObservable([.next(10, 1), .error(20, testError)])
            _ = completes.compactMap { $0 }.subscribe()
            _ = fails.compactMap { $0 }.subscribe()
            _ = completes.compactMap { _ -> Int? in throw testError }.subscribe()
            scheduler.start()
            #expect(scope.total == 0)
        }
    }
}
