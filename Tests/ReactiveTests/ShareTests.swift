import Dispatch
import Reactive
import ReactiveTestKit
import Testing

/// The observers of RxSwift's `share(replay:scope:)` scenario.
private struct ShareScenario {
    let xs: TestableObservable<Int>
    /// Subscribed at 200 (until 350), and at 300 (until 400).
    let res1, res2: TestableObserver<Int>
    /// Subscribed by `res1`'s and `res2`'s terminal handlers, disposed at 350 and 400.
    let res1Again, res2Again: TestableObserver<Int>
    /// Subscribed at 500, disposed at 600.
    let res3: TestableObserver<Int>

    /// Runs the scenario on `events` shared with `replay` and `scope`.
    init(_ events: [Recorded<Event<Int>>], replay: Int, scope: SubjectLifetimeScope) {
        self.init(events) { $0.share(replay: replay, scope: scope) }
    }

    /// Runs the scenario on `events` shared by `share`.
    init(_ events: [Recorded<Event<Int>>], share: (TestableObservable<Int>) -> Observable<Int>) {
        let scheduler = TestScheduler(initialClock: 0)
        xs = scheduler.createHotObservable(events)
        let observers = (0..<5).map { _ in scheduler.createObserver(Int.self) }
        (res1, res2, res1Again, res2Again, res3) =
            (observers[0], observers[1], observers[2], observers[3], observers[4])
        let ys = share(xs)
        let subscriptions = (0..<3).map { _ in Shared<(any Disposable)?>(nil) }
        for (index, time) in [(0, 200), (1, 300)] {
            let (first, again, subscription) = (observers[index], observers[index + 2], subscriptions[index])
            scheduler.scheduleAt(time) {
                subscription.value = ys.subscribe { event in
                    first.on(event)
                    if event.isStopEvent { subscription.value = ys.subscribe(again) }
                }
            }
        }
        let res3 = observers[4]
        scheduler.scheduleAt(500) { subscriptions[2].value = ys.subscribe(res3) }
        for (index, time) in [(0, 350), (1, 400), (2, 600)] {
            scheduler.scheduleAt(time) { subscriptions[index].value?.dispose() }
        }
        scheduler.start()
    }
}

private let shareEvents: [Recorded<Event<Int>>] = [
    .next(210, 1), .next(220, 2), .next(230, 3), .next(240, 4), .next(250, 5), .next(320, 6), .next(550, 7),
]

private func shareEvents(stoppingWith stop: Recorded<Event<Int>>) -> [Recorded<Event<Int>>] {
    [
        .next(210, 1), .next(220, 2), .next(230, 3), .next(240, 4), .next(250, 5), .next(320, 6),
        stop, .next(340, -1), .next(550, 7),
    ]
}

/// `count` consecutive elements ending with `last`, all at `time`.
private func replayed(_ count: Int, endingWith last: Int, at time: TestTime) -> [Recorded<Event<Int>>] {
    (0..<count).map { .next(time, last - count + 1 + $0) }
}

private let firstSix: [Recorded<Event<Int>>] = [
    .next(210, 1), .next(220, 2), .next(230, 3), .next(240, 4), .next(250, 5), .next(320, 6),
]

@Suite(.timeLimit(.minutes(1)))
struct ShareTests {
    @Test func defaultArgumentsShareWhileConnectedWithoutReplay() {
        let run = ShareScenario(shareEvents) { $0.share() }
        #expect(run.res1.events == firstSix)
        #expect(run.res2.events == [.next(320, 6)])
        #expect(run.res3.events == [.next(550, 7)])
        #expect(run.xs.subscriptions == [Subscription(200, 400), Subscription(500, 600)])
    }

    @Test(arguments: 0..<5)
    func foreverReplaysAcrossConnections(replay: Int) {
        let run = ShareScenario(shareEvents, replay: replay, scope: .forever)
        #expect(run.res1.events == firstSix)
        #expect(run.res2.events == replayed(replay, endingWith: 5, at: 300) + [.next(320, 6)])
        #expect(run.res3.events == replayed(replay, endingWith: 6, at: 500) + [.next(550, 7)])
        #expect(run.xs.subscriptions == [Subscription(200, 400), Subscription(500, 600)])
    }

