import Reactive
import ReactiveTestKit
import Testing

@Suite(.timeLimit(.minutes(1)))
struct WithLatestFromTests {
    private static let firsts: [Recorded<Event<Int>>] = [
        .next(90, 1), .next(180, 2), .next(250, 3), .next(260, 4), .next(310, 5), .next(340, 6),
        .next(410, 7), .next(420, 8), .next(470, 9), .next(550, 10),
    ]

    @Test func combinesWithTheLatestOfTheSecond() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable(Self.firsts + [.completed(590)])
        let ys = scheduler.createHotObservable([
            .next(255, "bar"), .next(330, "foo"), .next(350, "qux"), .completed(400),
        ])
        let res = scheduler.start { xs.withLatestFrom(ys) { "\($0)\($1)" } }
        #expect(
            res.events == [
                .next(260, "4bar"), .next(310, "5bar"), .next(340, "6foo"), .next(410, "7qux"),
                .next(420, "8qux"), .next(470, "9qux"), .next(550, "10qux"), .completed(590),
            ])
        #expect(xs.subscriptions == [Subscription(200, 590)])
        #expect(ys.subscriptions == [Subscription(200, 400)])
    }

    @Test func completesWithTheFirst() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable(Array(Self.firsts.prefix(6)) + [.completed(390)])
        let ys = scheduler.createHotObservable([
            .next(255, "bar"), .next(330, "foo"), .next(350, "qux"), .next(370, "baz"), .completed(400),
        ])
        let res = scheduler.start { xs.withLatestFrom(ys) { "\($0)\($1)" } }
        #expect(res.events == [.next(260, "4bar"), .next(310, "5bar"), .next(340, "6foo"), .completed(390)])
        #expect(xs.subscriptions == [Subscription(200, 390)])
        #expect(ys.subscriptions == [Subscription(200, 390)])
    }

    @Test func usesAValueTheSecondHadBeforeTheFirstEmitted() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable(Array(Self.firsts.prefix(6)) + [.completed(390)])
        let ys = scheduler.createHotObservable([
            .next(245, "bar"), .next(330, "foo"), .next(350, "qux"), .next(370, "baz"), .completed(400),
        ])
        let res = scheduler.start { xs.withLatestFrom(ys) { "\($0)\($1)" } }
        #expect(
            res.events == [
                .next(250, "3bar"), .next(260, "4bar"), .next(310, "5bar"), .next(340, "6foo"),
                .completed(390),
            ])
        #expect(xs.subscriptions == [Subscription(200, 390)])
        #expect(ys.subscriptions == [Subscription(200, 390)])
    }

    @Test func errorOfTheFirst() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable(Self.firsts + [.error(590, testError)])
        let ys = scheduler.createHotObservable([
            .next(255, "bar"), .next(330, "foo"), .next(350, "qux"), .completed(400),
        ])
        let res = scheduler.start { xs.withLatestFrom(ys) { "\($0)\($1)" } }
        #expect(
            res.events == [
                .next(260, "4bar"), .next(310, "5bar"), .next(340, "6foo"), .next(410, "7qux"),
                .next(420, "8qux"), .next(470, "9qux"), .next(550, "10qux"), .error(590, testError),
            ])
        #expect(xs.subscriptions == [Subscription(200, 590)])
        #expect(ys.subscriptions == [Subscription(200, 400)])
    }

    @Test func errorOfTheSecond() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable(Array(Self.firsts.prefix(6)) + [.completed(390)])
        let ys = scheduler.createHotObservable([
            .next(255, "bar"), .next(330, "foo"), .next(350, "qux"), .error(370, testError),
        ])
        let res = scheduler.start { xs.withLatestFrom(ys) { "\($0)\($1)" } }
        #expect(
            res.events == [
                .next(260, "4bar"), .next(310, "5bar"), .next(340, "6foo"), .error(370, testError),
            ])
        #expect(xs.subscriptions == [Subscription(200, 370)])
        #expect(ys.subscriptions == [Subscription(200, 370)])
    }

    @Test func selectorError() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable(Array(Self.firsts.prefix(6)) + [.completed(390)])
        let ys = scheduler.createHotObservable([
            .next(255, "bar"), .next(330, "foo"), .next(350, "qux"), .completed(400),
        ])
        let res = scheduler.start {
            xs.withLatestFrom(ys) { x, y throws -> String in
                if x == 5 { throw testError }
                return "\(x)\(y)"
            }
        }
        #expect(res.events == [.next(260, "4bar"), .error(310, testError)])
        #expect(xs.subscriptions == [Subscription(200, 310)])
        #expect(ys.subscriptions == [Subscription(200, 310)])
    }

    @Test func withoutSelectorTakesTheSecondsElements() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable(Self.firsts + [.completed(590)])
        let ys = scheduler.createHotObservable([
            .next(255, "bar"), .next(330, "foo"), .next(350, "qux"), .completed(400),
        ])
        let res = scheduler.start { xs.withLatestFrom(ys) }
        #expect(
            res.events == [
                .next(260, "bar"), .next(310, "bar"), .next(340, "foo"), .next(410, "qux"), .next(420, "qux"),
                .next(470, "qux"), .next(550, "qux"), .completed(590),
            ])
        #expect(xs.subscriptions == [Subscription(200, 590)])
        #expect(ys.subscriptions == [Subscription(200, 400)])
    }

    @Test func disposedEarly() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable(Self.firsts + [.completed(590)])
        let ys = scheduler.createHotObservable([.next(255, "bar"), .next(330, "foo"), .completed(600)])
        let res = scheduler.start(disposed: 335) { xs.withLatestFrom(ys) { "\($0)\($1)" } }
        #expect(res.events == [.next(260, "4bar"), .next(310, "5bar")])
        #expect(xs.subscriptions == [Subscription(200, 335)])
        #expect(ys.subscriptions == [Subscription(200, 335)])
    }

    @Test func subscribesTheSecondFirst() {
        let order = Shared<[String]>([])
        let first = Observable<Int>.create { observer in
            order.append("first")
            observer.onNext(1)
            return Disposables.create()
        }
        let second = Observable<Int>.create { observer in
            order.append("second")
            observer.onNext(10)
            return Disposables.create()
        }
        let values = Shared<[Int]>([])
        let subscription = first.withLatestFrom(second) { $0 + $1 }.subscribe(onNext: { values.append($0) })
        #expect(order.value == ["second", "first"])
        #expect(values.value == [11])
        subscription.dispose()
    }

    // MARK: Threads and resources

    @Test func twoThreadsKeepTheGrammar() {
        let count = 2_000
        let first = PublishSubject<Int>()
        let second = PublishSubject<Int>()
        let recorder = ConcurrentRecorder<[Int]>()
        let subscription = first.withLatestFrom(second) { [$0, $1] }.subscribe(recorder)
        second.onNext(-1)
        runConcurrently(
            {
                for value in 0..<count { first.onNext(value) }
                first.onCompleted()
            },
            { for value in 0..<count { second.onNext(value) } })
        #expect(recorder.waitForTerminalEvent())
        #expect(recorder.violations == [])
        let pairs = recorder.events.compactMap(\.element)
        #expect(pairs.map { $0[0] } == Array(0..<count))
        #expect(pairs.map { $0[1] } == pairs.map { $0[1] }.sorted())
        #expect(recorder.events.last?.isCompleted == true)
        subscription.dispose()
    }

    @Test func releasesEverything() {
        Resources.measure { scope in
            let first = PublishSubject<Int>()
            let second = PublishSubject<Int>()
            _ = first.withLatestFrom(second).subscribe(onNext: { _ in })
            second.onNext(1)
            first.onNext(2)
            second.onCompleted()
            #expect(scope.total == 2)
            first.onCompleted()
            #expect(scope.total == 0)

            let third = PublishSubject<Int>()
            _ = third.withLatestFrom(second).subscribe(onNext: { _ in })
            #expect(scope.total == 2)
            third.onError(testError)
            #expect(scope.total == 0)

            let fourth = PublishSubject<Int>()
            let subscription = fourth.withLatestFrom(fourth).subscribe(onNext: { _ in })
            fourth.onNext(1)
            subscription.dispose()
            #expect(scope.total == 0)
        }
    }
}
