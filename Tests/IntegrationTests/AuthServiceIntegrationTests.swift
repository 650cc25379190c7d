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

/// A parameters body of any shape, for malformed requests.
struct AnyParameters: Encodable, Sendable {
    let members: [String: Member]

    enum Member: Encodable, Sendable {
        case string(String), integer(Int), boolean(Bool)

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .string(let value): try container.encode(value)
            case .integer(let value): try container.encode(value)
            case .boolean(let value): try container.encode(value)
            }
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(members)
    }
}

extension RemoteClient {
    func register(_ name: String, _ password: String = "correct horse") async throws -> RegisterResponse {
        try await request(Methods.Auth.register, RegisterRequest(username: name, password: password)).value
    }

    func login(_ name: String, _ password: String = "correct horse", client: String? = nil) async throws
        -> LoginResponse
    {
        try await request(
            Methods.Auth.login, LoginRequest(username: name, password: password, client: client)
        ).value
    }

    func exists(_ name: String) async throws -> Bool {
        let response: ExistsResponse = try await request(Methods.Auth.exists, ExistsRequest(username: name))
            .value
        return response.exists
    }

    func health(deadline: Duration = .seconds(2)) -> Single<HealthReport> {
        request(Methods.System.health, deadline: deadline)
    }
}

@Suite("auth-service: accounts and sessions", .timeLimit(.minutes(1)))
struct AccountFlowIntegrationTests {
    @Test("register → login → verify → logout → verify refused, over tcp")
    func sessionLifecycle() async throws {
        try await withService(transport: .tcp) { service, _ in
            let client = service.client
            let registered = try await client.register("alice_tcp")
            #expect(registered.statusCode == 201)
            #expect(registered.message == .registerOK)
            let login = try await client.login("alice_tcp")
            #expect(login.statusCode == 200)
            let token = try #require(login.user?.userToken)
            #expect(login.user?.name == "alice_tcp")
            let verified: VerifyResponse = try await client.request(
                Methods.Auth.verify, VerifyRequest(token: token)
            ).value
            #expect(verified.name == "alice_tcp")
            #expect(verified.expiresAt > Int64(Date().timeIntervalSince1970))
            let logout: LogoutResponse = try await client.request(
                Methods.Auth.logout, LogoutRequest(token: token)
            ).value
            #expect(logout.revoked)
            let refused = await errorCode(
                of: client.request(Methods.Auth.verify, VerifyRequest(token: token)))
            #expect(refused == .unauthenticated)
        }
    }

    @Test("two concurrent registrations of one name: one 201, one 409")
    func duplicateRegistration() async throws {
        try await withService { service, _ in
            let client = service.client
            async let first = client.register("twin_name", "first password")
            async let second = client.register("twin_name", "second password")
            let codes = try await [first.statusCode, second.statusCode].sorted()
            #expect(codes == [201, 409])
            #expect(try await client.exists("twin_name"))
            #expect(try await !client.exists("other_name"))
        }
    }

    @Test("wrong passwords: 401, 401, then 429 with retry_after; another client is not throttled")
    func throttling() async throws {
        try await withService(["--login-free-failures", "2", "--login-lock-after", "4"]) { service, _ in
            let client = service.client
            #expect(try await client.register("throttled").statusCode == 201)
            var codes: [Int] = []
            var last: LoginResponse?
            for _ in 0..<3 {
                let answer = try await client.login("throttled", "wrong password", client: "attacker")
                codes.append(answer.statusCode)
                last = answer
            }
            #expect(codes == [401, 401, 429])
            #expect(last?.message == .loginThrottled)
            #expect((last?.retryAfter ?? 0) > 0)
            let other = try await client.login("throttled", "wrong password", client: "someone-else")
            #expect(other.statusCode == 401)
            let owner = try await client.login("throttled", client: "owner")
            #expect(owner.statusCode == 200)
        }
    }
}

