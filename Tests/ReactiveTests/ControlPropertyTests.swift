import Reactive
import ReactiveTestKit
import Testing

/// A stand-in for a terminal text field: the user types, the program sets the text, and its
/// property completes when the field goes away.
private final class TextField: Sendable {
    private let current = Shared<String?>(nil)
    private let typed = PublishSubject<String?>()

    var text: String? { current.value }

    /// The user types: the text changes and the property reports it.
    func type(_ text: String?) {
        current.value = text
        typed.onNext(text)
    }

    /// The text as a control property: the current text on subscription, then what the user
    /// types. Setting it through the property does not report.
    var rxText: ControlProperty<String?> {
        let current = self.current
        let typed = self.typed
        let values = Observable<String?>.create { observer in
            observer.onNext(current.value)
            return typed.subscribe(observer)
        }
        return ControlProperty(
            values: values, valueSink: Binder(self) { field, text in field.current.value = text })
    }

    deinit {
        typed.onCompleted()
    }
}

@Suite(.timeLimit(.minutes(1)))
struct ControlPropertyTests {
    @Test func sendsTheCurrentValueThenWhatTheUserEnters() {
        let field = TextField()
        field.type("a")
        let received = Shared<[String?]>([])
        let subscription = field.rxText.subscribe(onNext: { received.append($0) })
        field.type("ab")
        #expect(received.value == ["a", "ab"])
        subscription.dispose()
        field.type("abc")
        #expect(received.value == ["a", "ab"])
    }

    @Test func settingThroughThePropertyIsNotReported() {
        let field = TextField()
        let received = Shared<[String?]>([])
        let subscription = field.rxText.subscribe(onNext: { received.append($0) })
        let source = PublishSubject<String?>()
        let binding = source.bind(to: field.rxText)
        source.onNext("set")
        #expect(field.text == "set")
        #expect(received.value == [nil])
        binding.dispose()
        subscription.dispose()
    }

    @Test func completesWhenTheWidgetGoesAway() {
        var field: TextField? = TextField()
        let events = Shared<[String]>([])
        let subscription = field?.rxText.subscribe { events.append("\($0)") }
        field = nil
        #expect(events.value == ["next(nil)", "completed"])
        subscription?.dispose()
    }

    @Test func subscribesAndUnsubscribesOnItsScheduler() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .next(201, 2), .next(210, 3)])
        let res = scheduler.start {
            ControlProperty(values: xs, valueSink: AnyObserver { _ in }, scheduler: scheduler)
        }
        // Subscribed one tick after 200 (so 201 is missed), disposed one tick after 1000.
        #expect(res.events == [.next(210, 3)])
        #expect(xs.subscriptions == [Subscription(201, 1001)])
    }

    @Test func completionUnsubscribesOneTickLaterOnItsScheduler() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .completed(300)])
        let res = scheduler.start {
            ControlProperty(values: xs, valueSink: AnyObserver { _ in }, scheduler: scheduler)
        }
        #expect(res.events == [.next(210, 1), .completed(300)])
        #expect(xs.subscriptions == [Subscription(201, 301)])
    }

    @Test func defaultSchedulerSubscribesAtOnce() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .completed(300)])
        let res = scheduler.start { ControlProperty(values: xs, valueSink: AnyObserver { _ in }) }
        #expect(res.events == [.next(210, 1), .completed(300)])
        #expect(xs.subscriptions == [Subscription(200, 300)])
    }

    @Test func disposingBeforeTheScheduledSubscriptionCancelsIt() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1)])
        let res = scheduler.start(disposed: 200) {
            ControlProperty(values: xs, valueSink: AnyObserver { _ in }, scheduler: scheduler)
        }
        #expect(res.events == [])
        #expect(xs.subscriptions == [])
    }

    @Test func changedSkipsTheCurrentValue() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([
            .next(0, 10), .next(20, 11), .next(30, 11), .completed(50),
        ])
        let res = scheduler.start {
            ControlProperty(values: xs, valueSink: AnyObserver { _ in }).changed
        }
        #expect(res.events == [.next(220, 11), .next(230, 11), .completed(250)])
        #expect(xs.subscriptions == [Subscription(200, 250)])
    }

    @Test func changedStopsWhenDisposed() {
        let field = TextField()
        let received = Shared<[String?]>([])
        let subscription = field.rxText.changed.subscribe(onNext: { received.append($0) })
        #expect(received.value == [])
        field.type("a")
        #expect(received.value == ["a"])
        subscription.dispose()
        field.type("b")
        #expect(received.value == ["a"])
    }

    @Test func orEmptyReadsNilAsTheEmptyString() {
        let set = Shared<[String?]>([])
        let values = Observable<String?>.create { observer in
            observer.onNext(nil)
            observer.onCompleted()
            return Disposables.create()
        }
        let property = ControlProperty(
            values: values, valueSink: AnyObserver { set.append($0.element ?? "end") })
        let received = Shared<[String]>([])
        _ = property.orEmpty.subscribe { received.append("\($0)") }
        property.orEmpty.onNext("a")
        #expect(received.value == ["next()", "completed"])
        #expect(set.value == ["a"])
    }

    @Test func observerSideForwardsElementsAndCompletionToTheSink() {
        let set = Shared<[String]>([])
        let property = ControlProperty(
            values: Observable<Int>.create { _ in Disposables.create() },
            valueSink: AnyObserver { set.append("\($0)") })
        property.onNext(1)
        property.onCompleted()
        #expect(set.value == ["next(1)", "completed"])
    }

    @Test func leavesNothingBehind() {
        Resources.measure { scope in
            let scheduler = TestScheduler(initialClock: 0)
            let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(300)])
            let property = ControlProperty(values: xs, valueSink: AnyObserver { _ in }, scheduler: scheduler)
            _ = scheduler.start { property.changed }
            #expect(scope.total == 0)
            let field = TextField()
            let subscription = field.rxText.changed.subscribe(onNext: { _ in })
            #expect(scope.total > 0)
            subscription.dispose()
            #expect(scope.total == 0)
        }
    }
}

