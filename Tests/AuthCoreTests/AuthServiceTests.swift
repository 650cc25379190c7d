import Contracts
import Dispatch
import Foundation
import Reactive
import RemoteProtocol
import RemoteStreams
import Sodium
import Synchronization
import TestSupport
import Testing
import ZeroMQ

@testable import AuthCore

/// A clock the test moves by hand: a monotonic instant and wall-clock seconds, advanced together.
final class ManualClock: Sendable {
    private struct Now: Sendable {
        var instant: ContinuousClock.Instant
        var wall: Int64
    }

    private let now = Mutex(Now(instant: ContinuousClock.now, wall: 1_800_000_000))

    /// Moves both clocks forward by `duration` (whole seconds on the wall clock).
    func advance(_ duration: Duration) {
        now.withLock {
            $0.instant += duration
            $0.wall += duration.components.seconds
        }
    }

    /// Wall-clock seconds now.
    var wallSeconds: Int64 { now.withLock { $0.wall } }

    /// The clock as the service reads it.
    var authClock: AuthClock {
        AuthClock(now: { self.now.withLock { $0.instant } }, wallSeconds: { self.now.withLock { $0.wall } })
    }
}

/// A service over an in-memory store, a small hashing pool at the test cost and a manual clock.
struct ServiceFixture {
    let store = InMemoryAccountStore()
    let pool: PasswordHashingPool
    let clock = ManualClock()
    let service: AuthService

    init(
        throttle: ThrottlePolicy = ThrottlePolicy(), tokenLifetime: Duration = .seconds(3_600),
        workers: Int = 2,
        queueCapacity: Int = 16, loop: SocketLoop = TestLoop.shared
    ) {
        pool = PasswordHashingPool(workers: workers, queueCapacity: queueCapacity)
        service = AuthService(
            store: store, hashing: pool,
            configuration: AuthConfiguration(throttle: throttle, cost: .test, tokenLifetime: tokenLifetime),
            clock: clock.authClock, loop: loop)
    }

    /// Registers `username` and expects a 201.
    func register(_ username: String, _ password: String) async throws {
        let answer = try await service.register(
            RegisterRequest(username: username, password: password), client: "c"
        )
        .value
        #expect(answer.statusCode == 201)
    }

    /// Logs in from `client`, presenting `deviceToken` if given.
    func login(_ username: String, _ password: String, client: String = "c", deviceToken: String? = nil)
        async throws -> LoginResponse
    {
        try await service.login(
            LoginRequest(username: username, password: password, deviceToken: deviceToken), client: client
        ).value
    }

    /// Jobs the pool has completed so far.
    var completedJobs: Int { pool.counters.completed }
}