@Suite("auth-service: malformed input", .timeLimit(.minutes(1)))
struct MalformedInputIntegrationTests {
    @Test("missing fields, wrong types, empty strings, 10 MB, unknown method: clear errors, still up")
    func badRequests() async throws {
        try await withService { service, _ in
            let client = service.client
            let code = {
                @Sendable (method: String, members: [String: AnyParameters.Member]) async -> ErrorCode? in
                await errorCode(
                    of: client.request(method, AnyParameters(members: members), as: JSONValue.self))
            }
            #expect(await code(Methods.Auth.login.name, ["username": .string("someone")]) == .badRequest)
            #expect(await code(Methods.Auth.register.name, ["password": .string("secret!")]) == .badRequest)
            #expect(
                await code(Methods.Auth.login.name, ["username": .integer(5), "password": .boolean(true)])
                    == .badRequest)
            #expect(await code(Methods.Auth.verify.name, ["token": .integer(1)]) == .badRequest)
            #expect(
                await code(Methods.Auth.register.name, ["username": .string(""), "password": .string("")])
                    == .badRequest)
            #expect(
                await code(
                    Methods.Auth.register.name, ["username": .string("somebody"), "password": .string("")])
                    == .badRequest)
            #expect(await code("auth.nope", [:]) == .unknownMethod)
            let huge = String(repeating: "x", count: 10 * 1_024 * 1_024)
            let hugeCode = await code(
                Methods.Auth.register.name, ["username": .string(huge), "password": .string("secret!")])
            #expect(
                hugeCode == .tooLarge || hugeCode == .badRequest,
                "10 MB payload: \(String(describing: hugeCode))")
            // Still serving.
            let later = try await client.register("after_bad_input")
            #expect(later.statusCode == 201)
            #expect(try await client.health().value.ready)
        }
    }

    @Test("invalid UTF-8 in a raw frame: bad_request on its stream, still up")
    func invalidUTF8() async throws {
        try await withService { service, _ in
            let codec = FrameCodec()
            var body = Array(#"{"username":"bad"#.utf8)
            body += [0xff, 0xfe, 0xc3]
            body += Array(#"","password":"secret!!"}"#.utf8)
            let frame = try Frame.request(
                stream: 7, method: Methods.Auth.register.name, deadlineMilliseconds: 5_000, body: body)
            let endpoint = service.endpoint
            let context = service.context
            let answer: [[UInt8]] = try await withCheckedThrowingContinuation { continuation in
                Thread {
                    do {
                        let raw = try Socket(context, .dealer, linger: 0)
                        defer { raw.close() }
                        try raw.set(.receiveTimeout, 5_000)
                        try raw.connect(endpoint)
                        _ = try raw.send(parts: codec.encode(frame))
                        guard case .done(let parts) = try raw.receiveParts() else {
                            throw SupportError("no answer to the raw frame")
                        }
                        continuation.resume(returning: parts)
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }.start()
            }
            let decoded = try codec.decode(answer)
            #expect(decoded.type == .error)
            #expect(decoded.stream == 7)
            let error = try JSONBodyCoder.shared.decode(RemoteError.self, from: decoded.body ?? [])
            #expect(error.code == .badRequest)
            #expect(try await service.client.register("after_raw_frame").statusCode == 201)
        }
    }
}

@Suite("auth-service: shutdown and durability", .timeLimit(.minutes(1)))
struct LifecycleIntegrationTests {
    @Test("SIGTERM while logins are in flight: they are answered, exit 0, pid file gone, then refused")
    func drainOnSIGTERM() async throws {
        try await withService(["--hash-cost", "strong", "--hash-workers", "1", "--hash-queue", "8"]) {
            service, directory in
            let client = service.client
            #expect(try await client.register("drain_user").statusCode == 201)
            let pidFile = ServiceProcess.stateDirectory(in: directory) + "/auth.pid"
            #expect(FileManager.default.fileExists(atPath: pidFile))
            let answers = Locked<[Int]>([])
            let logins = Task {
                try await withThrowingTaskGroup(of: Int.self) { group in
                    // One end client each: concurrent attempts of one client count against its
                    // throttle until they are recorded.
                    for index in 0..<6 {
                        group.addTask {
                            try await client.login("drain_user", client: "drainer-\(index)").statusCode
                        }
                    }
                    for try await code in group { answers.withLock { $0.append(code) } }
                }
            }
            // In flight: the hashing pool has them (each poll is a real request). The strong cost
            // (about 70 ms a hash here, one worker) keeps them there for about half a second, so a
            // busy machine's slow polls still see them.
            var inFlight = false
            let end = ContinuousClock.now + .seconds(10)
            while !inFlight, ContinuousClock.now < end {
                let stats: StatsReport = try await client.request(Methods.System.stats).value
                let hashing = stats.counters["hashing"] ?? [:]
                inFlight = (hashing["queued"] ?? 0) + (hashing["running"] ?? 0) > 0
            }
            #expect(inFlight)
            service.child.send(SIGTERM)
            try await logins.value
            #expect(answers.withLock { $0 } == Array(repeating: 200, count: 6))
            let ended = await service.child.waitForExit(timeout: .seconds(15))
            #expect(ended == .exited(0))
            #expect(!FileManager.default.fileExists(atPath: pidFile))
            // A new connection finds nobody listening.
            let newcomer = try RemoteClient(
                context: service.context,
                configuration: .init(endpoints: [service.endpoint], name: "newcomer"))
            let refused = await errorCode(of: newcomer.health(deadline: .milliseconds(300)))
            await newcomer.stop()
            #expect(refused == .unavailable)
        }
    }

    @Test("SIGKILL mid-burst of durable registrations: every acknowledged one survives a restart")
    func durabilityAfterSIGKILL() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let arguments = [
            "--synchronous", "full", "--exists-per-second", "1000000", "--exists-burst", "1000000",
        ]
        let first = try await ServiceProcess.start(arguments, in: directory, name: "first")
        // 100 senders keep registering (300 and more in all) until the process is killed, so the
        // kill lands in a steady flow of registrations, after at least 150 acknowledgements.
        let acknowledged = Locked<[String]>([])
        let sent = Locked(0)
        let killed = Locked(false)
        let child = first.child
        let client = first.client
        await withTaskGroup(of: Void.self) { group in
            for sender in 0..<100 {
                group.addTask {
                    for round in 0..<50 where !killed.value {
                        let name = "durable_\(sender)_\(round)"
                        sent.withLock { $0 += 1 }
                        // Calls open at the kill fail with `unavailable` when this deadline passes.
                        let registration = client.request(
                            Methods.Auth.register, RegisterRequest(username: name, password: "correct horse"),
                            deadline: .seconds(2))
                        guard let answer = try? await registration.value, answer.statusCode == 201 else {
                            return
                        }
                        let count = acknowledged.withLock { names in
                            names.append(name)
                            return names.count
                        }
                        if count == 150 {
                            killed.withLock { $0 = true }
                            child.send(SIGKILL)
                        }
                    }
                }
            }
        }
        _ = await child.waitForExit(timeout: .seconds(10))
        await first.stop()
        let names = acknowledged.value
        #expect(child.ended == .signaled(SIGKILL), "log:\n\(first.log)")
        #expect(names.count >= 150)
        #expect(sent.value > names.count, "the kill came after the whole burst")
        let second = try await ServiceProcess.start(arguments, in: directory, name: "second")
        do {
            var missing: [String] = []
            for name in names where !(try await second.client.exists(name)) { missing.append(name) }
            #expect(missing.isEmpty, "acknowledged but lost: \(missing)")
            for name in names.prefix(3) {
                #expect(try await second.client.login(name).statusCode == 200)
            }
            #expect(await second.stop() == .exited(0))
        } catch {
            await second.stop()
            throw error
        }
    }
}

@Suite("auth-service: CURVE", .timeLimit(.minutes(1)))
struct CurveIntegrationTests {
    @Test(
        "SIGHUP reloads allowed_clients: an added key gets in, a bad file changes nothing, a removed key is out"
    )
    func allowListReloadsOnHangup() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let state = try StateDirectory(creating: ServiceProcess.stateDirectory(in: directory))
        let serverKey = try CurveKeyFiles.serverKeys(in: state).publicKey
        let own = try CurveKeyFiles.clientKeys(in: state)
        let newcomer = try CurveKeyPair.generate()
        let service = try await ServiceProcess.start(
            ["--curve", "on"], in: directory, curve: RemoteClient.Curve(serverKey: serverKey, keys: own))
        /// `sys.health` from a new connection with the newcomer's key: nil when it gets in.
        func newcomerCall() async throws -> ErrorCode? {
            let client = try RemoteClient(
                context: service.context,
                configuration: .init(
                    endpoints: [service.endpoint],
                    curve: RemoteClient.Curve(serverKey: serverKey, keys: newcomer)))
            let code = await errorCode(of: client.health(deadline: .milliseconds(500)))
            await client.stop()
            return code
        }
        func reload(_ allowList: String, thenLog line: String) async throws {
            try allowList.write(toFile: state.file("allowed_clients"), atomically: true, encoding: .utf8)
            service.child.send(SIGHUP)
            #expect(
                await waitForFile(service.logPath, containing: line, timeout: .seconds(10)),
                "log:\n\(service.log)")
        }
        do {
            let before = try await newcomerCall()
            #expect(before == .unavailable || before == .timeout)
            try await reload(try Z85.encode(newcomer.publicKey) + " newcomer\n", thenLog: "added=1")
            #expect(try await newcomerCall() == nil)
            try await reload("not a key\n", thenLog: "allow-list reload failed")
            #expect(try await newcomerCall() == nil)
            try await reload("# nobody\n", thenLog: "removed=1")
            let after = try await newcomerCall()
            #expect(after == .unavailable || after == .timeout)
            // The service's own key (what --check uses) is always on the list.
            #expect(try await service.client.health().value.status == .ready)
            #expect(await service.stop() == .exited(0))
        } catch {
            await service.stop()
            throw error
        }
    }

    @Test("a listed key works, an unlisted one does not, --check answers 0 then 2")
    func curve() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let state = try StateDirectory(creating: ServiceProcess.stateDirectory(in: directory))
        let serverKey = try CurveKeyFiles.serverKeys(in: state).publicKey
        let own = try CurveKeyFiles.clientKeys(in: state)
        let listed = try CurveKeyPair.generate()
        let unlisted = try CurveKeyPair.generate()
        try (try Z85.encode(listed.publicKey) + " integration-test\n")
            .write(toFile: state.file("allowed_clients"), atomically: true, encoding: .utf8)
        #expect(
            try String(contentsOfFile: state.file("curve.pub"), encoding: .utf8).contains(
                Z85.encode(serverKey)))

        let service = try await ServiceProcess.start(
            ["--curve", "on"], in: directory, curve: RemoteClient.Curve(serverKey: serverKey, keys: own))
        let checkArguments = [
            "--check", "--curve", "on", "--state-dir", state.path, "--endpoint", service.endpoint,
        ]
        do {
            let listedClient = try RemoteClient(
                context: service.context,
                configuration: .init(
                    endpoints: [service.endpoint],
                    curve: RemoteClient.Curve(serverKey: serverKey, keys: listed)))
            let unlistedClient = try RemoteClient(
                context: service.context,
                configuration: .init(
                    endpoints: [service.endpoint],
                    curve: RemoteClient.Curve(serverKey: serverKey, keys: unlisted)))
            #expect(try await listedClient.register("curve_user").statusCode == 201)
            let refused = await errorCode(of: unlistedClient.health(deadline: .milliseconds(500)))
            #expect(refused == .unavailable || refused == .timeout)
            await listedClient.stop()
            await unlistedClient.stop()
            let (running, output) = try await runAuthService(checkArguments, in: directory)
            #expect(running == .exited(0), "--check: \(output)")
        } catch {
            Issue.record("service log:\n\(service.log)")
            await service.stop()
            throw error
        }
        #expect(await service.stop() == .exited(0))
        let (stopped, _) = try await runAuthService(checkArguments, in: directory)
        #expect(stopped == .exited(2))
    }
}

