import RemoteProtocol

/// What seeding accounts before a run shares, whichever service registers them.
enum Seeding {
    /// Runs `create(i)` for every `i` in `0..<count`, `inFlight` at a time; returns how many
    /// returned true (accounts created now rather than found).
    static func count(
        _ count: Int, inFlight: Int, _ create: @escaping @Sendable (Int) async throws -> Bool
    ) async throws -> Int {
        let next = Counter()
        return try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<max(1, min(inFlight, count)) {
                group.addTask {
                    var created = 0
                    while let index = next.next(below: count) { created += try await create(index) ? 1 : 0 }
                    return created
                }
            }
            return try await group.reduce(0, +)
        }
    }

    /// `attempt()` until it returns, sent again (up to 50 times, 20 ms apart) while the service
    /// answers `overloaded`; `what` names it in the error after the last.
    static func retryingOverloaded<T: Sendable>(_ what: String, _ attempt: () async throws -> T) async throws
        -> T
    {
        for round in 0..<50 {
            do { return try await attempt() } catch let error as RemoteError
                where error.code == .overloaded && round < 49
            {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        throw WorkloadError("\(what): overloaded 50 times")
    }
}
