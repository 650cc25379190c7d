/// Polls `condition` every `interval` until it holds, for at most `limit`: whether it held. What tests
/// wait on instead of sleeping for a guessed time.
@discardableResult
public func eventually(
    within limit: Duration = .seconds(10), every interval: Duration = .milliseconds(10),
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let end = ContinuousClock.now + limit
    while ContinuousClock.now < end {
        if try await condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return try await condition()
}
