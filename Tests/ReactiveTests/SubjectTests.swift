import Dispatch
import Reactive
import ReactiveTestKit
import Testing

/// The subjects, as the shared scenarios below see them.
private protocol ScenarioSubject: SubjectType, ObserverType where Element == Int {
    var hasObservers: Bool { get }
}

extension PublishSubject<Int>: ScenarioSubject {}
extension BehaviorSubject<Int>: ScenarioSubject {}
extension ReplaySubject<Int>: ScenarioSubject {}

/// RxSwift's subject scenario: the subject subscribes to `xs` at 200 (until 1000); observer 1 from
/// 300 to 600, observer 2 from 400 to 700, observer 3 from 900 to 950.
private func runScenario(
    _ scheduler: TestScheduler, _ xs: TestableObservable<Int>, _ subject: some ScenarioSubject
) -> [TestableObserver<Int>] {
    let results = (0..<3).map { _ in scheduler.createObserver(Int.self) }
    let source = Shared<(any Disposable)?>(nil)
    let subscriptions = (0..<3).map { _ in Shared<(any Disposable)?>(nil) }
    scheduler.scheduleAt(200) { source.value = xs.subscribe(subject) }
    scheduler.scheduleAt(1000) { source.value?.dispose() }
    for (index, time) in [300, 400, 900].enumerated() {
        scheduler.scheduleAt(time) { subscriptions[index].value = subject.subscribe(results[index]) }
    }
    for (index, time) in [(0, 600), (1, 700), (0, 800), (2, 950)] {
        scheduler.scheduleAt(time) { subscriptions[index].value?.dispose() }
    }
    scheduler.start()
    return results
}

/// RxSwift's `hasObservers` scenario: three observers subscribe at 300–302 and leave at 400–420.
private func checkHasObservers(_ subject: some ScenarioSubject) {
    let scheduler = TestScheduler(initialClock: 0)
    let subscriptions = (0..<3).map { _ in Shared<(any Disposable)?>(nil) }
    let seen = Shared<[Bool]>([])
    for time in [250, 350, 405, 415, 450] {
        scheduler.scheduleAt(time) { seen.append(subject.hasObservers) }
    }
    for index in 0..<3 {
        let observer = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(300 + index) { subscriptions[index].value = subject.subscribe(observer) }
        scheduler.scheduleAt(400 + 10 * index) { subscriptions[index].value?.dispose() }
    }
    scheduler.start()
    #expect(seen.value == [false, true, true, true, false])
}

private let infiniteEvents: [Recorded<Event<Int>>] = [
    .next(70, 1), .next(110, 2), .next(220, 3), .next(270, 4), .next(340, 5), .next(410, 6),
    .next(520, 7), .next(630, 8), .next(710, 9), .next(870, 10), .next(940, 11), .next(1020, 12),
]

private func finiteEvents(_ stop: Recorded<Event<Int>>) -> [Recorded<Event<Int>>] {
    [
        .next(70, 1), .next(110, 2), .next(220, 3), .next(270, 4), .next(340, 5), .next(410, 6),
        .next(520, 7), stop, .next(640, 9), .completed(650), .error(660, testError),
    ]
}

