/// `--shard I/N`: this generator is number `index` (from 0) of `count` running at once against the
/// same service. Each takes a disjoint share of the seeded users, the end-client names and the
/// request sequence, and 1/N of the load, so that the N of them together offer what one generator
/// with the whole load would, and their result files merge into one run.
public struct GeneratorShard: Sendable, Hashable, CustomStringConvertible {
    /// This generator's number, `0..<count` (Kubernetes' `JOB_COMPLETION_INDEX`).
    public let index: Int
    /// How many generators run.
    public let count: Int

    /// The only generator: the whole load.
    public static let whole = GeneratorShard(checkedIndex: 0, count: 1)

    /// Generator `index` of `count`; nil unless `0 <= index < count`.
    public init?(index: Int, count: Int) {
        guard count >= 1, (0..<count).contains(index) else { return nil }
        self.init(checkedIndex: index, count: count)
    }

    private init(checkedIndex index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// Parses `I/N` (`0/3`, `2/3`); nil for anything else.
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2,
            parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { ("0"..."9").contains($0) } }),
            let index = Int(parts[0]), let count = Int(parts[1]), count <= 100_000
        else { return nil }
        self.init(index: index, count: count)
    }

    /// `I/N`.
    public var description: String { "\(index)/\(count)" }

    /// Whether this is the whole load (`0/1`).
    public var isWhole: Bool { count == 1 }

    /// This generator's part of `0..<total`: contiguous, the parts of all generators disjoint,
    /// covering it, and differing in size by at most one.
    public func range(of total: Int) -> Range<Int> {
        let total = Swift.max(0, total)
        let base = total / count
        let extra = total % count
        let lower = index * base + Swift.min(index, extra)
        return lower..<(lower + base + (index < extra ? 1 : 0))
    }

    /// This generator's part of a rate: `rate / count`.
    public func share(ofRate rate: Double) -> Double { rate / Double(count) }

    /// This generator's seed of the request sequence: `seed` itself for the whole load, otherwise
    /// one drawn from it and the index, so that no two generators repeat each other's sequence.
    public func seed(_ seed: UInt64) -> UInt64 {
        isWhole ? seed : SplitMix64.value(seed: seed ^ 0x5AA5_D00D, index: UInt64(index))
    }
}
