// `make bench-reactive`: the reactive core's scenarios, built in release mode from a separate module
// (like a user's code), printed side by side with RxSwift 6.10.2's figures with cross-module
// optimisation, measured on this kind of 2-core machine in December 2026 (the same scenarios' source
// compiled against RxSwift built from source; see docs/BENCHMARKS.md).
//
// Each scenario runs `rounds` times in a child process of its own (this program with `--result`),
// so what one scenario leaves in the heap does not slow the next, and the best round is reported.
// The ratios printed come from one run.
//
// With `--baseline PATH` (another build of this program, from an older commit: `make bench-reactive
// BENCH_REACTIVE_BASELINE=<git ref>` builds one) the two programs are measured in the same run:
// for each scenario, `passes` times in turn, each runs `rounds` rounds of it in a child process of
// its own and prints a `RESULT` line, and the table shows the best of each, side by side.
//
// Usage: ReactiveBenchmarks [rounds] [scenario letters, default "abcdefgi" (e is the actor crossing)]
//                           [--baseline PATH] [--passes N] [--result]
// `--result` prints only `RESULT scenario=<letter> rate=<per second>` lines (what a child prints).

import Dispatch
import Foundation
import Reactive
import Synchronization

/// A result sink the closures can share without a lock (a relaxed atomic, as Swift 6 requires for
/// state captured by `@Sendable` closures); it also keeps the optimiser from deleting the work.
final class Total: Sendable {
    let value = Atomic<Int>(0)
    func add(_ amount: Int) { value.add(amount, ordering: .relaxed) }
}

struct Scenario {
    let name: String
    /// What is counted per second: "events" or "subscriptions".
    let unit: String
    let events: Int
    /// RxSwift 6.10.2, release build, separate module, without cross-module optimisation (per
    /// second); nil where it was not measured in December 2026.
    let rxSwift: Double?
    /// RxSwift 6.10.2 with cross-module optimisation, release build, separate module, this kind of
    /// 2-core machine, December 2026 (per second).
    let rxSwiftCMO: Double
    let body: (Int) -> Int

    var letter: Character { name.dropFirst().first ?? "?" }
}

func measure(_ scenario: Scenario, rounds: Int) -> Double {
    var best = 0.0
    for _ in 0..<rounds {
        let start = DispatchTime.now().uptimeNanoseconds
        let checksum = scenario.body(scenario.events)
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        precondition(checksum != Int.min, "unreachable; keeps the result alive")
        best = max(best, Double(scenario.events) / elapsed)
    }
    return best
}

/// Scenarios (f) and (g): `bags` times, `perBag` subscriptions made by `subscribe` go into a fresh
/// `DisposeBag`, which is then dropped (disposing them all at once).
func bagged(total count: Int, perBag: Int, _ subscribe: (DisposeBag) -> Void) -> Int {
    var made = 0
    while made < count {
        let bag = DisposeBag()
        for _ in 0..<perBag { subscribe(bag) }
        made += perBag
    }
    return made
}