@Suite(.timeLimit(.minutes(1)))
struct PublishSubjectTests {
    @Test func infinite() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable(infiniteEvents)
        let res = runScenario(scheduler, xs, PublishSubject<Int>())
        #expect(res[0].events == [.next(340, 5), .next(410, 6), .next(520, 7)])
        #expect(res[1].events == [.next(410, 6), .next(520, 7), .next(630, 8)])
        #expect(res[2].events == [.next(940, 11)])
        #expect(xs.subscriptions == [Subscription(200, 1000)])
    }

    @Test func finite() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable(finiteEvents(.completed(630)))
        let res = runScenario(scheduler, xs, PublishSubject<Int>())
        #expect(res[0].events == [.next(340, 5), .next(410, 6), .next(520, 7)])
        #expect(res[1].events == [.next(410, 6), .next(520, 7), .completed(630)])
        #expect(res[2].events == [.completed(900)])
        #expect(xs.subscriptions == [Subscription(200, 1000)])
    }

    @Test func error() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable(finiteEvents(.error(630, testError)))
        let res = runScenario(scheduler, xs, PublishSubject<Int>())
        #expect(res[0].events == [.next(340, 5), .next(410, 6), .next(520, 7)])
        #expect(res[1].events == [.next(410, 6), .next(520, 7), .error(630, testError)])
        #expect(res[2].events == [.error(900, testError)])
    }

    @Test func hasObservers() {
        checkHasObservers(PublishSubject<Int>())
    }

    @Test func disposedSubjectRejectsSubscribers() {
        let subject = PublishSubject<Int>()
        subject.dispose()
        let received = Shared<[Event<Int>]>([])
        _ = subject.subscribe { received.append($0) }
        subject.onNext(1)
        #expect(received.value == [.error(RxError.disposed)])
        #expect(subject.isDisposed)
    }
}

@Suite(.timeLimit(.minutes(1)))
struct BehaviorSubjectTests {
    @Test func infinite() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable(infiniteEvents)
        let res = runScenario(scheduler, xs, BehaviorSubject(value: 100))
        #expect(res[0].events == [.next(300, 4), .next(340, 5), .next(410, 6), .next(520, 7)])
        #expect(res[1].events == [.next(400, 5), .next(410, 6), .next(520, 7), .next(630, 8)])
        #expect(res[2].events == [.next(900, 10), .next(940, 11)])
        #expect(xs.subscriptions == [Subscription(200, 1000)])
    }

    @Test func finite() throws {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable(finiteEvents(.completed(630)))
        let subject = BehaviorSubject(value: 100)
        let res = runScenario(scheduler, xs, subject)
        #expect(res[0].events == [.next(300, 4), .next(340, 5), .next(410, 6), .next(520, 7)])
        #expect(res[1].events == [.next(400, 5), .next(410, 6), .next(520, 7), .completed(630)])
        #expect(res[2].events == [.completed(900)])
        #expect(try subject.value() == 7)
    }

    @Test func error() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable(finiteEvents(.error(630, testError)))
        let subject = BehaviorSubject(value: 100)
        let res = runScenario(scheduler, xs, subject)
        #expect(res[0].events == [.next(300, 4), .next(340, 5), .next(410, 6), .next(520, 7)])
        #expect(res[1].events == [.next(400, 5), .next(410, 6), .next(520, 7), .error(630, testError)])
        #expect(res[2].events == [.error(900, testError)])
        #expect(throws: TestError.self) { try subject.value() }
    }

    @Test func canceled() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .completed(630), .next(640, 9), .completed(650), .error(660, testError),
        ])
        let res = runScenario(scheduler, xs, BehaviorSubject(value: 100))
        #expect(res[0].events == [.next(300, 100)])
        #expect(res[1].events == [.next(400, 100), .completed(630)])
        #expect(res[2].events == [.completed(900)])
    }

    @Test func hasObservers() {
        checkHasObservers(BehaviorSubject(value: 100))
    }

    @Test func valueFollowsElements() throws {
        let subject = BehaviorSubject(value: 1)
        #expect(try subject.value() == 1)
        subject.onNext(2)
        #expect(try subject.value() == 2)
        subject.onCompleted()
        subject.onNext(3)
        #expect(try subject.value() == 2)
    }

    @Test func disposeRejectsEverything() {
        let subject = BehaviorSubject(value: 1)
        let received = Shared<[Event<Int>]>([])
        _ = subject.subscribe { received.append($0) }
        subject.dispose()
        subject.onNext(2)
        #expect(subject.isDisposed)
        #expect(!subject.hasObservers)
        #expect(throws: RxError.disposed) { try subject.value() }
        _ = subject.subscribe { received.append($0) }
        #expect(received.value == [.next(1), .error(RxError.disposed)])
    }

    /// As in RxSwift, a terminal event leaves the observers subscribed until they leave.
    @Test func terminalEventKeepsObserversUntilTheyLeave() {
        let subject = BehaviorSubject(value: 1)
        // A raw observer: `subscribe(onNext:…)` would end its own subscription at the terminal event.
        let subscription = subject.subscribe(AnyObserver<Int> { _ in })
        subject.onCompleted()
        #expect(subject.hasObservers)
        subscription.dispose()
        #expect(!subject.hasObservers)
    }

    /// A subscriber that feeds the subject from its replay handler sees the replayed value first.
    @Test func reentrantEmissionDuringReplayIsOrdered() throws {
        let subject = BehaviorSubject(value: 0)
        let received = Shared<[Int]>([])
        _ = subject.subscribe(onNext: { value in
            received.append(value)
            if value < 3 { subject.onNext(value + 1) }
        })
        #expect(received.value == [0, 1, 2, 3])
        #expect(try subject.value() == 3)
    }

    /// Subscribing while another thread emits: every subscriber sees the value current when it
    /// subscribed, then every later element, in order and without gaps.
    @Test func concurrentSubscribersSeeContiguousValues() {
        let subject = BehaviorSubject(value: -1)
        let last = 5_000
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            for value in 0...last { subject.onNext(value) }
            subject.onCompleted()
            done.signal()
        }
        var logs: [Shared<[Int]>] = []
        var subscriptions: [any Disposable] = []
        for _ in 0..<50 {
            let log = Shared<[Int]>([])
            logs.append(log)
            subscriptions.append(subject.subscribe(onNext: { log.append($0) }))
        }
        #expect(done.wait(timeout: .now() + 30) == .success)
        for log in logs {
            let values = log.value
            // Empty only for a subscriber that arrived after completion (it gets just `.completed`).
            #expect(values.isEmpty || values.last == last)
            #expect(zip(values, values.dropFirst()).allSatisfy { $0 + 1 == $1 })
        }
        subscriptions.forEach { $0.dispose() }
    }
}

