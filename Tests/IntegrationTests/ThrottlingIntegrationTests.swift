import Contracts
import Foundation
import RemoteStreams
import ServiceKit
import Testing
import ZeroMQ

#if canImport(Glibc)
    import Glibc
#endif

/// The account's shared budget of guesses against the real binaries (docs/security/throttling.md):
/// what a client that reconnects to get fresh identities gets through, and what the owner, with
/// its device token, still does.
@Suite("throttling: the account's budget and device tokens, real binaries", .timeLimit(.minutes(2)))
struct ThrottlingIntegrationTests {
    /// auth-service's defaults: what one account takes from clients without its device token.
    static let freeFailures = 10
    static let perMinute = 3

    @Test(
        "through the gateway, a new connection every 3 guesses: only the account's budget reaches the hash; the owner's device still logs in"
    )
    func reconnectingAttackThroughTheGateway() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let stack = try await GatewayStack.start(in: directory)
        do {
            try await attack(stack, directory)
        } catch {
            Issue.record("logs:\n\(stack.logs)")
            await stack.stop()
            throw error
        }
        await stack.stop()
    }

    private func attack(_ stack: GatewayStack, _ directory: TemporaryDirectory) async throws {
        let phone = "13800138077"
        let made: CommandResult = try await stack.client.request(
            Methods.Command.register, RegisterCommand(username: phone, password: "secret1", locale: .en)
        ).value
        #expect(made.ok, "\(made)")
        // The owner logs in once from its device and keeps the token the login answers.
        let first: CommandResult = try await stack.client.request(
            Methods.Command.login, LoginCommand(phone: phone, password: "secret1", locale: .en)
        ).value
        #expect(first.ok, "\(first)")
        let deviceToken = try #require(first.deviceToken)

        // The attacker: any CURVE key gets into the gateway, so every connection is a new client.
        let gatewayKey = try CurveKeyFiles.publicKey(at: directory.file("state-gateway/curve.pub"))
        // 300 guesses; with THROTTLE_ATTACK_SECONDS set, as many as that many seconds allow (to
        // measure the sustained rate: docs/security/throttling.md).
        let window = ProcessInfo.processInfo.environment["THROTTLE_ATTACK_SECONDS"].flatMap(Double.init)
            .map { Duration.milliseconds(Int($0 * 1_000)) }
        let perConnection = 3
        var codes: [MessageCode] = []
        let start = ContinuousClock.now
        var connection = 0
        while window.map({ ContinuousClock.now - start < $0 }) ?? (codes.count < 300) {
            defer { connection += 1 }
            let attacker = try RemoteClient(
                context: stack.context,
                configuration: .init(
                    endpoints: [stack.gateway.endpoint], deadline: .seconds(10),
                    name: "attacker-\(connection)",
                    curve: RemoteClient.Curve(serverKey: gatewayKey, keys: try CurveKeyPair.generate())))
            for guess in 0..<perConnection {
                let answer: CommandResult = try await attacker.request(
                    Methods.Command.login,
                    LoginCommand(phone: phone, password: "guess-\(connection)-\(guess)", locale: .en)
                ).value
                codes.append(answer.code)
            }
            await attacker.stop()
        }
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let guesses = codes.count
        let reached = codes.filter { $0 == .loginFailed }.count
        let throttled = codes.filter { $0 == .loginThrottled }.count
        print(
            "reconnecting attack: \(guesses) guesses over \(connection) connections in "
                + String(format: "%.1f s", seconds) + ": \(reached) reached the hash ("
                + String(format: "%.0f", Double(reached) / seconds * 60)
                + " a minute), \(throttled) throttled")
        #expect(reached + throttled == guesses, "other answers: \(Set(codes))")
        // The free attempts, and what grew back while the attack ran: nothing more.
        let budget = Self.freeFailures + Int(seconds / 60 * Double(Self.perMinute))
        #expect(reached >= Self.freeFailures)
        #expect(
            reached <= budget, "\(reached) guesses reached the hash in \(seconds) s; the budget is \(budget)")

        // The budget is spent for every client without the device token, the owner's new ones too…
        let ownerElsewhere = try RemoteClient(
            context: stack.context,
            configuration: .init(
                endpoints: [stack.gateway.endpoint], deadline: .seconds(10), name: "owner-phone",
                curve: RemoteClient.Curve(serverKey: gatewayKey, keys: try CurveKeyPair.generate())))
        let refused: CommandResult = try await ownerElsewhere.request(
            Methods.Command.login, LoginCommand(phone: phone, password: "secret1", locale: .en)
        ).value
        #expect(refused.code == .loginThrottled, "\(refused)")
        // …but the owner's device logs in, from a new connection as from its old one.
        let again: CommandResult = try await ownerElsewhere.request(
            Methods.Command.login,
            LoginCommand(phone: phone, password: "secret1", locale: .en, deviceToken: deviceToken)
        ).value
        #expect(again.ok, "\(again)")
        #expect(again.deviceToken == deviceToken)
        await ownerElsewhere.stop()

        // auth-service's own count agrees: only those guesses were verified.
        let stats: StatsReport = try await stack.auth.client.request(Methods.System.stats)
            .value
        let auth = stats.counters["auth"] ?? [:]
        #expect(auth["failed_logins"] == reached)
        #expect(auth["budget_spent"] == throttled + 1)
        #expect(auth["device_logins"] == 1)
        #expect(auth["logins"] == 2)
    }

    @Test("a device token survives an auth-service restart; the budget holds against fresh client names")
    func deviceTokenAcrossARestart() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let arguments = ["--account-free-failures", "5"]
        let first = try await ServiceProcess.start(arguments, in: directory, name: "first")
        let deviceToken: String
        do {
            #expect(try await first.client.register("owner_account").statusCode == 201)
            let login = try await login(first.client, "owner_account", "correct horse", client: "owner-1")
            #expect(login.statusCode == 200)
            deviceToken = try #require(login.user?.deviceToken)
            #expect(await first.stop() == .exited(0))
        } catch {
            Issue.record("log:\n\(first.log)")
            await first.stop()
            throw error
        }
        var status = stat()
        #expect(stat(directory.file("state/device.key"), &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)

        let second = try await ServiceProcess.start(arguments, in: directory, name: "second")
        do {
            var statuses: [Int] = []
            for guess in 0..<12 {
                statuses.append(
                    try await login(
                        second.client, "owner_account", "guess \(guess)", client: "attacker-\(guess)"
                    )
                    .statusCode)
            }
            #expect(statuses == Array(repeating: 401, count: 5) + Array(repeating: 429, count: 7))
            #expect(
                try await login(second.client, "owner_account", "correct horse", client: "owner-2").statusCode
                    == 429)
            let owner = try await login(
                second.client, "owner_account", "correct horse", client: "owner-2", deviceToken: deviceToken)
            #expect(owner.statusCode == 200)
            #expect(owner.user?.deviceToken == deviceToken)
            // A token of another account, or a garbled one, is as none.
            let garbled = try await login(
                second.client, "owner_account", "correct horse", client: "owner-3",
                deviceToken: String(deviceToken.reversed()))
            #expect(
                garbled
                    == LoginResponse(
                        statusCode: 429, message: .loginThrottled, retryAfter: garbled.retryAfter))
            #expect(await second.stop() == .exited(0))
        } catch {
            Issue.record("log:\n\(second.log)")
            await second.stop()
            throw error
        }
    }

    private func login(
        _ client: RemoteClient, _ name: String, _ password: String, client end: String,
        deviceToken: String? = nil
    ) async throws -> LoginResponse {
        try await client.request(
            Methods.Auth.login,
            LoginRequest(username: name, password: password, client: end, deviceToken: deviceToken)
        ).value
    }
}
