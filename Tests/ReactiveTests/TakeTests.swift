import Reactive
import ReactiveTestKit
import Testing

/// RxSwift's take(count) scenarios (Observable+TakeTests).
@Suite(.timeLimit(.minutes(1)))
struct TakeCountTests {
    /// The hot source of RxSwift's take scenarios, ending with `end`.
    static func source(_ scheduler: TestScheduler, end: Recorded<Event<Int>>?) -> TestableObservable<Int> {
        scheduler.createHotObservable(Self.elements + (end.map { [$0] } ?? []))
    }

    static let elements: [Recorded<Event<Int>>] = [
        .next(70, 6), .next(150, 4), .next(210, 9), .next(230, 13), .next(270, 7), .next(280, 1),
        .next(300, -1), .next(310, 3), .next(340, 8), .next(370, 11), .next(410, 15), .next(415, 16),
        .next(460, 72), .next(510, 76), .next(560, 32), .next(570, -100), .next(580, -3), .next(590, 5),
        .next(630, 10),
    ]

    /// The elements from 210 on, the first `count` of them.
    static func expected(_ count: Int) -> [Recorded<Event<Int>>] {
        Array(elements.filter { $0.time > 200 }.prefix(count))
    }

    @Test func completesAfter() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.source(scheduler, end: .completed(690))
        let res = scheduler.start { xs.take(20) }
        #expect(res.events == Self.expected(17) + [.completed(690)])
        #expect(xs.subscriptions == [Subscription(200, 690)])
    }

    @Test func completesWithTheLastElement() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.source(scheduler, end: .completed(690))
        let res = scheduler.start { xs.take(17) }
        #expect(res.events == Self.expected(17) + [.completed(630)])
        #expect(xs.subscriptions == [Subscription(200, 630)])
    }

    @Test func completesBefore() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.source(scheduler, end: .completed(690))
        let res = scheduler.start { xs.take(10) }
        #expect(res.events == Self.expected(10) + [.completed(415)])
        #expect(xs.subscriptions == [Subscription(200, 415)])
    }

    @Test func errorAfter() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.source(scheduler, end: .error(690, testError))
        let res = scheduler.start { xs.take(20) }
        #expect(res.events == Self.expected(17) + [.error(690, testError)])
        #expect(xs.subscriptions == [Subscription(200, 690)])
    }

    @Test func errorSame() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.source(scheduler, end: .error(690, testError))
        let res = scheduler.start { xs.take(17) }
        #expect(res.events == Self.expected(17) + [.completed(630)])
        #expect(xs.subscriptions == [Subscription(200, 630)])
    }

    @Test func errorBefore() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.source(scheduler, end: .error(690, testError))
        let res = scheduler.start { xs.take(3) }
        #expect(res.events == Self.expected(3) + [.completed(270)])
        #expect(xs.subscriptions == [Subscription(200, 270)])
    }

    @Test func disposeBefore() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.source(scheduler, end: .error(690, testError))
        let res = scheduler.start(disposed: 250) { xs.take(3) }
        #expect(res.events == Self.expected(2))
        #expect(xs.subscriptions == [Subscription(200, 250)])
    }

    @Test func disposeAfter() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.source(scheduler, end: .error(690, testError))
        let res = scheduler.start(disposed: 400) { xs.take(3) }
        #expect(res.events == Self.expected(3) + [.completed(270)])
        #expect(xs.subscriptions == [Subscription(200, 270)])
    }

    @Test func zeroCompletesAtOnceWithoutSubscribing() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(70, 6), .next(150, 4), .next(210, 9), .next(230, 13)])
        let res = scheduler.start { xs.take(0) }
        #expect(res.events == [.completed(200)])
        #expect(xs.subscriptions == [])
    }

    @Test func takeOne() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable(Array(Self.elements.prefix(10)) + [.completed(400)])
        let res = scheduler.start { xs.take(3) }
        #expect(res.events == Self.expected(3) + [.completed(270)])
        #expect(xs.subscriptions == [Subscription(200, 270)])
    }

    @Test func decrementsCountBeforeForwarding() {
        // Downstream feeds the source from inside onNext: the fed-back element is not taken.
        let subject = PublishSubject<Bool>()
        let received = Shared<[Event<Bool>]>([])
        let subscription = subject.take(1).subscribe { event in
            received.append(event)
            if case .next(let value) = event { subject.onNext(!value) }
        }
        subject.onNext(false)
        #expect(received.value == [.next(false), .completed])
        subscription.dispose()
    }

    @Test func stopsAnInfiniteSynchronousSource() {
        let source = Observable<Int>.create { observer in
            let stop = BooleanDisposable()
            // A trampolined source: starts once the chain is wired, so take can dispose it.
            CurrentThreadScheduler.instance.schedule {
                var value = 0
                while !stop.isDisposed {
                    observer.onNext(value)
                    value += 1
                }
            }
            return stop
        }
        let received = Shared<[Int]>([])
        _ = source.take(3).subscribe(onNext: { received.append($0) })
        #expect(received.value == [0, 1, 2])
    }

    @Test func releasesResourcesOnEveryTermination() {
        Resources.measure { scope in
            let scheduler = TestScheduler(initialClock: 0)
            let xs = scheduler.createColdObservable([.next(10, 1), .next(20, 2), .completed(30)])
            let fails: TestableObservable<Int> = scheduler.createColdObservable([.error(10, testError)])
            _ = xs.take(1).subscribe()
            _ = xs.take(5).subscribe()
            _ = fails.take(1).subscribe()
            _ = xs.take(0).subscribe()
            scheduler.start()
            #expect(scope.total == 0)
        }
    }
}

