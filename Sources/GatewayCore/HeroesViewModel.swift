public import Contracts
public import Dispatch
public import Reactive
import RemoteProtocol

/// The heroes screen (docs/ARCHITECTURE.md §2.4): a search box over `heroes.search` for a signed-in session.
///
/// The search text is throttled (latest wins), de-duplicated, and each query cancels the one
/// before it, so the answer of a superseded search never reaches the outputs. Every answer says
/// which text and page it answers (``HeroesPage``), so a client never files a page under the wrong
/// text. A failed search answers an empty page and a message code; the outputs never fail.
public struct HeroesViewModel: Sendable {
    /// What the screen feeds in.
    public struct Input: Sendable {
        /// The search text as typed.
        public var searchText: Observable<String>
        /// The page to show, from 0 (page `n` starts at match `n × pageSize`); page 0 until one
        /// arrives. A new search text does not reset it: the screen sends page 0 itself.
        public var page: Observable<Int>

        /// An input.
        public init(searchText: Observable<String>, page: Observable<Int> = .never()) {
            self.searchText = searchText
            self.page = page
        }
    }

    /// What the screen binds to.
    public struct Output: Sendable {
        /// Each search's answer, saying which text and page it answers; `nil` until the first.
        public var heroes: Driver<HeroesPage?>
        /// How many heroes match in all (the latest answer's).
        public var total: Driver<Int>
        /// A search is in flight.
        public var searching: Driver<Bool>
        /// The last search's error code, `nil` after a successful search.
        public var error: Driver<MessageCode?>
    }

    enum Step: Sendable {
        case started
        case page(HeroesPage)
        case failed(HeroesPage, MessageCode)
    }

    /// How many heroes a page holds unless the caller says otherwise.
    public static let defaultPageSize = Methods.Flow.heroesPageSize

    /// The outputs.
    public let output: Output

    /// `session.expired` when the catalog refused the token, `network.error` otherwise.
    public static func failureCode(_ error: any Error) -> MessageCode {
        if let remote = error as? RemoteError, remote.code == .unauthenticated { return .sessionExpired }
        return .networkError
    }

    /// Builds the outputs for the session `token`; `throttle` (default 300 ms) runs on `scheduler`.
    /// Each search asks for `pageSize` heroes from the current page's first.
    public init(
        input: Input, catalog: any HeroCatalogClient, token: String, scheduler: any SchedulerType,
        throttle: RxTimeInterval = .milliseconds(300), pageSize: Int = HeroesViewModel.defaultPageSize
    ) {
        let queries = input.searchText
            .throttle(throttle, latest: true, scheduler: scheduler)
            .distinctUntilChanged()
        // Pages are not de-duplicated: a page asked for again is searched again, so a client that
        // lost an answer (or dropped one it could not place) always gets one.
        let pageNumbers = input.page.startWith(0)
        let steps = Observable.combineLatest(queries, pageNumbers) { ($0, $1) }
            .flatMapLatest { query, page -> Observable<Step> in
                let (offset, overflow) = page.multipliedReportingOverflow(by: pageSize)
                return catalog.search(
                    HeroSearchRequest(
                        query: query, offset: overflow ? Int.max : offset, limit: pageSize, token: token)
                )
                .asObservable()
                .map { response in
                    Step.page(
                        HeroesPage(
                            query: query, page: page, pageSize: pageSize, total: response.total,
                            heroes: response.items))
                }
                .catch { error in
                    let empty = HeroesPage(query: query, page: page, pageSize: pageSize, total: 0, heroes: [])
                    return .just(.failed(empty, Self.failureCode(error)))
                }
                .startWith(.started)
            }
            .share(replay: 1)
        let pages: Observable<HeroesPage?> = steps.compactMap { step -> HeroesPage?? in
            switch step {
            case .started: return nil
            case .page(let page), .failed(let page, _): return .some(page)
            }
        }.startWith(nil)
        let searching = steps.map { step -> Bool in
            if case .started = step { return true }
            return false
        }.startWith(false).distinctUntilChanged()
        let error: Observable<MessageCode?> = steps.compactMap { step -> MessageCode?? in
            switch step {
            case .started: return nil
            case .page: return .some(nil)
            case .failed(_, let code): return .some(code)
            }
        }.startWith(nil)
        output = Output(
            heroes: pages.asDriver(onErrorJustReturn: nil),
            total: pages.map { $0?.total ?? 0 }.distinctUntilChanged().asDriver(onErrorJustReturn: 0),
            searching: searching.asDriver(onErrorJustReturn: false),
            error: error.asDriver(onErrorJustReturn: .networkError)
        )
    }
}

/// One search's answer: the text and page it answers and what the catalog found for them.
public struct HeroesPage: Sendable, Hashable {
    /// The search text (after the throttle and de-duplication) this page answers.
    public var query: String
    /// The page number, from 0.
    public var page: Int
    /// Heroes per page: the page starts at match `page × pageSize`.
    public var pageSize: Int
    /// How many heroes match `query` in all (0 for a failed search).
    public var total: Int
    /// The page's heroes, in catalog order.
    public var heroes: [Hero]

    /// A page.
    public init(query: String, page: Int, pageSize: Int, total: Int, heroes: [Hero]) {
        self.query = query
        self.page = page
        self.pageSize = pageSize
        self.total = total
        self.heroes = heroes
    }
}
