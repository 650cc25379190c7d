import Reactive
import ReactiveTestKit
import Testing

@Suite(.timeLimit(.minutes(1)))
struct PublishRelayTests {
    @Test func forwardsAcceptedElementsToCurrentSubscribers() {
        let scheduler = TestScheduler(initialClock: 0)
        let relay = PublishRelay<Int>()
        let early = scheduler.createObserver(Int.self)
        let late = scheduler.createObserver(Int.self)
        let subscriptions = Shared<[any Disposable]>([])
        scheduler.scheduleAt(200) { subscriptions.append(relay.subscribe(early)) }
        scheduler.scheduleAt(250) { subscriptions.append(relay.asObservable().subscribe(late)) }
        for (time, value) in [(150, 0), (210, 1), (260, 2)] {
            scheduler.scheduleAt(time) { relay.accept(value) }
        }
        scheduler.scheduleAt(300) { subscriptions.value[0].dispose() }
        scheduler.scheduleAt(310) { relay.accept(3) }
        scheduler.start()
        #expect(early.events == [.next(210, 1), .next(260, 2)])
        #expect(late.events == [.next(260, 2), .next(310, 3)])
    }

    @Test func noLeaks() {
        Resources.measure { scope in
            let relay = PublishRelay<Int>()
            let received = Shared<[Int]>([])
            let subscription = relay.map { $0 * 2 }.subscribe(onNext: { received.append($0) })
            relay.accept(1)
            subscription.dispose()
            relay.accept(2)
            #expect(received.value == [2])
            #expect(scope.total == 0)
        }
    }
}

@Suite(.timeLimit(.minutes(1)))
struct BehaviorRelayTests {
    @Test func replaysCurrentValueThenAcceptedElements() {
        let scheduler = TestScheduler(initialClock: 0)
        let relay = BehaviorRelay(value: 0)
        let first = scheduler.createObserver(Int.self)
        let second = scheduler.createObserver(Int.self)
        let subscriptions = Shared<[any Disposable]>([])
        scheduler.scheduleAt(200) { subscriptions.append(relay.subscribe(first)) }
        scheduler.scheduleAt(210) { relay.accept(1) }
        scheduler.scheduleAt(250) { subscriptions.append(relay.asObservable().subscribe(second)) }
        scheduler.scheduleAt(260) { relay.accept(2) }
        scheduler.scheduleAt(300) { subscriptions.value.forEach { $0.dispose() } }
        scheduler.scheduleAt(310) { relay.accept(3) }
        scheduler.start()
        #expect(first.events == [.next(200, 0), .next(210, 1), .next(260, 2)])
        #expect(second.events == [.next(250, 1), .next(260, 2)])
        #expect(relay.value == 3)
    }

    @Test func valueIsTheLatestAcceptedElement() {
        let relay = BehaviorRelay(value: "a")
        #expect(relay.value == "a")
        relay.accept("b")
        #expect(relay.value == "b")
    }

    @Test func noLeaks() {
        Resources.measure { scope in
            let relay = BehaviorRelay(value: 1)
            let received = Shared<[Int]>([])
            let subscription = relay.map { $0 * 2 }.subscribe(onNext: { received.append($0) })
            relay.accept(2)
            subscription.dispose()
            relay.accept(3)
            #expect(received.value == [2, 4])
            #expect(scope.total == 0)
        }
    }
}