@Suite("auth-service: operations", .timeLimit(.minutes(1)))
struct OperationsIntegrationTests {
    @Test("sys.stats has the auth, store, hashing and transport groups with plausible counts")
    func stats() async throws {
        try await withService { service, _ in
            let client = service.client
            #expect(try await client.register("stats_user").statusCode == 201)
            #expect(try await client.login("stats_user").statusCode == 200)
            #expect(try await client.login("stats_user", "wrong password").statusCode == 401)
            #expect(try await client.exists("stats_user"))
            let stats: StatsReport = try await client.request(Methods.System.stats).value
            #expect(stats.service == "auth")
            #expect(Set(stats.counters.keys).isSuperset(of: ["auth", "store", "hashing", "transport"]))
            let auth = stats.counters["auth"] ?? [:]
            #expect(auth["registered"] == 1)
            #expect(auth["logins"] == 1)
            #expect(auth["failed_logins"] == 1)
            #expect(auth["exists_answered"] == 1)
            #expect((stats.counters["store"]?["commits"] ?? 0) >= 2)
            // SQLite: one process, its throttle in memory; no shared policy to disagree with.
            #expect(stats.counters["store"]?["throttle_policy_mismatch"] == nil)
            #expect((stats.counters["hashing"]?["completed"] ?? 0) >= 3)
            #expect((stats.counters["transport"]?["frames_in"] ?? 0) >= 5)
        }
    }

