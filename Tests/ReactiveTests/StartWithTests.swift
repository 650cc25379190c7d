import Reactive
import ReactiveTestKit
import Testing

/// startWith has no sink (as in RxSwift): the subscriber observes the source directly, so a source
/// that terminates stays subscribed until the subscriber, or the next operator's sink, disposes.
@Suite(.timeLimit(.minutes(1)))
struct StartWithTests {
    @Test func prependsAtSubscription() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .next(220, 2), .completed(250)])
        let res = scheduler.start { xs.startWith(7, 8, 9) }
        #expect(
            res.events == [.next(200, 7), .next(200, 8), .next(200, 9), .next(220, 2), .completed(250)])
        #expect(xs.subscriptions == [Subscription(200, 250)])
    }

    @Test func chainedPrefixesComeOutermostFirst() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(220, 3), .completed(250)])
        let res = scheduler.start { xs.startWith(2).startWith(1) }
        #expect(res.events == [.next(200, 1), .next(200, 2), .next(220, 3), .completed(250)])
        #expect(xs.subscriptions == [Subscription(200, 250)])
    }

    @Test func never() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1)])
        let res = scheduler.start { xs.startWith(1) }
        #expect(res.events == [.next(200, 1)])
        #expect(xs.subscriptions == [Subscription(200, 1000)])
    }

    @Test func empty() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .completed(250)])
        let res = scheduler.start { xs.startWith(1) }
        #expect(res.events == [.next(200, 1), .completed(250)])
        #expect(xs.subscriptions == [Subscription(200, 250)])
    }

    @Test func error() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .error(250, testError)])
        let res = scheduler.start { xs.startWith(1) }
        #expect(res.events == [.next(200, 1), .error(250, testError)])
        #expect(xs.subscriptions == [Subscription(200, 250)])
    }

    @Test func aDownstreamSinkDisposesTheSourceAtItsTerminalEvent() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .next(220, 2), .completed(250)])
        let res = scheduler.start { xs.startWith(1).map { $0 } }
        #expect(res.events == [.next(200, 1), .next(220, 2), .completed(250)])
        #expect(xs.subscriptions == [Subscription(200, 250)])
    }

    @Test func disposedEarly() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(220, 2), .next(240, 3), .completed(250)])
        let res = scheduler.start(disposed: 230) { xs.startWith(1) }
        #expect(res.events == [.next(200, 1), .next(220, 2)])
        #expect(xs.subscriptions == [Subscription(200, 230)])
    }

    @Test func takingOnlyThePrefixStillSubscribesTheSourceThenDisposesIt() {
        // As in RxSwift: the prefix is sent without looking at downstream, then the source is
        // subscribed, and disposed at once because `take` has already completed.
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(220, 2), .completed(250)])
        let res = scheduler.start { xs.startWith(1, 5).take(1) }
        #expect(res.events == [.next(200, 1), .completed(200)])
        #expect(xs.subscriptions == [Subscription(200, 200)])
    }

    @Test func releasesResources() {
        Resources.measure { scope in
            let subject = PublishSubject<Int>()
            let received = Shared<[Int]>([])
            let subscription = subject.startWith(0).map { $0 }.subscribe(onNext: { received.append($0) })
            subject.onNext(1)
            #expect(received.value == [0, 1])
            subscription.dispose()
            #expect(scope.total == 0)
        }
    }
}