@Suite(.timeLimit(.minutes(1)))
struct ReplaySubjectTests {
    @Test func hasObservers() {
        checkHasObservers(ReplaySubject<Int>.create(bufferSize: 1))
    }

    @Test func noEvents() {
        let scheduler = TestScheduler(initialClock: 0)
        let subject = ReplaySubject<Int>.create(bufferSize: 3)
        let result = scheduler.createObserver(Int.self)
        _ = subject.subscribe(result)
        #expect(result.events.isEmpty)
    }

    /// RxSwift's replay scenario: elements at 150…350 (or some of them), a terminal event and a
    /// subscriber at the given times.
    private func run(
        _ subject: ReplaySubject<Int>, elements: [(TestTime, Int)], stop: (TestTime, Event<Int>)? = nil,
        subscribeAt: TestTime
    ) -> [Recorded<Event<Int>>] {
        let scheduler = TestScheduler(initialClock: 0)
        let result = scheduler.createObserver(Int.self)
        let subscription = Shared<(any Disposable)?>(nil)
        for (time, value) in elements { scheduler.scheduleAt(time) { subject.onNext(value) } }
        if let (time, event) = stop { scheduler.scheduleAt(time) { subject.on(event) } }
        scheduler.scheduleAt(subscribeAt) { subscription.value = subject.subscribe(result) }
        scheduler.scheduleAt(550) { subscription.value?.dispose() }
        scheduler.start()
        return result.events
    }

    private let fiveElements: [(TestTime, Int)] = [(150, 1), (200, 2), (250, 3), (300, 4), (350, 5)]

    @Test func fewerEventsThanBufferSize() {
        let events = run(.create(bufferSize: 3), elements: [(150, 1), (200, 2)], subscribeAt: 300)
        #expect(events == [.next(300, 1), .next(300, 2)])
    }

    @Test func moreEventsThanBufferSize() {
        let events = run(.create(bufferSize: 3), elements: fiveElements, subscribeAt: 400)
        #expect(events == [.next(400, 3), .next(400, 4), .next(400, 5)])
    }