    @Test(arguments: 0..<5)
    func whileConnectedReconnectsWithAnEmptyBuffer(replay: Int) {
        let run = ShareScenario(shareEvents, replay: replay, scope: .whileConnected)
        #expect(run.res1.events == firstSix)
        #expect(run.res2.events == replayed(replay, endingWith: 5, at: 300) + [.next(320, 6)])
        #expect(run.res3.events == [.next(550, 7)])
        #expect(run.xs.subscriptions == [Subscription(200, 400), Subscription(500, 600)])
    }

    @Test(arguments: 0..<5)
    func foreverReplaysTheError(replay: Int) {
        let run = ShareScenario(
            shareEvents(stoppingWith: .error(330, testError)), replay: replay, scope: .forever)
        #expect(run.res1.events == firstSix + [.error(330, testError)])
        #expect(run.res1Again.events == replayed(replay, endingWith: 6, at: 330) + [.error(330, testError)])
        #expect(run.res2Again.events == replayed(replay, endingWith: 6, at: 330) + [.error(330, testError)])
        #expect(
            run.res2.events
                == replayed(replay, endingWith: 5, at: 300) + [.next(320, 6), .error(330, testError)])
        #expect(run.res3.events == replayed(replay, endingWith: 6, at: 500) + [.error(500, testError)])
        #expect(run.xs.subscriptions == [Subscription(200, 330)])
    }

    @Test(arguments: 0..<5)
    func whileConnectedDoesNotReplayTheErrorAndReconnects(replay: Int) {
        let run = ShareScenario(
            shareEvents(stoppingWith: .error(330, testError)), replay: replay, scope: .whileConnected)
        #expect(run.res1.events == firstSix + [.error(330, testError)])
        #expect(run.res1Again.events == [.next(340, -1)])
        #expect(run.res2Again.events == [.next(340, -1)])
        #expect(
            run.res2.events
                == replayed(replay, endingWith: 5, at: 300) + [.next(320, 6), .error(330, testError)])
        #expect(run.res3.events == [.next(550, 7)])
        #expect(
            run.xs.subscriptions == [Subscription(200, 330), Subscription(330, 400), Subscription(500, 600)])
    }

    @Test(arguments: 0..<5)
    func foreverReplaysTheCompletion(replay: Int) {
        let run = ShareScenario(shareEvents(stoppingWith: .completed(330)), replay: replay, scope: .forever)
        #expect(run.res1.events == firstSix + [.completed(330)])
        #expect(run.res1Again.events == replayed(replay, endingWith: 6, at: 330) + [.completed(330)])
        #expect(run.res2Again.events == replayed(replay, endingWith: 6, at: 330) + [.completed(330)])
        #expect(
            run.res2.events == replayed(replay, endingWith: 5, at: 300) + [.next(320, 6), .completed(330)])
        #expect(run.res3.events == replayed(replay, endingWith: 6, at: 500) + [.completed(500)])
        #expect(run.xs.subscriptions == [Subscription(200, 330)])
    }

    @Test(arguments: 0..<5)
    func whileConnectedDoesNotReplayTheCompletionAndReconnects(replay: Int) {
        let run = ShareScenario(
            shareEvents(stoppingWith: .completed(330)), replay: replay, scope: .whileConnected)
        #expect(run.res1.events == firstSix + [.completed(330)])
        #expect(run.res1Again.events == [.next(340, -1)])
        #expect(run.res2Again.events == [.next(340, -1)])
        #expect(
            run.res2.events == replayed(replay, endingWith: 5, at: 300) + [.next(320, 6), .completed(330)])
        #expect(run.res3.events == [.next(550, 7)])
        #expect(
            run.xs.subscriptions == [Subscription(200, 330), Subscription(330, 400), Subscription(500, 600)])
    }

    /// RxSwift's "Single shared while connected": two subscribers at the same tick share one
    /// subscription to a source that answers later.
    @Test(arguments: [0, 1, 2])
    func sameTickSubscribersShareOneSubscription(replay: Int) {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(2, 1), .completed(2)])
        let ys = xs.share(replay: replay)
        let observers = (0..<2).map { _ in scheduler.createObserver(Int.self) }
        for observer in observers {
            scheduler.scheduleAt(210) { _ = ys.subscribe(observer) }
        }
        scheduler.start()
        for observer in observers {
            #expect(observer.events == [.next(212, 1), .completed(212)])
        }
        #expect(xs.subscriptions == [Subscription(210, 212)])
    }

    /// RxSwift's "Single shared forever": a later subscriber gets the replayed element and the
    /// completion without a new subscription.
    @Test func foreverServesLateSubscribersFromTheSubject() {
        let scheduler = TestScheduler(initialClock: 0)
        let invocations = Shared(0)
        let ys = Observable<Int>.create { observer in
            observer.onNext(invocations.increment())
            observer.onCompleted()
            return Disposables.create()
        }
        .share(replay: 1, scope: .forever)
        let first = scheduler.createObserver(Int.self)
        let second = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(210) { _ = ys.subscribe(first) }
        scheduler.scheduleAt(500) { _ = ys.subscribe(second) }
        scheduler.start()
        #expect(invocations.value == 1)
        #expect(first.events == [.next(210, 1), .completed(210)])
        #expect(second.events == [.next(500, 1), .completed(500)])
    }

    /// The RxSwift surprise: with `.whileConnected`, a source that finishes synchronously is run
    /// again for every subscriber, since each one finds the previous connection ended.
    @Test func whileConnectedResubscribesASynchronousSource() {
        let invocations = Shared(0)
        let ys = Observable<Int>.create { observer in
            observer.onNext(invocations.increment())
            observer.onCompleted()
            return Disposables.create()
        }
        .share(replay: 1)
        let received = Shared<[Int]>([])
        _ = ys.subscribe(onNext: { received.append($0) })
        _ = ys.subscribe(onNext: { received.append($0) })
        #expect(invocations.value == 2)
        #expect(received.value == [1, 2])
    }

    @Test func earlyDisposeDisconnects() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable(shareEvents)
        let res = scheduler.start(disposed: 235) { xs.share(replay: 1) }
        #expect(res.events == [.next(210, 1), .next(220, 2), .next(230, 3)])
        #expect(xs.subscriptions == [Subscription(200, 235)])
    }

    @Test func noLeaks() {
        for lifetime in [SubjectLifetimeScope.whileConnected, .forever] {
            for replay in 0..<3 {
                Resources.measure { scope in
                    let scheduler = TestScheduler(initialClock: 0)
                    let xs = scheduler.createHotObservable(shareEvents(stoppingWith: .completed(330)))
                    let ys = xs.share(replay: replay, scope: lifetime)
                    let subscriptions = Shared<[any Disposable]>([])
                    for time in [200, 300] {
                        let observer = scheduler.createObserver(Int.self)
                        scheduler.scheduleAt(time) { subscriptions.append(ys.subscribe(observer)) }
                    }
                    scheduler.scheduleAt(250) { subscriptions.value[0].dispose() }
                    scheduler.start()
                    subscriptions.value.forEach { $0.dispose() }
                    subscriptions.value = []
                    #expect(scope.total == 0)

                    let synchronous = Observable<Int>.create { observer in
                        observer.onNext(1)
                        observer.onCompleted()
                        return Disposables.create()
                    }
                    .share(replay: replay, scope: lifetime)
                    _ = synchronous.subscribe(onNext: { _ in })
                    _ = synchronous.map { $0 }.subscribe(onNext: { _ in })
                    #expect(scope.total == 0)
                }
            }
        }
    }

    /// Subscribers joining from one thread while another emits see contiguous values.
    @Test func concurrentSubscribersSeeContiguousValues() {
        let source = PublishSubject<Int>()
        let ys = source.share(replay: 1)
        let keepConnected = ys.subscribe(onNext: { _ in })
        let last = 5_000
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            for value in 0...last { source.onNext(value) }
            source.onCompleted()
            done.signal()
        }
        var logs: [Shared<[Int]>] = []
        for _ in 0..<50 {
            let log = Shared<[Int]>([])
            logs.append(log)
            _ = ys.subscribe(onNext: { log.append($0) })
        }
        #expect(done.wait(timeout: .now() + 30) == .success)
        for log in logs {
            let values = log.value
            // Empty only for a subscriber that reconnected after completion.
            #expect(values.isEmpty || values.last == last)
            #expect(zip(values, values.dropFirst()).allSatisfy { $0 + 1 == $1 })
        }
        keepConnected.dispose()
    }
}

