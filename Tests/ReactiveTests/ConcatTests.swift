import Foundation
import Reactive
import ReactiveTestKit
import Testing

/// A two-source scenario from RxSwift's concat tests (hot sources).
struct ConcatPairScenario: Sendable, CustomTestStringConvertible {
    let name: String
    let first: [Recorded<Event<Int>>]
    let second: [Recorded<Event<Int>>]
    let expected: [Recorded<Event<Int>>]
    let firstSubscriptions: [Subscription]
    let secondSubscriptions: [Subscription]

    var testDescription: String { name }
}

/// Every way to concatenate two sources.
private let concatFactories:
    [@Sendable (TestableObservable<Int>, TestableObservable<Int>) -> Observable<Int>] = [
        { a, b in Observable.concat([a, b].map { $0.asObservable() }) },
        { a, b in Observable.concat(a.asObservable(), b.asObservable()) },
        { a, b in Observable.concat(AnyCollection([a.asObservable(), b.asObservable()])) },
        { a, b in Observable.concat(AnySequence([a.asObservable(), b.asObservable()])) },
        { a, b in a.concat(b) },
    ]

private let concatScenarios: [ConcatPairScenario] = [
    .init(
        name: "empty, empty", first: [.next(150, 1), .completed(230)],
        second: [.next(150, 1), .completed(250)],
        expected: [.completed(250)],
        firstSubscriptions: [Subscription(200, 230)], secondSubscriptions: [Subscription(230, 250)]),
    .init(
        name: "empty, never", first: [.next(150, 1), .completed(230)], second: [.next(150, 1)], expected: [],
        firstSubscriptions: [Subscription(200, 230)], secondSubscriptions: [Subscription(230, 1000)]),
    .init(
        name: "never, never", first: [.next(150, 1)], second: [.next(150, 1)], expected: [],
        firstSubscriptions: [Subscription(200, 1000)], secondSubscriptions: []),
    .init(
        name: "empty, throw", first: [.next(150, 1), .completed(230)],
        second: [.next(150, 1), .error(250, testError)],
        expected: [.error(250, testError)],
        firstSubscriptions: [Subscription(200, 230)], secondSubscriptions: [Subscription(230, 250)]),
    .init(
        name: "throw, empty", first: [.next(150, 1), .error(230, testError)],
        second: [.next(150, 1), .completed(250)],
        expected: [.error(230, testError)],
        firstSubscriptions: [Subscription(200, 230)], secondSubscriptions: []),
    .init(
        name: "throw, throw", first: [.next(150, 1), .error(230, testError1)],
        second: [.next(150, 1), .error(250, testError2)], expected: [.error(230, testError1)],
        firstSubscriptions: [Subscription(200, 230)], secondSubscriptions: []),
    .init(
        name: "return, empty", first: [.next(150, 1), .next(210, 2), .completed(230)],
        second: [.next(150, 1), .completed(250)], expected: [.next(210, 2), .completed(250)],
        firstSubscriptions: [Subscription(200, 230)], secondSubscriptions: [Subscription(230, 250)]),
    .init(
        name: "empty, return", first: [.next(150, 1), .completed(230)],
        second: [.next(150, 1), .next(240, 2), .completed(250)], expected: [.next(240, 2), .completed(250)],
        firstSubscriptions: [Subscription(200, 230)], secondSubscriptions: [Subscription(230, 250)]),
    .init(
        name: "return, never", first: [.next(150, 1), .next(210, 2), .completed(230)],
        second: [.next(150, 1)],
        expected: [.next(210, 2)],
        firstSubscriptions: [Subscription(200, 230)], secondSubscriptions: [Subscription(230, 1000)]),
    .init(
        name: "never, return", first: [.next(150, 1)],
        second: [.next(150, 1), .next(210, 2), .completed(230)],
        expected: [],
        firstSubscriptions: [Subscription(200, 1000)], secondSubscriptions: []),
    .init(
        name: "return, return", first: [.next(150, 1), .next(220, 2), .completed(230)],
        second: [.next(150, 1), .next(240, 3), .completed(250)],
        expected: [.next(220, 2), .next(240, 3), .completed(250)],
        firstSubscriptions: [Subscription(200, 230)], secondSubscriptions: [Subscription(230, 250)]),
    .init(
        name: "throw, return", first: [.next(150, 1), .error(230, testError1)],
        second: [.next(150, 1), .next(240, 2), .completed(250)], expected: [.error(230, testError1)],
        firstSubscriptions: [Subscription(200, 230)], secondSubscriptions: []),
    .init(
        name: "return, throw", first: [.next(150, 1), .next(220, 2), .completed(230)],
        second: [.next(150, 1), .error(250, testError2)], expected: [.next(220, 2), .error(250, testError2)],
        firstSubscriptions: [Subscription(200, 230)], secondSubscriptions: [Subscription(230, 250)]),
    .init(
        name: "some data, some data", first: [.next(150, 1), .next(210, 2), .next(220, 3), .completed(225)],
        second: [.next(150, 1), .next(230, 4), .next(240, 5), .completed(250)],
        expected: [.next(210, 2), .next(220, 3), .next(230, 4), .next(240, 5), .completed(250)],
        firstSubscriptions: [Subscription(200, 225)], secondSubscriptions: [Subscription(225, 250)]),
]

