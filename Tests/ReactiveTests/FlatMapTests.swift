import Reactive
import ReactiveTestKit
import Testing

/// RxSwift's flatMap scenario: an outer hot sequence of seven cold inner sequences.
private struct FlatMapScenario {
    let scheduler = TestScheduler(initialClock: 0)
    let inners: [TestableObservable<Int>]
    let xs: TestableObservable<TestableObservable<Int>>

    /// - Parameters:
    ///   - outerEnd: the outer sequence's terminal event at 900, if any.
    ///   - thirdErrors: the inner sequence at 300 fails at its end instead of completing.
    ///   - fourthCompletes: the inner sequence at 400 completes.
    init(
        outerEnd: Event<TestableObservable<Int>>? = .completed, thirdErrors: Bool = false,
        fourthCompletes: Bool = true
    ) {
        let scheduler = self.scheduler
        inners = [
            scheduler.createColdObservable([.error(1, testError)]),
            scheduler.createColdObservable([.error(1, testError)]),
            scheduler.createColdObservable([
                .next(10, 102), .next(90, 103), .next(110, 104), .next(190, 105), .next(440, 106),
                thirdErrors ? .error(460, testError) : .completed(460),
            ]),
            scheduler.createColdObservable(
                [.next(180, 202), .next(190, 203)] + (fourthCompletes ? [.completed(205)] : [])),
            scheduler.createColdObservable([
                .next(10, 301), .next(50, 302), .next(70, 303), .next(260, 304), .next(310, 305),
                .completed(410),
            ]),
            scheduler.createColdObservable([.completed(40)]),
            scheduler.createColdObservable([.next(80, 401), .next(90, 402), .completed(100)]),
        ]
        let times = [5, 105, 300, 400, 550, 750, 850]
        xs = scheduler.createHotObservable(
            zip(times, inners).map { Recorded.next($0, $1) }
                + (outerEnd.map { [Recorded(time: 900, value: $0)] } ?? []))
    }

    /// The elements every scenario sees up to 860.
    static let elements: [Recorded<Event<Int>>] = [
        .next(310, 102), .next(390, 103), .next(410, 104), .next(490, 105), .next(560, 301), .next(580, 202),
        .next(590, 203), .next(600, 302), .next(620, 303), .next(740, 106), .next(810, 304), .next(860, 305),
    ]
}

