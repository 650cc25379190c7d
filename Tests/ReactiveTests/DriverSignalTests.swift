import Dispatch
import Foundation
import Reactive
import ReactiveTestKit
import Testing

@Suite(.timeLimit(.minutes(1)))
struct DriverTests {
    @Test func neverErrorsAnErrorBecomesTheFallbackThenCompletion() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(220, testError), .next(230, 3)])
        let res = SharingScheduler.mock(scheduler: scheduler) {
            scheduler.start { xs.asDriver(onErrorJustReturn: -1) }
        }
        #expect(res.events == [.next(211, 1), .next(221, -1), .completed(221)])
        #expect(xs.subscriptions == [Subscription(200, 220)])
    }

    @Test func onErrorDriveWithContinuesWithAnotherDriver() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(220, testError)])
        let ys = scheduler.createHotObservable([.next(230, 7), .completed(240)])
        let res = SharingScheduler.mock(scheduler: scheduler) {
            let fallback = ys.asDriver(onErrorJustReturn: 0)
            return scheduler.start { xs.asDriver(onErrorDriveWith: fallback) }
        }
        #expect(res.events == [.next(211, 1), .next(231, 7), .completed(241)])
        #expect(ys.subscriptions == [Subscription(221, 240)])
    }

    @Test func onErrorRecoverContinuesWithTheDriverMadeForTheError() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(220, testError)])
        let seen = Shared<[String]>([])
        let res = SharingScheduler.mock(scheduler: scheduler) {
            scheduler.start {
                xs.asDriver(onErrorRecover: { error in
                    seen.append("\(error)")
                    return Driver.just(42)
                })
            }
        }
        #expect(res.events == [.next(211, 1), .next(222, 42), .completed(222)])
        #expect(seen.value == ["TestError(0)"])
    }

    @Test func sharesOneSubscriptionAndReplaysTheLatestWhileConnected() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(240, 3)])
        let first = scheduler.createObserver(Int.self)
        let second = scheduler.createObserver(Int.self)
        SharingScheduler.mock(scheduler: scheduler) {
            let driver = xs.asDriver(onErrorJustReturn: 0).map { $0 * 10 }
            scheduler.scheduleAt(200) { _ = driver.drive(first) }
            scheduler.scheduleAt(230) { _ = driver.drive(second) }
            scheduler.start()
        }
        #expect(first.events == [.next(211, 10), .next(221, 20), .next(241, 30)])
        // The late subscriber gets the latest element at once, then the rest.
        #expect(second.events == [.next(230, 20), .next(241, 30)])
        #expect(xs.subscriptions == [Subscription(200)])
    }

    @Test func reconnectsWithoutReplayAfterEveryoneLeft() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(260, 2)])
        let first = scheduler.createObserver(Int.self)
        let second = scheduler.createObserver(Int.self)
        SharingScheduler.mock(scheduler: scheduler) {
            let driver = xs.asDriver(onErrorJustReturn: 0)
            let subscription = SingleAssignmentDisposable()
            scheduler.scheduleAt(200) { subscription.setDisposable(driver.drive(first)) }
            scheduler.scheduleAt(230) { subscription.dispose() }
            scheduler.scheduleAt(250) { _ = driver.drive(second) }
            scheduler.start()
        }
        #expect(first.events == [.next(211, 1)])
        #expect(second.events == [.next(261, 2)])
        #expect(xs.subscriptions == [Subscription(200, 230), Subscription(250)])
    }

    @Test func driverMadeOnAnActorDeliversOnIt() async {
        let host = Host()
        let scheduler = ActorScheduler(host)
        let input = PublishSubject<Int>()
        let delivered = Shared<[Bool]>([])
        let done = DispatchSemaphore(value: 0)
        let subscription = await host.build(scheduler) {
            input.map { $0 + 1 }.asDriver(onErrorJustReturn: 0)
                .drive(onNext: { value in
                    delivered.append(scheduler.isOnActor)
                    if value == 3 { done.signal() }
                })
        }
        // Fed from a thread that is not the actor's.
        Thread {
            input.onNext(1)
            input.onNext(2)
        }.start()
        #expect(await arrived(done))
        #expect(delivered.value == [true, true])
        subscription.dispose()
    }

    @Test func driverMadeElsewhereDeliversOnTheSharedSerialThread() {
        let input = PublishSubject<Int>()
        let done = DispatchSemaphore(value: 0)
        let threads = Shared<[UInt]>([])
        let record: @Sendable () -> Void = {
            threads.append(currentThreadID())
            done.signal()
        }
        SharingScheduler.defaultScheduler.schedule(record)
        #expect(done.wait(timeout: .now() + 10) == .success)
        let subscription = input.asDriver(onErrorJustReturn: 0).drive(onNext: { _ in record() })
        input.onNext(1)
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(threads.value.count == 2 && threads.value[0] == threads.value[1])
        #expect(threads.value.first != currentThreadID())
        subscription.dispose()
    }

    @Test func leaksNothing() {
        let scheduler = TestScheduler(initialClock: 0)
        Resources.measure { scope in
            SharingScheduler.mock(scheduler: scheduler) {
                let subject = PublishSubject<Int>()
                let driver = subject.asDriver(onErrorJustReturn: 0).map { $0 }.distinctUntilChanged()
                let a = driver.drive(onNext: { _ in })
                let b = driver.drive(onNext: { _ in })
                scheduler.scheduleAt(10) { subject.onNext(1) }
                scheduler.advanceTo(20)
                a.dispose()
                b.dispose()
                scheduler.start()
            }
            #expect(scope.total == 0)
        }
    }
}

@Suite(.timeLimit(.minutes(1)))
struct SignalTests {
    @Test func doesNotReplayToLateSubscribers() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(240, 3)])
        let first = scheduler.createObserver(Int.self)
        let second = scheduler.createObserver(Int.self)
        SharingScheduler.mock(scheduler: scheduler) {
            let signal = xs.asSignal(onErrorJustReturn: 0)
            scheduler.scheduleAt(200) { _ = signal.emit(to: first) }
            scheduler.scheduleAt(230) { _ = signal.emit(to: second) }
            scheduler.start()
        }
        #expect(first.events == [.next(211, 1), .next(221, 2), .next(241, 3)])
        #expect(second.events == [.next(241, 3)])
        #expect(xs.subscriptions == [Subscription(200)])
    }

    @Test func neverErrors() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(220, testError)])
        let res = SharingScheduler.mock(scheduler: scheduler) {
            scheduler.start { xs.asSignal(onErrorJustReturn: -1) }
        }
        #expect(res.events == [.next(211, 1), .next(221, -1), .completed(221)])
    }

    @Test func relaysBecomeDriversAndSignals() {
        let scheduler = TestScheduler(initialClock: 0)
        let relay = BehaviorRelay(value: 1)
        let events = PublishRelay<String>()
        let driven = scheduler.createObserver(Int.self)
        let emitted = scheduler.createObserver(String.self)
        SharingScheduler.mock(scheduler: scheduler) {
            _ = relay.asDriver().drive(driven)
            _ = events.asSignal().emit(to: emitted)
            scheduler.scheduleAt(10) {
                relay.accept(2)
                events.accept("tap")
            }
            scheduler.start()
        }
        #expect(driven.events == [.next(1, 1), .next(11, 2)])
        #expect(emitted.events == [.next(11, "tap")])
    }
}

/// Hosts a graph inside an actor, as the gateway's view models will.
private actor Host {
    func build(
        _ scheduler: ActorScheduler<Host>, _ graph: @Sendable () -> any Disposable
    ) -> any Disposable {
        scheduler.run(on: self) { graph() }
    }
}