    @Test("--help exits 0 listing every option; an unknown flag exits 64")
    func commandLine() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (helped, help) = try await runAuthService(["--help"], in: directory)
        #expect(helped == .exited(0))
        let options = [
            "endpoint", "curve", "database", "synchronous", "hash-cost", "hash-workers", "argon2",
            "hash-queue",
            "token-lifetime", "min-username", "min-password", "login-free-failures", "login-max-delay",
            "login-lock-after", "login-lock-duration", "client-failures-per-minute", "account-free-failures",
            "account-failures-per-minute", "shared-throttle-interval", "device-key", "exists-per-second",
            "exists-burst", "max-streams", "max-streams-per-client", "check", "log-level", "log-format",
            "state-dir", "drain-timeout", "help", "version",
        ]
        for option in options { #expect(help.contains("--\(option)"), "--help lacks --\(option)") }
        let (unknown, _) = try await runAuthService(["--no-such-flag"], in: directory)
        #expect(unknown == .exited(64))
    }

    @Test("auth.events: registered, logged in, failed, in order, without password or token")
    func events() async throws {
        try await withService { service, _ in
            let client = service.client
            let (stream, continuation) = AsyncStream.makeStream(of: JSONValue.self)
            let subscription = client.stream(
                // Decoded as plain JSON: the test reads the wire shape.
                Methods.Auth.events.name, NoParameters(), as: JSONValue.self, deadline: .seconds(60)
            )
            .subscribe(
                onNext: { continuation.yield($0) }, onError: { _ in continuation.finish() },
                onCompleted: { continuation.finish() })
            defer { subscription.dispose() }
            // The subscription is live once an event of a probe registration arrives.
            let live = Locked(false)
            let prober = Task {
                var index = 0
                while !live.value, index < 1_000 {
                    _ = try? await client.register("probe_\(index)")
                    index += 1
                }
            }
            let password = "s3cret-password"
            let (events, token) = try await within(.seconds(20)) {
                var iterator = stream.makeAsyncIterator()
                while let event = await iterator.next() {
                    if event["username"]?.string?.hasPrefix("probe_") == true { break }
                }
                live.withLock { $0 = true }
                await prober.value
                _ = try await client.register("events_user", password)
                let token = try await client.login("events_user", password).user?.userToken ?? "missing"
                _ = try await client.login("events_user", "wrong-password")
                var events: [JSONValue] = []
                while events.count < 3, let event = await iterator.next() {
                    if event["username"]?.string == "events_user" { events.append(event) }
                }
                return (events, token)
            }
            #expect(events.compactMap { $0["kind"]?.string } == ["registered", "logged_in", "failed"])
            for event in events {
                let texts = event.texts
                #expect(!texts.contains { $0.contains(password) || $0.contains("wrong-password") })
                #expect(!texts.contains { $0.contains(token) })
                #expect(
                    !texts.contains {
                        $0.lowercased().contains("password") || $0.lowercased().contains("token")
                    })
            }
        }
    }
}