@Suite(.timeLimit(.minutes(1)))
struct FlatMapTests {
    @Test func completesWhenOuterAndInnersHaveCompleted() {
        let s = FlatMapScenario()
        let res = s.scheduler.start { s.xs.flatMap { $0 } }
        #expect(res.events == FlatMapScenario.elements + [.next(930, 401), .next(940, 402), .completed(960)])
        #expect(s.xs.subscriptions == [Subscription(200, 900)])
        #expect(
            s.inners.map(\.subscriptions) == [
                [], [], [Subscription(300, 760)], [Subscription(400, 605)], [Subscription(550, 960)],
                [Subscription(750, 790)], [Subscription(850, 950)],
            ])
    }

    @Test func anUnfinishedInnerKeepsItRunning() {
        let s = FlatMapScenario(outerEnd: .completed, fourthCompletes: false)
        let res = s.scheduler.start { s.xs.flatMap { $0 } }
        #expect(res.events == FlatMapScenario.elements + [.next(930, 401), .next(940, 402)])
        #expect(s.xs.subscriptions == [Subscription(200, 900)])
        #expect(s.inners[3].subscriptions == [Subscription(400, 1000)])
        #expect(s.inners[6].subscriptions == [Subscription(850, 950)])
    }

    @Test func anUnfinishedOuterKeepsItRunning() {
        let s = FlatMapScenario(outerEnd: nil)
        let res = s.scheduler.start { s.xs.flatMap { $0 } }
        #expect(res.events == FlatMapScenario.elements + [.next(930, 401), .next(940, 402)])
        #expect(s.xs.subscriptions == [Subscription(200, 1000)])
        #expect(s.inners[2].subscriptions == [Subscription(300, 760)])
        #expect(s.inners[3].subscriptions == [Subscription(400, 605)])
        #expect(s.inners[4].subscriptions == [Subscription(550, 960)])
        #expect(s.inners[6].subscriptions == [Subscription(850, 950)])
    }

    @Test func outerErrorDisposesTheInners() {
        let s = FlatMapScenario(outerEnd: .error(testError), fourthCompletes: false)
        let res = s.scheduler.start { s.xs.flatMap { $0 } }
        #expect(res.events == FlatMapScenario.elements + [.error(900, testError)])
        #expect(s.xs.subscriptions == [Subscription(200, 900)])
        #expect(
            s.inners.map(\.subscriptions) == [
                [], [], [Subscription(300, 760)], [Subscription(400, 900)], [Subscription(550, 900)],
                [Subscription(750, 790)], [Subscription(850, 900)],
            ])
    }

    @Test func innerErrorDisposesEverything() {
        let s = FlatMapScenario(thirdErrors: true)
        let res = s.scheduler.start { s.xs.flatMap { $0 } }
        #expect(res.events == Array(FlatMapScenario.elements.prefix(10)) + [.error(760, testError)])
        #expect(s.xs.subscriptions == [Subscription(200, 760)])
        #expect(
            s.inners.map(\.subscriptions) == [
                [], [], [Subscription(300, 760)], [Subscription(400, 605)], [Subscription(550, 760)],
                [Subscription(750, 760)], [],
            ])
    }

    @Test func disposingEarlyDisposesEverything() {
        let s = FlatMapScenario()
        let res = s.scheduler.start(disposed: 700) { s.xs.flatMap { $0 } }
        #expect(res.events == Array(FlatMapScenario.elements.prefix(9)))
        #expect(s.xs.subscriptions == [Subscription(200, 700)])
        #expect(
            s.inners.map(\.subscriptions) == [
                [], [], [Subscription(300, 700)], [Subscription(400, 605)], [Subscription(550, 700)], [], [],
            ])
    }

    @Test func selectorErrorDisposesEverything() {
        let s = FlatMapScenario()
        let invocations = Shared(0)
        let res = s.scheduler.start {
            s.xs.flatMap { inner -> TestableObservable<Int> in
                if invocations.increment() == 3 { throw testError }
                return inner
            }
        }
        #expect(res.events == Array(FlatMapScenario.elements.prefix(4)) + [.error(550, testError)])
        #expect(s.xs.subscriptions == [Subscription(200, 550)])
        #expect(
            s.inners.map(\.subscriptions) == [
                [], [], [Subscription(300, 550)], [Subscription(400, 550)], [], [], [],
            ])
    }

    @Test func mapsElementsToSequences() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(210, 4), .next(220, 3), .next(250, 5), .next(270, 1), .completed(290),
        ])
        let res = scheduler.start {
            xs.flatMap { x in
                scheduler.createColdObservable(
                    (1...x).map { Recorded.next(10 * $0, x) } + [.completed(10 * x)])
            }
        }
        #expect(
            res.events == [
                .next(220, 4), .next(230, 4), .next(230, 3), .next(240, 4), .next(240, 3), .next(250, 4),
                .next(250, 3), .next(260, 5), .next(270, 5), .next(280, 5), .next(280, 1), .next(290, 5),
                .next(300, 5), .completed(300),
            ])
        #expect(xs.subscriptions == [Subscription(200, 290)])
    }

    // MARK: Threads and resources

    @Test func innersOnTwoThreadsLoseNothing() {
        let count = 2_000
        let outer = PublishSubject<Int>()
        let inners = [PublishSubject<Int>(), PublishSubject<Int>()]
        let recorder = ConcurrentRecorder<Int>()
        let subscription = outer.flatMap { inners[$0] }.subscribe(recorder)
        outer.onNext(0)
        outer.onNext(1)
        outer.onCompleted()
        runConcurrently(
            {
                for value in 0..<count { inners[0].onNext(value) }
                inners[0].onCompleted()
            },
            {
                for value in 0..<count { inners[1].onNext(count + value) }
                inners[1].onCompleted()
            })
        #expect(recorder.waitForTerminalEvent())
        #expect(recorder.violations == [])
        let elements = recorder.events.compactMap(\.element)
        #expect(Set(elements) == Set(0..<(2 * count)))
        #expect(elements.filter { $0 >= count } == Array(count..<(2 * count)))
        #expect(recorder.events.last?.isCompleted == true)
        subscription.dispose()
    }

    @Test func releasesEverything() {
        Resources.measure { scope in
            let outer = PublishSubject<Int>()
            let inner = PublishSubject<Int>()
            _ = outer.flatMap { _ in inner }.subscribe(onNext: { _ in })
            outer.onNext(1)
            outer.onNext(2)
            inner.onNext(3)
            outer.onCompleted()
            #expect(scope.total == 2)
            inner.onCompleted()
            #expect(scope.total == 0)

            let failing = PublishSubject<Int>()
            _ = failing.flatMap { _ -> Observable<Int> in throw testError }.subscribe(onNext: { _ in })
            failing.onNext(1)
            #expect(scope.total == 0)

            let subscription = failing.flatMap { _ in inner }.subscribe(onNext: { _ in })
            subscription.dispose()
            #expect(scope.total == 0)
        }
    }
}
