import Reactive
import ReactiveTestKit
import Testing

@Suite(.timeLimit(.minutes(1)))
struct TestSchedulerTests {
    @Test func hotEventAtSubscriptionTickIsNotSeen() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(200, 1), .next(201, 2), .completed(202)])
        let res = scheduler.start { xs.asObservable() }
        #expect(res.events == [.next(201, 2), .completed(202)])
        // asObservable() wraps a test observable in `create`, which ends the subscription at the
        // terminal event, as in RxSwift.
        #expect(xs.subscriptions == [Subscription(200, 202)])
    }

    @Test func coldEventsAreRelativeToEachSubscription() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(0, 1), .next(10, 2), .completed(20)])
        let first = scheduler.createObserver(Int.self)
        let second = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(100) { _ = xs.subscribe(first) }
        scheduler.scheduleAt(150) { _ = xs.subscribe(second) }
        scheduler.start()
        #expect(first.events == [.next(100, 1), .next(110, 2), .completed(120)])
        #expect(second.events == [.next(150, 1), .next(160, 2), .completed(170)])
        #expect(xs.subscriptions == [Subscription(100), Subscription(150)])
    }

    @Test func schedulingNowLandsOneTickLater() {
        let scheduler = TestScheduler(initialClock: 0)
        let ran = Shared<[Int]>([])
        scheduler.scheduleAt(300) {
            scheduler.schedule { ran.append(scheduler.clock) }
            _ = scheduler.scheduleRelative((), dueTime: .seconds(0)) { _ in
                ran.append(scheduler.clock)
                return Disposables.create()
            }
        }
        scheduler.start()
        #expect(ran.value == [301, 301])
    }

    @Test func withoutProcessingDelayNowStaysNow() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let ran = Shared<[Int]>([])
        scheduler.scheduleAt(300) { scheduler.schedule { ran.append(scheduler.clock) } }
        scheduler.start()
        #expect(ran.value == [300])
    }

    @Test func actionsAtATickRunAfterEventsScheduledBeforeThem() {
        let scheduler = TestScheduler(initialClock: 0)
        let order = Shared<[String]>([])
        let xs = scheduler.createHotObservable([.next(300, 1)])
        _ = xs.subscribe(onNext: { _ in order.append("event") })
        scheduler.scheduleAt(300) { order.append("action") }
        scheduler.start()
        #expect(order.value == ["event", "action"])
    }

    @Test func secondsAreTicksAndIntervalsRound() {
        let scheduler = TestScheduler(initialClock: 0)
        let times = Shared<[Int]>([])
        for interval: RxTimeInterval in [.seconds(5), .milliseconds(1500), .milliseconds(1400)] {
            _ = scheduler.scheduleRelative((), dueTime: interval) { _ in
                times.append(scheduler.clock)
                return Disposables.create()
            }
        }
        scheduler.start()
        #expect(times.value.sorted() == [1, 2, 5])
    }

    @Test func resolutionScalesTicks() {
        let scheduler = TestScheduler(initialClock: 0, resolution: 0.1)
        let time = Shared(0)
        _ = scheduler.scheduleRelative((), dueTime: .seconds(1)) { _ in
            time.value = scheduler.clock
            return Disposables.create()
        }
        scheduler.start()
        #expect(time.value == 10)
        #expect(scheduler.now.timeIntervalSince1970 == 1.0)
    }

    @Test func disposedWorkNeverRuns() {
        let scheduler = TestScheduler(initialClock: 0)
        let ran = Shared(0)
        let work = scheduler.scheduleRelative((), dueTime: .seconds(10)) { _ in
            ran.increment()
            return Disposables.create()
        }
        scheduler.scheduleAt(5) { work.dispose() }
        scheduler.start()
        #expect(ran.value == 0)
    }

    @Test func advanceToRunsUpToAndIncludingTheTime() {
        let scheduler = TestScheduler(initialClock: 0)
        let ran = Shared<[Int]>([])
        for time in [10, 20, 30] { scheduler.scheduleAt(time) { ran.append(time) } }
        scheduler.advanceTo(20)
        #expect(ran.value == [10, 20])
        #expect(scheduler.clock == 20)
        scheduler.advanceTo(25)
        #expect(scheduler.clock == 25)
        scheduler.start()
        #expect(ran.value == [10, 20, 30])
    }

    @Test func periodicSchedulingRepeatsEveryPeriod() {
        let scheduler = TestScheduler(initialClock: 0)
        let ticks = Shared<[Int]>([])
        let periodic = scheduler.schedulePeriodic(0, startAfter: .seconds(5), period: .seconds(10)) { count in
            ticks.append(scheduler.clock)
            return count + 1
        }
        scheduler.scheduleAt(40) { periodic.dispose() }
        scheduler.start()
        #expect(ticks.value == [5, 15, 25, 35])
    }

    @Test func startUsesCreatedSubscribedDisposedTimes() {
        let scheduler = TestScheduler(initialClock: 0)
        let created = Shared(0)
        let xs = scheduler.createHotObservable([.next(310, 1), .next(360, 2), .next(410, 3)])
        let res = scheduler.start(created: 300, subscribed: 350, disposed: 400) { () -> Observable<Int> in
            created.value = scheduler.clock
            return xs.asObservable()
        }
        #expect(created.value == 300)
        #expect(res.events == [.next(360, 2)])
        #expect(xs.subscriptions == [Subscription(350, 400)])
    }

    @Test func recordedEventsAndSubscriptionsAreEquatable() {
        #expect(Recorded<Event<Int>>.next(10, 1) == .next(10, 1))
        #expect(Recorded<Event<Int>>.next(10, 1) != .next(11, 1))
        #expect(Recorded<Event<Int>>.error(10, testError) == .error(10, TestError()))
        #expect(Recorded<Event<Int>>.error(10, testError) != .error(10, testError1))
        #expect(Recorded<Event<Int>>.completed(10) != .error(10, testError))
        #expect(Subscription(200) == Subscription(200, Int.max))
        #expect(Subscription(200, 300).debugDescription == "(200 : 300)")
    }
}

