import Dispatch
import Reactive
import ReactiveTestKit
import Testing

/// A `SingleEvent<Int>` that tests can compare.
private enum Outcome: Equatable {
    case success(Int)
    case failure(TestError)

    init(_ event: SingleEvent<Int>) {
        switch event {
        case .success(let element): self = .success(element)
        case .failure(let error): self = .failure(error as? TestError ?? TestError(id: -1))
        }
    }
}

@Suite(.timeLimit(.minutes(1)))
struct SingleTests {
    // MARK: subscribing

    @Test func subscribeSucceeds() {
        let outcomes = Shared<[Outcome]>([])
        _ = Single.just(1).subscribe { outcomes.append(Outcome($0)) }
        #expect(outcomes.value == [.success(1)])
    }

    @Test func subscribeFails() {
        let outcomes = Shared<[Outcome]>([])
        _ = Single<Int>.error(testError).subscribe { outcomes.append(Outcome($0)) }
        #expect(outcomes.value == [.failure(testError)])
    }

    @Test func subscribeWithHandlersRunsOnDisposedAfterTheOutcome() {
        let log = Shared<[String]>([])
        _ = Single.just(1).subscribe(
            onSuccess: { log.append("success \($0)") }, onFailure: { _ in log.append("failure") },
            onDisposed: { log.append("disposed") })
        _ = Single<Int>.error(testError).subscribe(
            onSuccess: { _ in log.append("success") }, onFailure: { log.append("failure \($0)") },
            onDisposed: { log.append("disposed") })
        #expect(log.value == ["success 1", "disposed", "failure TestError(0)", "disposed"])
    }

    @Test func subscribeWithHandlersDisposedEarly() {
        let log = Shared<[String]>([])
        let subscription = Single<Int>.never().subscribe(
            onSuccess: { _ in log.append("success") }, onDisposed: { log.append("disposed") })
        #expect(log.value == [])
        subscription.dispose()
        subscription.dispose()
        #expect(log.value == ["disposed"])
    }

    // MARK: create

    @Test func createSucceedsOnceAndDisposes() {
        let scheduler = TestScheduler(initialClock: 0)
        let callback = Shared<(@Sendable (SingleEvent<Int>) -> Void)?>(nil)
        let disposedAt = Shared<Int?>(nil)
        scheduler.scheduleAt(201) { callback.value?(.success(1)) }
        scheduler.scheduleAt(202) { callback.value?(.success(1)) }
        scheduler.scheduleAt(203) { callback.value?(.failure(testError)) }
        let res = scheduler.start {
            Single<Int>.create { done in
                callback.value = done
                return Disposables.create { disposedAt.value = scheduler.clock }
            }
        }
        #expect(res.events == [.next(201, 1), .completed(201)])
        #expect(disposedAt.value == 201)
    }

    @Test func createFailsOnceAndDisposes() {
        let scheduler = TestScheduler(initialClock: 0)
        let callback = Shared<(@Sendable (SingleEvent<Int>) -> Void)?>(nil)
        let disposedAt = Shared<Int?>(nil)
        scheduler.scheduleAt(201) { callback.value?(.failure(testError)) }
        scheduler.scheduleAt(202) { callback.value?(.success(1)) }
        scheduler.scheduleAt(203) { callback.value?(.failure(testError)) }
        let res = scheduler.start {
            Single<Int>.create { done in
                callback.value = done
                return Disposables.create { disposedAt.value = scheduler.clock }
            }
        }
        #expect(res.events == [.error(201, testError)])
        #expect(disposedAt.value == 201)
    }

    @Test func createDisposedBeforeTheOutcome() {
        let scheduler = TestScheduler(initialClock: 0)
        let callback = Shared<(@Sendable (SingleEvent<Int>) -> Void)?>(nil)
        let disposedAt = Shared<Int?>(nil)
        let subscription = SingleAssignmentDisposable()
        let res = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(201) {
            subscription.setDisposable(
                Single<Int>.create { done in
                    callback.value = done
                    return Disposables.create { disposedAt.value = scheduler.clock }
                }.asObservable().subscribe(res))
        }
        scheduler.scheduleAt(202) { subscription.dispose() }
        scheduler.scheduleAt(203) { callback.value?(.success(1)) }
        scheduler.scheduleAt(204) { callback.value?(.failure(testError)) }
        scheduler.start()
        #expect(res.events == [])
        #expect(disposedAt.value == 202)
    }

    // MARK: factories

