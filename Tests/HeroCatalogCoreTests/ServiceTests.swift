import Contracts
import Reactive
import RemoteProtocol
import Synchronization
import TestSupport
import Testing

@testable import HeroCatalogCore

@Suite("HeroCatalogService: tokens, the cache, parameters, watch", .timeLimit(.minutes(1)))
struct ServiceTests {
    func makeService(cacheLifetime: Duration = .seconds(5), clock: ManualClock = ManualClock())
        throws -> (HeroCatalogService, StubTokenVerifier, CachingTokenVerifier)
    {
        let stub = StubTokenVerifier(valid: ["good": "alice"])
        let cache = CachingTokenVerifier(stub, lifetime: cacheLifetime, now: clock.now)
        return (
            HeroCatalogService(catalog: try edgeCaseCatalog(), verifier: cache, loop: TestLoop.shared), stub,
            cache
        )
    }

    @Test("search and get with a valid token")
    func valid() async throws {
        let (service, _, _) = try makeService()
        let found = try await service.search(HeroSearchRequest(query: "jean", token: "good")).value
        #expect(found.total == 1)
        #expect(found.items.first?.id == 2)
        #expect(try await service.get(HeroGetRequest(id: 6, token: "good")).value.name["en"] == "Odysseus")
        #expect(service.counters.searches == 1 && service.counters.gets == 1)
    }

    @Test("no token, a wrong token: unauthenticated; auth unreachable: unavailable")
    func refused() async throws {
        let (service, stub, _) = try makeService()
        #expect(
            await errorCode(of: service.search(HeroSearchRequest(query: "", token: ""))) == .unauthenticated)
        #expect(await errorCode(of: service.get(HeroGetRequest(id: 1, token: "bad"))) == .unauthenticated)
        stub.setReachable(false)
        #expect(
            await errorCode(of: service.search(HeroSearchRequest(query: "", token: "good"))) == .unavailable)
        #expect(service.counters.unauthenticated == 2 && service.counters.unavailable == 1)
    }

    @Test("unknown id: not_found")
    func notFound() async throws {
        let (service, _, _) = try makeService()
        #expect(await errorCode(of: service.get(HeroGetRequest(id: 404, token: "good"))) == .notFound)
    }

    @Test("bad paging and overlong queries: bad_request", arguments: [(-1, 10), (0, 0), (0, 501)])
    func badRequest(offset: Int, limit: Int) async throws {
        let (service, _, _) = try makeService()
        let request = HeroSearchRequest(query: "a", offset: offset, limit: limit, token: "good")
        #expect(await errorCode(of: service.search(request)) == .badRequest)
        let long = HeroSearchRequest(query: String(repeating: "a", count: 257), token: "good")
        #expect(await errorCode(of: service.search(long)) == .badRequest)
        let most = HeroSearchRequest(query: "", limit: 500, token: "good")
        #expect(try await service.search(most).value.total == 7)
    }

    @Test("the cache: one upstream call per lifetime; a revoked token fails once it expires")
    func cacheExpiry() async throws {
        let clock = ManualClock()
        let (service, stub, cache) = try makeService(cacheLifetime: .milliseconds(200), clock: clock)
        let request = HeroSearchRequest(query: "", token: "good")
        _ = try await service.search(request).value
        _ = try await service.search(request).value
        #expect(stub.calls == 1)
        stub.revoke("good")
        clock.advance(.milliseconds(199))
        #expect(try await service.search(request).value.total == 7)
        clock.advance(.milliseconds(1))
        #expect(await errorCode(of: service.search(request)) == .unauthenticated)
        #expect(stub.calls == 2)
        #expect(cache.statistics.hits == 2 && cache.statistics.misses == 2)
    }

    @Test("a zero lifetime asks upstream every time")
    func noCache() async throws {
        let (service, stub, _) = try makeService(cacheLifetime: .zero)
        for _ in 0..<3 { _ = try await service.search(HeroSearchRequest(query: "", token: "good")).value }
        #expect(stub.calls == 3)
    }

    @Test("watch: the results now, again after each replace; a revoked token ends it at the next reload")
    func watch() async throws {
        let clock = ManualClock()
        let (service, stub, _) = try makeService(clock: clock)
        let received = Mutex<[Int]>([])
        let failure = Mutex<ErrorCode?>(nil)
        let subscription = service.watch(HeroWatchRequest(query: "new", token: "good")).subscribe(
            onNext: { page in received.withLock { $0.append(page.total) } },
            onError: { error in failure.withLock { $0 = (error as? RemoteError)?.code } })
        defer { subscription.dispose() }
        // The watch runs on the service's loop: each step is awaited there.
        #expect(await eventually { received.withLock { $0 } == [0] })
        service.replace(try HeroCatalog(heroes: [hero(1, ["en": "New One"]), hero(2, ["en": "Newer"])]))
        #expect(await eventually { received.withLock { $0 } == [0, 2] })
        stub.revoke("good")
        clock.advance(.seconds(6))
        service.replace(try HeroCatalog(heroes: [hero(1, ["en": "Newest"])]))
        #expect(await eventually { failure.withLock { $0 } == .unauthenticated })
        #expect(received.withLock { $0 } == [0, 2])
        #expect(failure.withLock { $0 } == .unauthenticated)
        #expect(service.counters.reloads == 2 && service.counters.watches == 1)
    }

    @Test("a replace made off the loop is applied there: later calls answer from the new catalog")
    func replaceOffTheLoop() async throws {
        let (service, _, _) = try makeService()
        service.replace(try HeroCatalog(heroes: [hero(7, ["en": "Seventh"])]))
        #expect(await eventually { service.current.heroes.map(\.id) == [7] })
        let page = try await service.search(HeroSearchRequest(query: "", token: "good")).value
        #expect(page.total == 1 && page.items.map(\.id) == [7])
    }
}

/// Whether `condition` holds within `seconds`, checked between yields (the suite's time limit is the
/// outer bound).
private func eventually(within seconds: Int = 10, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while !condition() {
        if ContinuousClock.now > deadline { return false }
        await Task.yield()
    }
    return true
}
