#if canImport(Glibc)
    import Glibc
#endif

/// True while `signal`'s disposition is `SIG_IGN`.
func isIgnored(_ signal: Int32) -> Bool {
    var action = sigaction()
    sigaction(signal, nil, &action)
    return unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self) == 1
}

private struct Timeout: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting until \(what)" }
}

/// Checks `condition` until it holds, yielding between checks, failing after five seconds. Only for
/// what nothing announces: libdispatch installs its signal handler on its own thread (within
/// microseconds) and tells no one, so the test looks at the signal's disposition until it changes.
func waitUntil(_ what: String, _ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(5)
    while !condition() {
        guard ContinuousClock.now < deadline else { throw Timeout(what: what) }
        await Task.yield()
    }
}