@Suite(.timeLimit(.minutes(1)))
struct CurrentThreadSchedulerTests {
    @Test func runsAtOnceWhenNoTrampolineIsActive() {
        #expect(CurrentThreadScheduler.isScheduleRequired)
        let ran = Shared(false)
        CurrentThreadScheduler.instance.schedule { ran.value = true }
        #expect(ran.value)
    }

    @Test func nestedWorkIsQueuedNotNested() {
        let order = Shared<[String]>([])
        CurrentThreadScheduler.instance.schedule {
            order.append("outer start")
            CurrentThreadScheduler.instance.schedule { order.append("inner") }
            #expect(!CurrentThreadScheduler.isScheduleRequired)
            order.append("outer end")
        }
        #expect(order.value == ["outer start", "outer end", "inner"])
        #expect(CurrentThreadScheduler.isScheduleRequired)
    }

    @Test func infiniteRecursiveSourceStopsWhenDownstreamDisposesInsideTheChain() {
        let naturals = Observable<Int>.create { observer in
            CurrentThreadScheduler.instance.scheduleRecursive(0) { value, recurse in
                observer.onNext(value)
                recurse(value + 1)
            }
        }
        // A hand-written `take(3)`: its inner subscription is wired before the trampoline runs.
        let firstThree = Observable<Int>.create { observer in
            let upstream = SingleAssignmentDisposable()
            upstream.setDisposable(
                naturals.subscribe(onNext: { value in
                    observer.onNext(value)
                    if value == 2 {
                        observer.onCompleted()
                        upstream.dispose()
                    }
                }))
            return upstream
        }
        let received = Shared<[Event<Int>]>([])
        _ = firstThree.subscribe { received.append($0) }
        #expect(received.value == [.next(0), .next(1), .next(2), .completed])
    }

    @Test func deepRecursionDoesNotGrowTheStack() {
        let count = Shared(0)
        _ = CurrentThreadScheduler.instance.scheduleRecursive(0) { value, recurse in
            count.value = value
            if value < 200_000 { recurse(value + 1) }
        }
        #expect(count.value == 200_000)
    }
}
