import Contracts
import Foundation
import ProcessSupport
import Reactive
import RemoteProtocol
@testable import RemoteStreams
import ServiceKit
import Synchronization
import TestSupport
import Testing
import ZeroMQ

#if canImport(Glibc)
    import Glibc
#endif

/// A running `hero-catalog-service` (plain CURVE-less transport, `--auth-curve off`) in a temp
/// directory, with a client connected to it.
final class HeroServiceProcess: Sendable {
    let child: ChildProcess
    let context: Context
    let client: RemoteClient
    let logPath: String
    let endpoint: String

    private init(
        child: ChildProcess, context: Context, client: RemoteClient, logPath: String, endpoint: String
    ) {
        self.endpoint = endpoint
        self.child = child
        self.context = context
        self.client = client
        self.logPath = logPath
    }

    /// Starts the service at `ipc://<directory>/heroes.sock` against `authEndpoint` with
    /// `arguments`, and waits until `sys.health` says ready.
    /// With `curve`, the service runs with `--curve on` (its keys and allow-list in
    /// ``stateDirectory(in:)``) and the client uses `curve`.
    static func start(
        _ arguments: [String], authEndpoint: String, in directory: TemporaryDirectory,
        curve: RemoteClient.Curve? = nil
    ) async throws -> HeroServiceProcess {
        let endpoint = "ipc://" + directory.file("heroes.sock")
        let logPath = directory.file("heroes.log")
        let all =
            [
                "--state-dir", stateDirectory(in: directory), "--endpoint", endpoint,
                "--curve", curve == nil ? "off" : "on", "--auth-curve", "off", "--auth-endpoint",
                authEndpoint,
            ] + arguments
        let child = try ChildProcess(
            executable: try Binaries.path("hero-catalog-service"), arguments: all, standardOutput: logPath,
            standardError: logPath)
        let context = try Context()
        let client = try RemoteClient(
            context: context,
            configuration: .init(
                endpoints: [endpoint], deadline: .seconds(5), name: "heroes-test", curve: curve))
        let service = HeroServiceProcess(
            child: child, context: context, client: client, logPath: logPath, endpoint: endpoint)
        let end = ContinuousClock.now + .seconds(20)
        var last = "no answer"
        while ContinuousClock.now < end {
            if let ended = child.ended {
                await service.stop()
                throw SupportError(
                    "hero-catalog-service ended (\(ended)) before it was ready; log:\n\(service.log)")
            }
            do {
                let report = try await client.request(
                    Methods.System.health, deadline: .milliseconds(300)
                ).value
                if report.ready { return service }
                last = report.status.rawValue
            } catch {
                last = "\(error)"
            }
        }
        await service.stop()
        throw SupportError("hero-catalog-service was not ready: \(last); log:\n\(service.log)")
    }

    /// The service's state directory in `directory`.
    static func stateDirectory(in directory: TemporaryDirectory) -> String { directory.file("heroes-state") }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    @discardableResult
    func stop() async -> Termination? {
        await client.stop()
        context.terminate()
        return await child.stop()
    }

    func search(_ query: String, offset: Int? = nil, limit: Int? = nil, token: String) -> Single<
        HeroSearchResponse
    > {
        client.request(
            Methods.Heroes.search,
            HeroSearchRequest(query: query, offset: offset, limit: limit, token: token))
    }

    func get(_ id: Int, token: String) -> Single<Hero> {
        client.request(Methods.Heroes.get, HeroGetRequest(id: id, token: token))
    }

    /// Polls `condition` (each poll real work, not a sleep) until it holds or `limit` passes.
    func eventually(_ limit: Duration, _ condition: () async -> Bool) async -> Bool {
        let end = ContinuousClock.now + limit
        while ContinuousClock.now < end {
            if await condition() { return true }
            _ = try? await client.request(
                Methods.System.health, deadline: .milliseconds(200)
            ).value
        }
        return await condition()
    }
}

