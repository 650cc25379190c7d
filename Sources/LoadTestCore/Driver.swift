import Dispatch
import Foundation
import Measuring
import Synchronization

/// A live view of a run, for the progress line.
public struct ProgressSnapshot: Sendable {
    /// Seconds since the first send.
    public var elapsed: Double
    /// Whether the warm-up is still on.
    public var warmingUp: Bool
    /// Replies per second over the last interval.
    public var rate: Double
    /// Measured requests completed so far.
    public var completed: Int
    /// The p99 latency of the measured requests so far (nanoseconds).
    public var p99: UInt64
    /// Errors among them.
    public var errors: Int
}

/// Drives a run: sends requests on the plan's schedule through `call`, records each reply, and
/// returns the ``LoadResult``.
///
/// Sending happens on a thread of its own (never on Swift's cooperative pool); replies are
/// recorded wherever `call` reports them, typically a `RemoteClient`'s loop thread, into one of
/// `shards` recorders chosen by the request's index, so that each connection's thread records
/// into its own, uncontended, recorder. `call` must report exactly once per request.
public final class LoadDriver: Sendable {
    /// Makes request `index` and calls `done` once with its outcome, from any thread. `done` should
    /// come after `call` returns (an answer over the network always does): in the closed model a
    /// `done` called inside `call` would send the next request on the same stack.
    public typealias Call = @Sendable (_ index: Int, _ done: @escaping @Sendable (Outcome) -> Void) -> Void

    private struct Shard: Sendable {
        var latency = LatencyHistogram()
        var outcomes: [String: Int] = [:]
        var completed = 0
        var errors = 0
        var warmup = 0
        var perSecond: [Int]
        /// Per stage, when the plan has stages.
        var stages: [StageTally]
        /// The measured latencies since the sampler last took them.
        var interval = LatencyHistogram()
        /// Requests made of interactions: each kind's latencies.
        var kinds: [String: LatencyHistogram] = [:]
    }

    private struct StageTally: Sendable {
        var latency = LatencyHistogram()
        var outcomes: [String: Int] = [:]
        var completed = 0
        var errors = 0
    }

    private let plan: RunPlan
    private let call: Call
    /// The measured time's load: stage `i` is piece `i`.
    private let ramp: Ramp
    /// Requests sent in each stage (used only when the plan has stages).
    private let stageSent: Mutex<[Int]>
    /// Closed model: the chains going on.
    private let chainsActive = Atomic<Int>(0)
    /// Each second's latency summary, taken by the sampler.
    private let samples = Mutex<[SecondSample]>([])
    private final class Recorder: Sendable {
        let state: Mutex<Shard>
        init(_ shard: Shard) { state = Mutex(shard) }
    }

    private let shards: [Recorder]
    private let issued = Atomic<Int>(0)
    private let measuredSent = Atomic<Int>(0)
    private let completions = Atomic<Int>(0)
    private let sendingDone = Atomic<Bool>(false)
    private let signaled = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let times = Mutex<(start: UInt64, measureStart: UInt64, end: UInt64)>((0, 0, 0))
    private let stopRequested = Atomic<Bool>(false)
    /// Wakes the sender early: on ``stop()``, or when the closed model has sent its last request.
    private let wake = DispatchSemaphore(value: 0)

    /// A driver for `plan`, recording into `shards` recorders (one per connection is best).
    public init(plan: RunPlan, shards: Int = 1, call: @escaping Call) {
        precondition(shards > 0, "at least one shard")
        self.plan = plan
        self.call = call
        ramp = plan.ramp
        stageSent = Mutex([Int](repeating: 0, count: plan.stages.count))
        let seconds = Int((plan.duration + plan.drainTimeout) / 1_000_000_000) + 2
        let tallies = [StageTally](repeating: StageTally(), count: plan.stages.count)
        self.shards = (0..<shards).map { _ in
            Recorder(Shard(perSecond: [Int](repeating: 0, count: seconds), stages: tallies))
        }
    }

