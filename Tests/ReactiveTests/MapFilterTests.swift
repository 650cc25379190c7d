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
