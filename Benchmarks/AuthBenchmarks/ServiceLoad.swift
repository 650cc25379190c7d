// Rows (2)–(5) besides their load (BenchmarkSupport's `loadRun`): the counter deltas and CPU time of
// a measured run, and the users registered before it.

import BenchmarkSupport
import Contracts
import Reactive
import RemoteStreams

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
