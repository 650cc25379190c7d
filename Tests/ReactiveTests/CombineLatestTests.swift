import Reactive
import ReactiveTestKit
import Testing

/// A two-source scenario from RxSwift's combineLatest tests.
struct CombineLatestPairScenario: Sendable, CustomTestStringConvertible {
    let name: String
    let first: [Recorded<Event<Int>>]
    let second: [Recorded<Event<Int>>]
    let expected: [Recorded<Event<Int>>]
    let firstSubscriptions: [Subscription]
    let secondSubscriptions: [Subscription]
    var disposed: TestTime = 1000

    var testDescription: String { name }
}

/// Every way to combine two `Int` sources into their sum.
private let pairFactories: [@Sendable (TestableObservable<Int>, TestableObservable<Int>) -> Observable<Int>] =
    [
        { a, b in Observable.combineLatest(a, b) { $0 + $1 } },
        { a, b in Observable.combineLatest(a, b).map { $0 + $1 } },
        { a, b in Observable.combineLatest([a, b]) { $0.reduce(0, +) } },
        { a, b in Observable.combineLatest([a, b]).map { $0.reduce(0, +) } },
    ]

private let pairScenarios: [CombineLatestPairScenario] = [
    .init(
        name: "never, empty", first: [.next(150, 1)], second: [.next(150, 1), .completed(210)], expected: [],
        firstSubscriptions: [Subscription(200, 1000)], secondSubscriptions: [Subscription(200, 210)]),
    .init(
        name: "empty, never", first: [.next(150, 1), .completed(210)], second: [.next(150, 1)], expected: [],
        firstSubscriptions: [Subscription(200, 210)], secondSubscriptions: [Subscription(200, 1000)]),
    .init(
        name: "empty, return", first: [.next(150, 1), .completed(210)],
        second: [.next(150, 1), .next(215, 2), .completed(220)], expected: [.completed(215)],
        firstSubscriptions: [Subscription(200, 210)], secondSubscriptions: [Subscription(200, 215)]),
    .init(
        name: "return, empty", first: [.next(150, 1), .next(215, 2), .completed(220)],
        second: [.next(150, 1), .completed(210)], expected: [.completed(215)],
        firstSubscriptions: [Subscription(200, 215)], secondSubscriptions: [Subscription(200, 210)]),
    .init(
        name: "never, return", first: [.next(150, 1), .next(215, 2), .completed(220)],
        second: [.next(150, 1)],
        expected: [],
        firstSubscriptions: [Subscription(200, 220)], secondSubscriptions: [Subscription(200, 1000)]),
    .init(
        name: "return, never", first: [.next(150, 1)],
        second: [.next(150, 1), .next(215, 2), .completed(220)],
        expected: [],
        firstSubscriptions: [Subscription(200, 1000)], secondSubscriptions: [Subscription(200, 220)]),
    .init(
        name: "return, return (1)", first: [.next(150, 1), .next(215, 2), .completed(230)],
        second: [.next(150, 1), .next(220, 3), .completed(240)], expected: [.next(220, 5), .completed(240)],
        firstSubscriptions: [Subscription(200, 230)], secondSubscriptions: [Subscription(200, 240)]),
    .init(
        name: "return, return (2)", first: [.next(150, 1), .next(220, 3), .completed(240)],
        second: [.next(150, 1), .next(215, 2), .completed(230)], expected: [.next(220, 5), .completed(240)],
        firstSubscriptions: [Subscription(200, 240)], secondSubscriptions: [Subscription(200, 230)]),
    .init(
        name: "empty, error", first: [.next(150, 1), .completed(230)],
        second: [.next(150, 1), .error(220, testError)],
        expected: [.error(220, testError)],
        firstSubscriptions: [Subscription(200, 220)], secondSubscriptions: [Subscription(200, 220)]),
    .init(
        name: "error, empty", first: [.next(150, 1), .error(220, testError)],
        second: [.next(150, 1), .completed(230)],
        expected: [.error(220, testError)],
        firstSubscriptions: [Subscription(200, 220)], secondSubscriptions: [Subscription(200, 220)]),
    .init(
        name: "return, throw", first: [.next(150, 1), .next(210, 2), .completed(230)],
        second: [.next(150, 1), .error(220, testError)], expected: [.error(220, testError)],
        firstSubscriptions: [Subscription(200, 220)], secondSubscriptions: [Subscription(200, 220)]),
    .init(
        name: "throw, return", first: [.next(150, 1), .error(220, testError)],
        second: [.next(150, 1), .next(210, 2), .completed(230)], expected: [.error(220, testError)],
        firstSubscriptions: [Subscription(200, 220)], secondSubscriptions: [Subscription(200, 220)]),
    .init(
        name: "throw, throw (1)", first: [.next(150, 1), .error(220, testError1)],
        second: [.next(150, 1), .error(230, testError2)], expected: [.error(220, testError1)],
        firstSubscriptions: [Subscription(200, 220)], secondSubscriptions: [Subscription(200, 220)]),
    .init(
        name: "throw, throw (2)", first: [.next(150, 1), .error(230, testError1)],
        second: [.next(150, 1), .error(220, testError2)], expected: [.error(220, testError2)],
        firstSubscriptions: [Subscription(200, 220)], secondSubscriptions: [Subscription(200, 220)]),
    .init(
        name: "error, throw", first: [.next(150, 1), .next(210, 2), .error(220, testError1)],
        second: [.next(150, 1), .error(230, testError2)], expected: [.error(220, testError1)],
        firstSubscriptions: [Subscription(200, 220)], secondSubscriptions: [Subscription(200, 220)]),
    .init(
        name: "throw, error", first: [.next(150, 1), .error(230, testError2)],
        second: [.next(150, 1), .next(210, 2), .error(220, testError1)], expected: [.error(220, testError1)],
        firstSubscriptions: [Subscription(200, 220)], secondSubscriptions: [Subscription(200, 220)]),
    .init(
        name: "some, throw", first: [.next(150, 1), .next(215, 2), .completed(230)],
        second: [.next(150, 1), .error(220, testError)], expected: [.error(220, testError)],
        firstSubscriptions: [Subscription(200, 220)], secondSubscriptions: [Subscription(200, 220)]),
    .init(
        name: "throw, some", first: [.next(150, 1), .error(220, testError)],
        second: [.next(150, 1), .next(215, 2), .completed(230)], expected: [.error(220, testError)],
        firstSubscriptions: [Subscription(200, 220)], secondSubscriptions: [Subscription(200, 220)]),
    .init(
        name: "throw after the left completed", first: [.next(150, 1), .next(215, 2), .completed(220)],
        second: [.next(150, 1), .error(230, testError)], expected: [.error(230, testError)],
        firstSubscriptions: [Subscription(200, 220)], secondSubscriptions: [Subscription(200, 230)]),
    .init(
        name: "throw after the right completed", first: [.next(150, 1), .error(230, testError)],
        second: [.next(150, 1), .next(215, 2), .completed(220)], expected: [.error(230, testError)],
        firstSubscriptions: [Subscription(200, 230)], secondSubscriptions: [Subscription(200, 220)]),
    .init(
        name: "interleaved with tail", first: [.next(150, 1), .next(215, 2), .next(225, 4), .completed(230)],
        second: [.next(150, 1), .next(220, 3), .next(230, 5), .next(235, 6), .next(240, 7), .completed(250)],
        expected: [
            .next(220, 5), .next(225, 7), .next(230, 9), .next(235, 10), .next(240, 11), .completed(250),
        ],
        firstSubscriptions: [Subscription(200, 230)], secondSubscriptions: [Subscription(200, 250)]),
    .init(
        name: "consecutive", first: [.next(150, 1), .next(215, 2), .next(225, 4), .completed(230)],
        second: [.next(150, 1), .next(235, 6), .next(240, 7), .completed(250)],
        expected: [.next(235, 10), .next(240, 11), .completed(250)],
        firstSubscriptions: [Subscription(200, 230)], secondSubscriptions: [Subscription(200, 250)]),
    .init(
        name: "consecutive, left fails",
        first: [.next(150, 1), .next(215, 2), .next(225, 4), .error(230, testError)],
        second: [.next(150, 1), .next(235, 6), .next(240, 7), .completed(250)],
        expected: [.error(230, testError)],
        firstSubscriptions: [Subscription(200, 230)], secondSubscriptions: [Subscription(200, 230)]),
    .init(
        name: "consecutive, right fails",
        first: [.next(150, 1), .next(215, 2), .next(225, 4), .completed(250)],
        second: [.next(150, 1), .next(235, 6), .next(240, 7), .error(245, testError)],
        expected: [.next(235, 10), .next(240, 11), .error(245, testError)],
        firstSubscriptions: [Subscription(200, 245)], secondSubscriptions: [Subscription(200, 245)]),
    .init(
        name: "will never be able to combine", first: [.next(150, 1), .completed(250)],
        second: [.next(150, 1), .next(500, 2), .completed(800)], expected: [.completed(500)],
        firstSubscriptions: [Subscription(200, 250)], secondSubscriptions: [Subscription(200, 500)]),
    .init(
        name: "typical", first: [.next(150, 1), .next(210, 1), .next(410, 3), .completed(800)],
        second: [.next(150, 1), .next(220, 2), .next(420, 4), .completed(800)],
        expected: [.next(220, 3), .next(410, 5), .next(420, 7), .completed(800)],
        firstSubscriptions: [Subscription(200, 800)], secondSubscriptions: [Subscription(200, 800)]),
    .init(
        name: "empty, empty", first: [.next(150, 1), .completed(210)],
        second: [.next(150, 1), .completed(220)],
        expected: [.completed(220)],
        firstSubscriptions: [Subscription(200, 210)], secondSubscriptions: [Subscription(200, 220)]),
    .init(
        name: "disposed early", first: [.next(210, 1), .next(300, 2), .completed(400)],
        second: [.next(220, 10), .next(320, 20), .completed(400)],
        expected: [.next(220, 11), .next(300, 12)],
        firstSubscriptions: [Subscription(200, 310)], secondSubscriptions: [Subscription(200, 310)],
        disposed: 310),
]

