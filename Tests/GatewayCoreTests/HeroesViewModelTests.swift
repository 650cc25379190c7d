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
        let heroes = scheduler.createObserver(HeroesPage?.self)
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
        let size = HeroesViewModel.defaultPageSize
        #expect(
            heroes.events == [
                .next(201, nil),
                .next(561, HeroesPage(query: "ann", page: 0, pageSize: size, total: 1, heroes: [Self.hero])),
                .next(2021, HeroesPage(query: "x", page: 0, pageSize: size, total: 0, heroes: [])),
            ])
        #expect(total.events == [.next(201, 0), .next(561, 1), .next(2021, 0)])
        #expect(error.events == [.next(201, nil), .next(561, nil), .next(2021, .networkError)])
        // "ann" disposed the search for "a" before it answered (the cancel).
        #expect(first.subscriptions == [Subscription(210, 510)])
        #expect(second.subscriptions == [Subscription(510, 560)])
    }

    static let catalog = ["Hou Yi", "Nuwa", "Jingwei", "Gilgamesh", "Houdini"].enumerated().map {
        Hero(id: $0.offset + 1, name: ["en": $0.element], intro: [:], icon: "")
    }

    /// The catalog's answer to `query` and `page` (pages of 2).
    static func page(_ query: String, _ page: Int) -> HeroesPage {
        let matches = catalog.filter { query.isEmpty || $0.name["en"]!.lowercased().contains(query) }
        return HeroesPage(
            query: query, page: page, pageSize: 2, total: matches.count,
            heroes: Array(matches.dropFirst(page * 2).prefix(2)))
    }

    /// Answers arrive two ticks after their search's delay: one for the search's subscription, one
    /// for the driver's hop onto the (mocked) main scheduler.
    ///
    /// Type `hou`, then, once it is answered, `ho`, `h` and `` within 40 ms while `ho` is slow to
    /// answer and a page is asked for in the middle: neither the answers of `ho` (superseded by the
    /// page, then by the empty text) nor any of `h` (throttled away) reach the output; every answer
    /// says the text and page it answers; a page asked for again is searched again.
    @Test func answersOfSupersededSearchesNeverReachTheOutput() {
        let scheduler = TestScheduler(initialClock: 0)
        let catalog = DelayedCatalog(scheduler: scheduler, delays: ["ho": 500], heroes: Self.catalog)
        let input = HeroesViewModel.Input(
            searchText: scheduler.createHotObservable([
                .next(210, "hou"), .next(600, "ho"), .next(620, "h"), .next(640, ""),
            ]).asObservable(),
            page: scheduler.createHotObservable([.next(700, 1), .next(1000, 0), .next(1100, 0)])
                .asObservable()
        )
        let heroes = scheduler.createObserver(HeroesPage?.self)
        let total = scheduler.createObserver(Int.self)
        SharingScheduler.mock(scheduler: scheduler) {
            let output = HeroesViewModel(
                input: input, catalog: catalog, token: "t1", scheduler: scheduler, throttle: .seconds(300),
                pageSize: 2
            ).output
            scheduler.scheduleAt(200) {
                _ = output.heroes.drive(heroes)
                _ = output.total.drive(total)
            }
            scheduler.start()
        }
        #expect(
            catalog.requests.all == [
                "hou@0", "ho@0", "ho@2", "@2", "@0", "@0",
            ])
        #expect(
            heroes.events == [
                .next(201, nil), .next(222, Self.page("hou", 0)), .next(912, Self.page("", 1)),
                .next(1012, Self.page("", 0)), .next(1112, Self.page("", 0)),
            ])
        #expect(
            !heroes.events.contains { $0.value.element??.query == "ho" || $0.value.element??.query == "h" })
        #expect(total.events == [.next(201, 0), .next(222, 2), .next(912, 5)])
        // The slow searches of "ho" were disposed before they answered (the cancels).
        #expect(catalog.disposedEarly.all == ["ho@0", "ho@2"])
    }
}

/// A catalog that answers each search after `delays[query]` ticks (10 by default) on `scheduler`,
/// and logs the searches (`query@offset`) and those disposed before they answered.
final class DelayedCatalog: HeroCatalogClient, Sendable {
    let scheduler: TestScheduler
    let delays: [String: Int]
    let heroes: [Hero]
    let requests = HeroQueryLog()
    let disposedEarly = HeroQueryLog()

    init(scheduler: TestScheduler, delays: [String: Int], heroes: [Hero]) {
        self.scheduler = scheduler
        self.delays = delays
        self.heroes = heroes
    }

    func search(_ request: HeroSearchRequest) -> Single<HeroSearchResponse> {
        let name = "\(request.query)@\(request.offset ?? 0)"
        _ = requests.appendReturningCount(name)
        let matches = heroes.filter {
            request.query.isEmpty || $0.name["en"]!.lowercased().contains(request.query)
        }
        let response = HeroSearchResponse(
            total: matches.count,
            items: Array(matches.dropFirst(request.offset ?? 0).prefix(request.limit ?? 50)))
        let answered = HeroQueryLog()
        let log = disposedEarly
        return Observable.just(response)
            .delay(.seconds(delays[request.query] ?? 10), scheduler: scheduler)
            .do(
                onNext: { _ in _ = answered.appendReturningCount(name) },
                onDispose: { if answered.all.isEmpty { _ = log.appendReturningCount(name) } }
            )
            .asSingle()
    }
}

struct HeroesStubFailure: Error {}