    /// Runs the plan to its end (once per driver) and returns what it measured (`scenario` and `connections` are for
    /// the caller to fill in). `progress` is called about every `interval` while it runs.
    public func run(
        progress: (@Sendable (ProgressSnapshot) -> Void)? = nil, interval: Duration = .seconds(1)
    ) async -> LoadResult {
        let done = Flag()
        return await withTaskGroup(of: LoadResult?.self) { group in
            group.addTask {
                let result = await withCheckedContinuation {
                    (continuation: CheckedContinuation<LoadResult, Never>) in
                    let thread = Thread { [self] in continuation.resume(returning: drive()) }
                    thread.name = "loadtest-sender"
                    thread.start()
                }
                done.value.store(true, ordering: .sequentiallyConsistent)
                return result
            }
            group.addTask { [self] in
                await sample(until: done)
                return nil
            }
            if let progress {
                group.addTask { [self] in
                    var previous = 0
                    var previousTime = monotonicNanoseconds()
                    while !done.value.load(ordering: .sequentiallyConsistent) {
                        do { try await Task.sleep(for: interval) } catch { return nil }
                        let now = monotonicNanoseconds()
                        let total = completions.load(ordering: .relaxed)
                        let rate = Double(total - previous) * 1e9 / Double(max(1, now - previousTime))
                        (previous, previousTime) = (total, now)
                        if !done.value.load(ordering: .sequentiallyConsistent) {
                            progress(snapshot(rate: rate, now: now))
                        }
                    }
                    return nil
                }
            }
            var result: LoadResult?
            for await value in group {
                if let value {
                    result = value
                    group.cancelAll()
                }
            }
            return result
                ?? LoadResult(scenario: "", model: plan.model, connections: 0, duration: 0, warmup: 0)
        }
    }

    /// Every second after the warm-up, takes the latencies recorded since the last time into one
    /// ``SecondSample``: what `compare` judges the noise by.
    private func sample(until done: Flag) async {
        var next: UInt64 = 0
        while !done.value.load(ordering: .sequentiallyConsistent) {
            let (start, measureStart, _) = times.withLock { $0 }
            let now = monotonicNanoseconds()
            if start == 0 {
                // The sender has not started yet.
                try? await Task.sleep(for: .milliseconds(5))
                continue
            }
            if next == 0 { next = measureStart + 1_000_000_000 }
            if now < next {
                // Short sleeps, so that the end of the run is noticed soon.
                try? await Task.sleep(nanoseconds: min(next - now, 100_000_000))
                continue
            }
            var second = LatencyHistogram()
            for shard in shards {
                let taken = shard.state.withLock { shard in
                    let taken = shard.interval
                    shard.interval = LatencyHistogram()
                    return taken
                }
                second.merge(taken)
            }
            let sample = SecondSample(offset: next - measureStart, second)
            samples.withLock { $0.append(sample) }
            next += 1_000_000_000
        }
    }

    private func snapshot(rate: Double, now: UInt64) -> ProgressSnapshot {
        let (start, measureStart, _) = times.withLock { $0 }
        var latency = LatencyHistogram()
        var completed = 0
        var errors = 0
        for shard in shards {
            shard.state.withLock { shard in
                latency.merge(shard.latency)
                completed += shard.completed
                errors += shard.errors
            }
        }
        return ProgressSnapshot(
            elapsed: Double(now &- start) / 1e9, warmingUp: now < measureStart, rate: rate,
            completed: completed, p99: latency.value(atPercentile: 99), errors: errors)
    }

    /// Stops sending now (from any thread, e.g. on SIGINT): the run waits for the replies still out,
    /// as at its planned end, and returns a result marked ``LoadResult/interrupted``, whose window
    /// ends here.
    public func stop() {
        stopRequested.store(true, ordering: .sequentiallyConsistent)
        wake.signal()
    }

    private var stopping: Bool { stopRequested.load(ordering: .sequentiallyConsistent) }

    /// Requests sent so far, the warm-up's included.
    public var issuedRequests: Int { issued.load(ordering: .sequentiallyConsistent) }

    /// Requests sent and not yet answered: after ``run(progress:interval:)`` returns, the ones the
    /// drain timeout gave up on, until their answers or deadlines come.
    public var outstanding: Int {
        max(
            0,
            issued.load(ordering: .sequentiallyConsistent)
                - completions.load(ordering: .sequentiallyConsistent))
    }

