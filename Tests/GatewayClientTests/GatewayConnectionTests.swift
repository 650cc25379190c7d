import Contracts
import GatewayClient
import Reactive
import RemoteProtocol
import RemoteStreams
import Synchronization
import Testing
import ZeroMQ

/// `GatewayConnection` over the real transport (tcp on a random loopback port, CURVE), against
/// the fake gateway's flows and stub commands.
@Suite(.timeLimit(.minutes(1)))
struct GatewayConnectionTests {
    /// The fake gateway's flows plus commands that answer from their parameters.
    static func handlers(onClose: @escaping @Sendable (String) -> Void) -> RemoteHandlers {
        var handlers = FakeGateway.handlers(onClose: onClose)
        handlers.handle(Methods.Command.login) { (command: LoginCommand) in
            Single.just(
                command.password == "secret1"
                    ? CommandResult(ok: true, code: .loginOK, message: "ok", name: command.phone, token: "t1")
                    : CommandResult(ok: false, code: .loginFailed, message: "no"))
        }
        handlers.handle(Methods.Command.register) { (command: RegisterCommand) in
            Single.just(
                CommandResult(
                    ok: command.repeatPassword == nil, code: .registerOK, message: command.username))
        }
        handlers.handle(Methods.Command.signin) { (command: SigninCommand) in
            Single.just(CommandResult(ok: true, code: .loginOK, message: command.locale?.rawValue ?? "-"))
        }
        handlers.handle(Methods.Command.heroesSearch) { (command: HeroesCommand) in
            command.token == "t1"
                ? Single.just(
                    HeroesCommandResult(
                        total: 1, heroes: [FlowHero(id: 1, name: command.query ?? "", intro: "")]))
                : Single.error(RemoteError(code: .unauthenticated, message: "bad token"))
        }
        return handlers
    }

    /// Runs `body` with a connection to a fresh fake gateway.
    /// Runs `body` with a connection to a fresh fake gateway; `closed` yields the flow of every
    /// channel graph the server disposes.
    func withGateway(
        _ body: (GatewayConnection, _ closed: AsyncStream<String>) async throws -> Void
    ) async throws {
        let (closed, closing) = AsyncStream.makeStream(of: String.self)
        let context = try Context()
        let serverKeys = try CurveKeyPair.generate()
        let server = try RemoteServer(
            context: context,
            configuration: .init(
                endpoints: ["tcp://127.0.0.1:*"], curve: .init(keys: serverKeys, allowList: nil)),
            handlers: Self.handlers { flow in closing.yield(flow) })
        let connection = try GatewayConnection(
            configuration: .init(
                endpoint: server.endpoints[0],
                curve: .init(serverKey: serverKeys.publicKey, keys: try CurveKeyPair.generate()),
                deadline: .seconds(5), channelDeadline: .seconds(5)),
            context: context)
        do {
            try await body(connection, closed)
        } catch {
            await connection.stop()
            await server.stop()
            throw error
        }
        await connection.stop()
        await server.stop()
    }

    @Test func commands() async throws {
        try await withGateway { gateway, _ in
            let login = try await gateway.login(LoginCommand(phone: "138", password: "secret1")).value
            #expect(login == CommandResult(ok: true, code: .loginOK, message: "ok", name: "138", token: "t1"))
            let refused = try await gateway.login(LoginCommand(phone: "138", password: "x")).value
            #expect(!refused.ok)
            let register = try await gateway.register(RegisterCommand(username: "ann", password: "p")).value
            #expect(register.ok && register.message == "ann")
            let signin = try await gateway.signin(
                SigninCommand(username: "a", password: "p", locale: .zhHant)
            ).value
            #expect(signin.message == "zh-Hant")
            let heroes = try await gateway.searchHeroes(HeroesCommand(token: "t1", query: "bat")).value
            #expect(
                heroes == HeroesCommandResult(total: 1, heroes: [FlowHero(id: 1, name: "bat", intro: "")]))
            await #expect(throws: RemoteError.self) {
                _ = try await gateway.searchHeroes(HeroesCommand(token: "old")).value
            }
        }
    }

    @Test func scriptOverAChannel() async throws {
        try await withGateway { gateway, closed in
            let scheduler = SerialScheduler(name: "test.script")
            defer { scheduler.dispose() }
            let events = try await collect(
                ScriptRunner.run(
                    SigninScript(username: "ann2024", password: "secret1", locale: .en),
                    open: gateway.openFlow,
                    timeout: .seconds(5), scheduler: scheduler))
            guard case .finished(let result)? = events.last else {
                Issue.record("no result: \(events)")
                return
            }
            #expect(result.token == "tok-ann2024")
            #expect(events.first == .output(FlowOutput(.username, state: .empty)))
            // The script's end disposed the channel: its CANCEL reached the server, which disposed
            // the graph (the channel itself never ends on its own).
            var iterator = closed.makeAsyncIterator()
            #expect(await iterator.next() == Methods.Flow.signin.name)
        }
    }

    /// Every event of `sequence` once it completes; its error, thrown.
    func collect(_ sequence: Observable<ScriptEvent>) async throws -> [ScriptEvent] {
        let events = Mutex<[ScriptEvent]>([])
        return try await withCheckedThrowingContinuation { continuation in
            _ = sequence.subscribe(
                onNext: { event in events.withLock { $0.append(event) } },
                onError: { continuation.resume(throwing: $0) },
                onCompleted: { continuation.resume(returning: events.withLock { $0 }) })
        }
    }
}
