public import Dispatch
public import Contracts
public import Reactive

/// The heroes screen (DESIGN §2.4): a search box over `heroes.search` for a signed-in session.
///
/// The search text is throttled (latest wins), de-duplicated, and each query cancels the one
/// before it. A failed search shows an empty list and a message code; the outputs never fail.
public struct HeroesViewModel: Sendable {
    /// What the screen feeds in.
    public struct Input: Sendable {
        /// The search text as typed.
        public var searchText: Observable<String>

        /// An input.
        public init(searchText: Observable<String>) { self.searchText = searchText }
    }

    /// What the screen binds to.
    public struct Output: Sendable {
        /// The heroes of the current page.
        public var heroes: Driver<[Hero]>
        /// How many heroes match in all.
        public var total: Driver<Int>
        /// A search is in flight.
        public var searching: Driver<Bool>
        /// The last search's error code, `nil` after a successful search.
        public var error: Driver<MessageCode?>
    }

    enum Step: Sendable {
        case started
        case page(HeroSearchResponse)
        case failed
    }

    /// The outputs.
    public let output: Output

    /// Builds the outputs for the session `token`; `throttle` (default 300 ms) runs on `scheduler`.
    public init(
        input: Input, catalog: any HeroCatalogClient, token: String, scheduler: any SchedulerType,
        throttle: RxTimeInterval = .milliseconds(300)
    ) {
        let steps = input.searchText
            .throttle(throttle, latest: true, scheduler: scheduler)
            .distinctUntilChanged()
            .flatMapLatest { query -> Observable<Step> in
                catalog.search(HeroSearchRequest(query: query, token: token))
                    .asObservable()
                    .map { Step.page($0) }
                    .catchAndReturn(.failed)
                    .startWith(.started)
            }
            .share(replay: 1)
        let pages: Observable<HeroSearchResponse> = steps.compactMap { step in
            switch step {
            case .started: return nil
            case .page(let page): return page
            case .failed: return HeroSearchResponse(total: 0, items: [])
            }
        }.startWith(HeroSearchResponse(total: 0, items: []))
        let searching = steps.map { step -> Bool in
            if case .started = step { return true }
            return false
        }.startWith(false).distinctUntilChanged()
        let error: Observable<MessageCode?> = steps.compactMap { step -> MessageCode?? in
            switch step {
            case .started: return nil
            case .page: return .some(nil)
            case .failed: return .some(.networkError)
            }
        }.startWith(nil)
        output = Output(
            heroes: pages.map { $0.items }.asDriver(onErrorJustReturn: []),
            total: pages.map { $0.total }.distinctUntilChanged().asDriver(onErrorJustReturn: 0),
            searching: searching.asDriver(onErrorJustReturn: false),
            error: error.asDriver(onErrorJustReturn: .networkError)
        )
    }
}