    /// Sends on this thread, waits for the replies, and collects the shards.
    private func drive() -> LoadResult {
        let start = monotonicNanoseconds() + 1_000_000
        let measureStart = start + plan.warmup
        let end = measureStart + plan.duration
        times.withLock { $0 = (start, measureStart, end) }
        let limit = plan.maxRequests ?? Int.max
        // The measured window ends when sending does: at the planned end, or earlier when
        // --requests runs out.
        var sendingEnded = end
        // How late the open model's requests left the tool (measured ones): its own lag.
        var lag = LatencyHistogram()
        switch plan.model {
        case .open(let rate):
            let schedule: OpenSchedule
            if plan.stages.isEmpty {
                schedule = OpenSchedule(start: start, rate: rate)
            } else {
                // The warm-up at the starting rate, then the stages.
                let warmup =
                    plan.warmup > 0 ? [Stage(name: "warm-up", duration: plan.warmup, target: rate)] : []
                schedule = OpenSchedule(start: start, ramp: Ramp(start: rate, stages: warmup + plan.stages))
            }
            let total = min(limit, schedule.count(within: plan.warmup + plan.duration))
            var index = 0
            while index < total && !stopping {
                let now = monotonicNanoseconds()
                let due = schedule.time(of: index)
                if due > now {
                    // Long gaps (low rates) wait on the semaphore, so that stop() is prompt;
                    // short ones sleep, which is more precise.
                    if due - now > 10_000_000 {
                        _ = wake.wait(timeout: .now() + .nanoseconds(Int(due - now)))
                    } else {
                        sleep(nanoseconds: due - now)
                    }
                    continue
                }
                // Everything due by now goes out in one batch, each stamped with its own time.
                while index < total {
                    let time = schedule.time(of: index)
                    guard time <= now else { break }
                    if time >= measureStart { lag.record(monotonicNanoseconds() &- time) }
                    issue(index, stamp: time, measureStart: measureStart)
                    index += 1
                }
            }
            sendingEnded = min(end, schedule.time(of: index))
        case .closed(let concurrency):
            sleep(nanoseconds: start &- min(start, monotonicNanoseconds()))
            let chains = Counter()
            let wake = self.wake
            let ramp = self.ramp
            let staged = !plan.stages.isEmpty
            // How many chains should go on at `now`: the concurrency, or on a ramp its value then.
            @Sendable func target(_ now: UInt64) -> Int {
                guard staged, now >= measureStart else { return concurrency }
                return Int(ramp.value(at: now - measureStart).rounded())
            }
            @Sendable func next() {
                let now = monotonicNanoseconds()
                guard !stopping, now < end, let index = chains.next(below: limit) else {
                    chainsActive.subtract(1, ordering: .sequentiallyConsistent)
                    return
                }
                // Above a falling ramp's value, this chain ends here.
                if staged {
                    var current = chainsActive.load(ordering: .sequentiallyConsistent)
                    while current > target(now) {
                        let (exchanged, original) = chainsActive.compareExchange(
                            expected: current, desired: current - 1, ordering: .sequentiallyConsistent)
                        if exchanged { return }
                        current = original
                    }
                }
                // The last request `limit` allows: the run ends early.
                if index == limit - 1 { wake.signal() }
                issue(index, stamp: now, measureStart: measureStart, then: next)
            }
            // Chains start as the target rises (checked every 2 ms on a ramp), until the end.
            var ended = false
            while !ended && !stopping {
                let now = monotonicNanoseconds()
                guard now < end else { break }
                let missing = target(now) - chainsActive.load(ordering: .sequentiallyConsistent)
                if missing > 0 {
                    chainsActive.add(missing, ordering: .sequentiallyConsistent)
                    for _ in 0..<missing { next() }
                }
                let wait = staged ? min(end - now, 2_000_000) : end - now
                if wake.wait(timeout: .now() + .nanoseconds(Int(wait))) == .success {
                    ended = true
                    sendingEnded = min(end, monotonicNanoseconds())
                }
            }
        }
        sendingDone.store(true, ordering: .sequentiallyConsistent)
        if completions.load(ordering: .sequentiallyConsistent)
            == issued.load(ordering: .sequentiallyConsistent)
        {
            signalFinished()
        }
        _ = finished.wait(timeout: .now() + .nanoseconds(Int(min(plan.drainTimeout, UInt64(Int.max)))))
        var result = collect(window: sendingEnded &- min(sendingEnded, measureStart))
        result.senderLag = lag
        result.interrupted = stopping
        return result
    }

