import Contracts
import Foundation
import ProcessSupport
import Reactive
import RemoteProtocol
import RemoteStreams
import ServiceKit
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The texts a screen shows, per locale (docs/gateway/protocol.md; MessageCatalogue).
private struct Texts: Sendable {
    let checking, available, passwordOK, mismatch, exists, registerOK: String
    let phoneShort, loginFailed, networkError: String
    /// login.ok with `{name}` and `<token>` in place.
    let loginOK: @Sendable (String) -> String

    static let all: [MessageLocale: Texts] = [
        .zhHans: Texts(
            checking: "正在检查用户名…", available: "用户名可用", passwordOK: "密码可用", mismatch: "两次密码不一样",
            exists: "账户已存在", registerOK: "注册成功", phoneShort: "号码长度不足", loginFailed: "登录失败 密码错误",
            networkError: "网络或数据解析错误！", loginOK: { "登录成功，用户名:\($0)，标识符:<token>" }),
        .zhHant: Texts(
            checking: "正在檢查使用者名稱…", available: "使用者名稱可用", passwordOK: "密碼可用", mismatch: "兩次輸入的密碼不一致",
            exists: "帳戶已存在", registerOK: "註冊成功", phoneShort: "號碼長度不足", loginFailed: "登入失敗 密碼錯誤",
            networkError: "網路或資料解析錯誤！", loginOK: { "登入成功，使用者名稱:\($0)，識別碼:<token>" }),
        .en: Texts(
            checking: "Checking username…", available: "Username available",
            passwordOK: "Password acceptable",
            mismatch: "The two passwords differ", exists: "Account already exists",
            registerOK: "Registration succeeded", phoneShort: "Phone number too short",
            loginFailed: "Login failed: Wrong password", networkError: "Network or data parsing error!",
            loginOK: { "Login succeeded, user: \($0), token: <token>" }),
    ]
}

extension GatewayFlowSession {
    /// Reads as many outputs as `expected` has (session tokens shown as `<token>`) and expects exactly
    /// those.
    fileprivate func expect(_ expected: [String], sourceLocation: SourceLocation = #_sourceLocation) async {
        let got = await next(expected.count).map(Self.redactingTokens)
        #expect(got == expected, sourceLocation: sourceLocation)
    }

    /// `line` with the token after `标识符:`, `識別碼:` or `token: ` replaced by `<token>`.
    static func redactingTokens(_ line: String) -> String {
        for marker in ["标识符:", "識別碼:", "token: "] {
            guard let range = line.range(of: marker) else { continue }
            return line[..<range.upperBound] + "<token>"
        }
        return line
    }
}

/// Runs `body` with the four binaries started, stopping them whatever happens.
private func withGatewayStack(_ body: (GatewayStack) async throws -> Void) async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let stack = try await GatewayStack.start(in: directory)
    do {
        try await body(stack)
    } catch {
        Issue.record("logs:\n\(stack.logs)")
        await stack.stop()
        throw error
    }
    await stack.stop()
}

