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
        #expect(state.pairs[.init(account: "alice", origin: .client("c"))]?.failures == 1)
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
        #expect(state.pairs[.init(account: "alice", origin: .client("c"))]?.failures == 2)
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
        #expect(state.pairs[.init(account: "account499", origin: .client("client499"))] != nil)
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
        #expect(state.pairs[.init(account: "alice", origin: .client("c"))]?.inFlight == 0)
        #expect(
            state.admitLogin(account: "alice", client: "c", now: at(1))
                == .throttled(retryAfter: .milliseconds(500), locked: false))
        #expect(state.admitLogin(account: "alice", client: "c", now: at(1.5)) == .allowed)
        state.recordSuccess(account: "alice", client: "c")
        #expect(state.pairs[.init(account: "alice", origin: .client("c"))] == nil)
    }

    @Test("abandoned attempts release their place and their token")
    func abandoned() {
        let policy = ThrottlePolicy(freeFailures: 2, clientFailuresPerMinute: 3)
        var state = ThrottleState(policy: policy)
        for _ in 0..<2 { #expect(state.admitLogin(account: "alice", client: "c", now: at(0)) == .allowed) }
        #expect(state.admitLogin(account: "alice", client: "c", now: at(0)) != .allowed)
        for _ in 0..<2 { state.recordAbandoned(account: "alice", client: "c") }
        #expect(state.pairs.isEmpty)
        #expect(state.clientFailures[.client("c")]?.tokens == 3)
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

    // MARK: The account's shared budget

    /// A policy whose only limit that matters is the account's budget: 10, then 3 a minute.
    static let budget = ThrottlePolicy(
        freeFailures: 3, baseDelay: .seconds(1), maximumDelay: .seconds(8), lockAfter: 5,
        lockDuration: .seconds(3_600), clientFailuresPerMinute: 1_000, accountFreeFailures: 10,
        accountFailuresPerMinute: 3, maximumTracked: 100_000)

    /// Whether `admission` is `budgetSpent` with a wait of `seconds` (to the millisecond above).
    private func spent(_ admission: ThrottleState.Admission, about seconds: Double) -> Bool {
        guard case .budgetSpent(let wait) = admission else { return false }
        let expected = Duration.milliseconds(Int(seconds * 1_000))
        return wait >= expected && wait <= expected + .milliseconds(1)
    }

    /// Guesses at `account` from a new client identity every `perClient` guesses (each recorded as
    /// a failure at once), `total` in all at `seconds`; returns how many were admitted.
    private func reconnectingGuesses(
        _ state: inout ThrottleState, account: String = "alice", total: Int, perClient: Int = 3,
        at seconds: Double, tag: String = "attacker"
    ) -> Int {
        var admitted = 0
        for guess in 0..<total {
            let client = "\(tag)-\(seconds)-\(guess / perClient)"
            guard state.admitLogin(account: account, client: client, now: at(seconds)) == .allowed else {
                continue
            }
            admitted += 1
            state.recordFailure(account: account, client: client, now: at(seconds))
        }
        return admitted
    }

    @Test("the account's budget holds however many client identities the guesses come from")
    func budgetAcrossClients() {
        for perClient in [1, 3, 100] {
            var state = ThrottleState(policy: Self.budget)
            #expect(reconnectingGuesses(&state, total: 3_000, perClient: perClient, at: 0) == 10)
            #expect(spent(state.admitLogin(account: "alice", client: "yet-another", now: at(0)), about: 20))
            // Another account has its own budget.
            #expect(state.admitLogin(account: "bob", client: "yet-another", now: at(0)) == .allowed)
        }
    }

    @Test("a spent budget grows back at its rate, up to the free attempts and no further")
    func budgetGrowsBack() {
        var state = ThrottleState(policy: Self.budget)
        #expect(reconnectingGuesses(&state, total: 50, at: 0) == 10)
        #expect(spent(state.admitLogin(account: "alice", client: "x", now: at(5)), about: 15))
        #expect(reconnectingGuesses(&state, total: 50, at: 19.9) == 0)
        #expect(reconnectingGuesses(&state, total: 50, at: 20.5) == 1)  // 3 a minute: one per 20 s
        #expect(reconnectingGuesses(&state, total: 50, at: 61) == 2)
        // A minute of guessing from fresh identities gets 3 more, not 3 per identity.
        var admitted = 0
        for second in stride(from: 61.3, through: 120.3, by: 1) {
            admitted += reconnectingGuesses(&state, total: 30, at: second)
        }
        #expect(admitted == 3)
        // After a long rest: the full 10 again, not more.
        #expect(reconnectingGuesses(&state, total: 50, at: 10_000) == 10)
    }

    @Test("attempts in flight hold the account's tokens; success and abandonment give them back")
    func budgetInFlight() {
        var state = ThrottleState(policy: Self.budget)
        for client in 0..<10 {
            #expect(state.admitLogin(account: "alice", client: "c\(client)", now: at(0)) == .allowed)
        }
        #expect(state.admitLogin(account: "alice", client: "c10", now: at(0)) != .allowed)
        state.recordAbandoned(account: "alice", client: "c0")
        #expect(state.admitLogin(account: "alice", client: "c10", now: at(0)) == .allowed)
        #expect(state.admitLogin(account: "alice", client: "c11", now: at(0)) != .allowed)
        state.recordSuccess(account: "alice", client: "c1")
        #expect(state.admitLogin(account: "alice", client: "c11", now: at(0)) == .allowed)
        for client in 2..<12 { state.recordFailure(account: "alice", client: "c\(client)", now: at(0)) }
        #expect(state.admitLogin(account: "alice", client: "c12", now: at(0)) != .allowed)
        // A refusal by the client's own limit takes nothing from the account.
        let policy = ThrottlePolicy(
            clientFailuresPerMinute: 1, accountFreeFailures: 2, accountFailuresPerMinute: 1)
        var small = ThrottleState(policy: policy)
        #expect(small.admitLogin(account: "alice", client: "c", now: at(0)) == .allowed)
        #expect(small.admitLogin(account: "bob", client: "c", now: at(0)) != .allowed)
        #expect(small.accounts["bob"] == nil)
        #expect(small.admitLogin(account: "alice", client: "d", now: at(0)) == .allowed)
        #expect(spent(small.admitLogin(account: "alice", client: "e", now: at(0)), about: 60))
    }

    @Test("bounded memory keeps the budget of an account under attack through a flood of names")
    func budgetSurvivesFlood() {
        let policy = ThrottlePolicy(
            clientFailuresPerMinute: 1_000_000, accountFreeFailures: 10, accountFailuresPerMinute: 3,
            maximumTracked: 64)
        var state = ThrottleState(policy: policy)
        #expect(reconnectingGuesses(&state, total: 100, at: 0) == 10)
        for name in 0..<2_000 {
            let now = at(Double(name) / 1_000)
            #expect(state.admitLogin(account: "name\(name)", client: "flood\(name)", now: now) == .allowed)
            state.recordFailure(account: "name\(name)", client: "flood\(name)", now: now)
            #expect(state.trackedCount <= 64)
        }
        #expect(state.admitLogin(account: "alice", client: "fresh", now: at(2)) != .allowed)
    }
}