@Suite(.timeLimit(.minutes(1)))
struct CombineLatestTests {
    // MARK: Two sources

    @Test(arguments: pairScenarios)
    func twoSources(_ scenario: CombineLatestPairScenario) {
        for factory in pairFactories {
            let scheduler = TestScheduler(initialClock: 0)
            let first = scheduler.createHotObservable(scenario.first)
            let second = scheduler.createHotObservable(scenario.second)
            let res = scheduler.start(disposed: scenario.disposed) { factory(first, second) }
            #expect(res.events == scenario.expected)
            #expect(first.subscriptions == scenario.firstSubscriptions)
            #expect(second.subscriptions == scenario.secondSubscriptions)
        }
    }

    @Test func selectorErrorFailsAndDisposesBoth() {
        let scheduler = TestScheduler(initialClock: 0)
        let e0 = scheduler.createHotObservable([.next(150, 1), .next(210, 1), .completed(400)])
        let e1 = scheduler.createHotObservable([.next(150, 1), .next(220, 2), .completed(400)])
        let res = scheduler.start {
            Observable.combineLatest(e0, e1) { _, _ -> Int in throw testError }
        }
        #expect(res.events == [.error(220, testError)])
        #expect(e0.subscriptions == [Subscription(200, 220)])
        #expect(e1.subscriptions == [Subscription(200, 220)])
    }

