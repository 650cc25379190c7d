public import Contracts
public import Dispatch
public import Reactive
import RemoteProtocol

/// The heroes screen (DESIGN §2.4): a search box over `heroes.search` for a signed-in session.
///
/// The search text is throttled (latest wins), de-duplicated, and each query cancels the one
/// before it. A failed search shows an empty list and a message code; the outputs never fail.
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
        case failed(MessageCode)
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
        let pageNumbers = input.page.startWith(0).distinctUntilChanged()
        let steps = Observable.combineLatest(queries, pageNumbers) { ($0, $1) }
            .flatMapLatest { query, page -> Observable<Step> in
                let (offset, overflow) = page.multipliedReportingOverflow(by: pageSize)
                return catalog.search(
                    HeroSearchRequest(
                        query: query, offset: overflow ? Int.max : offset, limit: pageSize, token: token)
                )
                .asObservable()
                .map { Step.page($0) }
                .catch { error in .just(.failed(Self.failureCode(error))) }
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
            case .failed(let code): return .some(code)
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
