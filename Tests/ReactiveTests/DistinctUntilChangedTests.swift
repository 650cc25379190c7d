import Reactive
import ReactiveTestKit
import Testing

/// RxSwift's distinctUntilChanged scenarios (Observable+DistinctUntilChangedTests) and the
/// remaining overloads.
@Suite(.timeLimit(.minutes(1)))
struct DistinctUntilChangedTests {
    static func increasing(_ scheduler: TestScheduler) -> TestableObservable<Int> {
        scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(220, 3), .next(230, 4), .next(240, 5), .completed(250),
        ])
    }

    @Test func allChanges() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.increasing(scheduler)
        let res = scheduler.start { xs.distinctUntilChanged { $0 } }
        #expect(res.events == [.next(210, 2), .next(220, 3), .next(230, 4), .next(240, 5), .completed(250)])
        #expect(xs.subscriptions == [Subscription(200, 250)])
    }

    @Test func someChanges() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(215, 3), .next(220, 3), .next(225, 2), .next(230, 2),
            .next(230, 1), .next(240, 2), .completed(250),
        ])
        let res = scheduler.start { xs.distinctUntilChanged() }
        #expect(
            res.events == [
                .next(210, 2), .next(215, 3), .next(225, 2), .next(230, 1), .next(240, 2), .completed(250),
            ])
        #expect(xs.subscriptions == [Subscription(200, 250)])
    }

    @Test func comparerAllEqual() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.increasing(scheduler)
        let res = scheduler.start { xs.distinctUntilChanged { _, _ in true } }
        #expect(res.events == [.next(210, 2), .completed(250)])
        #expect(xs.subscriptions == [Subscription(200, 250)])
    }

    @Test func comparerAllDifferent() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(220, 2), .next(230, 2), .next(240, 2), .completed(250),
        ])
        let res = scheduler.start { xs.distinctUntilChanged { _, _ in false } }
        #expect(res.events == [.next(210, 2), .next(220, 2), .next(230, 2), .next(240, 2), .completed(250)])
        #expect(xs.subscriptions == [Subscription(200, 250)])
    }

    @Test func keySelectorDiv2() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(220, 4), .next(230, 3), .next(240, 5), .completed(250),
        ])
        let res = scheduler.start { xs.distinctUntilChanged { $0 % 2 } }
        #expect(res.events == [.next(210, 2), .next(230, 3), .completed(250)])
        #expect(xs.subscriptions == [Subscription(200, 250)])
    }

    @Test func keySelectorThrows() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .next(210, 2), .next(220, 3), .completed(250)])
        let res = scheduler.start {
            xs.distinctUntilChanged { (_: Int) -> Int in throw testError }
        }
        #expect(res.events == [.error(210, testError)])
        #expect(xs.subscriptions == [Subscription(200, 210)])
    }

    @Test func comparerThrows() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .next(210, 2), .next(220, 3), .completed(250)])
        let res = scheduler.start { xs.distinctUntilChanged { _, _ -> Bool in throw testError } }
        // The comparer is not called for the first element.
        #expect(res.events == [.next(210, 2), .error(220, testError)])
        #expect(xs.subscriptions == [Subscription(200, 220)])
    }

    @Test func keySelectorAndComparerThrows() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .next(210, 2), .next(220, 3), .completed(250)])
        let res = scheduler.start {
            xs.distinctUntilChanged({ $0 }, comparer: { _, _ -> Bool in throw testError })
        }
        #expect(res.events == [.next(210, 2), .error(220, testError)])
        #expect(xs.subscriptions == [Subscription(200, 220)])
    }

    @Test func keySelectorAndComparer() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(210, "a"), .next(220, "A"), .next(230, "b"), .next(240, "B"), .completed(250),
        ])
        let res = scheduler.start {
            xs.distinctUntilChanged({ $0.lowercased() }, comparer: { $0 == $1 })
        }
        #expect(res.events == [.next(210, "a"), .next(230, "b"), .completed(250)])
        #expect(xs.subscriptions == [Subscription(200, 250)])
    }

    @Test func keyPathAllChanges() {
        struct Item: Equatable, Sendable {
            let value: Int
            var other = ""
        }
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, Item(value: 1)), .next(210, Item(value: 2)), .next(220, Item(value: 2, other: "x")),
            .next(230, Item(value: 4)), .completed(250),
        ])
        let res = scheduler.start { xs.distinctUntilChanged(at: \.value) }
        #expect(res.events == [.next(210, Item(value: 2)), .next(230, Item(value: 4)), .completed(250)])
        #expect(xs.subscriptions == [Subscription(200, 250)])
    }

    @Test func error() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 1), .error(230, testError)])
        let res = scheduler.start { xs.distinctUntilChanged() }
        #expect(res.events == [.next(210, 1), .error(230, testError)])
        #expect(xs.subscriptions == [Subscription(200, 230)])
    }

    @Test func disposedEarly() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.increasing(scheduler)
        let res = scheduler.start(disposed: 225) { xs.distinctUntilChanged() }
        #expect(res.events == [.next(210, 2), .next(220, 3)])
        #expect(xs.subscriptions == [Subscription(200, 225)])
    }

    @Test func elementFedBackReentrantlyComparesWithTheLastPassed() {
        let subject = PublishSubject<Int>()
        let received = Shared<[Int]>([])
        let subscription = subject.distinctUntilChanged().subscribe(onNext: { value in
            received.append(value)
            if value == 1 { subject.onNext(1) }
        })
        subject.onNext(1)
        subject.onNext(2)
        #expect(received.value == [1, 2])
        subscription.dispose()
    }

    @Test func releasesResourcesOnEveryTermination() {
        Resources.measure { scope in
            let scheduler = TestScheduler(initialClock: 0)
            let completes = scheduler.createColdObservable([.next(10, 1), .completed(20)])
            let fails = scheduler.createColdObservable([.next(10, 1), .error(20, testError)])
            _ = completes.distinctUntilChanged().subscribe()
            _ = fails.distinctUntilChanged().subscribe()
            _ = completes.distinctUntilChanged { (_: Int) -> Int in throw testError }.subscribe()
            scheduler.start()
            #expect(scope.total == 0)
        }
    }
}
