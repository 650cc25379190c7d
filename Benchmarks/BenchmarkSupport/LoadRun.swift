// What the benchmarks that load a service share: a closed-model load through `RemoteClient` (a fixed
// number of calls in flight, each completion issuing the next, bounded in count and in time) and the
// figures of one measured run.

import Measuring
public import Reactive
import Synchronization

/// The figures of one measured run.
public struct Figures: Sendable {
    /// Operations completed in the measured run.
    public var count: Int
    /// Wall time of the measured run, in seconds.
    public var seconds: Double
    /// Median latency in milliseconds (nil where it means nothing).
    public var p50: Double?
    /// 99th percentile latency in milliseconds.
    public var p99: Double?
    /// Extra `key=value` fields for the `RESULT` line and the table's notes, in order.
    public var extras: [(key: String, value: String)] = []

    /// Operations per second.
    public var rate: Double { Double(count) / seconds }

    /// Figures from every operation's latency (nanoseconds, any order) and the run's wall time; the
    /// percentile is the element at `(n - 1) * q / 100` of the sorted list (as in bench-transport).
    public init(latencies: [UInt64], elapsedNanoseconds: UInt64) {
        let sorted = latencies.sorted()
        count = sorted.count
        seconds = Double(elapsedNanoseconds) / 1e9
        let last = sorted.count - 1
        p50 = sorted.isEmpty ? nil : Double(sorted[last * 50 / 100]) / 1e6
        p99 = sorted.isEmpty ? nil : Double(sorted[last * 99 / 100]) / 1e6
    }

    /// Figures of `count` operations in `seconds` with the given percentiles (e.g. several runs taken
    /// together).
    public init(count: Int, seconds: Double, p50: Double?, p99: Double?) {
        self.count = count
        self.seconds = seconds
        self.p50 = p50
        self.p99 = p99
    }

    /// The machine-readable line.
    public func resultLine(row: String) -> String {
        var line = "RESULT row=\(row) count=\(count) seconds=\(fixed(seconds, 3)) rate=\(fixed(rate, 1))"
        if let p50, let p99 { line += " p50_ms=\(fixed(p50, 3)) p99_ms=\(fixed(p99, 3))" }
        for (key, value) in extras { line += " \(key)=\(value)" }
        return line
    }
}

/// Keeps `inFlight` calls outstanding until `limit` have been issued or `seconds` have passed, and
/// returns every completed call's latency. `call(i)` makes the i-th call; its answer is true when it
/// is the expected one. The first failure or unexpected answer stops the run with an error.
public func loadRun(
    inFlight: Int, limit: Int, seconds: Double, call: @escaping @Sendable (Int) -> Single<Bool>
) async throws -> Figures {
    let pump = Pump(limit: limit, seconds: seconds, call: call)
    let start = monotonicNanoseconds()
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        pump.start(inFlight: inFlight, continuation: continuation)
    }
    let elapsed = monotonicNanoseconds() - start
    let (latencies, failure) = pump.outcome
    if let failure { throw BenchmarkError(description: failure) }
    return Figures(latencies: latencies, elapsedNanoseconds: elapsed)
}

private final class Pump: Sendable {
    private struct State {
        var issued = 0
        var completed = 0
        var failure: String?
        var latencies: [UInt64] = []
        var continuation: CheckedContinuation<Void, Never>?
    }

    private let limit: Int
    private let deadline: UInt64
    private let call: @Sendable (Int) -> Single<Bool>
    private let state = Mutex(State())

    init(limit: Int, seconds: Double, call: @escaping @Sendable (Int) -> Single<Bool>) {
        self.limit = limit
        self.call = call
        deadline = monotonicNanoseconds() + UInt64(seconds * 1e9)
    }

    var outcome: ([UInt64], String?) { state.withLock { ($0.latencies, $0.failure) } }

    func start(inFlight: Int, continuation: CheckedContinuation<Void, Never>) {
        state.withLock { $0.continuation = continuation }
        for _ in 0..<inFlight { issue() }
        finishIfDone()
    }

    private func issue() {
        let index = state.withLock { state -> Int? in
            guard state.failure == nil, state.issued < limit, monotonicNanoseconds() < deadline else {
                return nil
            }
            state.issued += 1
            return state.issued - 1
        }
        guard let index else { return }
        let sent = monotonicNanoseconds()
        _ = call(index).subscribe(
            onSuccess: { [self] expected in
                complete(
                    latency: monotonicNanoseconds() - sent,
                    failure: expected ? nil : "call \(index): unexpected answer")
            },
            onFailure: { [self] error in complete(latency: 0, failure: "call \(index) failed: \(error)") })
    }

    private func complete(latency: UInt64, failure: String?) {
        state.withLock { state in
            state.completed += 1
            if let failure {
                state.failure = state.failure ?? failure
            } else {
                state.latencies.append(latency)
            }
        }
        issue()
        finishIfDone()
    }

    /// Resumes the waiter once nothing more will be issued and every issued call has completed.
    private func finishIfDone() {
        let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
            let over = state.failure != nil || state.issued >= limit || monotonicNanoseconds() >= deadline
            guard over, state.completed == state.issued else { return nil }
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume()
    }
}
