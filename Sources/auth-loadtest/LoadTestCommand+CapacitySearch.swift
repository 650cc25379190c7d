import Foundation
import LoadTestCore
import Measuring
import Synchronization

extension LoadTestCommand {
    /// The capacity search `--find-capacity` asks for, or nil; `plan` is a step's plan at the
    /// starting rate.
    func makeSearch(_ plan: RunPlan) throws -> CapacitySearch? {
        let options = LoadTestOptions.self
        guard let objective = configuration[options.findCapacity] else { return nil }
        for (option, given) in [
            ("--concurrency", configuration[options.concurrency] != nil),
            ("--stages", !configuration[options.stages].isEmpty),
            ("--requests", configuration[options.requests] != nil),
            ("--shard", !configuration[options.shard].isWhole),
        ] where given {
            throw CommandError.usage(
                "--find-capacity steps the open model's rate from one generator: leave out \(option)")
        }
        if objective.contains(where: { $0.stage != nil }) {
            throw CommandError.usage(
                "--find-capacity: the objective's conditions apply to each step, not to a stage")
        }
        let budget =
            configuration.source(of: options.duration) == .defaultValue
            ? 120_000_000_000 : DurationText.nanoseconds(configuration[options.duration])
        let step = DurationText.nanoseconds(configuration[options.stepDuration])
        guard step >= 1_000_000_000 else { throw CommandError.usage("--step-duration must be at least 1s") }
        let cost = plan.warmup + step + 2 * allowance(step: step, timeout: plan.drainTimeout)
        guard cost <= budget else {
            throw CommandError.usage(
                "--duration \(DurationText.format(budget)) cannot hold one step "
                    + "(--warmup + --step-duration + drain: \(DurationText.format(cost)))")
        }
        // A virtual user's session lasts seconds and answers only at its end: the answers within a
        // step say nothing of keeping up, so there the objective's latencies and errors decide.
        let gateway = configuration[options.target] == .gateway
        return CapacitySearch(
            objective: objective, startRate: configuration[options.rate] ?? (gateway ? 5 : 100),
            stepCost: cost,
            budget: budget, keptUpShare: gateway ? 0 : 0.9)
    }

    /// How long a step waits for answers after its last send, and again for stragglers before the
    /// next step: a fifth of the step, at least 200 ms, at most the request timeout; for the
    /// gateway's virtual users, a session's typing time on top (50 thinks).
    private func allowance(step: UInt64, timeout: UInt64) -> UInt64 {
        let session =
            configuration[LoadTestOptions.target] == .gateway
            ? 50 * DurationText.nanoseconds(configuration[LoadTestOptions.think]) : 0
        return min(timeout, max(200_000_000, step / 5)) + session
    }

    /// Runs the search's steps, one driver each; SIGINT stops the step in progress and the search.
    func runSearch(
        _ search: CapacitySearch, plan: RunPlan, call: @escaping LoadDriver.Call, connections: Int,
        label: String
    ) async -> CapacityResult {
        let options = LoadTestOptions.self
        let step = DurationText.nanoseconds(configuration[options.stepDuration])
        let allowance = allowance(step: step, timeout: plan.drainTimeout)
        let current = CurrentDriver()
        let interruption = Interruption { current.stop() }
        defer { interruption.cancel() }
        let verbose = configuration[options.progress] != .off
        var offset = 0
        var number = 0
        let result = await search.run(
            step: { rate in
                let base = offset
                let driver = LoadDriver(
                    plan: RunPlan(
                        model: .open(rate: rate), duration: step, warmup: plan.warmup, drainTimeout: allowance
                    ),
                    shards: connections
                ) { index, done in call(base + index, done) }
                current.set(driver)
                let cpu = processCPUSeconds()
                var run = await driver.run()
                // Stragglers of an overloaded step would land in the next one: give them a moment.
                let settled = monotonicNanoseconds() + allowance
                while driver.outstanding > 0, monotonicNanoseconds() < settled {
                    try? await Task.sleep(for: .milliseconds(10))
                }
                offset += driver.issuedRequests
                run.scenario = label
                run.connections = connections
                number += 1
                if verbose {
                    let verdicts = search.objective.evaluate(run)
                    let met = verdicts.allSatisfy(\.passed) ? "met" : "missed"
                    FileHandle.standardError.write(
                        Data(
                            ("step \(number): \(grouped(rate)) req/s, p99 \(DurationText.format(run.latency.value(atPercentile: 99))), "
                                + "errors \(fixed(run.errorPercent, 2)) %: objective \(met)\n").utf8))
                }
                return (run, processCPUSeconds() - cpu)
            }, now: monotonicNanoseconds)
        return result
    }

    /// Prints the search's report and the best step's, writes --json and --svg; exit 0, 1 when no
    /// rate met the objective or a --fail-if condition was missed, 130 when interrupted.
    func report(_ found: CapacityResult) throws -> Int32 {
        let options = LoadTestOptions.self
        print(found.report(), terminator: "")
        var verdicts: [ThresholdVerdict] = []
        if let best = found.best {
            verdicts = configuration[options.failIf].evaluate(best.run)
            print("the best step's run:")
            print(best.run.report(verdicts: verdicts), terminator: "")
        }
        if let path = configuration[options.json], !found.steps.isEmpty {
            try found.json(verdicts: verdicts).write(to: URL(fileURLWithPath: path))
        }
        if let path = configuration[options.svg], !found.steps.isEmpty {
            try Data(found.svg().utf8).write(to: URL(fileURLWithPath: path))
        }
        if found.interrupted { return 130 }
        return found.best != nil && verdicts.allSatisfy(\.passed) ? 0 : 1
    }
}

/// The driver of a capacity search's step in progress, for SIGINT to stop.
final class CurrentDriver: Sendable {
    private let state = Mutex<(driver: LoadDriver?, stopped: Bool)>((nil, false))

    /// The step now running; stopped at once when the search already was.
    func set(_ driver: LoadDriver) {
        let stopped = state.withLock {
            $0.driver = driver
            return $0.stopped
        }
        if stopped { driver.stop() }
    }

    /// Stops the step in progress and any later one.
    func stop() {
        state.withLock {
            $0.stopped = true
            return $0.driver
        }?.stop()
    }
}
