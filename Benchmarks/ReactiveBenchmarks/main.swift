// `make bench-reactive`: the reactive core's four scenarios, built in release mode from a separate
// module (like a user's code), printed side by side with RxSwift 6's figures measured on the same
// kind of 2-core machine (see docs/BENCHMARKS.md for how those were obtained).
//
// Each scenario runs `rounds` times in this one process and reports the best round, so the ratios
// printed come from one run.

import Dispatch
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
    let events: Int
    /// RxSwift 6, release build, separate module, same machine (events per second).
    let rxSwift: Double
    let body: (Int) -> Int
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

let scenarios = [
    Scenario(name: "(a) PublishSubject → map → filter → subscribe", events: 10_000_000, rxSwift: 2.3e6) {
        count in
        let total = Total()
        let subject = PublishSubject<Int>()
        let subscription = subject.map { $0 &+ 1 }.filter { $0 & 1 == 0 }.subscribe(onNext: { total.add($0) })
        for value in 0..<count { subject.onNext(value) }
        subscription.dispose()
        return total.value.load(ordering: .relaxed)
    },
    Scenario(name: "(b) combineLatest of two BehaviorSubjects", events: 1_000_000, rxSwift: 1.3e6) { count in
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
    Scenario(name: "(c) flatMapLatest into just", events: 1_000_000, rxSwift: 0.9e6) { count in
        let total = Total()
        let subject = PublishSubject<Int>()
        let subscription = subject.flatMapLatest { Observable.just($0) }.subscribe(onNext: { total.add($0) })
        for value in 0..<count { subject.onNext(value) }
        subscription.dispose()
        return total.value.load(ordering: .relaxed)
    },
    Scenario(name: "(d) subscribe + dispose subject.map.filter.distinct", events: 1_000_000, rxSwift: 0.3e6) {
        count in
        let total = Total()
        let subject = PublishSubject<Int>()
        let chain = subject.map { $0 &+ 1 }.filter { $0 & 1 == 0 }.distinctUntilChanged()
        for _ in 0..<count {
            chain.subscribe(onNext: { total.add($0) }).dispose()
        }
        return total.value.load(ordering: .relaxed) &+ count
    },
]

// Usage: ReactiveBenchmarks [rounds] [scenario letters, e.g. "bd"]
let rounds = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 3
let only = CommandLine.arguments.count > 2 ? CommandLine.arguments[2] : "abcd"

func megaPerSecond(_ value: Double) -> String {
    let hundredths = Int((value / 1e4).rounded())
    return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100) M/s"
}
func padded(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}

print("Reactive core benchmark: best of \(rounds) rounds, release build, separate module\n")
print(
    padded("scenario", 54) + padded("events", 12) + padded("Reactive", 14) + padded("RxSwift 6", 14) + "ratio"
)
for scenario in scenarios where only.contains(scenario.name.dropFirst().prefix(1)) {
    let rate = measure(scenario, rounds: rounds)
    let ratio = Int((rate / scenario.rxSwift * 10).rounded())
    print(
        padded(scenario.name, 54) + padded("\(scenario.events)", 12) + padded(megaPerSecond(rate), 14)
            + padded(megaPerSecond(scenario.rxSwift), 14) + "\(ratio / 10).\(ratio % 10)×")
}