@Suite("gateway: the four binaries end to end", .timeLimit(.minutes(2)))
struct GatewayIntegrationTests {
    @Test("flow.register then flow.login, CURVE everywhere, in all three locales")
    func registerAndLoginInEveryLocale() async throws {
        try await withGatewayStack { stack in
            for (index, locale) in [MessageLocale.zhHans, .zhHant, .en].enumerated() {
                let texts = try #require(Texts.all[locale])
                let phone = "1380013800\(index)"
                let register = GatewayFlowSession(
                    stack.client, Methods.Flow.register, FlowParameters(locale: locale))
                await register.expect([
                    "username: empty ", "password: empty ", "repeatPassword: empty ",
                    "passwordEnabled: false",
                    "repeatEnabled: false", "registerEnabled: false", "registering: false",
                ])
                register.send(.text(.username, phone))
                await register.expect([
                    "username: validating username.checking \(texts.checking)",
                    "username: ok username.available \(texts.available)", "passwordEnabled: true",
                ])
                register.send(.text(.password, "secret1"))
                await register.expect(["password: ok password.ok \(texts.passwordOK)", "repeatEnabled: true"])
                register.send(.text(.repeatPassword, "secret"))
                await register.expect(["repeatPassword: failed repeat.mismatch \(texts.mismatch)"])
                register.send(.text(.repeatPassword, "secret1"))
                await register.expect(["repeatPassword: ok ", "registerEnabled: true"])
                register.send(.tap(.registerTap))
                await register.expect([
                    "registerEnabled: false", "registering: true",
                    "username: failed username.exists \(texts.exists)",
                    "passwordEnabled: false", "registering: false",
                    "alert: success register.ok \(texts.registerOK)",
                ])
                register.close()

                let login = GatewayFlowSession(
                    stack.client, Methods.Flow.login, FlowParameters(locale: locale))
                await login.expect([
                    "phone: empty ", "password: empty ", "loginEnabled: false", "loggingIn: false", "tip: ",
                ])
                login.send(.text(.phone, "138"))
                await login.expect([
                    "phone: failed phone.short \(texts.phoneShort)", "tip: phone.short \(texts.phoneShort)",
                ])
                login.send(.text(.phone, phone))
                await login.expect(["phone: ok ", "tip: "])
                login.send(.text(.password, "secret1"))
                await login.expect(["password: ok ", "loginEnabled: true"])
                login.send(.tap(.loginTap))
                await login.expect([
                    "loggingIn: true", "loggingIn: false", "tip: login.ok \(texts.loginOK(phone))",
                ])
                login.send(.text(.password, "secret2"))
                await login.expect(["tip: "])
                login.send(.tap(.loginTap))
                await login.expect([
                    "loggingIn: true", "loggingIn: false", "tip: login.failed \(texts.loginFailed)",
                ])
                login.close()
            }
        }
    }

    @Test(
        "validation-service killed mid-flow: network.error and degraded; restarted: the flow recovers by itself"
    )
    func validationOutage() async throws {
        try await withGatewayStack { stack in
            let made = try await stack.client.request(
                Methods.Command.register, RegisterCommand(username: "13900139000", password: "secret1")
            ).value
            #expect(made == CommandResult(ok: true, code: .registerOK, message: "注册成功"))
            let login = GatewayFlowSession(stack.client, Methods.Flow.login, FlowParameters())
            await login.expect([
                "phone: empty ", "password: empty ", "loginEnabled: false", "loggingIn: false", "tip: ",
            ])
            login.send(.text(.phone, "13900139000"))
            await login.expect(["phone: ok "])
            login.send(.text(.password, "secret1"))
            await login.expect(["password: ok ", "loginEnabled: true"])

            stack.validation.child.send(SIGKILL)
            #expect(await stack.validation.child.waitForExit(timeout: .seconds(10)) != nil)
            await login.expect(["loginEnabled: false", "tip: network.error 网络或数据解析错误！"])
            // The probe that failed the channel marks the gateway degraded in the same round.
            var health = try await stack.client.request(
                Methods.System.health
            )
            .value
            let end = ContinuousClock.now + .seconds(5)
            while health.status != .degraded, ContinuousClock.now < end {
                health = try await stack.client.request(
                    Methods.System.health
                )
                .value
            }
            #expect(health.status == .degraded, "\(health)")
            #expect(health.reasons.contains { $0.contains("validation-service") }, "\(health)")

            // Restarted on the same endpoint, with the same keys: the flow reopens its channel and
            // validates the latest texts again, with nothing sent by the client.
            let restarted = try await GatewayStack.startValidation(
                in: stack.directory, auth: stack.auth.endpoint, endpoint: stack.validation.endpoint)
            await login.expect(["loginEnabled: true", "tip: "])
            login.send(.tap(.loginTap))
            await login.expect([
                "loggingIn: true", "loggingIn: false", "tip: login.ok 登录成功，用户名:13900139000，标识符:<token>",
            ])
            login.close()
            await restarted.stop()
        }
    }

