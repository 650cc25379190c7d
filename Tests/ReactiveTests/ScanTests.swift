import Reactive
import ReactiveTestKit
import Testing

/// RxSwift's scan scenarios (Observable+ScanTests), for both `scan(_:accumulator:)` and
/// `scan(into:accumulator:)`.
@Suite(.timeLimit(.minutes(1)))
struct ScanTests {
    let seed = 42

    @Test func never() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(0, 0)])
        let seed = self.seed
        let res = scheduler.start { xs.scan(seed) { $0 + $1 } }
        #expect(res.events == [])
        #expect(xs.subscriptions == [Subscription(200, 1000)])
    }

    @Test func intoNever() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(0, 0)])
        let seed = self.seed
        let res = scheduler.start { xs.scan(into: seed) { $0 += $1 } }
        #expect(res.events == [])
        #expect(xs.subscriptions == [Subscription(200, 1000)])
    }

    @Test func empty() {
        for into in [false, true] {
            let scheduler = TestScheduler(initialClock: 0)
            let xs = scheduler.createHotObservable([.next(150, 1), .completed(250)])
            let res = scheduler.start { Self.sum(xs, seed: seed, into: into) }
            #expect(res.events == [.completed(250)])
            #expect(xs.subscriptions == [Subscription(200, 250)])
        }
    }

    @Test func singleElement() {
        for into in [false, true] {
            let scheduler = TestScheduler(initialClock: 0)
            let xs = scheduler.createHotObservable([.next(150, 1), .next(220, 2), .completed(250)])
            let res = scheduler.start { Self.sum(xs, seed: seed, into: into) }
            #expect(res.events == [.next(220, seed + 2), .completed(250)])
            #expect(xs.subscriptions == [Subscription(200, 250)])
        }
    }

    @Test func error() {
        for into in [false, true] {
            let scheduler = TestScheduler(initialClock: 0)
            let xs = scheduler.createHotObservable([.next(150, 1), .error(250, testError)])
            let res = scheduler.start { Self.sum(xs, seed: seed, into: into) }
            #expect(res.events == [.error(250, testError)])
            #expect(xs.subscriptions == [Subscription(200, 250)])
        }
    }

    @Test func someData() {
        for into in [false, true] {
            let scheduler = TestScheduler(initialClock: 0)
            let xs = Self.someData(scheduler)
            let res = scheduler.start { Self.sum(xs, seed: seed, into: into) }
            #expect(
                res.events == [
                    .next(210, seed + 2), .next(220, seed + 2 + 3), .next(230, seed + 2 + 3 + 4),
                    .next(240, seed + 2 + 3 + 4 + 5), .completed(250),
                ])
            #expect(xs.subscriptions == [Subscription(200, 250)])
        }
    }

    @Test func disposedEarly() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.someData(scheduler)
        let res = scheduler.start(disposed: 225) { xs.scan(0, accumulator: +) }
        #expect(res.events == [.next(210, 2), .next(220, 5)])
        #expect(xs.subscriptions == [Subscription(200, 225)])
    }

    @Test func accumulatorThrows() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.someData(scheduler)
        let seed = self.seed
        let res = scheduler.start {
            xs.scan(seed) { sum, value in
                guard value != 4 else { throw testError }
                return sum + value
            }
        }
        #expect(res.events == [.next(210, seed + 2), .next(220, seed + 2 + 3), .error(230, testError)])
        #expect(xs.subscriptions == [Subscription(200, 230)])
    }

    @Test func intoAccumulatorThrows() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.someData(scheduler)
        let seed = self.seed
        let res = scheduler.start {
            xs.scan(into: seed) { sum, value in
                guard value != 4 else { throw testError }
                sum += value
            }
        }
        #expect(res.events == [.next(210, seed + 2), .next(220, seed + 2 + 3), .error(230, testError)])
        #expect(xs.subscriptions == [Subscription(200, 230)])
    }

    @Test func everySubscriptionStartsFromTheSeed() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, [1]), .next(20, [2]), .completed(30)])
        let scanned = xs.scan(into: [Int]()) { $0 += $1 }
        let first = scheduler.start { scanned }
        let second = scheduler.start(created: 1100, subscribed: 1200, disposed: 2000) { scanned }
        #expect(first.events == [.next(210, [1]), .next(220, [1, 2]), .completed(230)])
        #expect(second.events == [.next(1210, [1]), .next(1220, [1, 2]), .completed(1230)])
        #expect(xs.subscriptions == [Subscription(200, 230), Subscription(1200, 1230)])
    }

    @Test func releasesResourcesOnEveryTermination() {
        Resources.measure { scope in
            let scheduler = TestScheduler(initialClock: 0)
            let completes = scheduler.createColdObservable([.next(10, 1), .completed(20)])
            let fails = scheduler.createColdObservable([.next(10, 1), .error(20, testError)])
            _ = completes.scan(0, accumulator: +).subscribe()
            _ = fails.scan(0, accumulator: +).subscribe()
            _ = completes.scan(0) { _, _ in throw testError }.subscribe()
            scheduler.start()
            #expect(scope.total == 0)
        }
    }

    static func someData(_ scheduler: TestScheduler) -> TestableObservable<Int> {
        scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(220, 3), .next(230, 4), .next(240, 5), .completed(250),
        ])
    }

    /// Sums `xs` from `seed` with either form of `scan`.
    static func sum(_ xs: TestableObservable<Int>, seed: Int, into: Bool) -> Observable<Int> {
        into ? xs.scan(into: seed) { $0 += $1 } : xs.scan(seed) { $0 + $1 }
    }
}