// MARK: - multicast, publish, replay

private let multicastEvents: [Recorded<Event<Int>>] = [
    .next(110, 7), .next(220, 3), .next(280, 4), .next(290, 1), .next(340, 8), .next(360, 5),
    .next(370, 6), .next(390, 7), .next(410, 13), .next(430, 2), .next(450, 9), .next(520, 11),
    .next(560, 20), .next(570, 21), .next(580, 23), .next(590, 24), .next(600, 25), .next(610, 26),
    .next(620, 27), .next(630, 28), .error(800, testError),
]

private func multicastEvents(stoppingAt435With stop: Event<Int>) -> [Recorded<Event<Int>>] {
    var events = multicastEvents
    events.insert(Recorded(time: 435, value: stop), at: 10)
    return events
}

/// RxSwift's multicast scenario: connections 300–400, 420–(590), an extra `connect()` at 440
/// disposed at 530, and 575–621. The subscriber arrives at `subscribeAt`; with `reconnect`, its
/// terminal handler subscribes again and connects.
private func runMulticast(
    _ xs: TestableObservable<Int>, _ scheduler: TestScheduler, _ ys: ConnectableObservable<Int>,
    subscribeAt: TestTime, reconnect: Bool = false
) -> TestableObserver<Int> {
    let res = scheduler.createObserver(Int.self)
    let subscription = Shared<(any Disposable)?>(nil)
    let connection = Shared<(any Disposable)?>(nil)
    let innerConnection = Shared<(any Disposable)?>(nil)
    let lastConnection = Shared<(any Disposable)?>(nil)
    scheduler.scheduleAt(subscribeAt) {
        guard reconnect else {
            subscription.value = ys.subscribe(res)
            return
        }
        subscription.value = ys.subscribe { event in
            if event.isStopEvent {
                subscription.value = ys.subscribe(res)
                _ = ys.connect()
            }
            res.on(event)
        }
    }
    scheduler.scheduleAt(1000) { subscription.value?.dispose() }
    scheduler.scheduleAt(300) { connection.value = ys.connect() }
    scheduler.scheduleAt(400) { connection.value?.dispose() }
    scheduler.scheduleAt(420) { connection.value = ys.connect() }
    scheduler.scheduleAt(440) { innerConnection.value = ys.connect() }
    scheduler.scheduleAt(530) { innerConnection.value?.dispose() }
    scheduler.scheduleAt(575) { lastConnection.value = ys.connect() }
    scheduler.scheduleAt(590) { connection.value?.dispose() }
    scheduler.scheduleAt(621) { lastConnection.value?.dispose() }
    scheduler.start()
    return res
}