/// RxSwift's take(for:scheduler:) scenarios (Observable+TakeTests).
@Suite(.timeLimit(.minutes(1)))
struct TakeForTests {
    @Test func zeroDurationCompletesOneTickLater() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        let res = scheduler.start { xs.take(for: .seconds(0), scheduler: scheduler) }
        #expect(res.events == [.completed(201)])
        #expect(xs.subscriptions == [Subscription(200, 201)])
    }

    @Test func some() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(230, 3), .completed(240)])
        let res = scheduler.start { xs.take(for: .seconds(25), scheduler: scheduler) }
        #expect(res.events == [.next(210, 1), .next(220, 2), .completed(225)])
        #expect(xs.subscriptions == [Subscription(200, 225)])
    }

    @Test func sourceCompletesFirst() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        let res = scheduler.start { xs.take(for: .seconds(50), scheduler: scheduler) }
        #expect(res.events == [.next(210, 1), .next(220, 2), .completed(230)])
        #expect(xs.subscriptions == [Subscription(200, 230)])
    }

    @Test func sourceFailsFirst() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(0, 0), .error(210, testError)])
        let res = scheduler.start { xs.take(for: .seconds(50), scheduler: scheduler) }
        #expect(res.events == [.error(210, testError)])
        #expect(xs.subscriptions == [Subscription(200, 210)])
    }

    @Test func sourceNeverEnds() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(0, 0)])
        let res = scheduler.start { xs.take(for: .seconds(50), scheduler: scheduler) }
        #expect(res.events == [.completed(250)])
        #expect(xs.subscriptions == [Subscription(200, 250)])
    }

    @Test func twice() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.sixElements(scheduler)
        let res = scheduler.start {
            xs.take(for: .seconds(55), scheduler: scheduler).take(for: .seconds(35), scheduler: scheduler)
        }
        #expect(res.events == [.next(210, 1), .next(220, 2), .next(230, 3), .completed(235)])
        #expect(xs.subscriptions == [Subscription(200, 235)])
    }

    @Test func once() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.sixElements(scheduler)
        let res = scheduler.start { xs.take(for: .seconds(35), scheduler: scheduler) }
        #expect(res.events == [.next(210, 1), .next(220, 2), .next(230, 3), .completed(235)])
        #expect(xs.subscriptions == [Subscription(200, 235)])
    }

    @Test func elementAtTheTimerTickIsTaken() {
        // The source's event was scheduled before the timer, so it runs first at tick 230.
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.sixElements(scheduler)
        let res = scheduler.start { xs.take(for: .seconds(30), scheduler: scheduler) }
        #expect(res.events == [.next(210, 1), .next(220, 2), .next(230, 3), .completed(230)])
        #expect(xs.subscriptions == [Subscription(200, 230)])
    }

    @Test func disposedEarlyCancelsTheTimer() {
        Resources.measure { scope in
            let scheduler = TestScheduler(initialClock: 0)
            let xs = Self.sixElements(scheduler)
            let res = scheduler.start(disposed: 215) { xs.take(for: .seconds(35), scheduler: scheduler) }
            #expect(res.events == [.next(210, 1)])
            #expect(xs.subscriptions == [Subscription(200, 215)])
            #expect(scope.total == 0)
        }
    }

    @Test func reentrantEventIsQueuedBehindTheCurrentOne() {
        let subject = PublishSubject<Int>()
        let scheduler = TestScheduler(initialClock: 0)
        let received = Shared<[Event<Int>]>([])
        let subscription = subject.take(for: .seconds(10), scheduler: scheduler).subscribe { event in
            received.append(event)
            if case .next(1) = event {
                subject.onNext(2)
                received.append(.next(-1))
            }
        }
        subject.onNext(1)
        #expect(received.value == [.next(1), .next(-1), .next(2)])
        scheduler.advanceTo(20)
        #expect(received.value == [.next(1), .next(-1), .next(2), .completed])
        subscription.dispose()
    }

    @Test func releasesResourcesOnEveryTermination() {
        Resources.measure { scope in
            let scheduler = TestScheduler(initialClock: 0)
            let completes = scheduler.createColdObservable([.next(10, 1), .completed(20)])
            let fails: TestableObservable<Int> = scheduler.createColdObservable([.error(10, testError)])
            let never = scheduler.createColdObservable([.next(10, 1)])
            _ = completes.take(for: .seconds(35), scheduler: scheduler).subscribe()
            _ = fails.take(for: .seconds(35), scheduler: scheduler).subscribe()
            _ = never.take(for: .seconds(35), scheduler: scheduler).subscribe()
            scheduler.start()
            #expect(scope.total == 0)
        }
    }

    static func sixElements(_ scheduler: TestScheduler) -> TestableObservable<Int> {
        scheduler.createHotObservable([
            .next(210, 1), .next(220, 2), .next(230, 3), .next(240, 4), .next(250, 5), .next(260, 6),
            .completed(270),
        ])
    }
}

/// Edge cases of take(count) outside virtual time.
@Suite(.timeLimit(.minutes(1)))
struct TakeCountEdgeTests {
    @Test func noCompletionAfterDownstreamDisposesOnTheLastElement() {
        let subject = PublishSubject<Int>()
        let received = Shared<[Event<Int>]>([])
        let subscription = SingleAssignmentDisposable()
        subscription.setDisposable(
            subject.take(1).subscribe { event in
                received.append(event)
                subscription.dispose()
            })
        subject.onNext(1)
        #expect(received.value == [.next(1)])
        #expect(!subject.hasObservers)
    }
}
