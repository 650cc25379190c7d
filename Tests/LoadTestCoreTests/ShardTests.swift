import Contracts
import LoadTestCore
import RemoteStreams
import Synchronization
import Testing
import ZeroMQ

@Suite("--shard I/N: disjoint shares that add up to the whole load", .timeLimit(.minutes(1)))
struct ShardTests {
    @Test("I/N parses for 0 <= I < N only")
    func parsing() throws {
        let shard = try #require(GeneratorShard(parsing: "2/3"))
        #expect(shard.index == 2 && shard.count == 3 && shard.description == "2/3")
        #expect(GeneratorShard(parsing: "0/1") == .whole)
        for bad in [
            "", "3/3", "-1/3", "1", "1/", "/3", "a/3", "1/0", "1/2/3", " 1/3", "1/3 ", "+1/3", "1/1000001",
        ] {
            #expect(GeneratorShard(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test("the N shares of any total are disjoint, cover it, and differ in size by at most one")
    func ranges() {
        var generator = SplitMix64(seed: 27)
        for _ in 0..<2_000 {
            let count = Int(generator.next() % 40) + 1
            let total = Int(generator.next() % 500)
            let ranges = (0..<count).map { GeneratorShard(index: $0, count: count)!.range(of: total) }
            #expect(ranges.first?.lowerBound == 0)
            #expect(ranges.last?.upperBound == total)
            for (left, right) in zip(ranges, ranges.dropFirst()) {
                #expect(left.upperBound == right.lowerBound)
            }
            let sizes = ranges.map(\.count)
            #expect(sizes.max()! - sizes.min()! <= 1)
        }
        #expect(GeneratorShard.whole.range(of: 7) == 0..<7)
        #expect(GeneratorShard(index: 1, count: 4)!.share(ofRate: 1_000) == 250)
    }

    @Test("each generator's seed is its own; the whole load keeps the seed as given")
    func seeds() {
        let seeds = (0..<8).map { GeneratorShard(index: $0, count: 8)!.seed(1) }
        #expect(Set(seeds).count == 8)
        #expect(GeneratorShard.whole.seed(1) == 1)
    }

    @Test("three generators send as disjoint users and end clients, which together are all of them")
    func disjointRequests() async throws {
        let seen = Mutex<[(shard: Int, user: String, client: String)]>([])
        let current = Atomic<Int>(0)
        let context = try Context()
        let stub = try StubAuthServer(context: context, endpoint: "tcp://127.0.0.1:*") { username, client in
            let shard = current.load(ordering: .sequentiallyConsistent)
            seen.withLock { $0.append((shard, username, client ?? "")) }
        }
        let client = try RemoteClient(
            context: context,
            configuration: .init(endpoints: stub.server.endpoints, deadline: .seconds(10), name: "shard-test")
        )
        for index in 0..<3 {
            current.store(index, ordering: .sequentiallyConsistent)
            let workload = AuthWorkload(
                clients: [client],
                options: WorkloadOptions(
                    scenario: Scenario(weights: [(.exists, 1)]), users: 30, clients: 12,
                    shard: GeneratorShard(index: index, count: 3)!))
            for request in 0..<300 {
                _ = await withCheckedContinuation { continuation in
                    workload.call(request) { continuation.resume(returning: $0) }
                }
            }
        }
        await client.stop()
        await stub.stop()
        context.terminate()
        let records = seen.withLock { $0 }
        #expect(records.count == 900)
        var users: [Set<String>] = [[], [], []]
        var clients: [Set<String>] = [[], [], []]
        for record in records {
            users[record.shard].insert(record.user)
            clients[record.shard].insert(record.client)
        }
        for index in 0..<3 {
            let range = GeneratorShard(index: index, count: 3)!.range(of: 30)
            #expect(users[index] == Set(range.map(AuthWorkload.userName)))
            #expect(clients[index] == Set((4 * index..<4 * index + 4).map { "loadtest-\($0)" }))
        }
        #expect(users[0].union(users[1]).union(users[2]).count == 30)
    }
}