    @Test func just() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Single.just(1) }
        #expect(res.events == [.next(200, 1), .completed(200)])
    }

    @Test func justOnScheduler() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Single.just(1, scheduler: scheduler) }
        #expect(res.events == [.next(201, 1), .completed(202)])
    }

    @Test func error() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Single<Int>.error(testError) }
        #expect(res.events == [.error(200, testError)])
    }

    @Test func never() {
        let outcomes = Shared<[Outcome]>([])
        let subscription = Single<Int>.never().subscribe { outcomes.append(Outcome($0)) }
        subscription.dispose()
        #expect(outcomes.value == [])
    }

    @Test func deferredBuildsPerSubscription() {
        let invoked = Shared(0)
        let single = Single.deferred { Single.just(invoked.increment()) }
        let outcomes = Shared<[Outcome]>([])
        _ = single.subscribe { outcomes.append(Outcome($0)) }
        _ = single.subscribe { outcomes.append(Outcome($0)) }
        #expect(outcomes.value == [.success(1), .success(2)])
    }

    @Test func deferredFactoryThrows() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Single<Int>.deferred { throw testError } }
        #expect(res.events == [.error(200, testError)])
    }

    // MARK: operators

    @Test func map() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Single.just(1).map { $0 * 2 } }
        #expect(res.events == [.next(200, 2), .completed(200)])
    }

    @Test func mapThrows() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Single.just(1).map { _ -> Int in throw testError } }
        #expect(res.events == [.error(200, testError)])
    }

    @Test func flatMap() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Single.just(1).flatMap { .just($0 * 2) } }
        #expect(res.events == [.next(200, 2), .completed(200)])
    }

    @Test func flatMapWaitsForTheInnerSingle() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .completed(20)])
        let ys = scheduler.createColdObservable([.next(5, 2), .completed(15)])
        let res = scheduler.start { xs.asSingle().flatMap { value in ys.asSingle().map { $0 * 10 + value } } }
        #expect(res.events == [.next(235, 21), .completed(235)])
        #expect(xs.subscriptions == [Subscription(200, 220)])
        #expect(ys.subscriptions == [Subscription(220, 235)])
    }

    @Test func flatMapOntoAScheduledSingle() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Single.just(1).flatMap { Single.just($0 * 2, scheduler: scheduler) } }
        #expect(res.events == [.next(201, 2), .completed(202)])
    }

    @Test func flatMapInnerFails() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys: TestableObservable<Int> = scheduler.createColdObservable([.error(30, testError)])
        let res = scheduler.start { Single.just(1).flatMap { _ in ys.asSingle() } }
        #expect(res.events == [.error(230, testError)])
        #expect(ys.subscriptions == [Subscription(200, 230)])
    }

    @Test func flatMapOuterFails() {
        let scheduler = TestScheduler(initialClock: 0)
        let invoked = Shared(0)
        let res = scheduler.start {
            Single<Int>.error(testError).flatMap { value -> Single<Int> in
                invoked.increment()
                return .just(value)
            }
        }
        #expect(res.events == [.error(200, testError)])
        #expect(invoked.value == 0)
    }

    @Test func flatMapSelectorThrows() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Single.just(1).flatMap { _ -> Single<Int> in throw testError } }
        #expect(res.events == [.error(200, testError)])
    }

    @Test func flatMapDisposedEarlyDisposesTheInnerSingle() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .completed(20)])
        let ys = scheduler.createColdObservable([.next(50, 2), .completed(60)])
        let res = scheduler.start(disposed: 250) { xs.asSingle().flatMap { _ in ys.asSingle() } }
        #expect(res.events == [])
        #expect(xs.subscriptions == [Subscription(200, 220)])
        #expect(ys.subscriptions == [Subscription(220, 250)])
    }

    @Test func catchSwitchesToTheFallback() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Single<Int>.error(testError).catch { _ in .just(2) } }
        #expect(res.events == [.next(200, 2), .completed(200)])
    }

    @Test func catchSubscribesTheFallbackWhenTheSourceFails() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Int> = scheduler.createColdObservable([.error(10, testError)])
        let ys = scheduler.createColdObservable([.next(10, 5), .completed(10)])
        let caught = Shared<[TestError]>([])
        let res = scheduler.start {
            xs.asSingle().catch { error in
                caught.append(error as? TestError ?? TestError(id: -1))
                return ys.asSingle()
            }
        }
        #expect(res.events == [.next(220, 5), .completed(220)])
        #expect(caught.value == [testError])
        #expect(xs.subscriptions == [Subscription(200, 210)])
        #expect(ys.subscriptions == [Subscription(210, 220)])
    }

    @Test func catchIgnoresSuccess() {
        let scheduler = TestScheduler(initialClock: 0)
        let invoked = Shared(0)
        let res = scheduler.start {
            Single.just(1).catch { _ in
                invoked.increment()
                return .just(2)
            }
        }
        #expect(res.events == [.next(200, 1), .completed(200)])
        #expect(invoked.value == 0)
    }

    @Test func catchHandlerThrows() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Single<Int>.error(testError).catch { _ in throw testError1 } }
        #expect(res.events == [.error(200, testError1)])
    }

    @Test func catchFallbackFails() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Single<Int>.error(testError).catch { _ in .error(testError2) } }
        #expect(res.events == [.error(200, testError2)])
    }

    @Test func catchDisposedEarlyDisposesTheFallback() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Int> = scheduler.createColdObservable([.error(10, testError)])
        let ys = scheduler.createColdObservable([.next(100, 5), .completed(100)])
        let res = scheduler.start(disposed: 250) { xs.asSingle().catch { _ in ys.asSingle() } }
        #expect(res.events == [])
        #expect(xs.subscriptions == [Subscription(200, 210)])
        #expect(ys.subscriptions == [Subscription(210, 250)])
    }

    @Test func catchAndReturn() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Single<Int>.error(testError).catchAndReturn(2) }
        #expect(res.events == [.next(200, 2), .completed(200)])
    }

    @Test func doRunsItsCallbacksInOrder() {
        let scheduler = TestScheduler(initialClock: 0)
        let log = Shared<[String]>([])
        let res = scheduler.start {
            Single.just(1).do(
                onSuccess: { log.append("success \($0)") },
                afterSuccess: { log.append("after success \($0)") },
                onError: { _ in log.append("error") }, afterError: { _ in log.append("after error") },
                onSubscribe: { log.append("subscribe") }, onSubscribed: { log.append("subscribed") },
                onDispose: { log.append("dispose") })
        }
        #expect(res.events == [.next(200, 1), .completed(200)])
        #expect(log.value == ["subscribe", "success 1", "after success 1", "subscribed", "dispose"])
    }

    @Test func doOnFailure() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Int> = scheduler.createHotObservable([.error(250, testError)])
        let log = Shared<[String]>([])
        let res = scheduler.start {
            xs.asSingle().do(
                onSuccess: { _ in log.append("success") }, onError: { log.append("error \($0)") },
                afterError: { log.append("after error \($0)") }, onDispose: { log.append("dispose") })
        }
        #expect(res.events == [.error(250, testError)])
        #expect(log.value == ["error TestError(0)", "after error TestError(0)", "dispose"])
        #expect(xs.subscriptions == [Subscription(200, 250)])
    }

    @Test func doOnSuccessThrows() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Single.just(1).do(onSuccess: { _ in throw testError }) }
        #expect(res.events == [.error(200, testError)])
    }

    @Test func doAfterSuccessThrows() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Single.just(1).do(afterSuccess: { _ in throw testError }) }
        #expect(res.events == [.next(200, 1), .error(200, testError)])
    }

    @Test func doOnErrorThrowsReplacesTheError() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Single<Int>.error(testError).do(onError: { _ in throw testError1 }) }
        #expect(res.events == [.error(200, testError1)])
    }

    @Test func doOnDisposeRunsOnceWhenDisposedEarly() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(300, 1), .completed(300)])
        let disposedAt = Shared<[Int]>([])
        let res = scheduler.start(disposed: 250) {
            xs.asSingle().do(onDispose: { disposedAt.append(scheduler.clock) })
        }
        #expect(res.events == [])
        #expect(disposedAt.value == [250])
        #expect(xs.subscriptions == [Subscription(200, 250)])
    }

    // MARK: asSingle

    @Test func asSingleEmptyFails() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .completed(250), .error(260, testError)])
        let res = scheduler.start { xs.asSingle() }
        #expect(res.events == [.error(250, RxError.noElements)])
        #expect(xs.subscriptions == [Subscription(200, 250)])
    }

    @Test func asSingleOneElementSucceedsOnCompletion() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .completed(250), .error(260, testError),
        ])
        let res = scheduler.start { xs.asSingle() }
        #expect(res.events == [.next(250, 2), .completed(250)])
        #expect(xs.subscriptions == [Subscription(200, 250)])
    }

    @Test func asSingleSecondElementFailsAtOnce() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(220, 3), .completed(250), .error(260, testError),
        ])
        let res = scheduler.start { xs.asSingle() }
        #expect(res.events == [.error(220, RxError.moreThanOneElement)])
        #expect(xs.subscriptions == [Subscription(200, 220)])
    }

    @Test func asSingleError() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .error(210, testError)])
        let res = scheduler.start { xs.asSingle() }
        #expect(res.events == [.error(210, testError)])
        #expect(xs.subscriptions == [Subscription(200, 210)])
    }

    @Test func asSingleErrorAfterAnElement() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .next(205, 2), .error(210, testError)])
        let res = scheduler.start { xs.asSingle() }
        #expect(res.events == [.error(210, testError)])
        #expect(xs.subscriptions == [Subscription(200, 210)])
    }

    @Test func asSingleDisposedEarly() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 2), .completed(300)])
        let res = scheduler.start(disposed: 250) { xs.asSingle() }
        #expect(res.events == [])
        #expect(xs.subscriptions == [Subscription(200, 250)])
    }

    // MARK: value

    @Test func valueReturnsTheElement() async throws {
        let value = try await Single.just(1).map { $0 + 1 }.value
        #expect(value == 2)
    }

    @Test func valueAwaitsAnOutcomeFromAnotherThread() async throws {
        let single = Single<Int>.create { done in
            DispatchQueue.global().async { done(.success(5)) }
            return Disposables.create()
        }
        #expect(try await single.value == 5)
    }

    @Test func valueThrowsTheError() async {
        await #expect(throws: TestError.self) { try await Single<Int>.error(testError).value }
    }

    @Test func cancellingTheAwaitingTaskDisposesTheSubscription() async {
        let (subscribed, subscribedContinuation) = AsyncStream<Void>.makeStream()
        let disposed = Shared(false)
        let single = Single<Int>.create { _ in
            subscribedContinuation.yield()
            return Disposables.create { disposed.value = true }
        }
        let task = Task { try await single.value }
        for await _ in subscribed { break }
        task.cancel()
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(disposed.value)
    }

    @Test func awaitingInACancelledTaskNeverSubscribes() async {
        let subscriptions = Shared(0)
        let single = Single<Int>.create { _ in
            subscriptions.increment()
            return Disposables.create()
        }
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await single.value
        }
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(subscriptions.value == 0)
    }

    // MARK: resources

    @Test func noLeaks() {
        Resources.measure { scope in
            let scheduler = TestScheduler(initialClock: 0)
            _ = Observable.just(1).asSingle().subscribe { _ in }
            _ = Observable<Int>.error(testError).asSingle().subscribe { _ in }
            _ = Observable.of(1, 2).asSingle().subscribe { _ in }
            _ = Single.just(1).flatMap { Single.just($0, scheduler: scheduler) }.subscribe { _ in }
            _ = Single<Int>.error(testError).catch { _ in .just(1) }.subscribe { _ in }
            _ = Single.just(1).do(onSuccess: { _ in }, onDispose: {}).subscribe { _ in }
            scheduler.start()
            do {
                let open = Single<Int>.never().flatMap { .just($0) }.catchAndReturn(0).subscribe { _ in }
                #expect(scope.total == 3)
                open.dispose()
            }
            #expect(scope.total == 0)
        }
    }
}

