import Dispatch
import Foundation
import LoadTestCore
import Synchronization
import Testing

@Suite("--stages: ramps of the rate or the concurrency, measured stage by stage", .timeLimit(.minutes(1)))
struct StageTests {
    @Test("stage lists parse, named or by position; malformed ones do not")
    func parsing() throws {
        let stages = try #require(Stage.parseList("30s:100,peak=1m:2000, 30s:0"))
        #expect(stages.map(\.name) == ["stage1", "peak", "stage3"])
        #expect(stages.map(\.duration) == [30_000_000_000, 60_000_000_000, 30_000_000_000])
        #expect(stages.map(\.target) == [100, 2_000, 0])
        for bad in [
            "", "30s", "30s:", ":100", "30:100", "0s:100", "30s:-1", "30s:x", "30s:100,", "a=1s:1,a=1s:2",
            "1a=1s:1", "a b=1s:1", "=1s:1", "30s:inf", "30s:+5", "stage2=1s:1,1s:2",
        ] {
            #expect(Stage.parseList(bad) == nil, "\(bad)")
        }
    }

    @Test("a ramp's value is linear within each stage and holds its last target")
    func rampValues() {
        let ramp = Ramp(
            start: 10,
            stages: [
                Stage(name: "a", duration: 1_000, target: 20), Stage(name: "b", duration: 1_000, target: 0),
            ])
        #expect(ramp.duration == 2_000)
        #expect(ramp.value(at: 0) == 10)
        #expect(ramp.value(at: 500) == 15)
        #expect(ramp.value(at: 1_000) == 20)
        #expect(ramp.value(at: 1_500) == 10)
        #expect(ramp.value(at: 9_000) == 0)
        #expect(ramp.piece(at: 999) == 0 && ramp.piece(at: 1_000) == 1 && ramp.piece(at: 5_000) == 1)
    }

    @Test("the open schedule on a ramp: its integral's requests, in order, each inside its stage")
    func rampSchedule() throws {
        // 0 → 400/s over 1 s (200 requests), 400/s for 1 s (400), 400 → 0/s over 1 s (200).
        let stages = try #require(Stage.parseList("up=1s:400,flat=1s:400,down=1s:0"))
        let schedule = OpenSchedule(start: 1_000, ramp: Ramp(start: 0, stages: stages))
        #expect(schedule.count(within: 1_000_000_000) == 200)
        #expect(schedule.count(within: 2_000_000_000) == 600)
        #expect(schedule.count(within: 3_000_000_000) == 800)
        #expect(schedule.count(within: 10_000_000_000) == 800)
        // A quarter of the way up a ramp from 0 comes a sixteenth of its requests.
        #expect(schedule.count(within: 250_000_000) == 13)
        #expect(schedule.time(of: 0) == 1_000)
        #expect(schedule.time(of: 800) == UInt64.max)
        var previous: UInt64 = 0
        for index in 0..<800 {
            let time = schedule.time(of: index)
            #expect(time >= previous)
            #expect(time < 1_000 + 3_000_000_000)
            previous = time
        }
        // The flat stage's requests are evenly spaced, as at a constant rate.
        #expect(schedule.time(of: 201) - schedule.time(of: 200) == 2_500_000)
        // A constant rate keeps its exact times.
        let constant = OpenSchedule(start: 1_000, rate: 3)
        #expect(constant.time(of: 1) == 1_000 + 333_333_333)
    }

