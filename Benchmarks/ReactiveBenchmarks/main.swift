// `make bench-reactive`: the reactive core's four scenarios, built in release mode from a separate
// module (like a user's code), printed side by side with RxSwift 6's figures for the same kind of
// 2-core machine (docs/BENCHMARKS.md, "Reactive core": RxSwift is not built here).
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

// Usage: ReactiveBenchmarks [rounds] [scenario letters, e.g. "bd"; default all: "abcde"]
let rounds = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 3
let only = CommandLine.arguments.count > 2 ? CommandLine.arguments[2] : "abcde"

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

if only.contains("e") {
    let batched = (0..<rounds).map { _ in crossIntoActor(events: 1_000_000, batched: true) }.max() ?? 0
    let perEvent = (0..<rounds).map { _ in crossIntoActor(events: 100_000, batched: false) }.max() ?? 0
    let ratio = Int((batched / perEvent * 10).rounded())
    print("\nCrossing from a plain thread into an actor")
    print(
        padded("(e) observe(on: ActorScheduler): one hop per batch", 54) + padded("1000000", 12)
            + megaPerSecond(batched))
    print(
        padded("    one Task hop per event", 54) + padded("100000", 12) + padded(megaPerSecond(perEvent), 28)
            + "\(ratio / 10).\(ratio % 10)×")
}