    @Test func sourcesOfDifferentTypes() {
        let scheduler = TestScheduler(initialClock: 0)
        let numbers = scheduler.createHotObservable([.next(210, 1), .next(230, 2), .completed(300)])
        let names = scheduler.createHotObservable([.next(220, "a"), .next(240, "b"), .completed(250)])
        let res = scheduler.start { Observable.combineLatest(numbers, names).map { "\($0)\($1)" } }
        #expect(res.events == [.next(220, "1a"), .next(230, "2a"), .next(240, "2b"), .completed(300)])
        #expect(numbers.subscriptions == [Subscription(200, 300)])
        #expect(names.subscriptions == [Subscription(200, 250)])
    }

    @Test func threeAndFourSourcesOfDifferentTypes() {
        for withFourth in [false, true] {
            let scheduler = TestScheduler(initialClock: 0)
            let numbers = scheduler.createHotObservable([.next(210, 1), .completed(300)])
            let names = scheduler.createHotObservable([.next(220, "a"), .completed(300)])
            let flags = scheduler.createHotObservable([.next(230, true), .next(240, false), .completed(300)])
            let ratios = scheduler.createHotObservable([.next(235, 0.5), .completed(310)])
            let res = scheduler.start {
                withFourth
                    ? Observable.combineLatest(numbers, names, flags, ratios) { "\($0)\($1)\($2)\($3)" }
                    : Observable.combineLatest(numbers, names, flags).map { "\($0)\($1)\($2)" }
            }
            let expected: [Recorded<Event<String>>] =
                withFourth
                ? [.next(235, "1atrue0.5"), .next(240, "1afalse0.5"), .completed(310)]
                : [.next(230, "1atrue"), .next(240, "1afalse"), .completed(300)]
            #expect(res.events == expected)
            #expect(ratios.subscriptions == (withFourth ? [Subscription(200, 310)] : []))
        }
    }

