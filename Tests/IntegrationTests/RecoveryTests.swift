import Contracts
import Foundation
import ProcessSupport
import Reactive
import RemoteProtocol
import RemoteStreams
import ServiceKit
import TestSupport
import Testing
import ZeroMQ

#if canImport(Glibc)
    import Glibc
#endif

/// Runs `body` with the four binaries started (the gateway with `timings`, and calling
/// hero-catalog-service at `heroesEndpoint` if given), stopping them whatever happens.
private func withRecoveryStack(
    timings: [String] = [], heroesEndpoint: ((TemporaryDirectory) -> String)? = nil,
    _ body: (GatewayStack) async throws -> Void
) async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let stack = try await GatewayStack.start(
        in: directory, timings: timings, heroesEndpoint: heroesEndpoint?(directory))
    do {
        try await body(stack)
    } catch {
        Issue.record("logs:\n\(stack.logs)")
        await stack.stop()
        throw error
    }
    await stack.stop()
}

/// `duration` in seconds with two decimals, for the figures the tests print.
private func seconds(_ duration: Duration) -> String {
    let milliseconds =
        duration.components.seconds * 1_000 + duration.components.attoseconds / 1_000_000_000_000_000
    return String(format: "%.2f", Double(milliseconds) / 1_000)
}

/// Outages seen at once, and services that return picked up at once, through the real binaries
/// (CURVE on, the gateway with its default probe interval and deadline unless said otherwise):
/// each test measures the time from the event (a SIGKILL, a service answering again) to the output
/// that shows it, and prints it as `RECOVERY name=seconds` (docs/services/integration-tests.md).
/// The limits have room for a loaded 2-core machine; the figures are far below them.
@Suite("recovery: outages shown at once, services that return picked up at once", .timeLimit(.minutes(2)))
struct RecoveryTests {
    @Test(
        "validation-service SIGKILLed under a login screen: network.error within 2 s; back: recovered within 1 s"
    )
    func validationKilledUnderALoginScreen() async throws {
        try await withRecoveryStack { stack in
            let phone = "137" + randomDigits(8)
            try await stack.register(phone)
            let login = GatewayFlowSession(stack.client, Methods.Flow.login, FlowParameters())
            defer { login.close() }
            #expect(
                await login.next(5, within: .seconds(15)) == [
                    "phone: empty ", "password: empty ", "loginEnabled: false", "loggingIn: false", "tip: ",
                ])
            login.send(.text(.phone, phone))
            #expect(await login.next(1, within: .seconds(15)) == ["phone: ok "])
            login.send(.text(.password, "secret1"))
            #expect(await login.next(2, within: .seconds(15)) == ["password: ok ", "loginEnabled: true"])

            let killed = ContinuousClock.now
            stack.validation.child.send(SIGKILL)
            let down = await login.next(2, within: .seconds(20))
            let shown = ContinuousClock.now - killed
            #expect(down == ["loginEnabled: false", "tip: network.error 网络或数据解析错误！"])
            #expect(shown <= .seconds(2), "network.error \(seconds(shown)) s after the kill")
            #expect(await stack.validation.child.waitForExit(timeout: .seconds(10)) == .signaled(SIGKILL))

            // Restarted on the same endpoint with the same keys; ready once it answers sys.health.
            let spawned = ContinuousClock.now
            let restarted = try await GatewayStack.startValidation(
                in: stack.directory, auth: stack.auth.endpoint, endpoint: stack.validation.endpoint)
            let answering = ContinuousClock.now
            let back = await login.next(2, within: .seconds(20))
            let recovered = ContinuousClock.now - answering
            #expect(back == ["loginEnabled: true", "tip: "])
            #expect(recovered <= .seconds(1), "recovered \(seconds(recovered)) s after the service answered")
            print(
                "RECOVERY validation_killed_to_network_error=\(seconds(shown))"
                    + " validation_answering_to_recovered=\(seconds(recovered))"
                    + " validation_restart_to_recovered=\(seconds(ContinuousClock.now - spawned))")
            login.send(.tap(.loginTap))
            let tapped = await login.next(3, within: .seconds(15))
            #expect(tapped.first == "loggingIn: true")
            #expect(tapped.last?.hasPrefix("tip: login.ok 登录成功，用户名:\(phone)，标识符:") == true, "\(tapped)")
            await restarted.stop()
        }
    }

    @Test(
        "auth-service SIGKILLed and restarted: register's and sign-in's usernames are checked again by themselves"
    )
    func authKilledUnderRegisterAndSignin() async throws {
        try await withRecoveryStack { stack in
            let existing = "old" + randomDigits(9)
            try await stack.register(existing)
            let register = GatewayFlowSession(stack.client, Methods.Flow.register, FlowParameters())
            defer { register.close() }
            let signin = GatewayFlowSession(stack.client, Methods.Flow.signin, FlowParameters())
            defer { signin.close() }
            #expect(await register.next(7, within: .seconds(15)).count == 7)
            #expect(
                await signin.next(3, within: .seconds(15)) == [
                    "username: empty ", "loginEnabled: false", "loggingIn: false",
                ])

            stack.auth.child.send(SIGKILL)
            #expect(await stack.auth.child.waitForExit(timeout: .seconds(10)) == .signaled(SIGKILL))
            let networkError = "username: failed network.error 网络或数据解析错误！"
            register.send(.text(.username, "new" + randomDigits(9)))
            signin.send(.text(.username, existing))
            let registerDown = await register.next(until: networkError, within: .seconds(20))
            #expect(registerDown.last == networkError, "\(registerDown)")
            let signinDown = await signin.next(until: networkError, within: .seconds(20))
            #expect(signinDown.last == networkError, "\(signinDown)")

            // The same state directory (accounts, keys) and endpoint.
            let spawned = ContinuousClock.now
            let restarted = try await ServiceProcess.start(
                ["--curve", "on"], in: stack.directory, endpoint: stack.auth.endpoint,
                curve: stack.auth.curve,
                name: "auth-restarted")
            let answering = ContinuousClock.now
            let available = "username: ok username.available 用户名可用"
            let registerBack = await register.next(until: available, within: .seconds(20))
            let registerRecovered = ContinuousClock.now - answering
            #expect(
                registerBack.first == "username: validating username.checking 正在检查用户名…", "\(registerBack)")
            #expect(registerBack.last == available, "\(registerBack)")
            let exists = "username: ok username.exists 账户已存在"
            let signinBack = await signin.next(until: exists, within: .seconds(20))
            let signinRecovered = ContinuousClock.now - answering
            #expect(signinBack.last == exists, "\(signinBack)")
            #expect(
                registerRecovered <= .seconds(2),
                "register's username \(seconds(registerRecovered)) s after auth")
            #expect(
                signinRecovered <= .seconds(2), "sign-in's username \(seconds(signinRecovered)) s after auth")
            print(
                "RECOVERY auth_answering_to_register_username=\(seconds(registerRecovered))"
                    + " auth_answering_to_signin_username=\(seconds(signinRecovered))"
                    + " auth_restart_to_both_usernames=\(seconds(ContinuousClock.now - spawned))")
            await restarted.stop()
        }
    }

    /// hero-catalog-service is a stand-in that never answers a search (with the real one's keys), so
    /// a `gateway-cli heroes` run is still waiting when the gateway is killed.
    @Test(
        "gateway SIGKILLed under gateway-cli: a script exits 2 and a screen shows it within 3 s; down at start too; back: the screen returns with its text"
    )
    func gatewayKilledUnderTheCLI() async throws {
        try await withRecoveryStack(
            timings: ["--deadline", "60s"], heroesEndpoint: { "ipc://" + $0.file("stand-in-heroes.sock") }
        ) { stack in
            _ = try CurveKeyFiles.clientKeys(
                in: StateDirectory(creating: stack.cliStateHome + "/reactive-login/gateway-cli"))
            let searched = DispatchSemaphore(value: 0)
            var handlers = RemoteHandlers()
            handlers.handle(Methods.Heroes.search) { (_: HeroSearchRequest) -> Single<HeroSearchResponse> in
                Single<HeroSearchResponse>.never().do(onSubscribed: { searched.signal() })
            }
            handlers.handle(Methods.System.health) { (_: NoParameters) in
                Single.just(HealthReport(service: "heroes", version: "0", status: .ready, reasons: []))
            }
            let context = try Context()
            let standIn = try RemoteServer(
                context: context,
                configuration: .init(
                    endpoints: ["ipc://" + stack.directory.file("stand-in-heroes.sock")],
                    curve: .init(
                        keys: try CurveKeyFiles.serverKeys(
                            in: StateDirectory(creating: stack.directory.file("state-heroes"))),
                        allowList: nil)),
                handlers: handlers)
            // An interactive client on its login screen, and a script waiting for a search.
            let tmux: TmuxSession
            do {
                tmux = try await TmuxSession.start(
                    "unset GATEWAY_CLI_ENDPOINT GATEWAY_CLI_SERVER_KEY GATEWAY_CLI_CURVE GATEWAY_CLI_LANG; "
                        + "HOME=\(shellQuoted(stack.cliStateHome)) XDG_STATE_HOME=\(shellQuoted(stack.cliStateHome)) "
                        + ([try Binaries.path("gateway-cli")] + stack.cliConnection + ["--lang", "en"])
                        .map(shellQuoted).joined(separator: " ")
                        + "; echo \"gateway-cli exited $?\"; exec cat",
                    in: stack.directory)
            } catch {
                await standIn.stop()
                context.terminate()
                throw error
            }
            do {
                try await killTheGateway(stack, tmux: tmux, searched: searched)
            } catch {
                let screen = (try? await tmux.screen()) ?? "(no screen)"
                await tmux.kill()
                await standIn.stop()
                context.terminate()
                throw SupportError("\(error)\nlast screen:\n\(screen)")
            }
            await tmux.kill()
            await standIn.stop()
            context.terminate()
        }
    }

    /// The part of ``gatewayKilledUnderTheCLI()`` after the stand-in and the terminal started.
    private func killTheGateway(_ stack: GatewayStack, tmux: TmuxSession, searched: DispatchSemaphore)
        async throws
    {
        try await tmux.waitFor("> 1  Log in")
        try await tmux.press("Enter")
        try await tmux.waitFor("Reactive login > Log in")
        try await tmux.type("138")
        try await tmux.waitFor("Phone number too short")  // the channel is open and answers

        let script = try stack.startCLI([
            "heroes", "--token", "any", "--query", "tell", "--json", "--lang", "en", "--timeout", "10",
        ])
        let searching = await waitForFile(
            script.standardOutput, containing: #"{"output":"searching","value":true}"#, timeout: .seconds(15))
        #expect(searching)
        #expect(await arrived(searched), "the search never reached the stand-in")

        let killed = ContinuousClock.now
        stack.gateway.child.send(SIGKILL)
        let run = await script.wait(timeout: .seconds(20))
        let exited = ContinuousClock.now - killed
        if run == nil { script.child.send(SIGKILL) }
        let ended = try #require(run)
        #expect(ended.status == .exited(2), "\(ended)")
        let endpoint = stack.gateway.endpoint
        #expect(
            ended.lines.last
                == #"{"result":"unreachable","exit":2,"message":"the gateway is unreachable (the connection "#
                + #"to \#(endpoint) was lost) (is the gateway running at \#(endpoint), with this key?)"}"#,
            "\(ended)")
        #expect(exited <= .seconds(3), "the script exited \(seconds(exited)) s after the kill")
        let shown = try? await tmux.waitFor("Cannot reach the gateway at \(endpoint)", deadline: .seconds(10))
        #expect(shown != nil, "the screen never showed the outage")
        let banner = ContinuousClock.now - killed
        #expect(banner <= .seconds(3), "the screen showed it \(seconds(banner)) s after the kill")

        // Down at start: a script, and a screen opened again.
        let started = ContinuousClock.now
        let down = try await stack.cli(["numbers", "1", "2", "3", "--json", "--lang", "en"])
        let refused = ContinuousClock.now - started
        #expect(down.status == .exited(2), "\(down)")
        #expect(
            down.lines.last
                == #"{"result":"unreachable","exit":2,"message":"the gateway is unreachable (no connection "#
                + #"to \#(endpoint) within 2 s) (is the gateway running at \#(endpoint), with this key?)"}"#,
            "\(down)")
        #expect(refused <= .seconds(3), "a script exited \(seconds(refused)) s after it started")
        try await tmux.press("Escape")
        try await tmux.waitForScreen("the menu") {
            !$0.contains("Cannot reach") && $0.contains("> 1  Log in")
        }
        let reopened = ContinuousClock.now
        try await tmux.press("Enter")
        let shownAtStart = try? await tmux.waitFor(
            "Cannot reach the gateway at \(endpoint)", deadline: .seconds(10))
        #expect(shownAtStart != nil, "a screen opened on a dead gateway never showed the outage")
        let reopenedBanner = ContinuousClock.now - reopened
        #expect(
            reopenedBanner <= .seconds(3), "a screen opened on a dead gateway: \(seconds(reopenedBanner)) s")

        // Typed during the outage, then the gateway returns: the screen comes back by itself with
        // the text, and the gateway's verdict on it.
        try await tmux.type("13")
        try await tmux.waitFor("[13")
        let restarted = try await stack.restartGateway()
        let returned = ContinuousClock.now
        let back = try? await tmux.waitForScreen(
            "the login screen back, with its text", deadline: .seconds(10)
        ) {
            !$0.contains("Cannot reach") && $0.contains("[13") && $0.contains("Phone number too short")
        }
        let resumed = ContinuousClock.now - returned
        await restarted.stop()
        #expect(back != nil, "the screen did not come back when the gateway returned")
        #expect(
            resumed <= .seconds(3), "the screen came back \(seconds(resumed)) s after the gateway started")
        print(
            "RECOVERY gateway_killed_to_cli_exit=\(seconds(exited)) gateway_killed_to_banner=\(seconds(banner))"
                + " gateway_down_cli_exit=\(seconds(refused)) gateway_down_banner=\(seconds(reopenedBanner))"
                + " gateway_back_to_screen=\(seconds(resumed))")
    }
}

/// Waits up to 10 s for a signal, off the cooperative pool.
private func arrived(_ semaphore: DispatchSemaphore) async -> Bool {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(returning: semaphore.wait(timeout: .now() + 10) == .success)
        }
    }
}