@Suite(.timeLimit(.minutes(1)))
struct MulticastTests {
    private let connections = [Subscription(300, 400), Subscription(420, 530), Subscription(575, 621)]
    private let reconnections = [
        Subscription(300, 400), Subscription(420, 435), Subscription(435, 530), Subscription(575, 621),
    ]

    @Test func makeSubjectConnectControlsSourceSubscription() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable(multicastEvents)
        let ys = xs.multicast(makeSubject: { ReplaySubject<Int>.create(bufferSize: 3) })
        let res = runMulticast(xs, scheduler, ys, subscribeAt: 405)
        #expect(res.events == [.next(430, 2), .next(450, 9), .next(520, 11)])
        #expect(xs.subscriptions == connections)
    }

    @Test func makeSubjectConnectFirstThenSubscribe() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable(multicastEvents)
        let ys = xs.multicast(makeSubject: { ReplaySubject<Int>.create(bufferSize: 1) })
        let res = runMulticast(xs, scheduler, ys, subscribeAt: 470)
        #expect(res.events == [.next(470, 9), .next(520, 11)])
        #expect(xs.subscriptions == connections)
    }

    @Test func makeSubjectCompletedThenReconnected() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable(multicastEvents(stoppingAt435With: .completed))
        let ys = xs.multicast(makeSubject: { ReplaySubject<Int>.create(bufferSize: 1) })
        let res = runMulticast(xs, scheduler, ys, subscribeAt: 405, reconnect: true)
        #expect(res.events == [.next(430, 2), .completed(435), .next(450, 9), .next(520, 11)])
        #expect(xs.subscriptions == reconnections)
    }

    @Test func makeSubjectErrorThenReconnected() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable(multicastEvents(stoppingAt435With: .error(testError)))
        let ys = xs.multicast(makeSubject: { ReplaySubject<Int>.create(bufferSize: 1) })
        let res = runMulticast(xs, scheduler, ys, subscribeAt: 405, reconnect: true)
        #expect(res.events == [.next(430, 2), .error(435, testError), .next(450, 9), .next(520, 11)])
        #expect(xs.subscriptions == reconnections)
    }

    @Test func sharedSubjectConnectControlsSourceSubscription() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable(multicastEvents)
        let ys = xs.multicast(ReplaySubject<Int>.create(bufferSize: 3))
        let res = runMulticast(xs, scheduler, ys, subscribeAt: 405)
        #expect(
            res.events == [
                .next(405, 5), .next(405, 6), .next(405, 7), .next(430, 2), .next(450, 9), .next(520, 11),
                .next(580, 23), .next(590, 24), .next(600, 25), .next(610, 26), .next(620, 27),
            ])
        #expect(xs.subscriptions == connections)
    }

    @Test func sharedSubjectConnectFirstThenSubscribe() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable(multicastEvents)
        let ys = xs.multicast(ReplaySubject<Int>.create(bufferSize: 1))
        let res = runMulticast(xs, scheduler, ys, subscribeAt: 470)
        #expect(
            res.events == [
                .next(470, 9), .next(520, 11), .next(580, 23), .next(590, 24), .next(600, 25),
                .next(610, 26), .next(620, 27),
            ])
        #expect(xs.subscriptions == connections)
    }

    @Test func sharedSubjectCompletedIsReplayed() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable(multicastEvents(stoppingAt435With: .completed))
        let ys = xs.multicast(ReplaySubject<Int>.create(bufferSize: 1))
        let res = runMulticast(xs, scheduler, ys, subscribeAt: 405, reconnect: true)
        #expect(
            res.events == [.next(405, 7), .next(430, 2), .next(435, 2), .completed(435), .completed(435)])
        #expect(xs.subscriptions == reconnections)
    }

    @Test func sharedSubjectErrorIsReplayed() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable(multicastEvents(stoppingAt435With: .error(testError)))
        let ys = xs.multicast(ReplaySubject<Int>.create(bufferSize: 1))
        let res = runMulticast(xs, scheduler, ys, subscribeAt: 405, reconnect: true)
        #expect(
            res.events == [
                .next(405, 7), .next(430, 2), .next(435, 2), .error(435, testError), .error(435, testError),
            ])
        #expect(xs.subscriptions == reconnections)
    }

    @Test func publishForwardsOnlyWhileConnected() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable(multicastEvents)
        let res = runMulticast(xs, scheduler, xs.publish(), subscribeAt: 405)
        #expect(res.events == [.next(430, 2), .next(450, 9), .next(520, 11)])
        #expect(xs.subscriptions == connections)
    }

    @Test func noLeaks() {
        Resources.measure { scope in
            let ys = Observable<Int>.create { observer in
                observer.onNext(1)
                observer.onCompleted()
                return Disposables.create()
            }
            .publish()
            let received = Shared<[Event<Int>]>([])
            _ = ys.subscribe { received.append($0) }
            _ = ys.connect()
            #expect(received.value == [.next(1), .completed])
            #expect(scope.total == 0)
        }
    }
}