let scenarios = [
    Scenario(
        name: "(a) PublishSubject → map → filter → subscribe", unit: "events", events: 10_000_000,
        rxSwift: nil, rxSwiftCMO: 4.41e6
    ) { count in
        let total = Total()
        let subject = PublishSubject<Int>()
        let subscription = subject.map { $0 &+ 1 }.filter { $0 & 1 == 0 }.subscribe(onNext: { total.add($0) })
        for value in 0..<count { subject.onNext(value) }
        subscription.dispose()
        return total.value.load(ordering: .relaxed)
    },
    Scenario(
        name: "(b) combineLatest of two BehaviorSubjects", unit: "events", events: 1_000_000, rxSwift: nil,
        rxSwiftCMO: 2.60e6
    ) { count in
        let total = Total()
        let left = BehaviorSubject(value: 0)
        let right = BehaviorSubject(value: 0)
        let subscription = Observable.combineLatest(left, right) { $0 &+ $1 }
            .subscribe(onNext: { total.add($0) })
        for value in 0..<count {
            if value & 1 == 0 { left.onNext(value) } else { right.onNext(value) }
        }
        subscription.dispose()
        return total.value.load(ordering: .relaxed)
    },
    Scenario(
        name: "(c) flatMapLatest into just", unit: "events", events: 1_000_000, rxSwift: nil,
        rxSwiftCMO: 1.17e6
    ) { count in
        let total = Total()
        let subject = PublishSubject<Int>()
        let subscription = subject.flatMapLatest { Observable.just($0) }.subscribe(onNext: { total.add($0) })
        for value in 0..<count { subject.onNext(value) }
        subscription.dispose()
        return total.value.load(ordering: .relaxed)
    },
    Scenario(
        name: "(d) subscribe + dispose subject.map.filter.distinct", unit: "events", events: 1_000_000,
        // From an earlier measurement of RxSwift with cross-module optimisation on this kind of machine.
        rxSwift: nil, rxSwiftCMO: 0.20e6
    ) { count in
        let total = Total()
        let subject = PublishSubject<Int>()
        let chain = subject.map { $0 &+ 1 }.filter { $0 & 1 == 0 }.distinctUntilChanged()
        for _ in 0..<count {
            chain.subscribe(onNext: { total.add($0) }).dispose()
        }
        return total.value.load(ordering: .relaxed) &+ count
    },
    Scenario(
        name: "(f) DisposeBag of 10,000 subject subscriptions", unit: "subscriptions", events: 1_000_000,
        rxSwift: nil, rxSwiftCMO: 0.91e6
    ) { count in
        let total = Total()
        let subject = PublishSubject<Int>()
        let made = bagged(total: count, perBag: 10_000) { bag in
            subject.subscribe(onNext: { total.add($0) }).disposed(by: bag)
        }
        precondition(!subject.hasObservers, "dropping the bag unsubscribes everything")
        return made &+ total.value.load(ordering: .relaxed)
    },
    Scenario(
        name: "(g) DisposeBag of 10,000 never() subscriptions", unit: "subscriptions", events: 1_000_000,
        rxSwift: nil, rxSwiftCMO: 1.87e6
    ) { count in
        let total = Total()
        let never = Observable<Int>.never()
        let made = bagged(total: count, perBag: 10_000) { bag in
            never.subscribe(onNext: { total.add($0) }).disposed(by: bag)
        }
        return made &+ total.value.load(ordering: .relaxed)
    },
    Scenario(
        name: "(i) observe(on:) onto a SerialScheduler", unit: "events", events: 2_000_000, rxSwift: nil,
        rxSwiftCMO: 1.02e6
    ) { count in
        // Events are sent from this thread and delivered on the scheduler's; the run ends when the
        // last one has been.
        let total = Total()
        let scheduler = SerialScheduler(name: "bench-observe-on")
        let delivered = DispatchSemaphore(value: 0)
        let subject = PublishSubject<Int>()
        let subscription = subject.observe(on: scheduler).subscribe(onNext: { value in
            total.add(1)
            if value == count - 1 { delivered.signal() }
        })
        for value in 0..<count { subject.onNext(value) }
        delivered.wait()
        subscription.dispose()
        scheduler.dispose()
        return total.value.load(ordering: .relaxed)
    },
]

// MARK: Crossing into an actor

/// The actor a graph lives in for scenario (e).
actor Counter {
    private var received = 0
    private let expected: Int
    private let done: DispatchSemaphore

    init(expected: Int, done: DispatchSemaphore) {
        self.expected = expected
        self.done = done
    }

    func receive(_ value: Int) {
        received += 1
        if received == expected { done.signal() }
    }
}

/// Events per second from a plain thread into an actor: through `observe(on: ActorScheduler)`
/// (queued, one hop per batch), or with one `Task` hop per event (the naive way).
func crossIntoActor(events: Int, batched: Bool) -> Double {
    let done = DispatchSemaphore(value: 0)
    let counter = Counter(expected: events, done: done)
    let start = DispatchTime.now().uptimeNanoseconds
    if batched {
        let scheduler = ActorScheduler(counter)
        let subject = PublishSubject<Int>()
        let received = Total()
        let subscription = subject.observe(on: scheduler).subscribe(onNext: { _ in
            received.add(1)
            if received.value.load(ordering: .relaxed) == events { done.signal() }
        })
        for value in 0..<events { subject.onNext(value) }
        done.wait()
        subscription.dispose()
    } else {
        for value in 0..<events { Task { await counter.receive(value) } }
        done.wait()
    }
    return Double(events) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
}

// MARK: Command line

func usage() -> Never {
    print("usage: ReactiveBenchmarks [rounds] [letters] [--baseline PATH] [--passes N] [--result]")
    exit(2)
}

var rounds = 3
var only = "abcdefgi"
var baseline: String?
var passes = 3
var resultLinesOnly = false
var positional = 0
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--baseline":
        guard let path = arguments.popFirst() else { usage() }
        baseline = path
    case "--passes":
        guard let count = arguments.popFirst().flatMap({ Int($0) }) else { usage() }
        passes = count
    case "--result": resultLinesOnly = true
    case _ where argument.hasPrefix("-"): usage()
    case _ where positional == 0:
        guard let count = Int(argument) else { usage() }
        rounds = count
        positional += 1
    case _ where positional == 1:
        only = argument
        positional += 1
    default: usage()
    }
}
guard rounds > 0, passes > 0 else { usage() }

func megaPerSecond(_ value: Double?) -> String {
    guard let value else { return "—" }
    let hundredths = Int((value / 1e4).rounded())
    return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100) M/s"
}
func ratio(_ value: Double, _ reference: Double) -> String {
    let tenths = Int((value / reference * 10).rounded())
    return "\(tenths / 10).\(tenths % 10)×"
}
func padded(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}

