import Reactive
import ReactiveTestKit
import Testing

/// RxSwift's catch scenarios (Observable+CatchTests) and catchAndReturn.
@Suite(.timeLimit(.minutes(1)))
struct CatchTests {
    static func failingAt230(_ scheduler: TestScheduler) -> TestableObservable<Int> {
        scheduler.createHotObservable([.next(150, 1), .next(210, 2), .next(220, 3), .error(230, testError)])
    }

    @Test func switchesToTheFallbackWhenTheSourceFails() {
        let scheduler = TestScheduler(initialClock: 0)
        let o1 = Self.failingAt230(scheduler)
        let o2 = scheduler.createHotObservable([.next(240, 4), .completed(250)])
        let handlerCalled = Shared<TestTime?>(nil)
        let res = scheduler.start {
            o1.catch { _ in
                handlerCalled.value = scheduler.clock
                return o2.asObservable()
            }
        }
        #expect(handlerCalled.value == 230)
        #expect(res.events == [.next(210, 2), .next(220, 3), .next(240, 4), .completed(250)])
        #expect(o1.subscriptions == [Subscription(200, 230)])
        #expect(o2.subscriptions == [Subscription(230, 250)])
    }

    @Test func handlerThrows() {
        let scheduler = TestScheduler(initialClock: 0)
        let o1 = Self.failingAt230(scheduler)
        let handlerCalled = Shared<TestTime?>(nil)
        let res = scheduler.start {
            o1.catch { _ -> Observable<Int> in
                handlerCalled.value = scheduler.clock
                throw testError1
            }
        }
        #expect(handlerCalled.value == 230)
        #expect(res.events == [.next(210, 2), .next(220, 3), .error(230, testError1)])
        #expect(o1.subscriptions == [Subscription(200, 230)])
    }

    @Test func handlerSeesTheError() {
        let scheduler = TestScheduler(initialClock: 0)
        let o1 = Self.failingAt230(scheduler)
        let seen = Shared<[TestError]>([])
        _ = scheduler.start {
            o1.catch { error in
                seen.append(error as? TestError ?? TestError(id: -1))
                return o1.asObservable()
            }
        }
        #expect(seen.value == [testError])
    }

    @Test func completionPassesThroughWithoutTheHandler() {
        let scheduler = TestScheduler(initialClock: 0)
        let o1 = scheduler.createHotObservable([.next(210, 2), .completed(230)])
        let o2 = scheduler.createHotObservable([.next(240, 4), .completed(250)])
        let res = scheduler.start { o1.catch { _ in o2.asObservable() } }
        #expect(res.events == [.next(210, 2), .completed(230)])
        #expect(o1.subscriptions == [Subscription(200, 230)])
        #expect(o2.subscriptions == [])
    }

    @Test func fallbackErrorIsPassedOn() {
        let scheduler = TestScheduler(initialClock: 0)
        let o1 = Self.failingAt230(scheduler)
        let o2 = scheduler.createHotObservable([.next(240, 4), .error(250, testError2)])
        let res = scheduler.start { o1.catch { _ in o2.asObservable() } }
        #expect(res.events == [.next(210, 2), .next(220, 3), .next(240, 4), .error(250, testError2)])
        #expect(o1.subscriptions == [Subscription(200, 230)])
        #expect(o2.subscriptions == [Subscription(230, 250)])
    }

    @Test func disposedBeforeTheError() {
        let scheduler = TestScheduler(initialClock: 0)
        let o1 = Self.failingAt230(scheduler)
        let o2 = scheduler.createHotObservable([.next(240, 4), .completed(250)])
        let res = scheduler.start(disposed: 225) { o1.catch { _ in o2.asObservable() } }
        #expect(res.events == [.next(210, 2), .next(220, 3)])
        #expect(o1.subscriptions == [Subscription(200, 225)])
        #expect(o2.subscriptions == [])
    }

    @Test func disposedWhileOnTheFallback() {
        Resources.measure { scope in
            let scheduler = TestScheduler(initialClock: 0)
            let o1 = Self.failingAt230(scheduler)
            let o2 = scheduler.createHotObservable([.next(240, 4), .completed(250)])
            let res = scheduler.start(disposed: 245) { o1.catch { _ in o2.asObservable() } }
            #expect(res.events == [.next(210, 2), .next(220, 3), .next(240, 4)])
            #expect(o1.subscriptions == [Subscription(200, 230)])
            #expect(o2.subscriptions == [Subscription(230, 245)])
            #expect(scope.total == 0)
        }
    }

    @Test func synchronousFailureAndSynchronousFallback() {
        let received = Shared<[Event<Int>]>([])
        let failing = Observable<Int>.create { observer in
            observer.onNext(1)
            observer.onError(testError)
            return Disposables.create()
        }
        _ = failing.catch { _ in failing.catchAndReturn(2) }.subscribe { received.append($0) }
        #expect(received.value == [.next(1), .next(1), .next(2), .completed])
    }

    @Test func catchAndReturnEmitsTheElementAndCompletesAtTheError() {
        let scheduler = TestScheduler(initialClock: 0)
        let o1 = Self.failingAt230(scheduler)
        let res = scheduler.start { o1.catchAndReturn(100) }
        #expect(res.events == [.next(210, 2), .next(220, 3), .next(230, 100), .completed(230)])
        #expect(o1.subscriptions == [Subscription(200, 230)])
    }

    @Test func catchAndReturnPassesCompletion() {
        let scheduler = TestScheduler(initialClock: 0)
        let o1 = scheduler.createHotObservable([.next(210, 2), .completed(230)])
        let res = scheduler.start { o1.catchAndReturn(100) }
        #expect(res.events == [.next(210, 2), .completed(230)])
        #expect(o1.subscriptions == [Subscription(200, 230)])
    }

    @Test func catchAndReturnDisposedEarly() {
        let scheduler = TestScheduler(initialClock: 0)
        let o1 = Self.failingAt230(scheduler)
        let res = scheduler.start(disposed: 215) { o1.catchAndReturn(100) }
        #expect(res.events == [.next(210, 2)])
        #expect(o1.subscriptions == [Subscription(200, 215)])
    }

    @Test func releasesResourcesOnEveryTermination() {
        Resources.measure { scope in
            let scheduler = TestScheduler(initialClock: 0)
            let completes = scheduler.createColdObservable([.next(10, 1), .completed(20)])
            let fails: TestableObservable<Int> = scheduler.createColdObservable([.error(10, testError)])
            _ = completes.catch { _ in completes.asObservable() }.subscribe()
            _ = fails.catch { _ in completes.asObservable() }.subscribe()
            _ = fails.catch { _ in fails.asObservable() }.subscribe()
            _ = fails.catch { _ in throw testError1 }.subscribe()
            _ = fails.catchAndReturn(1).subscribe()
            scheduler.start()
            #expect(scope.total == 0)
        }
    }
}