    @Test("commands: login, signin and heroes.search with the session's token; bad input is bad_request")
    func commands() async throws {
        try await withGatewayStack { stack in
            let client = stack.client
            let made = try await client.request(
                Methods.Command.register,
                RegisterCommand(username: "heroes_fan", password: "secret1", locale: .en)
            ).value
            #expect(made == CommandResult(ok: true, code: .registerOK, message: "Registration succeeded"))
            let signedIn = try await client.request(
                Methods.Command.signin,
                SigninCommand(username: "heroes_fan", password: "secret1", locale: .en)
            ).value
            let token = try #require(signedIn.token)
            #expect(signedIn.ok && signedIn.name == "heroes_fan" && signedIn.code == .loginOK)
            let page = try await client.request(
                Methods.Command.heroesSearch, HeroesCommand(token: token, limit: 3, locale: .en)
            ).value
            #expect(page.total > 3 && page.heroes.count == 3)
            let heroes = GatewayFlowSession(
                client, Methods.Flow.heroes, FlowParameters(locale: .en, token: token))
            await heroes.expect(["heroes: 0 heroes", "total: 0", "error: ", "searching: false"])
            heroes.send(.text(.searchText, ""))
            await heroes.expect([
                "searching: true",
                "heroes: \(min(50, page.total)) heroes for \"\" page 0 (\(page.total) in all)",
                "total: \(page.total)",
                "searching: false",
            ])
            heroes.close()
            let noToken = GatewayFlowSession(client, Methods.Flow.heroes, FlowParameters())
            let refusal = await noToken.next(1)
            #expect(
                refusal.first?.hasPrefix("error bad_request: flow.heroes needs a token") == true, "\(refusal)"
            )
            let wrong = try await client.request(
                Methods.Command.login,
                LoginCommand(phone: "13800000000", password: "secret9", locale: .zhHant)
            ).value
            #expect(wrong.ok == false)
            let short = try await client.request(
                Methods.Command.login, LoginCommand(phone: "138", password: "secret9", locale: .en)
            ).value
            #expect(short == CommandResult(ok: false, code: .phoneShort, message: "Phone number too short"))
            do {
                _ = try await client.request(
                    Methods.Command.heroesSearch, HeroesCommand(token: "not-a-token")
                ).value
                Issue.record("a bad token was accepted")
            } catch let error as RemoteError {
                #expect(error.code == .unauthenticated)
            }
            let stats = try await client.request(Methods.System.stats)
                .value
            #expect(stats.counters["commands"]?[Methods.Command.login.name] == 2, "\(stats)")
        }
    }

    @Test("--clients allow-list lets in only listed keys; --check answers 0; SIGTERM ends open flows")
    func allowListCheckAndDrain() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let listedState = try StateDirectory(creating: directory.file("listed-client"))
        let listed = try CurveKeyFiles.clientKeys(in: listedState)
        let stack = try await GatewayStack.start(
            in: directory, gatewayArguments: ["--clients", "allow-list"],
            allowedEndClients: [listed.publicKey])
        do {
            let gatewayKey = try CurveKeyFiles.serverKeys(
                in: try StateDirectory(creating: stack.gateway.stateDirectory)
            ).publicKey
            // The stack's own end client has a key nobody listed: the handshake never completes.
            let stranger = try? await stack.client.request(
                Methods.System.health, deadline: .milliseconds(500)
            ).value
            #expect(stranger == nil)
            let listedClient = try RemoteClient(
                context: stack.context,
                configuration: .init(
                    endpoints: [stack.gateway.endpoint], deadline: .seconds(10), name: "listed",
                    curve: RemoteClient.Curve(serverKey: gatewayKey, keys: listed)))
            let health = try await listedClient.request(
                Methods.System.health
            )
            .value
            #expect(health.status == .ready, "\(health)")

            let output = directory.file("check.out")
            let check = try ChildProcess(
                executable: try Binaries.path("gateway"),
                arguments: [
                    "--check", "--state-dir", stack.gateway.stateDirectory, "--endpoint",
                    stack.gateway.endpoint,
                ],
                standardOutput: output, standardError: output + ".err")
            #expect(await check.waitForExit(timeout: .seconds(15)) == .exited(0))
            #expect((try? String(contentsOfFile: output, encoding: .utf8))?.contains("ready") == true)

            let numbers = GatewayFlowSession(listedClient, Methods.Flow.numbers, FlowParameters())
            await numbers.expect(["sum: 0"])
            stack.gateway.child.send(SIGTERM)
            await numbers.expect(["error unavailable: the server is shutting down"])
            #expect(await stack.gateway.child.waitForExit(timeout: .seconds(15)) == .exited(0))
            await listedClient.stop()
        } catch {
            Issue.record("logs:\n\(stack.logs)")
            await stack.stop()
            throw error
        }
        await stack.stop()
    }
}