@Suite(.timeLimit(.minutes(1)))
struct ConcatTests {
    // MARK: A list of sources

    @Test(arguments: concatScenarios)
    func twoSources(_ scenario: ConcatPairScenario) {
        for factory in concatFactories {
            let scheduler = TestScheduler(initialClock: 0)
            let first = scheduler.createHotObservable(scenario.first)
            let second = scheduler.createHotObservable(scenario.second)
            let res = scheduler.start { factory(first, second) }
            #expect(res.events == scenario.expected)
            #expect(first.subscriptions == scenario.firstSubscriptions)
            #expect(second.subscriptions == scenario.secondSubscriptions)
        }
    }

    @Test func subscribesEachSourceWhenThePreviousCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs1 = scheduler.createColdObservable([.next(10, 1), .next(20, 2), .next(30, 3), .completed(40)])
        let xs2 = scheduler.createColdObservable([.next(10, 4), .next(20, 5), .completed(30)])
        let xs3 = scheduler.createColdObservable([
            .next(10, 6), .next(20, 7), .next(30, 8), .next(40, 9), .completed(50),
        ])
        let res = scheduler.start { Observable.concat([xs1, xs2, xs3].map { $0.asObservable() }) }
        #expect(
            res.events == [
                .next(210, 1), .next(220, 2), .next(230, 3), .next(250, 4), .next(260, 5), .next(280, 6),
                .next(290, 7), .next(300, 8), .next(310, 9), .completed(320),
            ])
        #expect(xs1.subscriptions == [Subscription(200, 240)])
        #expect(xs2.subscriptions == [Subscription(240, 270)])
        #expect(xs3.subscriptions == [Subscription(270, 320)])
    }

    @Test func resubscribesARepeatedSource() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs1 = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(220, 3), .completed(230),
        ])
        let xs2 = scheduler.createColdObservable([.next(50, 4), .next(60, 5), .next(70, 6), .completed(80)])
        let xs3 = scheduler.createHotObservable([
            .next(150, 1), .next(200, 2), .next(210, 3), .next(220, 4), .next(230, 5), .next(270, 6),
            .next(320, 7), .next(330, 8), .completed(340),
        ])
        let res = scheduler.start { Observable.concat([xs1, xs2, xs3, xs2].map { $0.asObservable() }) }
        #expect(
            res.events == [
                .next(210, 2), .next(220, 3), .next(280, 4), .next(290, 5), .next(300, 6), .next(320, 7),
                .next(330, 8), .next(390, 4), .next(400, 5), .next(410, 6), .completed(420),
            ])
        #expect(xs1.subscriptions == [Subscription(200, 230)])
        #expect(xs2.subscriptions == [Subscription(230, 310), Subscription(340, 420)])
        #expect(xs3.subscriptions == [Subscription(310, 340)])
    }

    @Test func disposedEarly() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs1 = scheduler.createColdObservable([.next(10, 1), .completed(20)])
        let xs2 = scheduler.createColdObservable([.next(10, 2), .next(20, 3), .completed(30)])
        let res = scheduler.start(disposed: 235) { xs1.concat(xs2) }
        #expect(res.events == [.next(210, 1), .next(230, 2)])
        #expect(xs1.subscriptions == [Subscription(200, 220)])
        #expect(xs2.subscriptions == [Subscription(220, 235)])
    }

    @Test func concatOfNothingCompletesAtOnce() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable<Int>.concat([]) }
        #expect(res.events == [.completed(200)])
    }

    @Test func synchronousSources() {
        let values = Shared<[Int]>([])
        _ = Observable.concat(
            syncEvents(.next(1), .completed), syncEvents(.next(2), .completed),
            syncEvents(.next(3), .completed)
        )
        .subscribe(onNext: { values.append($0) })
        #expect(values.value == [1, 2, 3])
        let single = Shared<[Int]>([])
        _ = Observable.concat(syncEvents(.next(1), .completed)).subscribe(onNext: { single.append($0) })
        #expect(single.value == [1])
    }

    // MARK: Long synchronous chains

    @Test func manySynchronousSourcesRunWithAFlatStack() {
        let count = 100_000
        let sources = (0..<count).map { value in syncEvents(.next(value), .completed) }
        let sum = Shared(0)
        let completed = Shared(false)
        _ = Observable.concat(sources).subscribe(
            onNext: { value in sum.mutate { $0 += value } }, onCompleted: { completed.value = true })
        #expect(sum.value == count * (count - 1) / 2)
        #expect(completed.value)
    }

    /// `concat(0, concat(1, concat(2, …)))`, each level built when it is subscribed.
    private static func nested(from start: Int, to end: Int) -> Observable<Int> {
        guard start < end else { return syncEvents(.completed) }
        return Observable.concat(
            syncEvents(.next(start), .completed),
            Observable.create { observer in nested(from: start + 1, to: end).subscribe(observer) })
    }

    /// Moving between sources never nests, but an element of level k still passes through the k
    /// sinks above it (RxSwift flattens directly nested concats; see the guide), so this stays shallow.
    @Test func nestedConcatenations() {
        let depth = 300
        let values = Shared<[Int]>([])
        let completed = Shared(false)
        _ = Self.nested(from: 0, to: depth).subscribe(
            onNext: { values.append($0) }, onCompleted: { completed.value = true })
        #expect(values.value == Array(0..<depth))
        #expect(completed.value)
    }

    @Test func manyWaitingSynchronousInnersRunWithAFlatStack() {
        let count = 100_000
        let outer = PublishSubject<Observable<Int>>()
        let gate = PublishSubject<Int>()
        let sum = Shared(0)
        let completed = Shared(false)
        _ = outer.concat().subscribe(
            onNext: { value in sum.mutate { $0 += value } }, onCompleted: { completed.value = true })
        outer.onNext(gate.asObservable())
        for value in 0..<count { outer.onNext(syncEvents(.next(value), .completed)) }
        outer.onCompleted()
        gate.onCompleted()
        #expect(sum.value == count * (count - 1) / 2)
        #expect(completed.value)
    }

    // MARK: concat() over a sequence of sequences

    @Test func innerCompletingBeforeTheNextArrives() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys1 = scheduler.createColdObservable([.next(10, 102), .completed(20)])
        let ys2 = scheduler.createColdObservable([.next(20, 202), .completed(25)])
        let xs = scheduler.createHotObservable([.next(250, ys1), .next(300, ys2), .completed(900)])
        let res = scheduler.start { xs.concat() }
        #expect(res.events == [.next(260, 102), .next(320, 202), .completed(900)])
        #expect(xs.subscriptions == [Subscription(200, 900)])
        #expect(ys1.subscriptions == [Subscription(250, 270)])
        #expect(ys2.subscriptions == [Subscription(300, 325)])
    }

    @Test func innersDisposedEarly() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys1 = scheduler.createColdObservable([.next(10, 102), .completed(20)])
        let ys2 = scheduler.createColdObservable([.next(20, 202), .completed(25)])
        let xs = scheduler.createHotObservable([.next(250, ys1), .next(300, ys2), .completed(900)])
        let res = scheduler.start(disposed: 310) { xs.concat() }
        #expect(res.events == [.next(260, 102)])
        #expect(xs.subscriptions == [Subscription(200, 310)])
        #expect(ys1.subscriptions == [Subscription(250, 270)])
        #expect(ys2.subscriptions == [Subscription(300, 310)])
    }

    /// RxSwift's concatMap scenario: five inner sequences, the first long enough that the rest wait.
    private struct WaitingInners {
        let scheduler = TestScheduler(initialClock: 0)
        let ys: [TestableObservable<Int>]

        init(firstErrors: Bool = false, secondEnd: TestTime? = 205) {
            ys = [
                scheduler.createColdObservable([
                    .next(10, 102), .next(90, 103), .next(110, 104), .next(190, 105), .next(440, 106),
                    firstErrors ? .error(460, testError) : .completed(460),
                ]),
                scheduler.createColdObservable(
                    [.next(180, 202), .next(190, 203)] + (secondEnd.map { [.completed($0)] } ?? [])),
                scheduler.createColdObservable([.next(10, 301), .next(50, 302), .completed(60)]),
                scheduler.createColdObservable([.completed(40)]),
                scheduler.createColdObservable([.next(80, 401), .next(90, 402), .completed(100)]),
            ]
        }

        func outer(
            count: Int = 5, end: Recorded<Event<TestableObservable<Int>>>?
        ) -> TestableObservable<TestableObservable<Int>> {
            let times = [300, 400, 550, 750, 850]
            return scheduler.createHotObservable(
                (0..<count).map { Recorded.next(times[$0], ys[$0]) } + (end.map { [$0] } ?? []))
        }

        static let firstElements: [Recorded<Event<Int>>] = [
            .next(310, 102), .next(390, 103), .next(410, 104), .next(490, 105), .next(740, 106),
        ]
    }

    @Test func outerCompletesWhileAnInnerNeverDoes() {
        let s = WaitingInners(secondEnd: nil)
        let xs = s.outer(end: .completed(900))
        let res = s.scheduler.start { xs.concat() }
        #expect(res.events == WaitingInners.firstElements + [.next(940, 202), .next(950, 203)])
        #expect(xs.subscriptions == [Subscription(200, 900)])
        #expect(
            s.ys.map(\.subscriptions) == [[Subscription(300, 760)], [Subscription(760, 1000)], [], [], []])
    }

    @Test func innersCompleteWhileTheOuterNeverDoes() {
        let s = WaitingInners()
        let xs = s.outer(count: 2, end: nil)
        let res = s.scheduler.start { xs.concat() }
        #expect(res.events == WaitingInners.firstElements + [.next(940, 202), .next(950, 203)])
        #expect(xs.subscriptions == [Subscription(200, 1000)])
        #expect(s.ys[0].subscriptions == [Subscription(300, 760)])
        #expect(s.ys[1].subscriptions == [Subscription(760, 965)])
    }

    @Test func completesWithTheLastInnerWhenTheOuterIsDone() {
        let s = WaitingInners(secondEnd: 195)
        let xs = s.outer(count: 2, end: .completed(405))
        let res = s.scheduler.start { xs.concat() }
        #expect(
            res.events == WaitingInners.firstElements + [.next(940, 202), .next(950, 203), .completed(955)])
        #expect(xs.subscriptions == [Subscription(200, 405)])
        #expect(s.ys[0].subscriptions == [Subscription(300, 760)])
        #expect(s.ys[1].subscriptions == [Subscription(760, 955)])
    }

    @Test func completesWithTheOuterWhenTheInnersAreDone() {
        let s = WaitingInners(secondEnd: 195)
        let xs = s.outer(count: 2, end: .completed(980))
        let res = s.scheduler.start { xs.concat() }
        #expect(
            res.events == WaitingInners.firstElements + [.next(940, 202), .next(950, 203), .completed(980)])
        #expect(xs.subscriptions == [Subscription(200, 980)])
        #expect(s.ys[0].subscriptions == [Subscription(300, 760)])
        #expect(s.ys[1].subscriptions == [Subscription(760, 955)])
    }

    @Test func outerErrorDisposesTheRunningInner() {
        let s = WaitingInners()
        let xs = s.outer(end: .error(900, testError))
        let res = s.scheduler.start { xs.concat() }
        #expect(res.events == WaitingInners.firstElements + [.error(900, testError)])
        #expect(xs.subscriptions == [Subscription(200, 900)])
        #expect(
            s.ys.map(\.subscriptions) == [[Subscription(300, 760)], [Subscription(760, 900)], [], [], []])
    }

    @Test func innerErrorDisposesEverything() {
        let s = WaitingInners(firstErrors: true)
        let xs = s.outer(end: .completed(900))
        let res = s.scheduler.start { xs.concat() }
        #expect(
            res.events == Array(WaitingInners.firstElements.prefix(4)) + [
                .next(740, 106), .error(760, testError),
            ])
        #expect(xs.subscriptions == [Subscription(200, 760)])
        #expect(s.ys.map(\.subscriptions) == [[Subscription(300, 760)], [], [], [], []])
    }

    // MARK: Threads and resources

    /// A source that emits `values` and completes on a thread of its own.
    private static func threaded(_ values: Range<Int>) -> Observable<Int> {
        Observable.create { observer in
            let thread = Thread {
                for value in values { observer.onNext(value) }
                observer.onCompleted()
            }
            thread.start()
            return Disposables.create()
        }
    }

    @Test func sourcesOnTheirOwnThreadsStayInOrder() {
        let recorder = ConcurrentRecorder<Int>()
        let subscription = Observable.concat(
            Self.threaded(0..<1_000), Self.threaded(1_000..<2_000), Self.threaded(2_000..<3_000)
        )
        .subscribe(recorder)
        #expect(recorder.waitForTerminalEvent())
        #expect(recorder.violations == [])
        #expect(recorder.events.compactMap(\.element) == Array(0..<3_000))
        #expect(recorder.events.last?.isCompleted == true)
        subscription.dispose()
    }

    @Test func releasesEverything() {
        Resources.measure { scope in
            let first = PublishSubject<Int>()
            let second = PublishSubject<Int>()
            _ = first.concat(second).subscribe(onNext: { _ in })
            first.onNext(1)
            first.onCompleted()
            #expect(scope.total == 2)
            second.onCompleted()
            #expect(scope.total == 0)

            let third = PublishSubject<Int>()
            _ = Observable.concat(third.asObservable(), second.asObservable()).subscribe(onNext: { _ in })
            third.onError(testError)
            #expect(scope.total == 0)

            let subscription = Observable.concat(third.asObservable(), second.asObservable())
                .subscribe(onNext: { _ in })
            subscription.dispose()
            #expect(scope.total == 0)

            let outer = PublishSubject<Observable<Int>>()
            let inners = outer.concat().subscribe(onNext: { _ in })
            outer.onNext(PublishSubject<Int>().asObservable())
            outer.onNext(PublishSubject<Int>().asObservable())
            inners.dispose()
            #expect(scope.total == 0)
        }
    }
}