/// A replay scenario on a cold source: connections 400–520 and 650–700, a subscriber from 450.
private func runReplay(
    _ events: [Recorded<Event<Int>>],
    _ makeConnectable: (TestableObservable<Int>) -> ConnectableObservable<Int>,
    disposeAt: TestTime = 1000
) -> (events: [Recorded<Event<Int>>], subscriptions: [Subscription]) {
    let scheduler = TestScheduler(initialClock: 0)
    let xs = scheduler.createColdObservable(events)
    let ys = makeConnectable(xs)
    let res = scheduler.createObserver(Int.self)
    let subscription = Shared<(any Disposable)?>(nil)
    let connection = Shared<(any Disposable)?>(nil)
    scheduler.scheduleAt(450) { subscription.value = ys.subscribe(res) }
    scheduler.scheduleAt(disposeAt) { subscription.value?.dispose() }
    scheduler.scheduleAt(400) { connection.value = ys.connect() }
    scheduler.scheduleAt(520) { connection.value?.dispose() }
    scheduler.scheduleAt(650) { connection.value = ys.connect() }
    scheduler.scheduleAt(700) { connection.value?.dispose() }
    scheduler.start()
    return (res.events, xs.subscriptions)
}

private func coldReplayEvents(_ stop: Recorded<Event<Int>>) -> [Recorded<Event<Int>>] {
    [
        .next(10, 5), .next(20, 9), .next(30, 11), .next(40, 20), .next(50, 22), .next(60, 23),
        .next(70, 24), .next(80, 25), stop,
    ]
}