    @Test("an open-model ramp sends each stage's planned requests, and reports them stage by stage")
    func openRun() async throws {
        let stages = try #require(Stage.parseList("up=500ms:400,flat=500ms:400,down=500ms:0"))
        let plan = RunPlan(model: .open(rate: 0), duration: 0, stages: stages)
        #expect(plan.duration == 1_500_000_000)
        let queue = DispatchQueue(label: "answers")
        let driver = LoadDriver(plan: plan, shards: 2) { index, done in
            queue.async { done(Outcome(index % 10 == 0 ? "bad" : "ok", isError: index % 10 == 0)) }
        }
        let result = await driver.run()
        #expect(result.stages.map(\.name) == ["up", "flat", "down"])
        #expect(result.stages.map(\.sent) == [100, 200, 100])
        #expect(result.stages.map(\.completed) == [100, 200, 100])
        #expect(result.sent == 400 && result.completed == 400)
        #expect(result.stages.map(\.errors).reduce(0, +) == result.errors)
        #expect(result.stages.map { $0.latency.count }.reduce(0, +) == result.latency.count)
        #expect(result.requestedRate.map { abs($0 - 400.0 * 2 / 3) < 0.01 } == true)
        #expect(result.stageRun(1).completedRate == 400)
        let report = result.report()
        #expect(report.contains("open model ramping 0 → 400 → 400 → 0 req/s"), "\(report)")
        #expect(report.contains("  stages"))
        for name in ["up", "flat", "down"] { #expect(report.contains("    \(name) "), "\(report)") }
        let verdicts = try #require(Threshold.parseList("flat:rate>=399,up:errors<1%,nothing:p99<1s"))
            .evaluate(result)
        #expect(verdicts.map(\.passed) == [true, false, false])
        #expect(verdicts[2].measured == "no such stage")
        #expect(result.svg().contains(">flat</text>"))
    }

    @Test("a closed-model ramp starts chains as its concurrency rises and ends them as it falls")
    func closedRun() async throws {
        let stages = try #require(Stage.parseList("rise=400ms:8,hold=400ms:8,fall=400ms:1"))
        let plan = RunPlan(model: .closed(concurrency: 1), duration: 0, stages: stages)
        let samples = Mutex<[(offset: UInt64, inFlight: Int)]>([])
        let inFlight = Atomic<Int>(0)
        let start = DispatchTime.now().uptimeNanoseconds
        let driver = LoadDriver(plan: plan) { _, done in
            let now = inFlight.add(1, ordering: .sequentiallyConsistent).newValue
            samples.withLock { $0.append((DispatchTime.now().uptimeNanoseconds - start, now)) }
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(4)) {
                inFlight.subtract(1, ordering: .sequentiallyConsistent)
                done(Outcome("ok", isError: false))
            }
        }
        let result = await driver.run()
        let recorded = samples.withLock { $0 }
        func highest(_ range: Range<UInt64>) -> Int {
            recorded.filter { range.contains($0.offset) }.map(\.inFlight).max() ?? 0
        }
        // 1 ms of start-up slack: the first 100 ms of the rise stay near 1–3, the hold reaches 8,
        // and the last 100 ms of the fall are back near 1.
        #expect(highest(0..<100_000_000) <= 3)
        #expect(highest(450_000_000..<800_000_000) == 8)
        #expect(highest(1_120_000_000..<1_200_000_000) <= 3)
        #expect(result.stages.map(\.sent).allSatisfy { $0 > 0 })
        #expect(result.stages[1].sent > result.stages[0].sent)
        #expect(result.report().contains("closed model ramping 1 → 8 → 8 → 1 in flight"))
    }

    @Test(
        "stages survive the result file and merge stage by stage; other ramps do not merge; version 1 still reads"
    )
    func resultFiles() async throws {
        let stages = try #require(Stage.parseList("a=300ms:200,b=300ms:100"))
        func run(_ stages: [Stage]) async -> LoadResult {
            var result = await LoadDriver(
                plan: RunPlan(model: .open(rate: 100), duration: 300_000_000, stages: stages)
            ) {
                _, done in DispatchQueue.global().async { done(Outcome("ok", isError: false)) }
            }.run()
            result.scenario = "exists"
            return result
        }
        let (one, two) = (await run(stages), await run(stages))
        let read = try LoadResult(resultFile: try one.json(), name: "one.json")
        #expect(read.stages.map(\.name) == ["a", "b"])
        #expect(read.stages.map(\.sent) == one.stages.map(\.sent))
        #expect(read.stages[0].latency.buckets.map(\.count) == one.stages[0].latency.buckets.map(\.count))
        let merged = try LoadResult.merged([("one", one), ("two", read), ("three", two)])
        #expect(merged.stages.map(\.sent) == zip(one.stages, two.stages).map { 2 * $0.sent + $1.sent })
        #expect(merged.stages[0].to == 600)
        #expect(
            merged.stages[0].latency.count == 2 * one.stages[0].latency.count + two.stages[0].latency.count)
        let other = await run(try #require(Stage.parseList("a=300ms:200,c=300ms:100")))
        #expect(throws: ResultFileError.self) { try LoadResult.merged([("one", one), ("other", other)]) }

        // A version 1 file: no stages, shard or capacity members.
        var object = try #require(
            try JSONSerialization.jsonObject(with: try await run([]).json()) as? [String: Any])
        object["format_version"] = 1
        let old = try LoadResult(
            resultFile: try JSONSerialization.data(withJSONObject: object), name: "old.json")
        #expect(old.stages.isEmpty && old.sent > 0)
        object["format_version"] = 3
        #expect(throws: ResultFileError.self) {
            try LoadResult(resultFile: try JSONSerialization.data(withJSONObject: object), name: "new.json")
        }
    }
}