    // MARK: Three and four sources

    /// Runs `make` over `events.count` hot sources and checks the result and every subscription.
    private func check(
        _ events: [[Recorded<Event<Int>>]], expected: [Recorded<Event<Int>>], subscriptions: [[Subscription]],
        sourceLocation: SourceLocation = #_sourceLocation,
        _ make: @escaping @Sendable ([TestableObservable<Int>]) -> Observable<Int>
    ) {
        let scheduler = TestScheduler(initialClock: 0)
        let sources = events.map { scheduler.createHotObservable($0) }
        let res = scheduler.start { make(sources) }
        #expect(res.events == expected, sourceLocation: sourceLocation)
        #expect(sources.map(\.subscriptions) == subscriptions, sourceLocation: sourceLocation)
    }

    private static let threeFactories: [@Sendable ([TestableObservable<Int>]) -> Observable<Int>] = [
        { e in Observable.combineLatest(e[0], e[1], e[2]) { $0 + $1 + $2 } },
        { e in Observable.combineLatest(e[0], e[1], e[2]).map { $0 + $1 + $2 } },
        { e in Observable.combineLatest(e) { $0.reduce(0, +) } },
        { e in Observable.combineLatest(e).map { $0.reduce(0, +) } },
    ]

    private static let fourFactories: [@Sendable ([TestableObservable<Int>]) -> Observable<Int>] = [
        { e in Observable.combineLatest(e[0], e[1], e[2], e[3]) { $0 + $1 + $2 + $3 } },
        { e in Observable.combineLatest(e[0], e[1], e[2], e[3]).map { $0 + $1 + $2 + $3 } },
        { e in Observable.combineLatest(e) { $0.reduce(0, +) } },
    ]

    @Test func neverThreeOrFour() {
        for (count, factories) in [(3, Self.threeFactories), (4, Self.fourFactories)] {
            for factory in factories {
                check(
                    Array(repeating: [.next(150, 1)], count: count), expected: [],
                    subscriptions: Array(repeating: [Subscription(200, 1000)], count: count), factory)
            }
        }
    }

    @Test func emptyThreeOrFour() {
        for (count, factories) in [(3, Self.threeFactories), (4, Self.fourFactories)] {
            let ends = (0..<count).map { 210 + 10 * $0 }
            for factory in factories {
                check(
                    ends.map { [.next(150, 1), .completed($0)] }, expected: [.completed(ends[count - 1])],
                    subscriptions: ends.map { [Subscription(200, $0)] }, factory)
            }
        }
    }

