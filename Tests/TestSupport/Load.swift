/// Runs `load` in a task while `body` runs, then calls `stop` and waits for the load to end, whether
/// `body` returned or threw: a load test's scenario never leaves its workers running.
public func whileLoading(
    _ load: @escaping @Sendable () async -> Void, stop: () -> Void, _ body: () async throws -> Void
) async rethrows {
    let running = Task { await load() }
    do {
        try await body()
    } catch {
        stop()
        await running.value
        throw error
    }
    stop()
    await running.value
}
