import Reactive
import ReactiveTestKit
import Testing

/// RxSwift's switch scenario: three cold inner sequences emitted at 300, 400 and 500.
private struct SwitchScenario {
    let scheduler = TestScheduler(initialClock: 0)
    let ys: [TestableObservable<Int>]

    init(secondErrors: Bool = false) {
        ys = [
            scheduler.createColdObservable([
                .next(10, 101), .next(20, 102), .next(110, 103), .next(120, 104), .next(210, 105),
                .next(220, 106), .completed(230),
            ]),
            scheduler.createColdObservable([
                .next(10, 201), .next(20, 202), .next(30, 203), .next(40, 204),
                secondErrors ? .error(50, testError) : .completed(50),
            ]),
            scheduler.createColdObservable([
                .next(10, 301), .next(20, 302), .next(30, 303), .next(40, 304), .completed(150),
            ]),
        ]
    }

    /// The outer sequence of indexes into `ys`, ending with `end` at 600 (or with an error at 500).
    func indexes(endingWith end: Event<Int> = .completed) -> TestableObservable<Int> {
        if case .error = end {
            return scheduler.createHotObservable([
                .next(300, 0), .next(400, 1), Recorded(time: 500, value: end),
            ])
        }
        return scheduler.createHotObservable([
            .next(300, 0), .next(400, 1), .next(500, 2), Recorded(time: 600, value: end),
        ])
    }

    /// The same outer sequence, carrying the inner sequences themselves.
    func sequences(endingWith end: Event<Int> = .completed) -> TestableObservable<TestableObservable<Int>> {
        let ys = self.ys
        let indexes = self.indexes(endingWith: end)
        return scheduler.createHotObservable(
            indexes.recordedEvents.map { recorded in
                Recorded(time: recorded.time, value: recorded.value.map { ys[$0] })
            })
    }

    /// The elements of the latest inner sequence up to 440.
    static let elements: [Recorded<Event<Int>>] = [
        .next(310, 101), .next(320, 102), .next(410, 201), .next(420, 202), .next(430, 203), .next(440, 204),
    ]
}

@Suite(.timeLimit(.minutes(1)))
struct FlatMapLatestTests {
    // MARK: switchLatest