    @Test func typicalThreeOrFour() {
        for (count, factories) in [(3, Self.threeFactories), (4, Self.fourFactories)] {
            let events: [[Recorded<Event<Int>>]] = (0..<count).map { index in
                [
                    .next(150, 1), .next(210 + 10 * index, index + 1), .next(410 + 10 * index, index + 4),
                    .completed(800),
                ]
            }
            // The first combination is 1 + 2 + … + count; each later element adds 3.
            let first = (1...count).reduce(0, +)
            let expected: [Recorded<Event<Int>>] =
                [.next(200 + 10 * count, first)]
                + (0..<count).map { .next(410 + 10 * $0, first + 3 * ($0 + 1)) } + [.completed(800)]
            for factory in factories {
                check(
                    events, expected: expected,
                    subscriptions: Array(repeating: [Subscription(200, 800)], count: count), factory)
            }
        }
    }

    @Test func willNeverBeAbleToCombineThreeOrFour() {
        for (count, factories) in [(3, Self.threeFactories), (4, Self.fourFactories)] {
            let ends = (0..<(count - 1)).map { 250 + 10 * $0 }
            let events =
                ends.map { [Recorded.next(150, 1), .completed($0)] }
                + [[.next(150, 1), .next(500, 2), .completed(800)]]
            for factory in factories {
                check(
                    events, expected: [.completed(500)],
                    subscriptions: ends.map { [Subscription(200, $0)] } + [[Subscription(200, 500)]], factory)
            }
        }
    }

    @Test func selectorErrorThreeOrFour() {
        let failing: [@Sendable ([TestableObservable<Int>]) -> Observable<Int>] = [
            { e in Observable.combineLatest(e[0], e[1], e[2]) { _, _, _ -> Int in throw testError } },
            { e in
                Observable.combineLatest(e[0], e[1], e[2], e[3]) { _, _, _, _ -> Int in throw testError }
            },
        ]
        for (count, factory) in zip([3, 4], failing) {
            let last = 200 + 10 * count
            check(
                (0..<count).map { [.next(150, 1), .next(210 + 10 * $0, $0 + 1), .completed(400)] },
                expected: [.error(last, testError)],
                subscriptions: Array(repeating: [Subscription(200, last)], count: count), factory)
        }
    }

    // MARK: Collections

    @Test func emptyCollectionEmitsOnceAndCompletes() {
        let factories: [@Sendable () -> Observable<Int>] = [
            { Observable.combineLatest([Observable<Int>]()) { $0.reduce(0, +) } },
            { Observable.combineLatest([Observable<Int>]()).map { $0.reduce(0, +) } },
        ]
        for factory in factories {
            let scheduler = TestScheduler(initialClock: 0)
            let res = scheduler.start { factory() }
            #expect(res.events == [.next(200, 0), .completed(200)])
        }
    }

    @Test func collectionSelectorError() {
        let scheduler = TestScheduler(initialClock: 0)
        let e0 = scheduler.createHotObservable([.next(150, 1), .next(215, 2), .completed(230)])
        let e1 = scheduler.createHotObservable([.next(150, 1), .next(220, 3), .completed(240)])
        let res = scheduler.start { Observable.combineLatest([e0, e1]) { _ -> Int in throw testError } }
        #expect(res.events == [.error(220, testError)])
        #expect(e0.subscriptions == [Subscription(200, 220)])
        #expect(e1.subscriptions == [Subscription(200, 220)])
    }