/// The `RemoteError` `single` fails with, or nil (recording an issue) when it does not.
func remoteError<T: Sendable>(_ single: Single<T>, sourceLocation: SourceLocation = #_sourceLocation) async
    -> RemoteError?
{
    do {
        let value = try await single.value
        Issue.record("expected an error, got \(value)", sourceLocation: sourceLocation)
    } catch let error as RemoteError {
        return error
    } catch {
        Issue.record("expected a RemoteError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// The auth service's logic with an in-memory store: every method, throttling, events, overload and
/// disposal.
@Suite("AuthService", .timeLimit(.minutes(1)))
struct AuthServiceTests {
    @Test("registers the methods of its contract, Methods.Auth")
    func registersItsContract() async {
        let fixture = ServiceFixture()
        var handlers = RemoteHandlers()
        fixture.service.register(into: &handlers)
        #expect(handlers.names == Methods.Auth.all.map(\.name).sorted())
        await fixture.pool.shutdown()
    }

    @Test("register: 201 with the normalized name, then 409 for the same name in either form")
    func registerAndTaken() async throws {
        let fixture = ServiceFixture()
        let first = try await fixture.service.register(
            RegisterRequest(username: "cafe\u{301}-user", password: "secret1"), client: "c"
        ).value
        #expect(first == RegisterResponse(statusCode: 201, message: .registerOK, username: "caf\u{E9}-user"))
        let again = try await fixture.service.register(
            RegisterRequest(username: "caf\u{E9}-user", password: "other-secret"), client: "c"
        ).value
        #expect(
            again == RegisterResponse(statusCode: 409, message: .usernameExists, username: "caf\u{E9}-user"))
        #expect(fixture.store.accountCount == 1)
        let stored = try #require(try await fixture.store.account(named: "caf\u{E9}-user").value)
        #expect(stored.passwordHash.hasPrefix("$argon2id$"))
        #expect(!stored.passwordHash.contains("secret1"))
        #expect(fixture.service.counters.registered == 1)
        #expect(fixture.service.counters.registrationsTaken == 1)
        await fixture.pool.shutdown()
    }

    @Test("register: a repeat with the same request_id answers 201 again; another request_id is 409")
    func registerRepeated() async throws {
        let fixture = ServiceFixture()
        let request = RegisterRequest(username: "repeat-user", password: "secret1", requestID: "req-1")
        let created = RegisterResponse(statusCode: 201, message: .registerOK, username: "repeat-user")
        #expect(try await fixture.service.register(request, client: "c").value == created)
        // The answer was lost; the client sends the same registration again.
        #expect(try await fixture.service.register(request, client: "c").value == created)
        var other = request
        other.requestID = "req-2"
        #expect(try await fixture.service.register(other, client: "c").value.statusCode == 409)
        #expect(fixture.store.accountCount == 1)
        #expect(fixture.service.counters.registered == 1)
        #expect(fixture.service.counters.registrationsRepeated == 1)
        #expect(fixture.service.counters.registrationsTaken == 1)

        var long = request
        long.requestID = String(repeating: "k", count: AuthService.maximumRequestIDBytes + 1)
        #expect(await remoteError(fixture.service.register(long, client: "c"))?.code == .badRequest)
        await fixture.pool.shutdown()
    }

    @Test("request_id is optional on the wire: old bodies decode, nil is not sent")
    func requestIDWire() throws {
        let coder = JSONBodyCoder.shared
        let old = try coder.decode(
            RegisterRequest.self, from: Array(#"{"username":"someone","password":"secret1"}"#.utf8))
        #expect(old.requestID == nil)
        let new = try coder.decode(
            RegisterRequest.self,
            from: Array(#"{"username":"someone","password":"secret1","request_id":"r"}"#.utf8))
        #expect(new.requestID == "r")
        #expect(!String(decoding: try coder.encode(old), as: UTF8.self).contains("request_id"))
    }

    @Test(
        "register: every broken rule is bad_request naming its code, without hashing or storing",
        arguments: [
            ("short", "secret1", MessageCode.usernameShort),
            (String(repeating: "a", count: 65), "secret1", .usernameLong),
            ("bad\u{0}name", "secret1", .usernameInvalid),
            ("bad\u{200B}name", "secret1", .usernameInvalid),
            ("good-name", "12345", .passwordMin),
            ("good-name", String(repeating: "é", count: 513), .passwordLong),
        ])
    func registerRules(username: String, password: String, code: MessageCode) async throws {
        try await expectRefusal(username: username, password: password, code: code)
    }

    @Test("register: 10 MB fields are a plain bad_request")
    func registerHuge() async throws {
        let huge = String(repeating: "a", count: 10 << 20)
        try await expectRefusal(username: huge, password: "secret1", code: .usernameLong)
        try await expectRefusal(username: "good-name", password: huge, code: .passwordLong)
        let zalgo = String(repeating: "a" + String(repeating: "\u{316}", count: 100_000), count: 6)
        try await expectRefusal(username: zalgo, password: "secret1", code: .usernameLong)
    }

    /// Registers and expects a `bad_request` naming `code`, with nothing hashed or stored.
    private func expectRefusal(
        username: String, password: String, code: MessageCode,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let fixture = ServiceFixture()
        let error = await remoteError(
            fixture.service.register(RegisterRequest(username: username, password: password), client: "c"))
        #expect(error?.code == .badRequest, sourceLocation: sourceLocation)
        #expect(error?.message.hasPrefix(code.rawValue) == true, sourceLocation: sourceLocation)
        #expect(fixture.service.counters.badRequests == 1, sourceLocation: sourceLocation)
        #expect(fixture.completedJobs == 0, sourceLocation: sourceLocation)
        #expect(fixture.store.accountCount == 0, sourceLocation: sourceLocation)
        await fixture.pool.shutdown()
    }

    @Test("login: 200 with a token that verify accepts until logout; the name may be typed decomposed")
    func loginVerifyLogout() async throws {
        let fixture = ServiceFixture(tokenLifetime: .seconds(600))
        try await fixture.register("caf\u{E9}-user", "secret1")
        let answer = try await fixture.login("cafe\u{301}-user", "secret1")
        #expect(answer.statusCode == 200)
        #expect(answer.message == .loginOK)
        let user = try #require(answer.user)
        #expect(user.name == "caf\u{E9}-user")
        #expect(user.userToken.utf8.count == 43)
        let verified = try await fixture.service.verify(VerifyRequest(token: user.userToken)).value
        #expect(
            verified == VerifyResponse(name: "caf\u{E9}-user", expiresAt: fixture.clock.wallSeconds + 600))

        let second = try #require(try await fixture.login("caf\u{E9}-user", "secret1").user)
        #expect(second.userToken != user.userToken)

        #expect(try await fixture.service.logout(LogoutRequest(token: user.userToken)).value.revoked)
        #expect(!(try await fixture.service.logout(LogoutRequest(token: user.userToken)).value.revoked))
        #expect(
            await remoteError(fixture.service.verify(VerifyRequest(token: user.userToken)))?.code
                == .unauthenticated)
        // The other session is untouched.
        #expect(
            try await fixture.service.verify(VerifyRequest(token: second.userToken)).value.name
                == "caf\u{E9}-user")
        #expect(fixture.service.counters.logins == 2)
        #expect(fixture.service.counters.logouts == 1)
        await fixture.pool.shutdown()
    }

    @Test("passwords are compared in NFC: a decomposed é logs in to a precomposed registration")
    func passwordsAreNormalized() async throws {
        let fixture = ServiceFixture()
        try await fixture.register("normalized", "p\u{E9}ssw0rd")
        #expect(try await fixture.login("normalized", "pe\u{301}ssw0rd").statusCode == 200)
        #expect(try await fixture.login("normalized", "pessw0rd").statusCode == 401)
        await fixture.pool.shutdown()
    }

    @Test("verify refuses garbage, unknown, expired and revoked tokens as unauthenticated")
    func verifyRefusals() async throws {
        let fixture = ServiceFixture(tokenLifetime: .seconds(60))
        try await fixture.register("someone", "secret1")
        let token = try #require(try await fixture.login("someone", "secret1").user?.userToken)
        for garbage in [
            "", "not a token", String(repeating: "A", count: 42), Token.generate().text, token + "A",
        ] {
            #expect(
                await remoteError(fixture.service.verify(VerifyRequest(token: garbage)))?.code
                    == .unauthenticated)
            #expect(!(try await fixture.service.logout(LogoutRequest(token: garbage)).value.revoked))
        }
        fixture.clock.advance(.seconds(59))
        #expect(try await fixture.service.verify(VerifyRequest(token: token)).value.name == "someone")
        fixture.clock.advance(.seconds(1))  // expires_at is not > now any more
        #expect(
            await remoteError(fixture.service.verify(VerifyRequest(token: token)))?.code == .unauthenticated)
        #expect(!(try await fixture.service.logout(LogoutRequest(token: token)).value.revoked))
        #expect(fixture.store.sessionCount == 0)
        #expect(fixture.service.counters.unauthenticated == 6)
        await fixture.pool.shutdown()
    }

    @Test("expired sessions are removed by the wall clock")
    func removeExpired() async throws {
        let fixture = ServiceFixture(tokenLifetime: .seconds(60))
        try await fixture.register("someone", "secret1")
        _ = try await fixture.login("someone", "secret1")
        #expect(try await fixture.service.removeExpiredSessions().value == 0)
        fixture.clock.advance(.seconds(60))
        #expect(try await fixture.service.removeExpiredSessions().value == 1)
        #expect(fixture.store.sessionCount == 0)
        await fixture.pool.shutdown()
    }

    @Test("a wrong password and an unknown user get identical answers after one hash job each")
    func sameAnswerSameWork() async throws {
        let fixture = ServiceFixture()
        try await fixture.register("someone", "secret1")
        _ = try await fixture.pool.dummyHash(for: .test)  // made once per process, before any login

        var jobs = fixture.completedJobs
        let wrong = try await fixture.login("someone", "wrong-password")
        #expect(fixture.completedJobs == jobs + 1)
        jobs = fixture.completedJobs
        let unknown = try await fixture.login("nobody-here", "wrong-password", client: "d")
        #expect(fixture.completedJobs == jobs + 1)
        jobs = fixture.completedJobs
        let huge = try await fixture.login("someone", String(repeating: "x", count: 1 << 20), client: "e")
        #expect(fixture.completedJobs == jobs + 1)

        let expected = LoginResponse(statusCode: 401, message: .loginWrongPassword)
        #expect(wrong == expected)
        #expect(unknown == expected)
        #expect(huge == expected)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(try encoder.encode(wrong) == encoder.encode(unknown))
        #expect(fixture.service.counters.failedLogins == 3)
        await fixture.pool.shutdown()
    }

    @Test("a login with a megabyte name is a plain 401 after one hash job, remembered by a short name")
    func hugeLoginName() async throws {
        let fixture = ServiceFixture(throttle: ThrottlePolicy(freeFailures: 1))
        let seen = Mutex<[AccountEvent]>([])
        let subscription = fixture.service.events.subscribe(onNext: { event in
            seen.withLock { $0.append(event) }
        })
        defer { subscription.dispose() }
        _ = try await fixture.pool.dummyHash(for: .test)
        let jobs = fixture.completedJobs
        let huge = String(repeating: "n", count: 10 << 20)
        #expect(
            try await fixture.login(huge, "secret1")
                == LoginResponse(statusCode: 401, message: .loginWrongPassword))
        #expect(fixture.completedJobs == jobs + 1)
        let event = try #require(seen.withLock { $0.first })
        #expect(event.username == String(repeating: "n", count: 64) + "…")
        // Throttled under that short name: the next attempt waits.
        #expect(try await fixture.login(huge, "secret1").statusCode == 429)
        await fixture.pool.shutdown()
    }

    @Test("a throttled login answers 429 with retry_after, without touching the pool")
    func throttledLogin() async throws {
        let throttle = ThrottlePolicy(freeFailures: 2, baseDelay: .seconds(5), lockAfter: 100)
        let fixture = ServiceFixture(throttle: throttle)
        try await fixture.register("someone", "secret1")
        for _ in 0..<2 { #expect(try await fixture.login("someone", "nope-nope").statusCode == 401) }
        let jobs = fixture.completedJobs
        let throttled = try await fixture.login("someone", "secret1")
        #expect(throttled == LoginResponse(statusCode: 429, message: .loginThrottled, retryAfter: 5))
        #expect(fixture.completedJobs == jobs)
        #expect(fixture.pool.counters.queued == 0)
        fixture.clock.advance(.milliseconds(4_500))
        #expect(try await fixture.login("someone", "secret1").retryAfter == 1)  // rounded up
        // Another client is not affected, and the user gets in once the delay has passed.
        #expect(try await fixture.login("someone", "secret1", client: "real-user").statusCode == 200)
        fixture.clock.advance(.milliseconds(500))
        #expect(try await fixture.login("someone", "secret1").statusCode == 200)
        #expect(fixture.service.counters.throttledLogins == 2)
        await fixture.pool.shutdown()
    }

    @Test("many wrong passwords sent at once get only the free attempts; the rest are throttled")
    func parallelGuesses() async throws {
        let throttle = ThrottlePolicy(freeFailures: 2, baseDelay: .seconds(5), lockAfter: 100)
        let fixture = ServiceFixture(throttle: throttle)
        try await fixture.register("someone", "secret1")
        let jobs = fixture.completedJobs
        let answers = Outcomes<LoginResponse>()
        for index in 0..<8 {
            answers.subscribe(
                index,
                fixture.service.login(
                    LoginRequest(username: "someone", password: "guess\(index)"), client: "c"))
        }
        let codes = await answers.wait(for: 8).values.map { try? $0.get().statusCode }
        #expect(codes.filter { $0 == 401 }.count == 2)
        #expect(codes.filter { $0 == 429 }.count == 6)
        #expect(fixture.completedJobs == jobs + 2)
        await fixture.pool.shutdown()
    }

    @Test("a login single never subscribed to does not count")
    func lazyLogin() async throws {
        let fixture = ServiceFixture(throttle: ThrottlePolicy(freeFailures: 1))
        for _ in 0..<5 {
            _ = fixture.service.login(LoginRequest(username: "someone", password: "secret1"), client: "c")
        }
        #expect(try await fixture.login("someone", "secret1").statusCode == 401)
        #expect(fixture.service.counters.throttledLogins == 0)
        await fixture.pool.shutdown()
    }

    @Test("exists: true and false (normalized), then rate_limited past the burst")
    func exists() async throws {
        let throttle = ThrottlePolicy(existsPerSecond: 1, existsBurst: 3)
        let fixture = ServiceFixture(throttle: throttle)
        try await fixture.register("caf\u{E9}-user", "secret1")
        #expect(
            try await fixture.service.exists(ExistsRequest(username: "cafe\u{301}-user"), client: "c").value
                .exists)
        #expect(
            !(try await fixture.service.exists(ExistsRequest(username: "nobody"), client: "c").value.exists))
        #expect(
            !(try await fixture.service.exists(ExistsRequest(username: "CAF\u{C9}-USER"), client: "c").value
                .exists))
        let limited = await remoteError(
            fixture.service.exists(ExistsRequest(username: "nobody"), client: "c"))
        #expect(limited?.code == .rateLimited)
        #expect(limited?.message.contains("1000 ms") == true)
        #expect(
            try await fixture.service.exists(ExistsRequest(username: "nobody"), client: "other").value.exists
                == false)
        fixture.clock.advance(.seconds(1))
        #expect(
            try await fixture.service.exists(ExistsRequest(username: "nobody"), client: "c").value.exists
                == false)
        #expect(fixture.service.counters.existsAnswered == 5)
        #expect(fixture.service.counters.existsRateLimited == 1)
        await fixture.pool.shutdown()
    }

    @Test("events come in order and carry neither passwords nor tokens")
    func events() async throws {
        let throttle = ThrottlePolicy(freeFailures: 100, lockAfter: 1)
        let fixture = ServiceFixture(throttle: throttle)
        let seen = Mutex<[AccountEvent]>([])
        let subscription = fixture.service.events.subscribe(onNext: { event in
            seen.withLock { $0.append(event) }
        })
        defer { subscription.dispose() }

        try await fixture.register("someone", "first-secret")
        let token = try #require(
            try await fixture.login("someone", "first-secret", client: "web").user?.userToken)
        _ = try await fixture.login("someone", "second-secret", client: "evil")
        _ = try await fixture.service.logout(LogoutRequest(token: token)).value

        let events = seen.withLock { $0 }
        #expect(events.map(\.kind) == [.registered, .loggedIn, .failed, .locked, .loggedOut])
        #expect(events.map(\.username) == Array(repeating: "someone", count: 5))
        #expect(events.map(\.client) == ["c", "web", "evil", "evil", nil])
        let encoder = JSONEncoder()
        for event in events {
            let json = String(decoding: try encoder.encode(event), as: UTF8.self)
            for secret in ["first-secret", "second-secret", token] { #expect(!json.contains(secret)) }
        }
        #expect(fixture.service.counters.locks == 1)
        await fixture.pool.shutdown()
    }

    @Test("the state lives on the service's loop: events come there, one at a time, from many threads' work")
    func eventsOnTheLoop() async throws {
        let loop = try SocketLoop(name: "auth-test")
        defer { loop.stop() }
        let fixture = ServiceFixture(
            throttle: ThrottlePolicy(freeFailures: 1_000, lockAfter: 1_000), loop: loop)
        let delivered = Atomic(0)
        let offTheLoop = Atomic(0)
        let inside = Atomic(0)
        let overlapping = Atomic(0)
        let subscription = fixture.service.events.subscribe(onNext: { _ in
            if inside.add(1, ordering: .sequentiallyConsistent).newValue > 1 {
                overlapping.add(1, ordering: .relaxed)
            }
            if !loop.executor.isLoopThread { offTheLoop.add(1, ordering: .relaxed) }
            delivered.add(1, ordering: .relaxed)
            inside.subtract(1, ordering: .sequentiallyConsistent)
        })
        defer { subscription.dispose() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask {
                    try await fixture.register("person\(index)", "secret-\(index)")
                    _ = try await fixture.login("person\(index)", "secret-\(index)", client: "c\(index)")
                    _ = try await fixture.login("person\(index)", "wrong-\(index)", client: "c\(index)")
                }
            }
            try await group.waitForAll()
        }
        #expect(delivered.load(ordering: .relaxed) == 24)
        #expect(offTheLoop.load(ordering: .relaxed) == 0)
        #expect(overlapping.load(ordering: .relaxed) == 0)
        #expect(fixture.service.counters.logins == 8)
        #expect(fixture.service.counters.failedLogins == 8)
        await fixture.pool.shutdown()
    }

    @Test("a login disposed while it is verified gives its attempt back: the next ones are not delayed")
    func disposedWhileVerifying() async throws {
        // Three free failures: the three attempts are all admitted (in flight they count as
        // failures), and had they not been given back, the fourth attempt would be delayed.
        let fixture = ServiceFixture(throttle: ThrottlePolicy(freeFailures: 3), workers: 1)
        try await fixture.register("someone", "the-secret")
        // The one worker is held, so the three verifications wait in the queue: none can reach a
        // verdict before it is disposed (a test-cost hash would otherwise finish in microseconds).
        let gate = DispatchSemaphore(value: 0)
        let holding = fixture.pool.job { () -> Result<Int, HashingPoolError> in
            gate.wait()
            return .success(0)
        }
        .subscribe { _ in }
        defer { holding.dispose() }
        #expect(await eventually { fixture.pool.counters.running == 1 })
        let subscriptions = (0..<3).map { _ in
            fixture.service.login(LoginRequest(username: "someone", password: "guess"), client: "c").subscribe
            { _ in }
        }
        #expect(await eventually { fixture.pool.counters.queued == 3 })
        subscriptions.forEach { $0.dispose() }
        #expect(await eventually { fixture.pool.counters.queued == 0 })
        gate.signal()
        // Each disposal gives back what its admission took, on the service's loop, before later work.
        #expect(try await fixture.login("someone", "the-secret").statusCode == 200)
        for _ in 0..<3 { #expect(try await fixture.login("someone", "guess").statusCode == 401) }
        #expect(try await fixture.login("someone", "guess").statusCode == 429)
        await fixture.pool.shutdown()
    }

    @Test("two concurrent registrations of one name: exactly one 201")
    func concurrentRegistrations() async throws {
        let fixture = ServiceFixture()
        async let one = fixture.service.register(
            RegisterRequest(username: "contested", password: "secret-1"), client: "a"
        )
        .value
        async let two = fixture.service.register(
            RegisterRequest(username: "contested", password: "secret-2"), client: "b"
        )
        .value
        let codes = try await [one.statusCode, two.statusCode].sorted()
        #expect(codes == [201, 409])
        #expect(fixture.store.accountCount == 1)
        await fixture.pool.shutdown()
    }

    @Test("a full hashing pool answers overloaded at once")
    func overloaded() async throws {
        let fixture = ServiceFixture(throttle: ThrottlePolicy(freeFailures: 1), workers: 1, queueCapacity: 0)
        let gate = DispatchSemaphore(value: 0)
        let (started, startedContinuation) = AsyncStream.makeStream(of: Void.self)
        let pool = fixture.pool
        let blocker = Task {
            try await pool.submit {
                startedContinuation.yield()
                gate.wait()
                return .success(0)
            }
        }
        var iterator = started.makeAsyncIterator()
        _ = await iterator.next()  // the only worker is busy, and nothing may wait

        let register = await remoteError(
            fixture.service.register(RegisterRequest(username: "someone", password: "secret1"), client: "c"))
        #expect(register?.code == .overloaded)
        let login = await remoteError(
            fixture.service.login(LoginRequest(username: "someone", password: "x"), client: "c"))
        #expect(login?.code == .overloaded)
        #expect(fixture.service.counters.overloaded == 2)
        #expect(fixture.store.accountCount == 0)

        gate.signal()
        #expect(try await blocker.value == 0)
        // The overloaded attempt was abandoned, not left in flight: the next one is admitted.
        #expect(try await fixture.login("someone", "x").statusCode == 401)
        await fixture.pool.shutdown()
    }

    @Test("disposing a login while the store holds its lookup delivers nothing")
    func disposeWhileHeld() async throws {
        let fixture = ServiceFixture()
        try await fixture.register("someone", "secret1")
        fixture.store.hold()
        let delivered = Mutex<[String]>([])
        let disposed = Mutex(false)
        let subscription = fixture.service.login(
            LoginRequest(username: "someone", password: "secret1"), client: "c"
        )
        .subscribe(
            onSuccess: { _ in delivered.withLock { $0.append("success") } },
            onFailure: { error in delivered.withLock { $0.append("failure: \(error)") } },
            onDisposed: { disposed.withLock { $0 = true } })
        let deadline = ContinuousClock.now + .seconds(10)
        while fixture.store.heldCount == 0, ContinuousClock.now < deadline { await Task.yield() }
        #expect(fixture.store.heldCount == 1)
        let jobs = fixture.completedJobs

        subscription.dispose()
        fixture.store.release()
        #expect(disposed.withLock { $0 })
        // A full login after it: had the disposed one gone on, its answer would be in by then.
        #expect(try await fixture.login("someone", "secret1", client: "d").statusCode == 200)
        #expect(delivered.withLock { $0 }.isEmpty)
        #expect(fixture.completedJobs == jobs + 1)  // only the second login verified
        #expect(fixture.service.counters.logins == 1)
        #expect(fixture.service.counters.failedLogins == 0)
        await fixture.pool.shutdown()
    }
}

/// Whether `condition` holds within `seconds`, checked between yields.
private func eventually(within seconds: Int = 10, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while !condition() {
        if ContinuousClock.now > deadline { return false }
        await Task.yield()
    }
    return true
}
