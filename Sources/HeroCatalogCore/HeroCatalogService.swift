public import Contracts
public import Reactive
import RemoteProtocol
public import RemoteStreams
import Synchronization
public import ZeroMQ

/// The actor hero-catalog-service's graphs run in: its executor is the service's event loop (the
/// thread its server and its client of auth-service run on). It holds the catalog answering now; a
/// reload swaps it in here, and every `heroes.watch` graph is subscribed here, so token checks'
/// answers, reloads and the pages they cause meet on one thread.
public actor CatalogGraphs {
    /// The loop whose executor this actor runs on.
    public nonisolated let loop: SocketLoop
    /// The catalog answering now: read from anywhere, replaced only on the actor.
    nonisolated let catalog: BehaviorRelay<HeroCatalog>

    /// An actor on `loop`'s executor, answering from `catalog`.
    init(on loop: SocketLoop, catalog: HeroCatalog) {
        self.loop = loop
        self.catalog = BehaviorRelay(value: catalog)
    }

    public nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor.asUnownedSerialExecutor() }

    /// Swaps in `newCatalog`; every watch sends its page again.
    func replace(_ newCatalog: HeroCatalog) {
        catalog.accept(newCatalog)
    }
}

/// The hero catalog's logic, behind the `heroes.*` methods of docs/services/hero-catalog.md.
///
/// Every call first verifies its token (through a ``TokenVerifier``, usually a
/// ``CachingTokenVerifier`` over auth-service), then answers from the current ``HeroCatalog``. The
/// catalog is held by the ``CatalogGraphs`` actor on the service's event loop: ``replace(_:)`` swaps
/// in a new one there (a reload) and every `heroes.watch` stream, subscribed on that actor, sends
/// its results again.
///
/// A search is CPU work of microseconds for the built-in catalog and at most a few milliseconds
/// for a million heroes (see docs/BENCHMARKS.md); it runs where the token's check answers: at once
/// on a cache hit, else when auth-service's answer arrives, both on the service's loop.
public final class HeroCatalogService: Sendable {
    /// The bounds of the parameters.
    public struct Limits: Sendable, Hashable {
        /// The page size when a call gives none.
        public var defaultLimit: Int
        /// The largest page size.
        public var maximumLimit: Int
        /// The longest query, in Unicode scalars.
        public var maximumQueryLength: Int

        /// Limits: 50 per page unless asked, at most 500; queries up to 256 scalars.
        public init(defaultLimit: Int = 50, maximumLimit: Int = 500, maximumQueryLength: Int = 256) {
            self.defaultLimit = defaultLimit
            self.maximumLimit = maximumLimit
            self.maximumQueryLength = maximumQueryLength
        }
    }

    /// Counters for `sys.stats`.
    public struct Counters: Sendable, Hashable {
        /// `heroes.search` calls answered.
        public var searches = 0
        /// `heroes.get` calls answered with a hero.
        public var gets = 0
        /// `heroes.get` calls answered `not_found`.
        public var notFound = 0
        /// `heroes.watch` streams opened.
        public var watches = 0
        /// Calls refused as `bad_request`.
        public var badRequests = 0
        /// Calls refused as `unauthenticated`.
        public var unauthenticated = 0
        /// Calls refused as `unavailable` (the token could not be checked).
        public var unavailable = 0
        /// Catalogs swapped in after the first.
        public var reloads = 0
        /// Heroes in the current catalog.
        public var heroes = 0

        /// The counters as a `sys.stats` group.
        public var statsGroup: [String: Int] {
            [
                "searches": searches, "gets": gets, "not_found": notFound, "watches": watches,
                "bad_requests": badRequests, "unauthenticated": unauthenticated, "unavailable": unavailable,
                "reloads": reloads, "heroes": heroes,
            ]
        }
    }

    private let graphs: CatalogGraphs
    private let scheduler: LoopBound<CatalogGraphs>
    private let verifier: any TokenVerifier
    private let limits: Limits
    private let counters_ = Mutex(Counters())

    /// A service answering from `catalog`, checking tokens with `verifier`, whose graphs run in a
    /// ``CatalogGraphs`` actor on `loop`'s executor: the process's event loop, which its caller
    /// owns and stops.
    public init(
        catalog: HeroCatalog, verifier: any TokenVerifier, limits: Limits = Limits(), loop: SocketLoop
    ) {
        graphs = CatalogGraphs(on: loop, catalog: catalog)
        scheduler = LoopBound(graphs, on: loop)
        self.verifier = verifier
        self.limits = limits
        counters_.withLock { $0.heroes = catalog.heroes.count }
    }

    /// The catalog answering now.
    public var current: HeroCatalog { graphs.catalog.value }

    /// The counters so far.
    public var counters: Counters { counters_.withLock { $0 } }

    /// Swaps in `newCatalog` on the service's loop (at once when called there, else in its next
    /// turn): calls from then on answer from it, and every watch sends its results again.
    public func replace(_ newCatalog: HeroCatalog) {
        counters_.withLock {
            $0.reloads += 1
            $0.heroes = newCatalog.heroes.count
        }
        scheduler.schedule(isolated: { graphs in graphs.replace(newCatalog) })
    }

    /// Registers `heroes.search`, `heroes.get` and `heroes.watch`. Each reads the token before the
    /// other parameters, so a call without a valid token is `unauthenticated` whatever else is
    /// wrong with it.
    public func register(into handlers: inout RemoteHandlers) {
        handlers.handle(Methods.Heroes.search, reading: Authenticated<HeroSearchRequest>.self) {
            [self] call in search(token: call.token, call.parameters)
        }
        handlers.handle(Methods.Heroes.get, reading: Authenticated<HeroGetRequest>.self) {
            [self] call in get(token: call.token, call.parameters)
        }
        handlers.handle(Methods.Heroes.watch, reading: Authenticated<HeroWatchRequest>.self) {
            [self] call in watch(token: call.token, call.parameters)
        }
    }