    private func issue(
        _ index: Int, stamp: UInt64, measureStart: UInt64, then next: (@Sendable () -> Void)? = nil
    ) {
        issued.add(1, ordering: .sequentiallyConsistent)
        let measured = stamp >= measureStart
        if measured { measuredSent.add(1, ordering: .relaxed) }
        let stage = measured && !plan.stages.isEmpty ? ramp.piece(at: stamp - measureStart) : -1
        if stage >= 0 { stageSent.withLock { $0[stage] += 1 } }
        let shard = shards[index % shards.count]
        call(index) { [self] outcome in
            let now = monotonicNanoseconds()
            // The next request of a closed chain is issued before this one counts as completed, so
            // that the count of replies never catches up with the sends while a chain goes on.
            next?()
            shard.state.withLock { shard in
                if measured {
                    if let samples = outcome.samples {
                        for sample in samples {
                            shard.latency.record(sample.nanoseconds)
                            shard.interval.record(sample.nanoseconds)
                            shard.kinds[sample.kind, default: LatencyHistogram()].record(sample.nanoseconds)
                            if stage >= 0 { shard.stages[stage].latency.record(sample.nanoseconds) }
                        }
                    } else {
                        shard.latency.record(now &- min(now, stamp))
                        shard.interval.record(now &- min(now, stamp))
                        if stage >= 0 { shard.stages[stage].latency.record(now &- min(now, stamp)) }
                    }
                    shard.outcomes[outcome.label, default: 0] += 1
                    shard.completed += 1
                    if outcome.isError { shard.errors += 1 }
                    let second = Int((now &- min(now, measureStart)) / 1_000_000_000)
                    shard.perSecond[min(second, shard.perSecond.count - 1)] += 1
                    if stage >= 0 {
                        shard.stages[stage].outcomes[outcome.label, default: 0] += 1
                        shard.stages[stage].completed += 1
                        if outcome.isError { shard.stages[stage].errors += 1 }
                    }
                } else {
                    shard.warmup += 1
                }
            }
            let completed = completions.add(1, ordering: .sequentiallyConsistent).newValue
            if sendingDone.load(ordering: .sequentiallyConsistent),
                completed == issued.load(ordering: .sequentiallyConsistent)
            {
                signalFinished()
            }
        }
    }

    private func signalFinished() {
        if signaled.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent)
            .exchanged
        {
            finished.signal()
        }
    }

    private func collect(window: UInt64) -> LoadResult {
        var result = LoadResult(
            scenario: "", model: plan.model, connections: shards.count, duration: window, warmup: plan.warmup)
        var perSecond: [Int] = []
        var stages = plan.stages.indices.map { index in
            let piece = ramp.pieces[index]
            return StageResult(
                name: plan.stages[index].name, offset: piece.offset, duration: piece.duration,
                from: piece.from,
                to: piece.to)
        }
        for shard in shards {
            shard.state.withLock { shard in
                for (kind, histogram) in shard.kinds {
                    result.latencyByKind[kind, default: LatencyHistogram()].merge(histogram)
                }
                for (index, tally) in shard.stages.enumerated() {
                    stages[index].latency.merge(tally.latency)
                    for (label, count) in tally.outcomes {
                        stages[index].outcomes[label, default: 0] += count
                    }
                    stages[index].completed += tally.completed
                    stages[index].errors += tally.errors
                }
                result.latency.merge(shard.latency)
                for (label, count) in shard.outcomes { result.outcomes[label, default: 0] += count }
                result.completed += shard.completed
                result.errors += shard.errors
                result.warmupRequests += shard.warmup
                if perSecond.isEmpty {
                    perSecond = shard.perSecond
                } else {
                    for second in perSecond.indices { perSecond[second] += shard.perSecond[second] }
                }
            }
        }
        result.sent = measuredSent.load(ordering: .sequentiallyConsistent)
        result.unfinished = max(0, result.sent - result.completed)
        result.errors += result.unfinished
        let sentPerStage = stageSent.withLock { $0 }
        for index in stages.indices {
            stages[index].sent = sentPerStage[index]
            stages[index].unfinished = max(0, stages[index].sent - stages[index].completed)
            stages[index].errors += stages[index].unfinished
        }
        result.stages = stages
        // Whole seconds of the measured window; those of the drain would judge the tail alone.
        result.latencySamples = samples.withLock { $0 }.filter { $0.offset <= window }
        if case .open = plan.model, !stages.isEmpty, window > 0 {
            // A ramp's requested rate is its mean over the measured time.
            result.model = .open(rate: stages.reduce(0) { $0 + $1.planned } / (Double(plan.duration) / 1e9))
        }
        // Seconds after the last one with a completion are the drain's tail of nothing: cut them,
        // but keep the whole measured window.
        let seconds = Int((window + 999_999_999) / 1_000_000_000)
        var last = perSecond.lastIndex { $0 > 0 } ?? -1
        last = max(last, seconds - 1)
        result.perSecond = Array(perSecond.prefix(last + 1))
        return result
    }

    private func sleep(nanoseconds: UInt64) {
        guard nanoseconds > 0 else { return }
        var request = timespec(
            tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) == -1 && errno == EINTR { request = remaining }
    }
}

/// A flag shared between tasks.
final class Flag: Sendable {
    let value = Atomic<Bool>(false)
}

/// A counter shared between tasks and threads.
final class Counter: Sendable {
    let value = Mutex(0)

    /// The next number below `limit`, or nil once `limit` have been handed out.
    func next(below limit: Int) -> Int? {
        value.withLock { value -> Int? in
            guard value < limit else { return nil }
            value += 1
            return value - 1
        }
    }
}