    @Test func collectionKeepsSourceOrder() {
        let scheduler = TestScheduler(initialClock: 0)
        let e0 = scheduler.createHotObservable([.next(150, 1), .next(210, 1), .next(250, 4), .completed(270)])
        let e1 = scheduler.createHotObservable([
            .next(150, 1), .next(220, 2), .next(240, 5), .next(290, 7), .next(310, 9), .completed(410),
        ])
        let e2 = scheduler.createHotObservable([
            .next(150, 1), .next(230, 3), .next(260, 6), .next(280, 8), .completed(300),
        ])
        let res = scheduler.start { Observable.combineLatest([e0, e1, e2]) }
        #expect(
            res.events == [
                .next(230, [1, 2, 3]), .next(240, [1, 5, 3]), .next(250, [4, 5, 3]), .next(260, [4, 5, 6]),
                .next(280, [4, 5, 8]), .next(290, [4, 7, 8]), .next(310, [4, 9, 8]), .completed(410),
            ])
        #expect(e0.subscriptions == [Subscription(200, 270)])
        #expect(e1.subscriptions == [Subscription(200, 410)])
        #expect(e2.subscriptions == [Subscription(200, 300)])
    }

    // MARK: Synchronous sources

    @Test func synchronousErrorAfterElementsIsDeliveredOnce() {
        let errors = Shared(0)
        let failing = Observable.concat(
            syncEvents(.next(0), .next(1), .next(2), .completed), syncEvents(.error(testError)))
        _ = Observable.combineLatest(failing, syncEvents(.next(0), .next(1), .next(2), .completed)) {
            $0 + $1
        }
        .subscribe(onError: { _ in errors.increment() })
        #expect(errors.value == 1)
    }

    @Test func synchronousErrorFirstIsDeliveredOnce() {
        let errors = Shared(0)
        _ = Observable.combineLatest(
            syncEvents(Event<Int>.error(testError)), syncEvents(.next(0), .completed)
        ) {
            $0 + $1
        }
        .subscribe(onError: { _ in errors.increment() })
        #expect(errors.value == 1)
    }

    @Test func synchronousEmptySourceCompletesOnce() {
        let completions = Shared(0)
        _ = Observable.combineLatest(
            syncEvents(Event<Int>.completed), syncEvents(.next(0), .next(1), .completed)
        ) {
            $0 + $1
        }
        .subscribe(onCompleted: { completions.increment() })
        #expect(completions.value == 1)
    }

    // MARK: Threads and resources

    @Test func twoThreadsKeepOrderAndReachTheLastCombination() {
        let count = 2_000
        let left = PublishSubject<Int>()
        let right = PublishSubject<Int>()
        let recorder = ConcurrentRecorder<[Int]>()
        let subscription = Observable.combineLatest(left, right) { [$0, $1] }.subscribe(recorder)
        runConcurrently(
            {
                for value in 0..<count { left.onNext(value) }
                left.onCompleted()
            },
            {
                for value in 0..<count { right.onNext(value) }
                right.onCompleted()
            })
        #expect(recorder.waitForTerminalEvent())
        #expect(recorder.violations == [])
        let pairs = recorder.events.compactMap(\.element)
        #expect(pairs.last == [count - 1, count - 1])
        #expect(pairs.map { $0[0] } == pairs.map { $0[0] }.sorted())
        #expect(pairs.map { $0[1] } == pairs.map { $0[1] }.sorted())
        #expect(recorder.events.last?.isCompleted == true)
        subscription.dispose()
    }

    @Test func releasesEverything() {
        Resources.measure { scope in
            let a = PublishSubject<Int>()
            let b = PublishSubject<Int>()
            _ = Observable.combineLatest(a, b) { $0 + $1 }.subscribe(onNext: { _ in })
            a.onNext(1)
            b.onNext(2)
            a.onCompleted()
            b.onCompleted()
            #expect(scope.total == 0)

            let d = PublishSubject<Int>()
            let e = PublishSubject<Int>()
            _ = Observable.combineLatest([d, e]).subscribe(onNext: { _ in })
            d.onNext(1)
            e.onError(testError)
            #expect(scope.total == 0)

            let c = PublishSubject<Int>()
            let subscription = Observable.combineLatest(c, c, c).subscribe(onNext: { _ in })
            c.onNext(1)
            #expect(scope.total == 2)
            subscription.dispose()
            #expect(scope.total == 0)
        }
    }
}
