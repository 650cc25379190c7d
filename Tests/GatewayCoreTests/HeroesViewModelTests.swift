import Contracts
import GatewayCore
import Reactive
import ReactiveTestKit
import Testing

@Suite("HeroesViewModel", .timeLimit(.minutes(1)))
struct HeroesViewModelTests {
    static let hero = Hero(id: 1, name: ["en": "Ann"], intro: [:], icon: "a.png")

    @Test func throttledDeduplicatedAndEachQueryCancelsThePrevious() {
        let scheduler = TestScheduler(initialClock: 0)
        let first = scheduler.createColdObservable([
            .next(500, HeroSearchResponse(total: 9, items: [Self.hero])), .completed(500),
        ])
        let second = scheduler.createColdObservable([
            .next(50, HeroSearchResponse(total: 1, items: [Self.hero])), .completed(50),
        ])
        let failing = scheduler.createColdObservable(
            [.error(20, HeroesStubFailure())] as [Recorded<Event<HeroSearchResponse>>])
        let catalog = HeroCatalogStub(answers: [first, second, failing])
        let input = HeroesViewModel.Input(
            searchText: scheduler.createHotObservable([
                .next(210, "a"), .next(250, "an"), .next(300, "ann"), .next(1000, "ann"), .next(2000, "x"),
            ]).asObservable()
        )
        let heroes = scheduler.createObserver([Hero].self)
        let total = scheduler.createObserver(Int.self)
        let error = scheduler.createObserver(MessageCode?.self)
        SharingScheduler.mock(scheduler: scheduler) {
            let output = HeroesViewModel(
                input: input, catalog: catalog, token: "t1", scheduler: scheduler, throttle: .seconds(300)
            ).output
            scheduler.scheduleAt(200) {
                _ = output.heroes.drive(heroes)
                _ = output.total.drive(total)
                _ = output.error.drive(error)
            }
            scheduler.start()
        }
        // "an" is throttled away, the second "ann" de-duplicated.
        #expect(catalog.queries.all == ["a", "ann", "x"])
        #expect(heroes.events == [.next(201, []), .next(561, [Self.hero]), .next(2021, [])])
        #expect(total.events == [.next(201, 0), .next(561, 1), .next(2021, 0)])
        #expect(error.events == [.next(201, nil), .next(561, nil), .next(2021, .networkError)])
        // "ann" disposed the search for "a" before it answered (the cancel).
        #expect(first.subscriptions == [Subscription(210, 510)])
        #expect(second.subscriptions == [Subscription(510, 560)])
    }
}

struct HeroesStubFailure: Error {}
