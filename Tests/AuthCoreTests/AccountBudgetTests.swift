import Contracts
import Foundation
import Sodium
import Testing

@testable import AuthCore

/// The account's shared budget and device tokens, through the service: what reaches the hash, and
/// what every client is answered.
@Suite("AuthService: the account's budget and device tokens", .timeLimit(.minutes(1)))
struct AccountBudgetTests {
    /// Per-client limits as by default; the account's budget small enough to spend quickly.
    static let throttle = ThrottlePolicy(
        freeFailures: 3, lockAfter: 10, accountFreeFailures: 5, accountFailuresPerMinute: 3)

    static let throttled = LoginResponse(statusCode: 429, message: .loginThrottled, retryAfter: 20)
    static let wrong = LoginResponse(statusCode: 401, message: .loginWrongPassword)

    /// `total` wrong guesses at `username`, from a new client every 3: the answers, in order.
    private func guesses(_ fixture: ServiceFixture, _ username: String, total: Int, tag: String = "x")
        async throws -> [LoginResponse]
    {
        var answers: [LoginResponse] = []
        for guess in 0..<total {
            answers.append(
                try await fixture.login(username, "guess-\(guess)", client: "\(tag)-\(guess / 3)"))
        }
        return answers
    }

    @Test("reconnecting every 3 guesses: only the account's budget reaches the hash, then 429s")
    func reconnectingAttacker() async throws {
        let fixture = ServiceFixture(throttle: Self.throttle)
        try await fixture.register("someone", "secret1")
        let jobs = fixture.completedJobs
        let answers = try await guesses(fixture, "someone", total: 60)
        #expect(answers.prefix(5).allSatisfy { $0 == Self.wrong })
        #expect(answers.dropFirst(5).allSatisfy { $0 == Self.throttled })
        #expect(fixture.completedJobs == jobs + 5)
        #expect(fixture.service.counters.failedLogins == 5)
        #expect(fixture.service.counters.budgetSpent == 55)
        // It grows back: one more attempt every 20 s, for whoever comes first.
        fixture.clock.advance(.seconds(20))
        #expect(try await fixture.login("someone", "guess", client: "y-1") == Self.wrong)
        #expect(try await fixture.login("someone", "guess", client: "y-2") == Self.throttled)
        await fixture.pool.shutdown()
    }

    @Test("unknown names are budgeted exactly as known ones: same answers, same hash jobs")
    func unknownUsersAlike() async throws {
        let fixture = ServiceFixture(throttle: Self.throttle)
        try await fixture.register("someone", "secret1")
        _ = try await fixture.pool.dummyHash(for: .test)
        var jobs = fixture.completedJobs
        let known = try await guesses(fixture, "someone", total: 12, tag: "k")
        let knownJobs = fixture.completedJobs - jobs
        jobs = fixture.completedJobs
        let unknown = try await guesses(fixture, "nobody-here", total: 12, tag: "u")
        #expect(fixture.completedJobs - jobs == knownJobs)
        #expect(knownJobs == 5)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(try known.map { try encoder.encode($0) } == unknown.map { try encoder.encode($0) })
        // A made-up device token changes nothing for either.
        let made = Base64URL.encode(SecureRandom.bytes(48))
        #expect(
            try await fixture.login("someone", "guess", client: "k-9", deviceToken: made) == Self.throttled)
        #expect(
            try await fixture.login("nobody-here", "guess", client: "u-9", deviceToken: made)
                == Self.throttled)
        await fixture.pool.shutdown()
    }

    @Test("the owner's device token logs in while the budget is spent and an attacker is locked")
    func ownerWithDeviceToken() async throws {
        let fixture = ServiceFixture(throttle: Self.throttle)
        try await fixture.register("someone", "secret1")
        let first = try await fixture.login("someone", "secret1", client: "owner-connection-1")
        #expect(first.statusCode == 200)
        let deviceToken = try #require(first.user?.deviceToken)
        #expect(deviceToken.utf8.count == DeviceTokens.textCount)

        // An attacker locks one client out, and spends the budget from many more.
        for guess in 0..<10 {
            _ = try await fixture.login("someone", "guess-\(guess)", client: "attacker")
            fixture.clock.advance(.seconds(60))
        }
        #expect(fixture.service.counters.locks == 1)
        let spent = try await guesses(fixture, "someone", total: 30)
        #expect(spent.prefix(5).allSatisfy { $0 == Self.wrong })
        #expect(spent.dropFirst(5).allSatisfy { $0 == Self.throttled })
        // Without its token the owner is refused like anyone; with it, it logs in, from any
        // connection, and keeps the same token.
        #expect(try await fixture.login("someone", "secret1", client: "owner-connection-2").statusCode == 429)
        let again = try await fixture.login(
            "someone", "secret1", client: "owner-connection-2", deviceToken: deviceToken)
        #expect(again.statusCode == 200)
        #expect(again.user?.deviceToken == deviceToken)
        #expect(again.user?.userToken != first.user?.userToken)
        // The owner's typos cost its own allowance, not the account's: the 4th in a row waits.
        for _ in 0..<3 {
            #expect(
                try await fixture.login("someone", "typo-typo", client: "c3", deviceToken: deviceToken)
                    == Self.wrong)
        }
        #expect(
            try await fixture.login("someone", "secret1", client: "c3", deviceToken: deviceToken).statusCode
                == 429)
        fixture.clock.advance(.seconds(1))
        #expect(
            try await fixture.login("someone", "secret1", client: "c4", deviceToken: deviceToken).statusCode
                == 200)
        #expect(fixture.service.counters.deviceLogins == 5)
        await fixture.pool.shutdown()
    }

    @Test(
        "a garbled, forged or other account's device token is as none: same answer, charged to the budget",
        arguments: ["garbled", "forged", "flipped", "other-account", "empty", "huge"])
    func invalidDeviceTokens(kind: String) async throws {
        let fixture = ServiceFixture(throttle: Self.throttle)
        try await fixture.register("someone", "secret1")
        try await fixture.register("mallory", "secret2")
        let owner = try #require(
            try await fixture.login("someone", "secret1", client: "owner").user?.deviceToken)
        let own = try #require(try await fixture.login("mallory", "secret2", client: "m").user?.deviceToken)
        let token: String
        switch kind {
        case "garbled": token = "not a token!"
        case "forged": token = DeviceTokens.ephemeral().issue(account: "someone").token
        case "flipped":
            var raw = try Base64URL.decode(owner)
            raw[raw.count - 1] ^= 1
            token = Base64URL.encode(raw)
        case "other-account": token = own
        case "empty": token = ""
        default: token = String(repeating: "A", count: 1 << 20)
        }
        let jobs = fixture.completedJobs
        // Before the budget is spent: the plain 401 a token-less client gets.
        let withToken = try await fixture.login("someone", "guess", client: "m", deviceToken: token)
        let without = try await fixture.login("someone", "guess", client: "n")
        #expect(withToken == Self.wrong)
        #expect(without == Self.wrong)
        #expect(fixture.completedJobs == jobs + 2)
        // It was charged to the account: 3 left of 5 (the owner's success gave its own back).
        _ = try await guesses(fixture, "someone", total: 3)
        #expect(
            try await fixture.login("someone", "secret1", client: "m2", deviceToken: token) == Self.throttled)
        #expect(try await fixture.login("someone", "secret1", client: "n2") == Self.throttled)
        #expect(fixture.service.counters.deviceLogins == 0)
        await fixture.pool.shutdown()
    }
}