    @Test func moreEventsThanBufferSizeMultipleObservers() {
        let scheduler = TestScheduler(initialClock: 0)
        let subject = ReplaySubject<Int>.create(bufferSize: 3)
        let result1 = scheduler.createObserver(Int.self)
        let result2 = scheduler.createObserver(Int.self)
        let subscriptions = Shared<[any Disposable]>([])
        scheduler.scheduleAt(150) { subscriptions.append(subject.subscribe(result1)) }
        for (time, value) in [(200, 1), (250, 2), (300, 3), (350, 4), (400, 5)] {
            scheduler.scheduleAt(time) { subject.onNext(value) }
        }
        scheduler.scheduleAt(450) { subscriptions.append(subject.subscribe(result2)) }
        scheduler.scheduleAt(550) { subscriptions.value.forEach { $0.dispose() } }
        scheduler.start()
        #expect(
            result1.events == [
                .next(200, 1), .next(250, 2), .next(300, 3), .next(350, 4), .next(400, 5),
            ])
        #expect(result2.events == [.next(450, 3), .next(450, 4), .next(450, 5)])
        #expect(!subject.hasObservers)
    }

    @Test func subscribingBeforeComplete() {
        let events = run(
            .create(bufferSize: 3), elements: fiveElements, stop: (450, .completed), subscribeAt: 400)
        #expect(events == [.next(400, 3), .next(400, 4), .next(400, 5), .completed(450)])
    }

    @Test func subscribingAfterComplete() {
        let events = run(
            .create(bufferSize: 3), elements: fiveElements, stop: (400, .completed), subscribeAt: 450)
        #expect(events == [.next(450, 3), .next(450, 4), .next(450, 5), .completed(450)])
    }

    @Test func subscribingBeforeError() {
        let events = run(
            .create(bufferSize: 3), elements: fiveElements, stop: (450, .error(testError)),
            subscribeAt: 400)
        #expect(events == [.next(400, 3), .next(400, 4), .next(400, 5), .error(450, testError)])
    }

    @Test func subscribingAfterError() {
        let events = run(
            .create(bufferSize: 3), elements: fiveElements, stop: (400, .error(testError)),
            subscribeAt: 450)
        #expect(events == [.next(450, 3), .next(450, 4), .next(450, 5), .error(450, testError)])
    }

    @Test func unboundedReplaysEverything() {
        let events = run(
            .createUnbounded(), elements: fiveElements, stop: (400, .completed), subscribeAt: 450)
        #expect(
            events == [
                .next(450, 1), .next(450, 2), .next(450, 3), .next(450, 4), .next(450, 5), .completed(450),
            ])
    }

    @Test func zeroBufferReplaysOnlyTheTerminalEvent() {
        let events = run(
            .create(bufferSize: 0), elements: fiveElements, stop: (400, .completed), subscribeAt: 450)
        #expect(events == [.completed(450)])
    }

    @Test func disposeEmptiesAndRejects() {
        let subject = ReplaySubject<Int>.create(bufferSize: 2)
        subject.onNext(1)
        let received = Shared<[Event<Int>]>([])
        _ = subject.subscribe { received.append($0) }
        subject.dispose()
        subject.onNext(2)
        _ = subject.subscribe { received.append($0) }
        #expect(received.value == [.next(1), .error(RxError.disposed)])
        #expect(subject.isDisposed)
        #expect(!subject.hasObservers)
    }

    /// Subscribing while another thread emits: after its replay each subscriber sees every later
    /// element once, in order.
    @Test func concurrentSubscribersSeeContiguousValues() {
        let subject = ReplaySubject<Int>.create(bufferSize: 4)
        let last = 5_000
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            for value in 0...last { subject.onNext(value) }
            subject.onCompleted()
            done.signal()
        }
        var logs: [Shared<[Int]>] = []
        for _ in 0..<50 {
            let log = Shared<[Int]>([])
            logs.append(log)
            _ = subject.subscribe(onNext: { log.append($0) })
        }
        #expect(done.wait(timeout: .now() + 30) == .success)
        for log in logs {
            let values = log.value
            #expect(values.last == last)
            #expect(zip(values, values.dropFirst()).allSatisfy { $0 + 1 == $1 })
        }
    }
}
