import Testing

@testable import AuthCore

/// The throttling state machine, driven by injected instants (no waiting).
@Suite("ThrottleState", .timeLimit(.minutes(1)))
struct ThrottleStateTests {
    let t0 = ContinuousClock.now

    /// A policy whose per-client spraying limit stays out of the way.
    static let policy = ThrottlePolicy(
        freeFailures: 3, baseDelay: .seconds(1), maximumDelay: .seconds(8), lockAfter: 7,
        lockDuration: .seconds(60), failureMemory: .seconds(600), clientFailuresPerMinute: 1_000,
        existsPerSecond: 2, existsBurst: 4, maximumTracked: 1_000)

    /// `n` seconds after `t0`.
    private func at(_ seconds: Double) -> ContinuousClock.Instant {
        t0 + .milliseconds(Int(seconds * 1_000))
    }

    private func fail(_ state: inout ThrottleState, times: Int, at seconds: Double, client: String = "c")
        -> Bool
    {
        var locked = false
        for _ in 0..<times {
            locked = state.recordFailure(account: "alice", client: client, now: at(seconds))
        }
        return locked
    }

    @Test("the first failures are free, then the delay doubles up to its cap")
    func delays() {
        var state = ThrottleState(policy: Self.policy)
        #expect(!fail(&state, times: 2, at: 0))
        #expect(state.admitLogin(account: "alice", client: "c", now: at(0)) == .allowed)
        #expect(!fail(&state, times: 1, at: 0))  // third failure: delays start
        #expect(
            state.admitLogin(account: "alice", client: "c", now: at(0))
                == .throttled(retryAfter: .seconds(1), locked: false))
        #expect(
            state.admitLogin(account: "alice", client: "c", now: at(0.25))
                == .throttled(retryAfter: .milliseconds(750), locked: false))
        #expect(state.admitLogin(account: "alice", client: "c", now: at(1)) == .allowed)
        #expect(state.delay(after: 2) == nil)
        #expect(state.delay(after: 3) == .seconds(1))
        #expect(state.delay(after: 4) == .seconds(2))
        #expect(state.delay(after: 5) == .seconds(4))
        #expect(state.delay(after: 6) == .seconds(8))
        #expect(state.delay(after: 7) == .seconds(8))  // capped
        #expect(state.delay(after: 1_000) == .seconds(8))  // no overflow however many
        _ = fail(&state, times: 1, at: 1)  // 4 failures
        #expect(
            state.admitLogin(account: "alice", client: "c", now: at(2.5))
                == .throttled(retryAfter: .milliseconds(500), locked: false))
        #expect(state.admitLogin(account: "alice", client: "c", now: at(3)) == .allowed)
    }

    @Test("lock after N failures, for the lock duration; then the count starts again")
    func lock() {
        var state = ThrottleState(policy: Self.policy)
        #expect(!fail(&state, times: 6, at: 0))
        #expect(fail(&state, times: 1, at: 10))  // the 7th locks
        #expect(
            state.admitLogin(account: "alice", client: "c", now: at(10))
                == .throttled(retryAfter: .seconds(60), locked: true))
        #expect(
            state.admitLogin(account: "alice", client: "c", now: at(69))
                == .throttled(retryAfter: .seconds(1), locked: true))
        #expect(state.admitLogin(account: "alice", client: "c", now: at(70)) == .allowed)
        // A failure after the lock is served counts from one: free again, no instant re-lock.
        #expect(!fail(&state, times: 1, at: 70))
        #expect(state.admitLogin(account: "alice", client: "c", now: at(70)) == .allowed)
        #expect(state.pairs[.init(account: "alice", client: "c")]?.failures == 1)
    }

    @Test("a client locked out of an account does not lock out the real user on another client")
    func lockIsPerClient() {
        var state = ThrottleState(policy: Self.policy)
        #expect(fail(&state, times: 7, at: 0, client: "attacker"))
        #expect(
            state.admitLogin(account: "alice", client: "attacker", now: at(1))
                == .throttled(retryAfter: .seconds(59), locked: true))
        #expect(state.admitLogin(account: "alice", client: "real-user", now: at(1)) == .allowed)
        #expect(state.admitLogin(account: "bob", client: "attacker", now: at(1)) == .allowed)
        state.recordSuccess(account: "alice", client: "real-user")
        #expect(state.admitLogin(account: "alice", client: "attacker", now: at(1)) != .allowed)
    }

    @Test("success clears the pair's failures")
    func successClears() {
        var state = ThrottleState(policy: Self.policy)
        _ = fail(&state, times: 5, at: 0)
        #expect(state.admitLogin(account: "alice", client: "c", now: at(0)) != .allowed)
        state.recordSuccess(account: "alice", client: "c")
        #expect(state.pairs.isEmpty)
        #expect(state.admitLogin(account: "alice", client: "c", now: at(0)) == .allowed)
        state.recordSuccess(account: "alice", client: "c")
        _ = fail(&state, times: 2, at: 0)
        #expect(state.admitLogin(account: "alice", client: "c", now: at(0)) == .allowed)
    }

    @Test("failures are forgotten after the failure memory")
    func memory() {
        var state = ThrottleState(policy: Self.policy)
        _ = fail(&state, times: 2, at: 0)
        _ = fail(&state, times: 1, at: 599)  // remembered: three failures, delayed
        #expect(state.admitLogin(account: "alice", client: "c", now: at(599)) != .allowed)
        _ = fail(&state, times: 2, at: 1_199)  // 600 s after the last: forgotten, then two more
        #expect(state.pairs[.init(account: "alice", client: "c")]?.failures == 2)
        #expect(state.admitLogin(account: "alice", client: "c", now: at(1_199)) == .allowed)
    }

    @Test("one client spraying failures over many accounts is limited per minute")
    func spraying() {
        let policy = ThrottlePolicy(freeFailures: 100, lockAfter: 100, clientFailuresPerMinute: 5)
        var state = ThrottleState(policy: policy)
        for account in 0..<5 {
            #expect(state.admitLogin(account: "user\(account)", client: "sprayer", now: at(0)) == .allowed)
            state.recordFailure(account: "user\(account)", client: "sprayer", now: at(0))
        }
        guard
            case .throttled(let retryAfter, let locked) =
                state.admitLogin(account: "user5", client: "sprayer", now: at(0))
        else {
            Issue.record("the sixth failure in a minute should be throttled")
            return
        }
        #expect(!locked)
        #expect(retryAfter >= .seconds(12) && retryAfter <= .milliseconds(12_001))  // 5 a minute
        #expect(state.admitLogin(account: "user5", client: "someone-else", now: at(0)) == .allowed)
        #expect(state.admitLogin(account: "user5", client: "sprayer", now: at(6)) != .allowed)
        #expect(state.admitLogin(account: "user5", client: "sprayer", now: at(12.001)) == .allowed)
    }

    @Test("auth.exists: a burst, then the refill rate, and the wait to the next token")
    func existsBucket() {
        var state = ThrottleState(policy: Self.policy)
        for _ in 0..<4 { #expect(state.admitExists(client: "c", now: at(0)) == nil) }
        #expect(state.admitExists(client: "c", now: at(0)) == .milliseconds(500))
        #expect(state.admitExists(client: "other", now: at(0)) == nil)
        #expect(state.admitExists(client: "c", now: at(0.25)) == .milliseconds(250))
        #expect(state.admitExists(client: "c", now: at(0.5)) == nil)  // one token back
        #expect(state.admitExists(client: "c", now: at(0.5)) == .milliseconds(500))
        // A long rest refills to the burst, not beyond.
        for _ in 0..<4 { #expect(state.admitExists(client: "c", now: at(100)) == nil) }
        #expect(state.admitExists(client: "c", now: at(100)) != nil)
    }

    @Test("memory stays bounded under a flood of distinct clients and accounts")
    func bounded() {
        let policy = ThrottlePolicy(clientFailuresPerMinute: 1_000, maximumTracked: 16)
        var state = ThrottleState(policy: policy)
        for index in 0..<500 {
            let now = at(Double(index) / 1_000)
            _ = state.admitExists(client: "client\(index)", now: now)
            state.recordFailure(account: "account\(index)", client: "client\(index)", now: now)
            #expect(state.trackedCount <= 16)
        }
        // The latest client is still remembered: pruning drops the least recently seen first.
        #expect(state.pairs[.init(account: "account499", client: "client499")] != nil)
    }

    @Test("entries at rest are pruned before a live lock")
    func restingEntriesGoFirst() {
        let policy = ThrottlePolicy(
            lockAfter: 1, lockDuration: .seconds(3_600), existsPerSecond: 2, existsBurst: 4, maximumTracked: 6
        )
        var state = ThrottleState(policy: policy)
        let locked = state.recordFailure(account: "alice", client: "attacker", now: at(0))
        #expect(locked)
        for index in 0..<50 {
            // One request a second: each earlier client's bucket is full again (at rest).
            _ = state.admitExists(client: "client\(index)", now: at(Double(index + 1)))
            #expect(state.trackedCount <= 6)
        }
        #expect(
            state.admitLogin(account: "alice", client: "attacker", now: at(60))
                == .throttled(retryAfter: .seconds(3_540), locked: true))
    }

    @Test("attempts in flight count as failures: parallel guesses get only the free ones")
    func inFlight() {
        var state = ThrottleState(policy: Self.policy)
        for _ in 0..<3 { #expect(state.admitLogin(account: "alice", client: "c", now: at(0)) == .allowed) }
        #expect(
            state.admitLogin(account: "alice", client: "c", now: at(0))
                == .throttled(retryAfter: .seconds(1), locked: false))
        #expect(state.admitLogin(account: "alice", client: "other", now: at(0)) == .allowed)
        _ = fail(&state, times: 3, at: 0.5)
        #expect(state.pairs[.init(account: "alice", client: "c")]?.inFlight == 0)
        #expect(
            state.admitLogin(account: "alice", client: "c", now: at(1))
                == .throttled(retryAfter: .milliseconds(500), locked: false))
        #expect(state.admitLogin(account: "alice", client: "c", now: at(1.5)) == .allowed)
        state.recordSuccess(account: "alice", client: "c")
        #expect(state.pairs[.init(account: "alice", client: "c")] == nil)
    }

    @Test("abandoned attempts release their place and their token")
    func abandoned() {
        let policy = ThrottlePolicy(freeFailures: 2, clientFailuresPerMinute: 3)
        var state = ThrottleState(policy: policy)
        for _ in 0..<2 { #expect(state.admitLogin(account: "alice", client: "c", now: at(0)) == .allowed) }
        #expect(state.admitLogin(account: "alice", client: "c", now: at(0)) != .allowed)
        for _ in 0..<2 { state.recordAbandoned(account: "alice", client: "c") }
        #expect(state.pairs.isEmpty)
        #expect(state.clientFailures["c"]?.tokens == 3)
        for _ in 0..<2 { #expect(state.admitLogin(account: "alice", client: "c", now: at(0)) == .allowed) }
        state.recordAbandoned(account: "nobody", client: "unknown")  // harmless
    }

    @Test("a client's in-flight attempts over many accounts hold its failure tokens; success gives one back")
    func parallelSpraying() {
        let policy = ThrottlePolicy(clientFailuresPerMinute: 3)
        var state = ThrottleState(policy: policy)
        for account in 0..<3 {
            #expect(state.admitLogin(account: "user\(account)", client: "c", now: at(0)) == .allowed)
        }
        #expect(state.admitLogin(account: "user3", client: "c", now: at(0)) != .allowed)
        state.recordSuccess(account: "user0", client: "c")
        #expect(state.admitLogin(account: "user3", client: "c", now: at(0)) == .allowed)
        state.recordFailure(account: "user1", client: "c", now: at(0))
        #expect(state.admitLogin(account: "user4", client: "c", now: at(0)) != .allowed)
    }
}