@Suite(.timeLimit(.minutes(1)))
struct ReplayTests {
    private let replayedAt450: [Recorded<Event<Int>>] = [
        .next(450, 9), .next(450, 11), .next(450, 20), .next(450, 22), .next(460, 23), .next(470, 24),
    ]

    @Test func basic() {
        let run = runReplay(coldReplayEvents(.error(130, testError))) { $0.replay(3) }
        #expect(run.events == replayedAt450 + [.next(480, 25)])
        #expect(run.subscriptions == [Subscription(400, 520), Subscription(650, 700)])
    }

    @Test func error() {
        let run = runReplay(coldReplayEvents(.error(90, testError))) { $0.replay(3) }
        #expect(run.events == replayedAt450 + [.next(480, 25), .error(490, testError)])
        #expect(run.subscriptions == [Subscription(400, 490), Subscription(650, 700)])
    }

    @Test func complete() {
        let run = runReplay(coldReplayEvents(.completed(90))) { $0.replay(3) }
        #expect(run.events == replayedAt450 + [.next(480, 25), .completed(490)])
        #expect(run.subscriptions == [Subscription(400, 490), Subscription(650, 700)])
    }

    @Test func dispose() {
        let run = runReplay(coldReplayEvents(.completed(130)), { $0.replay(3) }, disposeAt: 475)
        #expect(run.events == replayedAt450)
        #expect(run.subscriptions == [Subscription(400, 520), Subscription(650, 700)])
    }

    @Test func replayOne() {
        let run = runReplay(coldReplayEvents(.completed(130))) { $0.replay(1) }
        #expect(
            run.events == [.next(450, 20), .next(450, 22), .next(460, 23), .next(470, 24), .next(480, 25)])
        #expect(run.subscriptions == [Subscription(400, 520), Subscription(650, 700)])
    }

    @Test func replayAll() {
        let run = runReplay(coldReplayEvents(.completed(130))) { $0.replayAll() }
        #expect(
            run.events == [
                .next(450, 5), .next(450, 9), .next(450, 11), .next(450, 20), .next(450, 22), .next(460, 23),
                .next(470, 24), .next(480, 25),
            ])
        #expect(run.subscriptions == [Subscription(400, 520), Subscription(650, 700)])
    }
}

// MARK: - refCount

