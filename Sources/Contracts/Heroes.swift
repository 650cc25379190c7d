public import RemoteProtocol

extension Methods {
    /// The hero catalog service's methods (docs/services/hero-catalog.md), called by the gateway.
    ///
    /// Every method needs a session token from `auth.login`; without a valid one it fails with
    /// `ERROR unauthenticated`, and with `ERROR unavailable` while auth-service cannot be reached.
    public enum Heroes {
        /// `heroes.search` ``HeroSearchRequest`` → ``HeroSearchResponse``.
        public static let search = RequestMethod<HeroSearchRequest, HeroSearchResponse>(
            "heroes.search", retrySafety: .idempotent)
        /// `heroes.get` ``HeroGetRequest`` → ``Hero``, or `ERROR not_found`.
        public static let get = RequestMethod<HeroGetRequest, Hero>("heroes.get", retrySafety: .idempotent)
        /// `heroes.watch` (stream) ``HeroWatchRequest`` → ``HeroSearchResponse``*: the current
        /// results, then again after every catalog reload.
        public static let watch = StreamMethod<HeroWatchRequest, HeroSearchResponse>("heroes.watch")

        /// Every method hero-catalog-service answers besides ``System``'s.
        public static let all: [any RemoteMethod] = [search, get, watch]
    }
}

/// One hero of the catalog.
///
/// `name` and `intro` map a locale (`zh-Hans`, `zh-Hant`, `en`) to the text in that locale; a
/// catalog need not have every locale for every hero.
public struct Hero: Codable, Sendable, Hashable {
    /// The hero's id, unique in the catalog.
    public var id: Int
    /// The name by locale.
    public var name: [String: String]
    /// A short introduction by locale.
    public var intro: [String: String]
    /// The icon's file name, e.g. `hero-001.png`.
    public var icon: String

    /// A hero.
    public init(id: Int, name: [String: String], intro: [String: String], icon: String) {
        self.id = id
        self.name = name
        self.intro = intro
        self.icon = icon
    }
}

/// `heroes.search`'s parameters.
public struct HeroSearchRequest: Codable, Sendable, Hashable {
    /// The text to look for in the names (any locale); empty lists every hero.
    public var query: String
    /// How many matches to skip (default 0).
    public var offset: Int?
    /// How many matches to return at most: 1 to 500 (default 50).
    public var limit: Int?
    /// A session token from `auth.login`.
    public var token: String

    /// Parameters searching for `query`.
    public init(query: String, offset: Int? = nil, limit: Int? = nil, token: String) {
        self.query = query
        self.offset = offset
        self.limit = limit
        self.token = token
    }
}

/// A page of search results.
public struct HeroSearchResponse: Codable, Sendable, Hashable {
    /// How many heroes match in all.
    public var total: Int
    /// The matches from `offset`, at most `limit` of them, in catalog order.
    public var items: [Hero]

    /// A page.
    public init(total: Int, items: [Hero]) {
        self.total = total
        self.items = items
    }
}

/// `heroes.get`'s parameters.
public struct HeroGetRequest: Codable, Sendable, Hashable {
    /// The hero's id.
    public var id: Int
    /// A session token from `auth.login`.
    public var token: String

    /// Parameters asking for hero `id`.
    public init(id: Int, token: String) {
        self.id = id
        self.token = token
    }
}

/// `heroes.watch`'s parameters: a search whose results are sent again after each catalog reload.
public struct HeroWatchRequest: Codable, Sendable, Hashable {
    /// The text to look for (as in ``HeroSearchRequest/query``).
    public var query: String
    /// How many matches to skip (default 0).
    public var offset: Int?
    /// How many matches to send at most: 1 to 500 (default 50).
    public var limit: Int?
    /// A session token from `auth.login`.
    public var token: String

    /// Parameters watching `query`.
    public init(query: String, offset: Int? = nil, limit: Int? = nil, token: String) {
        self.query = query
        self.offset = offset
        self.limit = limit
        self.token = token
    }
}

// MARK: Direct JSON codings (docs/transport/json.md, "Direct codings"): one line per stored property.

extension Hero: JSONBody {
    public static let jsonFields = JSONFields<Self>(
        blank: Hero(id: 0, name: [:], intro: [:], icon: ""),
        [.field("id", \.id), .field("name", \.name), .field("intro", \.intro), .field("icon", \.icon)])
}

extension HeroSearchRequest: JSONBody {
    public static let jsonFields = JSONFields<Self>(
        blank: HeroSearchRequest(query: "", token: ""),
        [
            .field("query", \.query), .field("offset", \.offset), .field("limit", \.limit),
            .field("token", \.token),
        ])
}

extension HeroSearchResponse: JSONBody {
    public static let jsonFields = JSONFields<Self>(
        blank: HeroSearchResponse(total: 0, items: []), [.field("total", \.total), .field("items", \.items)])
}

extension HeroGetRequest: JSONBody {
    public static let jsonFields = JSONFields<Self>(
        blank: HeroGetRequest(id: 0, token: ""), [.field("id", \.id), .field("token", \.token)])
}

extension HeroWatchRequest: JSONBody {
    public static let jsonFields = JSONFields<Self>(
        blank: HeroWatchRequest(query: "", token: ""),
        [
            .field("query", \.query), .field("offset", \.offset), .field("limit", \.limit),
            .field("token", \.token),
        ])
}
