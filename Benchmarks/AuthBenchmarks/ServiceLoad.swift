// Rows (2)–(4): load through `RemoteClient` against a running auth-service, with a fixed number of
// calls in flight, each completion issuing the next call, bounded in count and in time.

import BenchmarkSupport
import Contracts
import Measuring
import Reactive
import RemoteStreams
import Synchronization

/// Keeps `inFlight` calls outstanding until `limit` have been issued or `seconds` have passed, and
/// returns every completed call's latency. `call(i)` makes the i-th call; its answer is true when it
/// is the expected one. The first failure or unexpected answer stops the run with an error.
func loadRun(
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

/// The counter deltas of a measured run and the CPU each side spent.
struct ServiceCost {
    /// `sys.stats` before the run.
    let before: [String: [String: Int]]
    /// The service's CPU time before the run.
    let serviceCPU: CPUTime
    /// This process's CPU time before the run.
    let clientCPU: CPUTime

    /// Reads the counters and CPU times now.
    init(_ service: ServiceUnderTest) async throws {
        before = try await service.stats()
        serviceCPU = try service.cpuTime()
        clientCPU = ownCPUTime()
    }

    /// The `key=value` extras of a run of `figures.count` operations that ends now: CPU per
    /// operation on each side, how busy each side was (cores), and the listed counters' deltas.
    func extras(
        _ service: ServiceUnderTest, figures: Figures, counters: [(group: String, name: String)]
    ) async throws -> [(key: String, value: String)] {
        let after = try await service.stats()
        let serviceSpent = try service.cpuTime().since(serviceCPU)
        let clientSpent = ownCPUTime().since(clientCPU)
        var extras =
            serviceSpent.extras(prefix: "service_", operations: figures.count, seconds: figures.seconds)
            + clientSpent.extras(prefix: "client_", operations: figures.count, seconds: figures.seconds)
        for (group, name) in counters {
            let delta = (after[group]?[name] ?? 0) - (before[group]?[name] ?? 0)
            extras.append(("\(group)_\(name)", "\(delta)"))
        }
        return extras
    }
}

/// Registers `users` accounts named `prefix` + number with `password(i)`, `inFlight` at a time,
/// bounded by 10 minutes.
func register(
    _ service: ServiceUnderTest, users: Int, prefix: String, inFlight: Int,
    password: @escaping @Sendable (Int) -> String
) async throws {
    let client = service.client
    let figures = try await loadRun(inFlight: inFlight, limit: users, seconds: 600) { index in
        client.request(
            Methods.Auth.register,
            RegisterRequest(username: userName(prefix, index), password: password(index))
        ).map { $0.statusCode == 201 }
    }
    guard figures.count == users else {
        throw BenchmarkError(description: "registered \(figures.count) of \(users) users")
    }
}

/// The `index`-th bench user's name.
func userName(_ prefix: String, _ index: Int) -> String {
    let digits = String(index)
    return prefix + String(repeating: "0", count: max(0, 7 - digits.count)) + digits
}