/// auth-service and hero-catalog-service with a session token, stopped whatever happens.
func withHeroes<T>(
    _ arguments: [String] = [], catalog: String? = nil, catalogName: String = "catalog.json",
    _ body: (HeroServiceProcess, String, ServiceProcess, TemporaryDirectory) async throws -> T
) async throws -> T {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let auth = try await ServiceProcess.start(in: directory)
    var all = arguments
    if let catalog {
        let path = directory.file(catalogName)
        try catalog.write(toFile: path, atomically: true, encoding: .utf8)
        all += ["--catalog", path]
    }
    let heroes: HeroServiceProcess
    do {
        heroes = try await HeroServiceProcess.start(all, authEndpoint: auth.endpoint, in: directory)
    } catch {
        await auth.stop()
        throw error
    }
    do {
        _ = try await auth.client.register("hero_fan")
        let login = try await auth.client.login("hero_fan")
        let token = try #require(login.user?.userToken)
        let result = try await body(heroes, token, auth, directory)
        await heroes.stop()
        await auth.stop()
        return result
    } catch {
        Issue.record("heroes log:\n\(heroes.log)")
        await heroes.stop()
        await auth.stop()
        throw error
    }
}

/// A JSON catalog of `count` heroes named "Hero <n>", plus the punctuation cases.
func heroCatalogJSON(count: Int, extra: String = "") -> String {
    var items = (1...count).map { id in
        #"{"id": \#(id), "name": {"en": "Hero \#(id)", "zh-Hans": "英雄\#(id)"}, "intro": {"en": "i"}, "icon": "h\#(id).png"}"#
    }
    items.append(#"{"id": 1001, "name": {"en": "D'Artagnan"}, "intro": {}, "icon": "d.png"}"#)
    items.append(
        #"{"id": 1002, "name": {"en": "Jean·Valjean", "zh-Hans": "冉·阿让"}, "intro": {}, "icon": "j.png"}"#)
    if !extra.isEmpty { items.append(extra) }
    return "[" + items.joined(separator: ",\n") + "]"
}

/// An XML property list shaped like the original demo's heros.plist (names of our own).
let heroFixturePropertyList = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    <array>
        <dict><key>name</key><string>夸父</string><key>intro</key><string>追着太阳跑的巨人。</string>
            <key>icon</key><string>kuafu.png</string></dict>
        <dict><key>name</key><string>精卫</string><key>intro</key><string>要填平大海的鸟。</string>
            <key>icon</key><string>jingwei.png</string></dict>
    </array>
    </plist>
    """

@Suite("hero-catalog-service: search, get and watch with real binaries", .timeLimit(.minutes(1)))
struct HeroCatalogIntegrationTests {
    @Test("built-in catalog: search all, get the first, sys.stats")
    func builtIn() async throws {
        try await withHeroes { heroes, token, _, _ in
            let all = try await heroes.search("", token: token).value
            #expect(all.total >= 1)
            #expect(all.items.count == min(all.total, 50))
            let first = try #require(all.items.first)
            #expect(try await heroes.get(first.id, token: token).value == first)
            let stats = try await heroes.client.request(Methods.System.stats).value
            #expect(stats.counters["heroes"]?["heroes"] == all.total)
        }
    }

    @Test("edge cases and pagination over the wire")
    func searchOverTheWire() async throws {
        try await withHeroes(catalog: heroCatalogJSON(count: 120)) { heroes, token, _, _ in
            let empty = try await heroes.search("", token: token).value
            #expect(empty.total == 122)
            #expect(empty.items.map(\.id) == Array(1...50))
            #expect(try await heroes.search("no such hero", token: token).value.total == 0)
            #expect(try await heroes.search("'", token: token).value.items.map(\.id) == [1001])
            #expect(try await heroes.search("d'ART", token: token).value.items.map(\.id) == [1001])
            #expect(try await heroes.search("·", token: token).value.items.map(\.id) == [1002])
            #expect(try await heroes.search("jean·v", token: token).value.items.map(\.id) == [1002])
            #expect(try await heroes.search("英", token: token).value.total == 120)
            let page = try await heroes.search("hero 1", offset: 10, limit: 5, token: token).value
            #expect(page.total == 1 + 10 + 21)
            #expect(page.items.map(\.id) == [19, 100, 101, 102, 103])
            let late = try await heroes.search("", offset: 500, token: token).value
            #expect(late.total == 122 && late.items.isEmpty)
            #expect(await errorCode(of: heroes.search("", limit: 501, token: token)) == .badRequest)
            #expect(await errorCode(of: heroes.search("", offset: -1, token: token)) == .badRequest)
            #expect(try await heroes.get(1002, token: token).value.name["zh-Hans"] == "冉·阿让")
            #expect(await errorCode(of: heroes.get(5_000, token: token)) == .notFound)
        }
    }

    @Test("invalid token: unauthenticated; a revoked token stops working within --token-cache")
    func tokens() async throws {
        try await withHeroes(["--token-cache", "200ms"]) { heroes, token, auth, _ in
            #expect(await errorCode(of: heroes.search("", token: "not-a-token")) == .unauthenticated)
            #expect(await errorCode(of: heroes.get(1, token: "")) == .unauthenticated)
            // The token is checked first: a body without one is unauthenticated, not a bad request
            // for the missing `token` (or `query`, or `id`).
            for method in [Methods.Heroes.search.name, Methods.Heroes.get.name] {
                let refusal = await errorCode(
                    of: heroes.client.request(method, NoParameters(), as: HeroSearchResponse.self))
                #expect(refusal == .unauthenticated, "\(method)")
            }
            // With a good token (a body of only `{"token": …}`), the missing query is the bad request.
            let missingQuery = await errorCode(
                of: heroes.client.request(
                    Methods.Heroes.search.name, VerifyRequest(token: token), as: HeroSearchResponse.self))
            #expect(missingQuery == .badRequest)
            #expect(try await heroes.search("", token: token).value.total >= 1)
            let logout: LogoutResponse = try await auth.client.request(
                Methods.Auth.logout, LogoutRequest(token: token)
            ).value
            #expect(logout.revoked)
            let loggedOutAt = ContinuousClock.now
            let refused = await heroes.eventually(.seconds(3)) {
                await errorCode(of: heroes.search("", token: token)) == .unauthenticated
            }
            #expect(refused)
            // The cache time plus a request's round trips, never much more.
            #expect(ContinuousClock.now - loggedOutAt < .seconds(2))
        }
    }

    @Test("watch: current results, again after SIGHUP; a bad reload keeps the old catalog")
    func watchAndReload() async throws {
        try await withHeroes(catalog: heroCatalogJSON(count: 3), catalogName: "watched.json") {
            heroes, token, _, directory in
            let pages = Locked<[Int]>([])
            let failed = Locked<String?>(nil)
            let subscription = heroes.client.stream(
                Methods.Heroes.watch, HeroWatchRequest(query: "hero", token: token)
            ).subscribe(
                onNext: { page in pages.withLock { $0.append(page.total) } },
                onError: { error in failed.withLock { $0 = "\(error)" } })
            defer { subscription.dispose() }
            #expect(await heroes.eventually(.seconds(5)) { pages.value == [3] })
            try heroCatalogJSON(count: 7).write(
                toFile: directory.file("watched.json"), atomically: true, encoding: .utf8)
            heroes.child.send(SIGHUP)
            #expect(await heroes.eventually(.seconds(5)) { pages.value == [3, 7] })
            try "[{\"id\": 1".write(toFile: directory.file("watched.json"), atomically: true, encoding: .utf8)
            heroes.child.send(SIGHUP)
            #expect(await heroes.eventually(.seconds(5)) { heroes.log.contains("reload failed") })
            #expect(heroes.log.contains("watched.json"))
            #expect(try await heroes.search("hero", token: token).value.total == 7)
            #expect(pages.value == [3, 7])
            #expect(failed.value == nil)
        }
    }

    @Test("CURVE on: one SIGHUP admits a newly allowed key and reloads the catalog")
    func hangupReloadsEverythingWithCurve() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let auth = try await ServiceProcess.start(in: directory)
        let catalogPath = directory.file("catalog.json")
        try heroCatalogJSON(count: 3).write(toFile: catalogPath, atomically: true, encoding: .utf8)
        let state = try StateDirectory(creating: HeroServiceProcess.stateDirectory(in: directory))
        let serverKey = try CurveKeyFiles.serverKeys(in: state).publicKey
        let own = try CurveKeyFiles.clientKeys(in: state)
        let newcomer = try CurveKeyPair.generate()
        let heroes: HeroServiceProcess
        do {
            heroes = try await HeroServiceProcess.start(
                ["--catalog", catalogPath], authEndpoint: auth.endpoint, in: directory,
                curve: RemoteClient.Curve(serverKey: serverKey, keys: own))
        } catch {
            await auth.stop()
            throw error
        }
        /// `sys.health` from a new connection with the newcomer's key: nil when it gets in.
        func newcomerCall() async throws -> ErrorCode? {
            let client = try RemoteClient(
                context: heroes.context,
                configuration: .init(
                    endpoints: [heroes.endpoint],
                    curve: RemoteClient.Curve(serverKey: serverKey, keys: newcomer)))
            let code = await errorCode(of: client.health(deadline: .milliseconds(500)))
            await client.stop()
            return code
        }
        do {
            _ = try await auth.client.register("hero_fan")
            let token = try #require(try await auth.client.login("hero_fan").user?.userToken)
            #expect(try await heroes.search("hero", token: token).value.total == 3)
            let before = try await newcomerCall()
            #expect(before == .unavailable || before == .timeout)

            try (try Z85.encode(newcomer.publicKey) + " newcomer\n")
                .write(toFile: state.file("allowed_clients"), atomically: true, encoding: .utf8)
            try heroCatalogJSON(count: 7).write(toFile: catalogPath, atomically: true, encoding: .utf8)
            heroes.child.send(SIGHUP)
            #expect(
                await waitForFile(heroes.logPath, containing: "catalog reloaded", timeout: .seconds(10)),
                "log:\n\(heroes.log)")
            #expect(heroes.log.contains("added=1"), "log:\n\(heroes.log)")
            #expect(try await newcomerCall() == nil)
            #expect(try await heroes.search("hero", token: token).value.total == 7)
            #expect(heroes.child.ended == nil)
        } catch {
            Issue.record("heroes log:\n\(heroes.log)")
            await heroes.stop()
            await auth.stop()
            throw error
        }
        #expect(await heroes.stop() == .exited(0))
        await auth.stop()
    }

    @Test("SIGTERM drains: an open watch ends with unavailable, the process exits 0")
    func drain() async throws {
        try await withHeroes { heroes, token, _, _ in
            let pages = Locked<Int>(0)
            let failure = Locked<ErrorCode?>(nil)
            let subscription = heroes.client.stream(
                Methods.Heroes.watch, HeroWatchRequest(query: "", token: token)
            ).subscribe(
                onNext: { _ in pages.withLock { $0 += 1 } },
                onError: { error in failure.withLock { $0 = (error as? RemoteError)?.code } })
            defer { subscription.dispose() }
            #expect(await heroes.eventually(.seconds(5)) { pages.value == 1 })
            heroes.child.send(SIGTERM)
            let ended = await heroes.child.waitForExit(timeout: .seconds(15))
            #expect(ended == .exited(0))
            #expect(await heroes.eventually(.seconds(3)) { failure.value == .unavailable })
            #expect(heroes.log.contains("drain"))
        }
    }

    @Test("--catalog with a property list like the demo's heros.plist")
    func propertyList() async throws {
        try await withHeroes(catalog: heroFixturePropertyList, catalogName: "heros.plist") {
            heroes, token, _, _ in
            let all = try await heroes.search("", token: token).value
            #expect(all.items.map(\.id) == [1, 2])
            let found = try await heroes.search("精", token: token).value
            #expect(found.items.map(\.name) == [["zh-Hans": "精卫"]])
            #expect(found.items.first?.icon == "jingwei.png")
        }
    }

    @Test("auth unreachable: unavailable, not unauthenticated; sys.health degraded with the reason")
    func unreachableAuth() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let heroes = try await HeroServiceProcess.start(
            ["--auth-deadline", "300ms", "--auth-probe-interval", "200ms"],
            authEndpoint: "ipc://" + directory.file("nobody.sock"), in: directory)
        let code = await errorCode(of: heroes.search("", token: "some-token"))
        // The probe's first round ends after its 300 ms deadline: ask until it has (bounded).
        var health: HealthReport?
        let end = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < end {
            health = try? await heroes.client.request(
                Methods.System.health
            ).value
            if health?.status == .degraded { break }
        }
        await heroes.stop()
        #expect(code == .unavailable)
        #expect(health?.status == .degraded)
        #expect(health?.ready == true)
        #expect(health?.reasons.first?.contains("auth-service") == true)
    }

    @Test("a malformed --catalog is an error at start-up naming the file")
    func malformedCatalog() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("broken.plist")
        try "<?xml version=\"1.0\"?><plist version=\"1.0\"><array><string>x</string></array></plist>".write(
            toFile: path, atomically: true, encoding: .utf8)
        let log = directory.file("broken.log")
        let child = try ChildProcess(
            executable: try Binaries.path("hero-catalog-service"),
            arguments: [
                "--state-dir", directory.file("state"), "--endpoint", "ipc://" + directory.file("h.sock"),
                "--curve", "off", "--auth-curve", "off", "--catalog", path,
            ], standardOutput: log, standardError: log)
        let ended = await child.waitForExit(timeout: .seconds(15))
        if ended == nil { await child.stop(grace: .zero) }
        #expect(ended == .exited(1))
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(text.contains(path) && text.contains("item 1 is not a dictionary"), "\(text)")
    }
}