@Suite(.timeLimit(.minutes(1)))
struct RefCountTests {
    @Test func connectsOnFirstSubscriber() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(210, 1), .next(220, 2), .next(230, 3), .next(240, 4), .completed(250),
        ])
        let res = scheduler.start { xs.multicast(PublishSubject<Int>()).refCount() }
        #expect(res.events == [.next(210, 1), .next(220, 2), .next(230, 3), .next(240, 4), .completed(250)])
        #expect(xs.subscriptions == [Subscription(200, 250)])
    }

    @Test(arguments: [Event<Int>.completed, .error(testError)])
    func doesNotConnectWhenTheSubjectAlreadyStopped(stop: Event<Int>) {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1)])
        let subject = PublishSubject<Int>()
        subject.on(stop)
        let res = scheduler.start { xs.multicast(subject).refCount() }
        #expect(res.events == [Recorded(time: 200, value: stop)])
        #expect(xs.subscriptions == [])
    }

    @Test func connectsAndDisconnectsWithTheSubscriberCount() {
        let subscribed = Shared(0)
        let disconnected = Shared(false)
        let xs = Observable<Int>.create { _ in
            subscribed.increment()
            return Disposables.create { disconnected.value = true }
        }
        let refd = xs.multicast(PublishSubject<Int>()).refCount()

        let first = refd.subscribe { _ in }
        #expect(subscribed.value == 1)
        let second = refd.subscribe { _ in }
        #expect(subscribed.value == 1)
        first.dispose()
        #expect(!disconnected.value)
        second.dispose()
        #expect(disconnected.value)
        disconnected.value = false

        let third = refd.subscribe { _ in }
        #expect(subscribed.value == 2)
        #expect(!disconnected.value)
        third.dispose()
        #expect(disconnected.value)
    }

    @Test func errorReachesEverySubscriber() {
        let failing = Observable<Int>.create { observer in
            observer.onError(testError)
            return Disposables.create()
        }
        let res = failing.publish().refCount()
        let received = Shared<[Event<Int>]>([])
        _ = res.subscribe { received.append($0) }
        _ = res.subscribe { received.append($0) }
        #expect(received.value == [.error(testError), .error(testError)])
    }

    @Test func publishRefCount() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(210, 1), .next(220, 2), .next(230, 3), .next(240, 4), .next(250, 5), .next(260, 6),
            .next(270, 7), .next(280, 8), .next(290, 9), .completed(300),
        ])
        let res = xs.publish().refCount()
        let windows = [(215, 235), (225, 275), (255, 265), (285, 320)]
        let observers = windows.map { _ in scheduler.createObserver(Int.self) }
        for (index, (start, end)) in windows.enumerated() {
            let subscription = Shared<(any Disposable)?>(nil)
            scheduler.scheduleAt(start) { subscription.value = res.subscribe(observers[index]) }
            scheduler.scheduleAt(end) { subscription.value?.dispose() }
        }
        scheduler.start()
        #expect(observers[0].events == [.next(220, 2), .next(230, 3)])
        #expect(
            observers[1].events == [
                .next(230, 3), .next(240, 4), .next(250, 5), .next(260, 6), .next(270, 7),
            ])
        #expect(observers[2].events == [.next(260, 6)])
        #expect(observers[3].events == [.next(290, 9), .completed(300)])
        #expect(xs.subscriptions == [Subscription(215, 275), Subscription(285, 300)])
    }

    /// RxSwift's "synchronous resubscribing on a terminal event works": subscribers that subscribe
    /// again from their terminal handler start the next connection.
    @Test(arguments: [true, false])
    func synchronousResubscribingOnTerminalEventWorks(withError: Bool) {
        let scheduler = TestScheduler(initialClock: 0)
        let stops: [Event<Int>] =
            withError
            ? [.error(testError), .error(testError1), .error(testError2)]
            : [.completed, .completed, .completed]
        let sources = (0..<3).map { index in
            scheduler.createColdObservable([
                .next(10, index + 1), Recorded(time: 20 + 10 * index, value: stops[index]),
            ])
        }
        let attempts = Shared(0)
        let xs = Observable<Int>.create { observer in
            sources[min(attempts.increment() - 1, 2)].subscribe(observer)
        }
        let res = xs.multicast(makeSubject: { PublishSubject<Int>() }).refCount()
        let observers = (0..<3).map { _ in scheduler.createObserver(Int.self) }
        for (index, time) in [(0, 215), (1, 220)] {
            let observer = observers[index]
            scheduler.scheduleAt(time) {
                _ = res.subscribe { event in
                    observer.on(event)
                    if event.isStopEvent { _ = res.subscribe(observer) }
                }
            }
        }
        let third = observers[2]
        scheduler.scheduleAt(400) { _ = res.subscribe(third) }
        scheduler.start()

        let expected: [Recorded<Event<Int>>] = [
            .next(225, 1), Recorded(time: 235, value: stops[0]), .next(245, 2),
            Recorded(time: 265, value: stops[1]),
        ]
        #expect(observers[0].events == expected)
        #expect(observers[1].events == expected)
        #expect(observers[2].events == [.next(410, 3), Recorded(time: 440, value: stops[2])])
        #expect(sources[0].subscriptions == [Subscription(215, 235)])
        #expect(sources[1].subscriptions == [Subscription(235, 265)])
        #expect(sources[2].subscriptions == [Subscription(400, 440)])
    }

    @Test func noLeaks() {
        Resources.measure { scope in
            let just = Observable<Int>.create { observer in
                observer.onNext(1)
                observer.onCompleted()
                return Disposables.create()
            }
            _ = just.publish().refCount().subscribe(onNext: { _ in })
            let subject = PublishSubject<Int>()
            let shared = subject.publish().refCount()
            let first = shared.subscribe(onNext: { _ in })
            let second = shared.map { $0 }.subscribe(onNext: { _ in })
            subject.onNext(1)
            first.dispose()
            second.dispose()
            #expect(scope.total == 0)
        }
    }
}
