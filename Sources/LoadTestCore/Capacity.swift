import Measuring

/// One step of a capacity search: a run at one open-model rate, with its own warm-up.
public struct CapacityStep: Sendable {
    /// How the search chose the rate.
    public enum Phase: String, Sendable, Hashable {
        /// Growing by a factor until a step misses.
        case coarse
        /// Halving the interval between the highest rate that met the objective and the lowest
        /// that missed it.
        case bisection
    }

    /// The rate asked for, in requests per second.
    public var rate: Double
    /// How it was chosen.
    public var phase: Phase
    /// What the step measured.
    public var run: LoadResult
    /// The tool's own CPU time during the step, in seconds (user and system).
    public var cpuSeconds: Double
    /// The step's wall-clock time, in seconds.
    public var wallSeconds: Double
    /// The objective's verdicts on the run.
    public var verdicts: [ThresholdVerdict]
    /// Why the step missed besides the objective: the tool sent late, or the service answered
    /// too few within the step (nil when neither).
    public var shortfall: String?

    /// Whether the step met the objective and kept up with its rate.
    public var passed: Bool { shortfall == nil && verdicts.allSatisfy(\.passed) }

    /// The tool's CPU as a share of one core, in percent.
    public var cpuPercent: Double { wallSeconds > 0 ? cpuSeconds / wallSeconds * 100 : 0 }
}

/// What a capacity search found: every step in order, the highest rate that met the objective and
/// the lowest above it that missed.
public struct CapacityResult: Sendable {
    /// The objective, as typed.
    public var objective: String
    /// The steps, in the order they ran.
    public var steps: [CapacityStep]
    /// The relative width of the interval at which the bisection stops.
    public var precision: Double
    /// Whether the time bound ended the search before the interval was that narrow.
    public var boundReached: Bool
    /// Whether it was stopped (SIGINT); the step it was in is not among ``steps``.
    public var interrupted = false

    /// The step at the highest rate that met the objective, or nil when none did.
    public var best: CapacityStep? { steps.filter(\.passed).max { $0.rate < $1.rate } }

    /// The highest rate that met the objective.
    public var capacity: Double? { best?.rate }

    /// The lowest rate above ``capacity`` that missed it (nil when no step missed).
    public var missed: Double? {
        let floor = capacity ?? 0
        return steps.filter { !$0.passed && $0.rate > floor }.map(\.rate).min()
    }
}

/// The search for the highest open-model rate that meets an objective (`--find-capacity
/// 'p99<50ms,errors<0.1%'`): steps growing by ``growth`` from ``startRate`` until one misses, then a
/// bisection between the last that met it and the first that did not, until the interval is
/// within ``precision`` of its top or the time bound would be passed. A step also misses when the
/// tool could not send at its rate or the service answered less than ``keptUpShare`` of it within
/// the step: a service that only queues has not met any objective.
public struct CapacitySearch: Sendable {
    /// The conditions a rate must meet.
    public var objective: [Threshold]
    /// The first step's rate.
    public var startRate: Double
    /// The highest rate tried.
    public var maxRate: Double
    /// The coarse steps' factor.
    public var growth: Double
    /// The relative interval width at which to stop.
    public var precision: Double
    /// The longest one step may take, all in (warm-up, measured time, drain, settling), in
    /// nanoseconds: a step starts only if it fits in what is left of ``budget``.
    public var stepCost: UInt64
    /// The whole search's time bound, in nanoseconds.
    public var budget: UInt64
    /// The share of a step's rate that must be answered within the step.
    public var keptUpShare: Double

    /// A search.
    public init(
        objective: [Threshold], startRate: Double, stepCost: UInt64, budget: UInt64,
        maxRate: Double = 10_000_000,
        growth: Double = 2, precision: Double = 0.05, keptUpShare: Double = 0.9
    ) {
        precondition(startRate > 0 && growth > 1 && precision > 0, "a positive start, growth above 1")
        self.objective = objective
        self.startRate = startRate
        self.maxRate = maxRate
        self.growth = growth
        self.precision = precision
        self.stepCost = stepCost
        self.budget = budget
        self.keptUpShare = keptUpShare
    }

    /// Runs the search. `step(rate)` measures one step and returns its run and the tool's CPU
    /// seconds during it (an interrupted run ends the search); `now()` reads the monotonic clock in
    /// nanoseconds.
    public func run(
        step: (Double) async -> (run: LoadResult, cpuSeconds: Double), now: () -> UInt64
    ) async -> CapacityResult {
        let start = now()
        var result = CapacityResult(
            objective: objective.map(\.description).joined(separator: ","), steps: [], precision: precision,
            boundReached: false)
        func measure(_ rate: Double, _ phase: CapacityStep.Phase) async -> CapacityStep? {
            guard now() - start + stepCost <= budget else {
                result.boundReached = true
                return nil
            }
            let began = now()
            let (run, cpu) = await step(rate)
            guard !run.interrupted else {
                result.interrupted = true
                return nil
            }
            let measured = CapacityStep(
                rate: rate, phase: phase, run: run, cpuSeconds: cpu, wallSeconds: Double(now() - began) / 1e9,
                verdicts: objective.evaluate(run), shortfall: shortfall(of: run, at: rate))
            result.steps.append(measured)
            return measured
        }
        // Coarse: grow until a step misses.
        var low = 0.0
        var high: Double?
        var rate = startRate
        while high == nil {
            guard let step = await measure(rate, .coarse) else { return result }
            if step.passed {
                low = rate
                guard rate < maxRate else { return result }
                rate = min(rate * growth, maxRate)
            } else {
                high = rate
            }
        }
        // Bisection between the highest rate that met it and the lowest that did not.
        while let top = high, (top - low) / top > precision {
            let middle = (low + top) / 2
            // Nothing down to 1 request per second met it: there is no capacity to find.
            guard middle >= 1 else { return result }
            guard let step = await measure(middle, .bisection) else { return result }
            if step.passed { low = middle } else { high = middle }
        }
        return result
    }

    /// Why `run` at `rate` did not keep up, if it did not: the tool sent under 97 % of the rate, or
    /// the answers within the step's whole seconds were under ``keptUpShare`` of it.
    public func shortfall(of run: LoadResult, at rate: Double) -> String? {
        let seconds = run.seconds
        guard seconds > 0 else { return "nothing measured" }
        if run.sentRate < rate * 0.97 {
            return "the tool sent \(fixed(run.sentRate / rate * 100, 1)) % of the rate"
        }
        // Answers that came within the step's measured time (whole seconds of it).
        let whole = Int(seconds)
        if whole >= 1 {
            let answered = run.perSecond.prefix(whole).reduce(0, +)
            let share = Double(answered) / (rate * Double(whole))
            if share < keptUpShare {
                return "answered \(fixed(share * 100, 1)) % of the rate within the step"
            }
        }
        return nil
    }
}