@Suite(.timeLimit(.minutes(1)))
struct ControlEventTests {
    @Test func forwardsEventsSubscribedOnItsScheduler() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .next(210, 2), .next(220, 3), .completed(300)])
        let res = scheduler.start { ControlEvent(events: xs, scheduler: scheduler) }
        #expect(res.events == [.next(210, 2), .next(220, 3), .completed(300)])
        #expect(xs.subscriptions == [Subscription(201, 301)])
    }

    @Test func disposedEarly() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(240, 2), .completed(300)])
        let res = scheduler.start(disposed: 230) { ControlEvent(events: xs) }
        #expect(res.events == [.next(210, 1)])
        #expect(xs.subscriptions == [Subscription(200, 230)])
    }

    @Test func bindsLikeAnyObservable() {
        let taps = PublishSubject<Void>()
        let count = Shared(0)
        let event = ControlEvent(events: taps)
        let binding = event.asControlEvent().bind(onNext: { count.increment() })
        taps.onNext(())
        taps.onNext(())
        binding.dispose()
        taps.onNext(())
        #expect(count.value == 2)
    }
}

extension ViolationHandlerSuite {
    @Test func controlPropertyValuesErrorIsReportedAndCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(250, testError), .next(260, 2)])
        let res = scheduler.createObserver(Int.self)
        let subscription = SingleAssignmentDisposable()
        scheduler.scheduleAt(200) {
            subscription.setDisposable(
                ControlProperty(values: xs, valueSink: AnyObserver { _ in }).subscribe(res))
        }
        scheduler.scheduleAt(1000) { subscription.dispose() }
        let reports = Self.reports { scheduler.start() }
        #expect(reports == ["binding error: TestError(0)"])
        #expect(res.events == [.next(210, 1), .completed(250)])
        #expect(xs.subscriptions == [Subscription(200, 250)])
    }

    @Test func controlPropertyReportsAnErrorSentToIt() {
        let set = Shared<[String]>([])
        let property = ControlProperty(
            values: Observable<Int>.create { _ in Disposables.create() },
            valueSink: AnyObserver { set.append("\($0)") })
        let reports = Self.reports { property.onError(testError) }
        #expect(reports == ["binding error: TestError(0)"])
        #expect(set.value == [])
    }

    @Test func controlEventErrorIsReportedAndCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(250, testError)])
        let res = scheduler.createObserver(Int.self)
        let subscription = SingleAssignmentDisposable()
        scheduler.scheduleAt(200) {
            subscription.setDisposable(ControlEvent(events: xs, scheduler: scheduler).subscribe(res))
        }
        scheduler.scheduleAt(1000) { subscription.dispose() }
        let reports = Self.reports { scheduler.start() }
        #expect(reports == ["binding error: TestError(0)"])
        #expect(res.events == [.next(210, 1), .completed(250)])
        #expect(xs.subscriptions == [Subscription(201, 251)])
    }
}