/// Runs `executable` on the scenarios `letters` and returns the rates from its `RESULT` lines.
func childResults(_ executable: String, letters: String, rounds: Int) -> [Character: Double] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = ["\(rounds)", letters, "--result"]
    let output = Pipe()
    process.standardOutput = output
    do { try process.run() } catch {
        print("error: cannot run \(executable): \(error)")
        exit(1)
    }
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    var rates: [Character: Double] = [:]
    for line in text.split(separator: "\n") where line.hasPrefix("RESULT scenario=") {
        let fields = line.dropFirst("RESULT scenario=".count).split(separator: " ")
        guard fields.count == 2, let letter = fields[0].first, fields[1].hasPrefix("rate="),
            let rate = Double(fields[1].dropFirst("rate=".count))
        else { continue }
        rates[letter] = rate
    }
    guard process.terminationStatus == 0, letters.allSatisfy({ rates[$0] != nil }) else {
        print("error: \(executable) exited with status \(process.terminationStatus):\n\(text)")
        exit(1)
    }
    return rates
}

/// Runs `executable` on one scenario and returns its rate.
func child(_ executable: String, scenario: Character, rounds: Int) -> Double {
    childResults(executable, letters: String(scenario), rounds: rounds)[scenario] ?? 0
}

/// Scenario (e)'s two rates, batched and one `Task` per event, best of `rounds`.
func actorCrossing(rounds: Int) -> (batched: Double, perEvent: Double) {
    let batched = (0..<rounds).map { _ in crossIntoActor(events: 1_000_000, batched: true) }.max() ?? 0
    let perEvent = (0..<rounds).map { _ in crossIntoActor(events: 100_000, batched: false) }.max() ?? 0
    return (batched, perEvent)
}

let selected = scenarios.filter { only.contains($0.letter) }

if resultLinesOnly {
    for scenario in selected {
        print("RESULT scenario=\(scenario.letter) rate=\(measure(scenario, rounds: rounds))")
    }
    if only.contains("e") {
        // "e": batched into the actor; "t": one Task per event.
        let (batched, perEvent) = actorCrossing(rounds: rounds)
        print("RESULT scenario=e rate=\(batched)")
        print("RESULT scenario=t rate=\(perEvent)")
    }
    exit(0)
}

if let baseline {
    let current = CommandLine.arguments[0]
    print("Reactive core benchmark: this build against the baseline \(baseline),")
    print("each best of \(passes) passes × \(rounds) rounds, run in turn in child processes\n")
    print(
        padded("scenario", 54) + padded("count", 10) + padded("baseline", 12) + padded("Reactive", 12)
            + padded("new/old", 9) + padded("RxSwift CMO", 13) + "ratio")
    for scenario in selected {
        var old = 0.0
        var new = 0.0
        for _ in 0..<passes {
            old = max(old, child(baseline, scenario: scenario.letter, rounds: rounds))
            new = max(new, child(current, scenario: scenario.letter, rounds: rounds))
        }
        print(
            padded(scenario.name, 54) + padded("\(scenario.events)", 10) + padded(megaPerSecond(old), 12)
                + padded(megaPerSecond(new), 12) + padded(ratio(new, old), 9)
                + padded(megaPerSecond(scenario.rxSwiftCMO), 13) + ratio(new, scenario.rxSwiftCMO))
    }
    exit(0)
}

print("Reactive core benchmark: best of \(rounds) rounds, release build, separate module,")
print("each scenario in a child process of its own\n")
print(
    padded("scenario", 54) + padded("count", 10) + padded("Reactive", 12) + padded("RxSwift", 10)
        + padded("RxSwift CMO", 13) + "ratio to CMO")
for scenario in selected {
    let rate = child(CommandLine.arguments[0], scenario: scenario.letter, rounds: rounds)
    print(
        padded(scenario.name, 54) + padded("\(scenario.events)", 10) + padded(megaPerSecond(rate), 12)
            + padded(megaPerSecond(scenario.rxSwift), 10) + padded(megaPerSecond(scenario.rxSwiftCMO), 13)
            + ratio(rate, scenario.rxSwiftCMO))
}

if only.contains("e") {
    let crossing = childResults(CommandLine.arguments[0], letters: "e", rounds: rounds)
    let batched = crossing["e"] ?? 0
    let perEvent = crossing["t"] ?? 0
    print("\nCrossing from a plain thread into an actor (in a child process too)")
    print(
        padded("(e) observe(on: ActorScheduler): one hop per batch", 54) + padded("1000000", 10)
            + megaPerSecond(batched))
    print(
        padded("    one Task hop per event", 54) + padded("100000", 10) + padded(megaPerSecond(perEvent), 22)
            + ratio(batched, perEvent))
}
