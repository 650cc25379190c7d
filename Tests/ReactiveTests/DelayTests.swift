import Dispatch
import Foundation
import Reactive
import ReactiveTestKit
import Testing

@Suite(.timeLimit(.minutes(1)))
struct DelayTests {
    static let source: [Recorded<Event<Int>>] = [
        .next(150, 1), .next(250, 2), .next(350, 3), .next(450, 4), .completed(550),
    ]

    @Test(arguments: [50, 100, 150])
    func shiftsEverythingButKeepsTheSpacing(delay: Int) {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable(Self.source)
        let res = scheduler.start { xs.delay(.seconds(delay), scheduler: scheduler) }
        #expect(
            res.events == [
                .next(250 + delay, 2), .next(350 + delay, 3), .next(450 + delay, 4), .completed(550 + delay),
            ])
        #expect(xs.subscriptions == [Subscription(200, 550)])
    }

    @Test func arbitraryDelay() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable(Self.source)
        let res = scheduler.start { xs.delay(.seconds(42), scheduler: scheduler) }
        #expect(
            res.events
                == Self.source.map { Recorded(time: $0.time + 42, value: $0.value) }.filter { $0.time > 200 })
    }

    @Test func errorIsNotDelayed() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .error(250, testError)])
        let res = scheduler.start { xs.delay(.seconds(150), scheduler: scheduler) }
        #expect(res.events == [.error(250, testError)])
        #expect(xs.subscriptions == [Subscription(200, 250)])
    }

    @Test func completionIsDelayed() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .completed(250)])
        let res = scheduler.start { xs.delay(.seconds(150), scheduler: scheduler) }
        #expect(res.events == [.completed(400)])
        #expect(xs.subscriptions == [Subscription(200, 250)])
    }

    @Test func errorAfterAllElementsWereSent() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(250, 2), .next(350, 3), .next(450, 4), .error(550, testError),
        ])
        let res = scheduler.start { xs.delay(.seconds(50), scheduler: scheduler) }
        #expect(res.events == [.next(300, 2), .next(400, 3), .next(500, 4), .error(550, testError)])
        #expect(xs.subscriptions == [Subscription(200, 550)])
    }

    @Test func errorDropsElementsStillWaiting() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(250, 2), .next(350, 3), .next(450, 4), .error(550, testError),
        ])
        let res = scheduler.start { xs.delay(.seconds(150), scheduler: scheduler) }
        #expect(res.events == [.next(400, 2), .next(500, 3), .error(550, testError)])
        #expect(xs.subscriptions == [Subscription(200, 550)])
    }

    @Test func disposingCancelsWhatIsWaiting() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable(Self.source)
        let res = scheduler.start(disposed: 420) { xs.delay(.seconds(100), scheduler: scheduler) }
        #expect(res.events == [.next(350, 2)])
        #expect(xs.subscriptions == [Subscription(200, 420)])
    }

    /// RxSwift sends one queued event per timer firing and re-arms the timer for the next one, so
    /// on a virtual-time scheduler events of the same instant come out one tick apart.
    @Test func eventsOfTheSameInstantAreSpreadByOneTick() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(250, 1), .next(250, 2), .completed(250)])
        let res = scheduler.start { xs.delay(.seconds(100), scheduler: scheduler) }
        #expect(res.events == [.next(350, 1), .next(351, 2), .completed(352)])
        #expect(xs.subscriptions == [Subscription(200, 250)])
    }

    @Test func realSchedulerDeliversEverything() async {
        let scheduler = ConcurrentScheduler(qos: .default)
        let subject = PublishSubject<Int>()
        let (events, received) = AsyncStream<Event<Int>>.makeStream()
        let subscription = subject.delay(.milliseconds(10), scheduler: scheduler).subscribe { event in
            received.yield(event)
            if event.isStopEvent { received.finish() }
        }
        DispatchQueue.global().async {
            subject.onNext(1)
            subject.onNext(2)
            subject.onNext(3)
            subject.onCompleted()
        }
        var elements: [Int] = []
        var completed = false
        for await event in events {
            if let element = event.element { elements.append(element) }
            completed = event.isCompleted
        }
        subscription.dispose()
        #expect(elements == [1, 2, 3])
        #expect(completed)
    }

    @Test func realSchedulerUnderLoadKeepsOrderAndGrammar() async {
        let elements = await collectOnRealScheduler(count: 2_000) {
            $0.delay(.microseconds(50), scheduler: $1)
        }
        #expect(elements == Array(0..<2_000))
    }

    @Test func realSchedulerErrorOvertakesWaitingElements() async {
        let scheduler = ConcurrentScheduler(qos: .default)
        let subject = PublishSubject<Int>()
        let (events, received) = AsyncStream<Event<Int>>.makeStream()
        let subscription = subject.delay(.seconds(30), scheduler: scheduler).subscribe { event in
            received.yield(event)
            if event.isStopEvent { received.finish() }
        }
        DispatchQueue.global().async {
            subject.onNext(1)
            subject.onError(testError)
        }
        var all: [Event<Int>] = []
        for await event in events { all.append(event) }
        subscription.dispose()
        #expect(all == [.error(testError)])
    }

    @Test func noLeaks() {
        Resources.measure { scope in
            let scheduler = TestScheduler(initialClock: 0)
            _ = Observable.just(1).delay(.seconds(100), scheduler: scheduler).subscribe()
            _ = Observable<Int>.error(testError).delay(.seconds(100), scheduler: scheduler).subscribe()
            let subject = PublishSubject<Int>()
            let open = subject.delay(.seconds(10), scheduler: scheduler).subscribe()
            subject.onNext(1)
            open.dispose()
            scheduler.start()
            #expect(scope.total == 0)
        }
    }
}

/// Feeds `0..<count` from a background thread through `apply` (the operator under test, given a
/// real concurrent scheduler) and returns the elements received before completion. The
/// subscriber's debug grammar check stops the process if events arrive concurrently or after the
/// terminal event.
func collectOnRealScheduler(
    count: Int,
    _ apply: (Observable<Int>, any SchedulerType) -> Observable<Int>
) async -> [Int] {
    let subject = PublishSubject<Int>()
    let (events, received) = AsyncStream<Event<Int>>.makeStream()
    let subscription = apply(subject.asObservable(), ConcurrentScheduler(qos: .default)).subscribe { event in
        received.yield(event)
        if event.isStopEvent { received.finish() }
    }
    DispatchQueue.global().async {
        for value in 0..<count { subject.onNext(value) }
        subject.onCompleted()
    }
    var elements: [Int] = []
    for await event in events {
        if let element = event.element { elements.append(element) }
    }
    subscription.dispose()
    return elements
}
