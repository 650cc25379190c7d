import Contracts
import Foundation
import Reactive
import Synchronization
import Testing
import ZeroMQ

@testable import AuthCore

@Suite("AuthService on two shards: one throttle, one event stream", .timeLimit(.minutes(1)))
struct ShardedAuthTests {
    @Test("wrong passwords over both shards are throttled as one, and both shards' events are seen")
    func sharedThrottle() async throws {
        let loops = [try SocketLoop(name: "auth-0"), try SocketLoop(name: "auth-1")]
        let store = InMemoryAccountStore()
        let pool = PasswordHashingPool(workers: 2, queueCapacity: 16)
        let clock = ManualClock()
        let throttle = ThrottlePolicy(freeFailures: 2, baseDelay: .seconds(5), lockAfter: 100)
        let configuration = AuthConfiguration(throttle: throttle, cost: .test)
        let state = AuthGraphs(on: loops[0], policy: throttle)
        let shards = loops.map { loop in
            AuthService(
                store: store, hashing: pool, configuration: configuration, clock: clock.authClock, state: state,
                loop: loop)
        }
        let events = Mutex<[AccountEvent.Kind]>([])
        let subscription = shards[0].events.subscribe(onNext: { event in events.withLock { $0.append(event.kind) } })
        let registered = try await shards[1].register(
            RegisterRequest(username: "someone", password: "secret1"), client: "c"
        ).value
        #expect(registered.statusCode == 201)
        // One wrong password on each shard spends the two free failures of the one throttle.
        for shard in shards {
            let answer = try await shard.login(LoginRequest(username: "someone", password: "nope-nope"), client: "c")
                .value
            #expect(answer.statusCode == 401)
        }
        for shard in shards {
            let answer = try await shard.login(LoginRequest(username: "someone", password: "secret1"), client: "c")
                .value
            #expect(answer == LoginResponse(statusCode: 429, message: .loginThrottled, retryAfter: 5))
        }
        #expect(shards.map(\.counters.throttledLogins) == [1, 1])
        #expect(events.withLock { $0 } == [.registered, .failed, .failed])
        subscription.dispose()
        await pool.shutdown()
        for loop in loops { await loop.stop() }
    }

    @Test("a shard's answers continue on its own loop")
    func answersOnOwnLoop() async throws {
        let loops = [try SocketLoop(name: "auth-0"), try SocketLoop(name: "auth-1")]
        let pool = PasswordHashingPool(workers: 1, queueCapacity: 4)
        let state = AuthGraphs(on: loops[0], policy: ThrottlePolicy())
        let shard = AuthService(
            store: InMemoryAccountStore(), hashing: pool, configuration: AuthConfiguration(cost: .test),
            state: state, loop: loops[1])
        let onShard = Mutex<Bool?>(nil)
        let answer = try await shard.exists(ExistsRequest(username: "nobody-here"), client: "c")
            .map { answer in
                onShard.withLock { $0 = loops[1].isLoopThread }
                return answer
            }
            .value
        #expect(answer.exists == false)
        #expect(onShard.withLock { $0 } == true)
        await pool.shutdown()
        for loop in loops { await loop.stop() }
    }
}
