import Foundation
import LoadTestCore
import Testing

/// A service that meets `p99<50ms` up to `limit` requests per second and queues beyond it, as one
/// second's run at `rate` would show.
private func simulatedRun(rate: Double, limit: Double) -> LoadResult {
    var run = LoadResult(
        scenario: "exists", model: .open(rate: rate), connections: 1, duration: 1_000_000_000, warmup: 0)
    let count = Int(rate)
    let answered = rate <= limit ? count : Int(limit)
    run.sent = count
    run.completed = count
    for index in 0..<count {
        run.latency.record(rate <= limit ? 1_000_000 + UInt64(index % 100) * 10_000 : 400_000_000)
    }
    run.outcomes = ["exists ok": count]
    run.perSecond = [answered, count - answered]
    return run
}

/// A clock that each step moves on by `step` nanoseconds.
private final class SteppedClock: @unchecked Sendable {
    var now: UInt64 = 0
}

@Suite("--find-capacity: coarse steps, a bisection, a time bound", .timeLimit(.minutes(1)))
struct CapacityTests {
    private let objective = Threshold.parseList("p99<50ms,errors<0.1%")!

    @Test("doubling until a miss, then bisecting to 5 %: the answer is just below the true limit")
    func search() async throws {
        let clock = SteppedClock()
        let search = CapacitySearch(
            objective: objective, startRate: 100, stepCost: 1_000_000_000, budget: 1_000_000_000_000)
        let result = await search.run(
            step: { rate in
                clock.now += 1_000_000_000
                return (simulatedRun(rate: rate, limit: 1_234), 0.5)
            }, now: { clock.now })
        #expect(result.steps.prefix(5).map(\.rate) == [100, 200, 400, 800, 1_600])
        #expect(result.steps.prefix(5).map(\.phase) == [.coarse, .coarse, .coarse, .coarse, .coarse])
        #expect(result.steps.dropFirst(5).allSatisfy { $0.phase == .bisection })
        let capacity = try #require(result.capacity)
        let missed = try #require(result.missed)
        #expect(capacity <= 1_234 && missed > 1_234)
        #expect((missed - capacity) / missed <= 0.05)
        #expect(!result.boundReached)
        #expect(result.steps.first { $0.rate == 1_600 }?.passed == false)
        #expect(result.steps.first?.cpuPercent == 50)
        let report = result.report()
        #expect(report.contains("capacity of exists for 'p99<50ms,errors<0.1%': 1,2"), "\(report)")
        #expect(report.contains("MISSED: p99<50ms"))
        #expect(result.svg().hasPrefix("<svg"))
    }

    @Test("a step only starts when it fits in the time bound; the search says the bound ended it")
    func timeBound() async {
        let clock = SteppedClock()
        let search = CapacitySearch(objective: objective, startRate: 100, stepCost: 1_000, budget: 4_500)
        let result = await search.run(
            step: { rate in
                clock.now += 1_000
                return (simulatedRun(rate: rate, limit: 1_000_000), 0)
            }, now: { clock.now })
        #expect(result.steps.count == 4)
        #expect(result.boundReached)
        #expect(result.capacity == 800)
        #expect(result.missed == nil)
        #expect(result.report().contains("time bound"))
    }

    @Test("a service that answers late but without errors misses: it did not keep up")
    func keptUp() async {
        let search = CapacitySearch(
            objective: Threshold.parseList("errors<1%")!, startRate: 100, stepCost: 0, budget: 1)
        var run = simulatedRun(rate: 500, limit: 200)
        let shortfall = search.shortfall(of: run, at: 500)
        #expect(shortfall?.contains("answered 40.0 % of the rate within the step") == true)
        run.sent = 400
        #expect(search.shortfall(of: run, at: 500)?.contains("the tool sent 80.0 %") == true)
        #expect(search.shortfall(of: simulatedRun(rate: 500, limit: 600), at: 500) == nil)
    }

    @Test("nothing meets it: the bisection goes down to 1 request per second and stops there")
    func noCapacity() async {
        let search = CapacitySearch(objective: objective, startRate: 100, stepCost: 0, budget: 1_000)
        let result = await search.run(step: { rate in (simulatedRun(rate: rate, limit: 0.5), 0) }, now: { 0 })
        #expect(result.capacity == nil)
        #expect(result.steps.count <= 9)
        #expect(result.report().contains("no rate tried met it"))
    }

    @Test("the result file holds the best step's run and the curve; searches do not merge")
    func resultFile() async throws {
        let search = CapacitySearch(objective: objective, startRate: 100, stepCost: 0, budget: 1)
        let result = await search.run(step: { rate in (simulatedRun(rate: rate, limit: 300), 0) }, now: { 0 })
        let data = try result.json()
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let capacity = try #require(object["capacity"] as? [String: Any])
        #expect(capacity["rate"] as? Double == result.capacity)
        #expect((capacity["steps"] as? [Any])?.count == result.steps.count)
        #expect(object["requested_rate"] as? Double == result.capacity)
        let read = try LoadResult(resultFile: data, name: "search.json")
        #expect(read.capacityObjective == "p99<50ms,errors<0.1%")
        #expect(throws: ResultFileError.self) { try LoadResult.merged([("a", read), ("b", read)]) }
    }
}
