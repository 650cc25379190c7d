import Reactive
import ReactiveTestKit
import Testing

/// RxSwift's do scenarios (Observable+DoOnTests) and the after-handlers.
@Suite(.timeLimit(.minutes(1)))
struct DoTests {
    static func completing(_ scheduler: TestScheduler) -> TestableObservable<Int> {
        scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(220, 3), .next(230, 4), .next(240, 5), .completed(250),
        ])
    }

    static func failing(_ scheduler: TestScheduler) -> TestableObservable<Int> {
        scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(220, 3), .next(230, 4), .next(240, 5), .error(250, testError),
        ])
    }

    static let allEvents: [Recorded<Event<Int>>] = [
        .next(210, 2), .next(220, 3), .next(230, 4), .next(240, 5), .completed(250),
    ]

    @Test func seesAllValues() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.completing(scheduler)
        let count = Shared(0)
        let sum = Shared(2 + 3 + 4 + 5)
        let res = scheduler.start {
            xs.do(onNext: { value in
                count.increment()
                sum.mutate { $0 -= value }
            })
        }
        #expect(count.value == 4)
        #expect(sum.value == 0)
        #expect(res.events == Self.allEvents)
        #expect(xs.subscriptions == [Subscription(200, 250)])
    }

    @Test func nextAndCompleted() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.completing(scheduler)
        let count = Shared(0)
        let completed = Shared(false)
        let res = scheduler.start {
            xs.do(onNext: { _ in count.increment() }, onCompleted: { completed.value = true })
        }
        #expect(count.value == 4)
        #expect(completed.value)
        #expect(res.events == Self.allEvents)
        #expect(xs.subscriptions == [Subscription(200, 250)])
    }

    @Test func completedNever() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Int> = scheduler.createHotObservable([])
        let count = Shared(0)
        let completed = Shared(false)
        let res = scheduler.start {
            xs.do(onNext: { _ in count.increment() }, onCompleted: { completed.value = true })
        }
        #expect(count.value == 0)
        #expect(!completed.value)
        #expect(res.events == [])
        #expect(xs.subscriptions == [Subscription(200, 1000)])
    }

    @Test func nextAndError() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.failing(scheduler)
        let count = Shared(0)
        let sawError = Shared(false)
        let res = scheduler.start {
            xs.do(onNext: { _ in count.increment() }, onError: { _ in sawError.value = true })
        }
        #expect(count.value == 4)
        #expect(sawError.value)
        #expect(
            res.events == [
                .next(210, 2), .next(220, 3), .next(230, 4), .next(240, 5), .error(250, testError),
            ])
        #expect(xs.subscriptions == [Subscription(200, 250)])
    }

    @Test func errorHandlerNotCalledOnCompletion() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.completing(scheduler)
        let sawError = Shared(false)
        let res = scheduler.start { xs.do(onError: { _ in sawError.value = true }) }
        #expect(!sawError.value)
        #expect(res.events == Self.allEvents)
        #expect(xs.subscriptions == [Subscription(200, 250)])
    }

    @Test func onNextThrows() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.completing(scheduler)
        let count = Shared(0)
        let res = scheduler.start {
            xs.do(onNext: { _ in
                if count.value > 2 { throw testError }
                count.increment()
            })
        }
        #expect(res.events == [.next(210, 2), .next(220, 3), .next(230, 4), .error(240, testError)])
        #expect(xs.subscriptions == [Subscription(200, 240)])
        #expect(count.value == 3)
    }

    @Test func onErrorSeesTheError() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .next(210, 2), .error(250, testError)])
        let errors = Shared<[TestError]>([])
        let res = scheduler.start { xs.do(onError: { errors.append($0 as? TestError ?? TestError(id: -1)) }) }
        #expect(res.events == [.next(210, 2), .error(250, testError)])
        #expect(xs.subscriptions == [Subscription(200, 250)])
        #expect(errors.value == [testError])
    }

    @Test func onErrorThrowsReplacesTheError() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .next(210, 2), .error(250, testError)])
        let res = scheduler.start { xs.do(onError: { _ in throw testError1 }) }
        #expect(res.events == [.next(210, 2), .error(250, testError1)])
        #expect(xs.subscriptions == [Subscription(200, 250)])
    }

    @Test func onCompletedThrowsBecomesAnError() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.completing(scheduler)
        let res = scheduler.start { xs.do(onCompleted: { throw testError }) }
        #expect(
            res.events == [
                .next(210, 2), .next(220, 3), .next(230, 4), .next(240, 5), .error(250, testError),
            ])
        #expect(xs.subscriptions == [Subscription(200, 250)])
    }

    @Test func afterNextRunsAfterDownstreamAndItsErrorFollowsTheElement() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.completing(scheduler)
        let order = Shared<[String]>([])
        let res = scheduler.start {
            xs.do(
                onNext: { order.append("on \($0)") },
                afterNext: { value in
                    order.append("after \(value)")
                    if value == 3 { throw testError }
                }
            )
            .do(onNext: { order.append("downstream \($0)") })
        }
        #expect(res.events == [.next(210, 2), .next(220, 3), .error(220, testError)])
        #expect(xs.subscriptions == [Subscription(200, 220)])
        #expect(
            order.value == [
                "on 2", "downstream 2", "after 2", "on 3", "downstream 3", "after 3",
            ])
    }

    @Test func afterCompletedRunsAfterDownstreamAndItsErrorIsDropped() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.completing(scheduler)
        let order = Shared<[String]>([])
        let res = scheduler.start {
            xs.do(
                afterCompleted: {
                    order.append("afterCompleted")
                    throw testError1
                }
            )
            .do(onCompleted: { order.append("downstream completed") })
        }
        #expect(res.events == Self.allEvents)
        #expect(xs.subscriptions == [Subscription(200, 250)])
        #expect(order.value == ["downstream completed", "afterCompleted"])
    }

    @Test func afterErrorRunsAfterDownstreamAndItsErrorIsDropped() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.failing(scheduler)
        let order = Shared<[String]>([])
        let res = scheduler.start {
            xs.do(
                afterError: { _ in
                    order.append("afterError")
                    throw testError1
                }
            )
            .do(onError: { _ in order.append("downstream error") })
        }
        #expect(
            res.events == [
                .next(210, 2), .next(220, 3), .next(230, 4), .next(240, 5), .error(250, testError),
            ])
        #expect(xs.subscriptions == [Subscription(200, 250)])
        #expect(order.value == ["downstream error", "afterError"])
    }

    @Test func disposedEarlyRunsOnDispose() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = Self.completing(scheduler)
        let disposals = Shared(0)
        let res = scheduler.start(disposed: 225) { xs.do(onDispose: { disposals.increment() }) }
        #expect(res.events == [.next(210, 2), .next(220, 3)])
        #expect(xs.subscriptions == [Subscription(200, 225)])
        #expect(disposals.value == 1)
    }

    enum Step: Equatable, Sendable {
        case sourceSubscribe, sourceDispose, onNext, onCompleted, onError, onSubscribe, onSubscribed
        case onDispose
    }

    /// A `do` with every lifecycle handler recording into `steps`.
    static func recording<Source: ObservableType>(_ source: Source, into steps: Shared<[Step]>)
        -> Observable<Int> where Source.Element == Int
    {
        source.do(
            onNext: { _ in steps.append(Step.onNext) },
            onError: { _ in steps.append(Step.onError) },
            onCompleted: { steps.append(Step.onCompleted) },
            onSubscribe: { steps.append(Step.onSubscribe) },
            onSubscribed: { steps.append(Step.onSubscribed) },
            onDispose: { steps.append(Step.onDispose) }
        )
    }

    @Test func orderWhenCompletingLater() {
        let scheduler = TestScheduler(initialClock: 0)
        let steps = Shared<[Step]>([])
        _ = scheduler.start {
            Self.recording(
                Observable<Int>.create { observer in
                    steps.append(Step.sourceSubscribe)
                    scheduler.scheduleAt(300) {
                        observer.onNext(0)
                        observer.onCompleted()
                    }
                    return Disposables.create { steps.append(Step.sourceDispose) }
                }, into: steps)
        }
        #expect(
            steps.value == [
                .onSubscribe, .sourceSubscribe, .onSubscribed, .onNext, .onCompleted, .sourceDispose,
                .onDispose,
            ])
    }

    @Test func orderWhenCompletingSynchronously() {
        let scheduler = TestScheduler(initialClock: 0)
        let steps = Shared<[Step]>([])
        _ = scheduler.start {
            Self.recording(
                Observable<Int>.create { observer in
                    steps.append(Step.sourceSubscribe)
                    observer.onNext(0)
                    observer.onCompleted()
                    return Disposables.create { steps.append(Step.sourceDispose) }
                }, into: steps)
        }
        #expect(
            steps.value == [
                .onSubscribe, .sourceSubscribe, .onNext, .onCompleted, .sourceDispose, .onSubscribed,
                .onDispose,
            ])
    }

    @Test func orderWhenFailingSynchronously() {
        let steps = Shared<[Step]>([])
        _ = Self.recording(
            Observable<Int>.create { observer in
                steps.append(Step.sourceSubscribe)
                observer.onNext(0)
                observer.onError(testError)
                return Disposables.create { steps.append(Step.sourceDispose) }
            }, into: steps
        )
        .subscribe { _ in }
        #expect(
            steps.value == [
                .onSubscribe, .sourceSubscribe, .onNext, .onError, .sourceDispose, .onSubscribed, .onDispose,
            ])
    }

    @Test func orderWhenDisposed() {
        let steps = Shared<[Step]>([])
        Self.recording(
            Observable<Int>.create { observer in
                steps.append(Step.sourceSubscribe)
                observer.onNext(0)
                return Disposables.create { steps.append(Step.sourceDispose) }
            }, into: steps
        )
        .subscribe { _ in }
        .dispose()
        #expect(
            steps.value == [
                .onSubscribe, .sourceSubscribe, .onNext, .onSubscribed, .sourceDispose, .onDispose,
            ])
    }

    @Test func releasesResourcesOnEveryTermination() {
        Resources.measure { scope in
            let scheduler = TestScheduler(initialClock: 0)
            let completes = scheduler.createColdObservable([.next(10, 1), .completed(20)])
            let fails: TestableObservable<Int> = scheduler.createColdObservable([.error(10, testError)])
            _ = completes.do().subscribe()
            _ = fails.do().subscribe()
            _ = completes.do(onNext: { _ in throw testError }).subscribe()
            _ = completes.do(onDispose: {}).subscribe()
            scheduler.start()
            #expect(scope.total == 0)
        }
    }
}

/// Edge cases of do outside virtual time.
@Suite(.timeLimit(.minutes(1)))
struct DoEdgeTests {
    @Test func afterNextErrorIsDroppedWhenDownstreamDisposedMeanwhile() {
        let subject = PublishSubject<Int>()
        let received = Shared<[Event<Int>]>([])
        let subscription = SingleAssignmentDisposable()
        subscription.setDisposable(
            subject.do(afterNext: { _ in throw testError }).subscribe { event in
                received.append(event)
                subscription.dispose()
            })
        subject.onNext(1)
        #expect(received.value == [.next(1)])
        #expect(!subject.hasObservers)
    }
}