    @Test func switchesToTheLatestInner() {
        let s = SwitchScenario()
        let xs = s.sequences()
        let res = s.scheduler.start { xs.switchLatest() }
        #expect(
            res.events == SwitchScenario.elements + [
                .next(510, 301), .next(520, 302), .next(530, 303), .next(540, 304), .completed(650),
            ])
        #expect(xs.subscriptions == [Subscription(200, 600)])
        #expect(
            s.ys.map(\.subscriptions) == [
                [Subscription(300, 400)], [Subscription(400, 450)], [Subscription(500, 650)],
            ])
    }

    @Test func switchInnerError() {
        let s = SwitchScenario(secondErrors: true)
        let xs = s.sequences()
        let res = s.scheduler.start { xs.switchLatest() }
        #expect(res.events == SwitchScenario.elements + [.error(450, testError)])
        #expect(xs.subscriptions == [Subscription(200, 450)])
        #expect(s.ys.map(\.subscriptions) == [[Subscription(300, 400)], [Subscription(400, 450)], []])
    }

    @Test func switchOuterError() {
        let s = SwitchScenario()
        let xs = s.sequences(endingWith: .error(testError))
        let res = s.scheduler.start { xs.switchLatest() }
        #expect(res.events == SwitchScenario.elements + [.error(500, testError)])
        #expect(xs.subscriptions == [Subscription(200, 500)])
        #expect(s.ys.map(\.subscriptions) == [[Subscription(300, 400)], [Subscription(400, 450)], []])
    }

    @Test func switchDisposedEarly() {
        let s = SwitchScenario()
        let xs = s.sequences()
        let res = s.scheduler.start(disposed: 515) { xs.switchLatest() }
        #expect(res.events == SwitchScenario.elements + [.next(510, 301)])
        #expect(xs.subscriptions == [Subscription(200, 515)])
        #expect(
            s.ys.map(\.subscriptions) == [
                [Subscription(300, 400)], [Subscription(400, 450)], [Subscription(500, 515)],
            ])
    }

    // MARK: flatMapLatest

    @Test func flatMapLatestSwitchesToTheLatestInner() {
        let s = SwitchScenario()
        let xs = s.indexes()
        let ys = s.ys
        let res = s.scheduler.start { xs.flatMapLatest { ys[$0] } }
        #expect(
            res.events == SwitchScenario.elements + [
                .next(510, 301), .next(520, 302), .next(530, 303), .next(540, 304), .completed(650),
            ])
        #expect(xs.subscriptions == [Subscription(200, 600)])
        #expect(
            ys.map(\.subscriptions) == [
                [Subscription(300, 400)], [Subscription(400, 450)], [Subscription(500, 650)],
            ])
    }

    @Test func flatMapLatestInnerError() {
        let s = SwitchScenario(secondErrors: true)
        let xs = s.indexes()
        let ys = s.ys
        let res = s.scheduler.start { xs.flatMapLatest { ys[$0] } }
        #expect(res.events == SwitchScenario.elements + [.error(450, testError)])
        #expect(xs.subscriptions == [Subscription(200, 450)])
        #expect(ys.map(\.subscriptions) == [[Subscription(300, 400)], [Subscription(400, 450)], []])
    }

    @Test func flatMapLatestOuterError() {
        let s = SwitchScenario()
        let xs = s.indexes(endingWith: .error(testError))
        let ys = s.ys
        let res = s.scheduler.start { xs.flatMapLatest { ys[$0] } }
        #expect(res.events == SwitchScenario.elements + [.error(500, testError)])
        #expect(xs.subscriptions == [Subscription(200, 500)])
        #expect(ys.map(\.subscriptions) == [[Subscription(300, 400)], [Subscription(400, 450)], []])
    }

    @Test func flatMapLatestSelectorError() {
        let s = SwitchScenario()
        let xs = s.scheduler.createHotObservable([.next(300, 0), .next(400, 1)])
        let ys = s.ys
        let res = s.scheduler.start {
            xs.flatMapLatest { x throws -> TestableObservable<Int> in
                guard x < 1 else { throw testError }
                return ys[x]
            }
        }
        #expect(res.events == [.next(310, 101), .next(320, 102), .error(400, testError)])
        #expect(xs.subscriptions == [Subscription(200, 400)])
        #expect(ys.map(\.subscriptions) == [[Subscription(300, 400)], [], []])
    }

    /// A newer element cancels the older request: its subscription ends at the very tick the next
    /// element arrives, before the new request is subscribed.
    @Test func aNewElementDisposesThePreviousInnerFirst() {
        let scheduler = TestScheduler(initialClock: 0)
        let requests = (0..<3).map { index in
            scheduler.createColdObservable([.next(150, 10 * index), .completed(160)])
        }
        let queries = scheduler.createHotObservable([
            .next(210, 0), .next(260, 1), .next(330, 2), .completed(400),
        ])
        let order = Shared<[String]>([])
        let res = scheduler.start {
            queries.flatMapLatest { index in
                Observable<Int>.create { observer in
                    order.append("subscribe \(index)")
                    let subscription = requests[index].subscribe(observer)
                    return Disposables.create {
                        order.append("dispose \(index)")
                        subscription.dispose()
                    }
                }
            }
        }
        #expect(res.events == [.next(480, 20), .completed(490)])
        #expect(queries.subscriptions == [Subscription(200, 400)])
        #expect(
            requests.map(\.subscriptions) == [
                [Subscription(210, 260)], [Subscription(260, 330)], [Subscription(330, 490)],
            ])
        #expect(
            order.value == [
                "subscribe 0", "dispose 0", "subscribe 1", "dispose 1", "subscribe 2", "dispose 2",
            ])
    }

    @Test func completesWhenTheOuterCompletesAfterTheLatestInner() {
        let scheduler = TestScheduler(initialClock: 0)
        let inner = scheduler.createColdObservable([.next(10, 1), .completed(20)])
        let xs = scheduler.createHotObservable([.next(210, 0), .completed(300)])
        let res = scheduler.start { xs.flatMapLatest { _ in inner } }
        #expect(res.events == [.next(220, 1), .completed(300)])
        #expect(xs.subscriptions == [Subscription(200, 300)])
        #expect(inner.subscriptions == [Subscription(210, 230)])
    }

    @Test func completesAtOnceWithoutInners() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.completed(300, TestableObservable<Int>.self)])
        let res = scheduler.start { xs.switchLatest() }
        #expect(res.events == [.completed(300)])
        #expect(xs.subscriptions == [Subscription(200, 300)])
    }

    @Test func disposedEarly() {
        let s = SwitchScenario()
        let xs = s.indexes()
        let ys = s.ys
        let res = s.scheduler.start(disposed: 425) { xs.flatMapLatest { ys[$0] } }
        #expect(res.events == [.next(310, 101), .next(320, 102), .next(410, 201), .next(420, 202)])
        #expect(xs.subscriptions == [Subscription(200, 425)])
        #expect(ys.map(\.subscriptions) == [[Subscription(300, 400)], [Subscription(400, 425)], []])
    }

    // MARK: Threads and resources

    @Test func outerAndInnerOnTwoThreadsKeepTheGrammar() {
        let count = 2_000
        let queries = PublishSubject<Int>()
        let ticks = PublishSubject<Int>()
        let recorder = ConcurrentRecorder<[Int]>()
        let subscription = queries.flatMapLatest { query in ticks.map { [query, $0] } }.subscribe(recorder)
        runConcurrently(
            {
                for query in 0..<count { queries.onNext(query) }
                queries.onCompleted()
            },
            {
                for tick in 0..<count { ticks.onNext(tick) }
                ticks.onCompleted()
            })
        #expect(recorder.waitForTerminalEvent())
        #expect(recorder.violations == [])
        let pairs = recorder.events.compactMap(\.element)
        #expect(pairs.map { $0[0] } == pairs.map { $0[0] }.sorted())
        #expect(pairs.map { $0[1] } == pairs.map { $0[1] }.sorted())
        #expect(recorder.events.last?.isCompleted == true)
        subscription.dispose()
    }

    @Test func releasesEverything() {
        Resources.measure { scope in
            let outer = PublishSubject<Int>()
            let inner = PublishSubject<Int>()
            _ = outer.flatMapLatest { _ in inner }.subscribe(onNext: { _ in })
            outer.onNext(1)
            outer.onNext(2)
            outer.onCompleted()
            #expect(scope.total == 2)
            inner.onCompleted()
            #expect(scope.total == 0)

            let sequences = PublishSubject<Observable<Int>>()
            let subscription = sequences.switchLatest().subscribe(onNext: { _ in })
            sequences.onNext(inner.asObservable())
            sequences.onNext(PublishSubject<Int>().asObservable())
            subscription.dispose()
            #expect(scope.total == 0)

            _ = sequences.switchLatest().subscribe(onNext: { _ in })
            sequences.onError(testError)
            #expect(scope.total == 0)
        }
    }
}