@Suite(.timeLimit(.minutes(1)))
struct SingleSchedulingTests {
    @Test func timeoutFailsAndDisposesTheSource() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(50, 1), .completed(50)])
        let res = scheduler.start { xs.asSingle().timeout(.seconds(20), scheduler: scheduler) }
        #expect(res.events == [.error(220, RxError.timeout)])
        #expect(xs.subscriptions == [Subscription(200, 220)])
    }

    @Test func timeoutLetsAnEarlyAnswerThrough() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .completed(10)])
        let res = scheduler.start { xs.asSingle().timeout(.seconds(20), scheduler: scheduler) }
        #expect(res.events == [.next(210, 1), .completed(210)])
        #expect(xs.subscriptions == [Subscription(200, 210)])
    }

    @Test func timeoutCanSwitchToAnotherSingle() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(50, 1), .completed(50)])
        let res = scheduler.start {
            xs.asSingle().timeout(.seconds(20), other: .just(-1), scheduler: scheduler)
        }
        #expect(res.events == [.next(220, -1), .completed(220)])
        #expect(xs.subscriptions == [Subscription(200, 220)])
    }

    @Test func retryResubscribesAfterFailures() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.error(10, testError)] as [Recorded<Event<Int>>])
        let res = scheduler.start { xs.asSingle().retry(3) }
        #expect(res.events == [.error(230, testError)])
        #expect(xs.subscriptions == [Subscription(200, 210), Subscription(210, 220), Subscription(220, 230)])
    }

    @Test func observeOnAndSubscribeOnMoveTheWorkToTheScheduler() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .completed(10)])
        let observed = scheduler.start { xs.asSingle().observe(on: scheduler) }
        #expect(observed.events == [.next(211, 1), .completed(211)])

        let scheduler2 = TestScheduler(initialClock: 0)
        let ys = scheduler2.createColdObservable([.next(10, 1), .completed(10)])
        let subscribed = scheduler2.start { ys.asSingle().subscribe(on: scheduler2) }
        #expect(subscribed.events == [.next(211, 1), .completed(211)])
        #expect(ys.subscriptions == [Subscription(201, 211)])
    }
}
