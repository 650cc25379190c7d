/// One kind of call the load generator makes.
public enum RequestKind: String, Sendable, Hashable, CaseIterable, Codable {
    /// `auth.login` as a seeded user (a share with a wrong password, `--fail-ratio`).
    case login
    /// `auth.register` of a fresh username (each run's names are new).
    case register
    /// `auth.exists` of a seeded username.
    case exists
    /// `auth.verify` of a token obtained by logging seeded users in before the run.
    case verify
    /// A virtual user on the gateway's phone login: types a seeded phone and its password, taps.
    case flowLogin = "flow.login"
    /// A virtual user on the gateway's registration: types a new username, a password twice, taps.
    case flowRegister = "flow.register"
    /// A virtual user on the gateway's username sign-in: types a seeded name and password, taps.
    case flowSignin = "flow.signin"
    /// A virtual user on the gateway's hero list (signed in before the run): types a search.
    case flowHeroes = "flow.heroes"

    /// Whether it is a session on a gateway flow (`--target gateway`) rather than an auth call.
    public var isFlow: Bool { rawValue.hasPrefix("flow.") }
}

/// What a run sends: one kind of call, or a weighted mix (`mix:login=80,exists=15,register=5`).
public struct Scenario: Sendable, Hashable, CustomStringConvertible {
    /// The kinds and their weights (positive), in the order given.
    public let weights: [(kind: RequestKind, weight: Int)]
    private let cumulative: [Int]

    /// A scenario of `weights` (at least one, each weight > 0).
    public init(weights: [(kind: RequestKind, weight: Int)]) {
        precondition(!weights.isEmpty && weights.allSatisfy { $0.weight > 0 }, "weights must be positive")
        self.weights = weights
        var total = 0
        cumulative = weights.map {
            total += $0.weight
            return total
        }
    }

    /// Parses `login`, `register`, `exists`, `verify` or `mix:kind=weight,...`; nil when malformed
    /// (unknown kind, repeated kind, a weight that is not a positive integer).
    public init?(parsing text: String) {
        if let kind = RequestKind(rawValue: text) {
            self.init(weights: [(kind, 1)])
            return
        }
        guard text.hasPrefix("mix:") else { return nil }
        var weights: [(kind: RequestKind, weight: Int)] = []
        for part in text.dropFirst(4).split(separator: ",", omittingEmptySubsequences: false) {
            let pair = part.split(separator: "=", omittingEmptySubsequences: false)
            guard pair.count == 2, let kind = RequestKind(rawValue: String(pair[0])),
                let weight = Int(pair[1]), weight > 0, weight <= 1_000_000,
                !weights.contains(where: { $0.kind == kind })
            else { return nil }
            weights.append((kind, weight))
        }
        guard !weights.isEmpty else { return nil }
        self.init(weights: weights)
    }

    /// The kinds the scenario uses.
    public var kinds: [RequestKind] { weights.map(\.kind) }

    /// The kind for a draw `random` (any value: it is reduced modulo the total weight).
    public func kind(for random: UInt64) -> RequestKind {
        let total = UInt64(cumulative[cumulative.count - 1])
        let point = Int(random % total)
        for (index, bound) in cumulative.enumerated() where point < bound { return weights[index].kind }
        return weights[weights.count - 1].kind
    }

    /// `login` or `mix:login=80,exists=20`, as it would be typed.
    public var description: String {
        if weights.count == 1 && weights[0].weight == 1 { return weights[0].kind.rawValue }
        return "mix:" + weights.map { "\($0.kind.rawValue)=\($0.weight)" }.joined(separator: ",")
    }

    /// Equal when the kinds and weights are, in order.
    public static func == (left: Scenario, right: Scenario) -> Bool {
        left.weights.map(\.kind) == right.weights.map(\.kind)
            && left.weights.map(\.weight) == right.weights.map(\.weight)
    }

    /// Hashes the kinds and weights.
    public func hash(into hasher: inout Hasher) {
        for (kind, weight) in weights {
            hasher.combine(kind)
            hasher.combine(weight)
        }
    }
}

/// SplitMix64: a small, fast, seedable generator, so a run's sequence of calls is reproducible.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator starting from `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The `index`-th value of the stream seeded with `seed`, without stepping through the others
    /// (SplitMix64 is a counter hashed): lets any thread draw request `index`'s choices alone.
    public static func value(seed: UInt64, index: UInt64) -> UInt64 {
        var generator = SplitMix64(seed: seed &+ index &* 0x9E37_79B9_7F4A_7C15)
        return generator.next()
    }
}
