import Reactive
import ReactiveTestKit
import Testing

/// Subscribes at 200 with `bind`, disposes at `disposed`, runs the scheduler.
private func runBinding(
    _ scheduler: TestScheduler, disposed: TestTime = 1000, bind: @escaping @Sendable () -> any Disposable
) {
    let subscription = SingleAssignmentDisposable()
    scheduler.scheduleAt(200) { subscription.setDisposable(bind()) }
    scheduler.scheduleAt(disposed) { subscription.dispose() }
    scheduler.start()
}

@Suite(.timeLimit(.minutes(1)))
struct BindTests {
    @Test func bindToObserverForwardsEveryEvent() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(220, 3), .completed(300), .next(310, 4),
        ])
        let res = scheduler.createObserver(Int.self)
        runBinding(scheduler) { xs.bind(to: res) }
        #expect(res.events == [.next(210, 2), .next(220, 3), .completed(300)])
        #expect(xs.subscriptions == [Subscription(200, 300)])
    }

    @Test func bindToSeveralObserversDeliversToEachInOrder() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(300)])
        let log = Shared<[String]>([])
        let first = AnyObserver<Int> { log.append("first \($0)") }
        let second = AnyObserver<Int> { log.append("second \($0)") }
        runBinding(scheduler) { xs.bind(to: first, second) }
        #expect(
            log.value == [
                "first next(1)", "second next(1)", "first next(2)", "second next(2)",
                "first completed", "second completed",
            ])
        #expect(xs.subscriptions == [Subscription(200, 300)])
    }

    @Test func bindToObserverOfOptionals() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .completed(300)])
        let res = scheduler.createObserver(Int?.self)
        runBinding(scheduler) { xs.bind(to: res) }
        #expect(res.events == [.next(210, 1), .completed(300)])
        #expect(xs.subscriptions == [Subscription(200, 300)])
    }

    @Test func bindToObserverOfOptionalsWithoutAnnotations() {
        let received = Shared<[Int?]>([])
        let observer = AnyObserver<Int?> { event in
            if let element = event.element { received.append(element) }
        }
        let source = Observable<Int>.create { observer in
            observer.onNext(1)
            observer.onCompleted()
            return Disposables.create()
        }
        _ = source.bind(to: observer)
        #expect(received.value == [1])
    }

    @Test func bindToObserverForwardsErrors() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(250, testError), .next(260, 2)])
        let res = scheduler.createObserver(Int.self)
        runBinding(scheduler) { xs.bind(to: res) }
        #expect(res.events == [.next(210, 1), .error(250, testError)])
        #expect(xs.subscriptions == [Subscription(200, 250)])
    }

    @Test func disposingTheBindingUnsubscribes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(240, 2), .completed(300)])
        let res = scheduler.createObserver(Int.self)
        runBinding(scheduler, disposed: 230) { xs.bind(to: res) }
        #expect(res.events == [.next(210, 1)])
        #expect(xs.subscriptions == [Subscription(200, 230)])
    }

    @Test func bindToCurriedFunction() {
        let result = Shared<Int?>(nil)
        let subject = PublishSubject<Int>()
        let binder: (PublishSubject<Int>) -> any Disposable = { source in
            source.subscribe(onNext: { result.value = $0 })
        }
        let subscription = subject.bind(to: binder)
        subject.onNext(1)
        #expect(result.value == 1)
        subscription.dispose()
        subject.onNext(2)
        #expect(result.value == 1)
    }

    @Test func bindToCurriedFunctionWithArgument() {
        let result = Shared<Int?>(nil)
        let subject = PublishSubject<Int>()
        let binder: (PublishSubject<Int>) -> (Int) -> any Disposable = { source in
            { offset in source.subscribe(onNext: { result.value = $0 + offset }) }
        }
        let subscription = subject.bind(to: binder, curriedArgument: 3)
        subject.onNext(1)
        #expect(result.value == 4)
        subscription.dispose()
    }

    @Test func bindOnNextReceivesElements() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(300)])
        let received = Shared<[String]>([])
        runBinding(scheduler) { xs.bind(onNext: { received.append("\($0)@\(scheduler.clock)") }) }
        #expect(received.value == ["1@210", "2@220"])
        #expect(xs.subscriptions == [Subscription(200, 300)])
    }

    @Test func bindingsLeaveNothingBehind() {
        Resources.measure { scope in
            let subject = PublishSubject<Int>()
            var bindings = [
                subject.bind(to: AnyObserver<Int> { _ in }), subject.bind(to: AnyObserver<Int?> { _ in }),
                subject.bind(onNext: { _ in }),
            ]
            #expect(scope.total > 0)
            subject.onNext(1)
            bindings.forEach { $0.dispose() }
            // A sink is its own disposable: it goes away with the last reference to it.
            bindings.removeAll()
            #expect(scope.total == 0)
        }
    }
}

extension ViolationHandlerSuite {
    @Test func bindOnNextReportsAnError() {
        let subject = PublishSubject<Int>()
        let received = Shared<[Int]>([])
        let reports = Self.reports {
            let subscription = subject.bind(onNext: { received.append($0) })
            subject.onNext(1)
            subject.onError(testError)
            subscription.dispose()
        }
        #expect(reports == ["binding error: TestError(0)"])
        #expect(received.value == [1])
    }
}

@Suite(.timeLimit(.minutes(1)))
struct BindToRelayTests {
    @Test func bindsToSeveralRelaysAndIgnoresCompletion() {
        let source = PublishSubject<Int>()
        let publish = PublishRelay<Int>()
        let behavior = BehaviorRelay(value: 0)
        let optional = BehaviorRelay<Int?>(value: nil)
        let seen = Shared<[Int]>([])
        let watching = publish.subscribe(onNext: { seen.append($0) })
        let one = source.bind(to: publish)
        let two = source.bind(to: behavior)
        let three = source.bind(to: optional)
        source.onNext(1)
        source.onNext(2)
        source.onCompleted()
        #expect(seen.value == [1, 2])
        #expect(behavior.value == 2)
        #expect(optional.value == 2)
        // The relays are still usable after the bound sequence completed.
        publish.accept(3)
        #expect(seen.value == [1, 2, 3])
        [watching, one, two, three].forEach { $0.dispose() }
    }
}
