import Contracts
import GatewayCore
import Reactive
import ReactiveTestKit
import RemoteProtocol
import Synchronization
import Testing

/// Device tokens through the gateway: a channel's `device_tokens` and a command's `device_token`
/// reach `auth.login` for the name logged in as, and the one a login answers comes back out.
@Suite("GatewayService: device tokens", .timeLimit(.minutes(1)))
struct DeviceTokenTests {
    static let tokens = ["13800000000": "dev-phone", "alice": "dev-alice", "someone-else": "dev-other"]

    @Test func loginPresentsTheTokenForItsPhoneAndTheTipCarriesTheAnswer() {
        let run = FlowRun.run(
            Methods.Flow.login, FlowParameters(locale: .en, deviceTokens: Self.tokens),
            inputs: [
                .next(200, .text(.phone, "13800000000")), .next(210, .text(.password, "secret1")),
                .next(230, .tap(.loginTap)),
            ])
        let tip = run.at(243).last
        #expect(tip?.code == .loginOK)
        #expect(tip?.token == "t1")
        #expect(tip?.deviceToken == "dev-phone")
        // The rendered text never shows it.
        #expect(tip?.message?.contains("dev-") == false)
    }

    @Test func signinPresentsTheTokenForItsUsernameAndTheSessionCarriesTheAnswer() {
        let run = FlowRun.run(
            Methods.Flow.signin, FlowParameters(deviceTokens: Self.tokens),
            inputs: [
                .next(200, .text(.username, "alice")), .next(210, .text(.password, "secret1")),
                .next(230, .tap(.loginTap)),
            ])
        #expect(
            run.at(243).last
                == FlowOutput(.session, name: "ann", token: "t1", deviceToken: "dev-alice"))
    }

    @Test func withoutATokenForTheNameNoneIsSent() {
        let run = FlowRun.run(
            Methods.Flow.signin, FlowParameters(deviceTokens: ["bob": "dev-bob"]),
            inputs: [
                .next(200, .text(.username, "alice")), .next(210, .text(.password, "secret1")),
                .next(230, .tap(.loginTap)),
            ])
        #expect(run.at(243).last == FlowOutput(.session, name: "ann", token: "t1"))
    }

    @Test func tooManyOrOversizeTokensAreRefusedAtOpen() {
        let many = Dictionary(uniqueKeysWithValues: (0...64).map { ("user\($0)", "t") })
        let huge = ["alice": String(repeating: "x", count: 257)]
        for tokens in [many, huge] {
            let run = FlowRun.run(Methods.Flow.login, FlowParameters(deviceTokens: tokens), inputs: [])
            guard case .error(let error) = run.outputs.events.first?.value else {
                Issue.record("expected bad_request at open, got \(run.lines)")
                continue
            }
            #expect((error as? RemoteError)?.code == .badRequest)
        }
        let limit = Dictionary(uniqueKeysWithValues: (0..<64).map { ("user\($0)", "t") })
        let run = FlowRun.run(Methods.Flow.login, FlowParameters(deviceTokens: limit), inputs: [])
        #expect(run.lines.first == "101 phone: empty ")
    }

    @Test func commandsPassTheTokenOnAndAnswerIt() throws {
        let scheduler = TestScheduler(initialClock: 0)
        let service = GatewayService(
            auth: GatewayStubAuth(scheduler: scheduler), validation: GatewayStubValidation(),
            heroes: GatewayStubCatalog(scheduler: scheduler), scheduler: scheduler)
        let answers = Mutex<[CommandResult]>([])
        let record: @Sendable (CommandResult) -> Void = { result in answers.withLock { $0.append(result) } }
        _ = service.login(
            LoginCommand(phone: "13800000000", password: "secret1", deviceToken: "dev-phone"), client: "c"
        ).subscribe(onSuccess: record)
        _ = service.signin(
            SigninCommand(username: "alice", password: "secret1", deviceToken: "dev-alice"), client: "c"
        ).subscribe(onSuccess: record)
        _ = service.signin(SigninCommand(username: "alice", password: "wrong-1"), client: "c")
            .subscribe(onSuccess: record)
        scheduler.start()
        let results = answers.withLock { $0 }
        #expect(results.map(\.deviceToken) == ["dev-phone", "dev-alice", nil])
        #expect(results.map(\.ok) == [true, true, false])
    }

    @Test func theWireNamesAreSnakeCaseAndOptional() throws {
        let coder = JSONBodyCoder.shared
        func text<Value: Encodable>(_ value: Value) throws -> String {
            String(decoding: try coder.encode(value), as: UTF8.self)
        }
        let parameters = try text(FlowParameters(locale: .en, deviceTokens: ["ann": "d1"]))
        #expect(parameters.contains(#""device_tokens":{"ann":"d1"}"#))
        #expect(
            try text(FlowOutput(.session, name: "ann", token: "t", deviceToken: "d")).contains(
                #""device_token":"d""#))
        #expect(
            try text(LoginCommand(phone: "1", password: "p", deviceToken: "d")).contains(
                #""device_token":"d""#))
        #expect(
            try text(SigninCommand(username: "u", password: "p", deviceToken: "d")).contains(
                #""device_token":"d""#))
        #expect(
            try text(LoginRequest(username: "u", password: "p", deviceToken: "d")).contains(
                #""device_token":"d""#))
        #expect(
            try text(CommandResult(ok: true, code: .loginOK, message: "m", deviceToken: "d")).contains(
                #""device_token":"d""#))
        let user = LoginResponse.User(name: "ann", userToken: "t", deviceToken: "d")
        #expect(try text(user) == #"{"name":"ann","user_token":"t","device_token":"d"}"#)
        // Bodies of clients that know nothing of device tokens still decode, and absent stays absent.
        let old = try coder.decode(LoginRequest.self, from: Array(#"{"username":"u","password":"p"}"#.utf8))
        #expect(old.deviceToken == nil)
        let oldUser = try coder.decode(
            LoginResponse.User.self, from: Array(#"{"name":"ann","user_token":"t"}"#.utf8))
        #expect(oldUser.deviceToken == nil)
        #expect(try text(LoginRequest(username: "u", password: "p")).contains("device") == false)
        let oldParameters = try coder.decode(FlowParameters.self, from: Array(#"{"locale":"en"}"#.utf8))
        #expect(oldParameters.deviceTokens == nil)
    }
}