    // MARK: Methods

    /// `heroes.search`: one page of the heroes whose name contains the query.
    public func search(_ request: HeroSearchRequest) -> Single<HeroSearchResponse> {
        search(token: request.token, .success(request))
    }

    /// `heroes.get`: the hero with the id, or `not_found`.
    public func get(_ request: HeroGetRequest) -> Single<Hero> {
        get(token: request.token, .success(request))
    }

    /// `heroes.watch`: the page of results now, then again whenever the catalog is replaced. The
    /// token is checked when the stream opens and again before each later page (through the cache),
    /// so a revoked token ends the stream with `unauthenticated` at the next reload.
    public func watch(_ request: HeroWatchRequest) -> Observable<HeroSearchResponse> {
        watch(token: request.token, .success(request))
    }

    private func search(
        token: String?, _ parameters: Result<HeroSearchRequest, RemoteError>
    ) -> Single<HeroSearchResponse> {
        authenticated(token).flatMap { [self] _ in
            let request = try read(parameters)
            let page = try page(query: request.query, offset: request.offset, limit: request.limit)
            let answer = current.search(request.query, offset: page.offset, limit: page.limit)
            count { $0.searches += 1 }
            return .just(answer)
        }
    }

    private func get(token: String?, _ parameters: Result<HeroGetRequest, RemoteError>) -> Single<Hero> {
        authenticated(token).flatMap { [self] _ in
            let request = try read(parameters)
            guard let hero = current.hero(id: request.id) else {
                count { $0.notFound += 1 }
                throw RemoteError(code: .notFound, message: "no hero has id \(request.id)")
            }
            count { $0.gets += 1 }
            return .just(hero)
        }
    }

    private func watch(
        token: String?, _ parameters: Result<HeroWatchRequest, RemoteError>
    ) -> Observable<HeroSearchResponse> {
        let catalog = graphs.catalog
        return authenticated(token).asObservable().flatMap { [self] _ in
            let request = try read(parameters)
            let page = try page(query: request.query, offset: request.offset, limit: request.limit)
            count { $0.watches += 1 }
            return catalog.asObservable().flatMapLatest { current in
                self.authenticated(request.token).map { _ in
                    current.search(request.query, offset: page.offset, limit: page.limit)
                }
            }
        }
        .subscribe(on: scheduler)
    }

    // MARK: Helpers

    /// The parameters, or their `bad_request` (counted).
    private func read<Parameters>(_ parameters: Result<Parameters, RemoteError>) throws(RemoteError)
        -> Parameters
    {
        switch parameters {
        case .success(let parameters): return parameters
        case .failure(let error):
            count { $0.badRequests += 1 }
            throw error
        }
    }

    /// The token's user, or the verifier's failure (counted).
    private func authenticated(_ token: String?) -> Single<VerifyResponse> {
        guard let token, !token.isEmpty else {
            count { $0.unauthenticated += 1 }
            return .error(RemoteError(code: .unauthenticated, message: "a session token is required"))
        }
        return verifier.verify(token).catch { [self] error in
            let code = (error as? RemoteError)?.code
            if code == .unauthenticated {
                count { $0.unauthenticated += 1 }
                throw error
            }
            count { $0.unavailable += 1 }
            throw code == .unavailable
                ? error
                : RemoteError(code: .unavailable, message: "the token cannot be checked now: \(error)")
        }
    }

    /// The checked paging of a call.
    private func page(query: String, offset: Int?, limit: Int?) throws(RemoteError) -> (
        offset: Int, limit: Int
    ) {
        let offset = offset ?? 0
        let limit = limit ?? limits.defaultLimit
        var problem: String?
        if offset < 0 {
            problem = "offset must be 0 or more, not \(offset)"
        } else if !(1...limits.maximumLimit).contains(limit) {
            problem = "limit must be from 1 to \(limits.maximumLimit), not \(limit)"
        } else if query.unicodeScalars.count > limits.maximumQueryLength {
            problem = "the query is longer than \(limits.maximumQueryLength) characters"
        }
        if let problem {
            count { $0.badRequests += 1 }
            throw RemoteError(code: .badRequest, message: problem)
        }
        return (offset, limit)
    }

    private func count(_ change: (inout Counters) -> Void) {
        counters_.withLock { change(&$0) }
    }
}

/// A call's parameters with its token read first: a body without a `token` member (or with one
/// that is not a string) still decodes, so the call is refused `unauthenticated` before its other
/// parameters are looked at; those that do not decode are kept as their `bad_request`.
struct Authenticated<Parameters: Codable & Sendable>: ParametersView {
    /// The body's `token`, if it is a string.
    let token: String?
    /// The parameters, or why the body is not JSON for them.
    let parameters: Result<Parameters, RemoteError>

    private enum Key: String, CodingKey {
        case token
    }

    init(from decoder: any Decoder) throws {
        token = try? decoder.container(keyedBy: Key.self).decodeIfPresent(String.self, forKey: .token)
        do {
            parameters = .success(try Parameters(from: decoder))
        } catch {
            parameters = .failure(
                RemoteError(
                    code: .badRequest,
                    message: "body is not JSON for \(Parameters.self): \(JSONBodyCoder.describe(error))"))
        }
    }
}
