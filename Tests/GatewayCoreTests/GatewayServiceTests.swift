import Contracts
import GatewayCore
import Reactive
import ReactiveTestKit
import RemoteProtocol
import Synchronization
import Testing

/// One flow channel run on a test scheduler: opened at 100, closed at `closed`.
struct FlowRun {
    let scheduler: TestScheduler
    let service: GatewayService
    let validation: GatewayStubValidation
    let outputs: TestableObserver<FlowOutput>

    /// The events as `time output` lines, for readable failures.
    var lines: [String] {
        outputs.events.map { recorded in
            switch recorded.value {
            case .next(let output): "\(recorded.time) \(output)"
            case .error(let error): "\(recorded.time) error \(error)"
            case .completed: "\(recorded.time) completed"
            }
        }
    }

    /// The outputs sent at `time`.
    func at(_ time: TestTime) -> [FlowOutput] {
        outputs.events.compactMap { recorded in
            guard recorded.time == time, case .next(let output) = recorded.value else { return nil }
            return output
        }
    }

    static func run(
        _ method: FlowMethod, _ parameters: FlowParameters = FlowParameters(),
        inputs: [Recorded<Event<FlowInput>>], closed: TestTime = 1_000,
        configure: (GatewayStubValidation, TestScheduler) -> Void = { _, _ in }
    ) -> FlowRun {
        let scheduler = TestScheduler(initialClock: 0)
        let validation = GatewayStubValidation()
        let service = GatewayService(
            auth: GatewayStubAuth(scheduler: scheduler), validation: validation,
            heroes: GatewayStubCatalog(scheduler: scheduler),
            settings: .init(reopenAfter: .seconds(50), heroesThrottle: .seconds(3)), scheduler: scheduler)
        let run = FlowRun(
            scheduler: scheduler, service: service, validation: validation,
            outputs: scheduler.createObserver(FlowOutput.self))
        configure(validation, scheduler)
        let input = scheduler.createHotObservable(inputs).asObservable()
        let channel = SerialDisposable()
        scheduler.scheduleAt(100) {
            channel.disposable = service.flow(method, parameters: parameters, input: input, client: "c1")
                .subscribe(run.outputs)
        }
        scheduler.scheduleAt(closed) { channel.dispose() }
        scheduler.start()
        return run
    }
}

private let loginTyping: [Recorded<Event<FlowInput>>] = [
    .next(200, .text(.phone, "138")), .next(210, .text(.phone, "13800000000")),
    .next(220, .text(.password, "secret1")), .next(230, .tap(.loginTap)),
    .next(300, .text(.password, "secret")), .next(310, .tap(.loginTap)),
]

@Suite("GatewayService flows", .timeLimit(.minutes(1)))
struct GatewayServiceFlowTests {
    @Test func loginSendsEveryInitialValueThenOnlyChanges() {
        let run = FlowRun.run(Methods.Flow.login, inputs: loginTyping)
        #expect(
            run.lines == [
                "101 phone: empty ", "101 password: empty ", "101 loginEnabled: false",
                "101 loggingIn: false",
                "101 tip: ",
                "202 phone: failed phone.short 号码长度不足", "202 tip: phone.short 号码长度不足",
                "212 phone: ok ", "212 tip: ",
                "222 password: ok ", "222 loginEnabled: true",
                "231 loggingIn: true", "243 loggingIn: false", "243 tip: login.ok 登录成功，用户名:ann，标识符:t1 ann",
                "301 tip: ",
                "311 loggingIn: true", "323 loggingIn: false", "323 tip: login.failed 登录失败 密码错误",
            ])
        #expect(run.at(101).first == FlowOutput(.phone, state: .empty, message: ""))
        #expect(
            run.at(243).last
                == FlowOutput(
                    .tip, code: .loginOK, message: "登录成功，用户名:ann，标识符:t1", name: "ann", token: "t1"))
        // Closing the channel disposed the whole graph, the validation channel included.
        #expect(run.service.counters.channelsOpen == [Methods.Flow.login.name: 0])
        #expect(run.validation.open == 0)
    }

    @Test(arguments: [
        (
            MessageLocale.en, "Phone number too short", "Login succeeded, user: ann, token: t1",
            "Login failed: Wrong password"
        ),
        (MessageLocale.zhHant, "號碼長度不足", "登入成功，使用者名稱:ann，識別碼:t1", "登入失敗 密碼錯誤"),
    ])
    func loginRendersInTheChannelsLocale(locale: MessageLocale, short: String, ok: String, failed: String) {
        let run = FlowRun.run(Methods.Flow.login, FlowParameters(locale: locale), inputs: loginTyping)
        #expect(run.at(202).last == FlowOutput(.tip, code: .phoneShort, message: short))
        #expect(
            run.at(243).last
                == FlowOutput(.tip, code: .loginOK, message: ok, name: "ann", token: "t1"))
        #expect(run.at(323).last == FlowOutput(.tip, code: .loginFailed, message: failed))
    }

    @Test func aTapWhileDisabledIsIgnored() {
        let run = FlowRun.run(
            Methods.Flow.login, inputs: [.next(200, .text(.phone, "138")), .next(210, .tap(.loginTap))])
        #expect(!run.lines.contains { $0.contains("loggingIn: true") })
    }

    @Test func registerInEnglish() {
        let run = FlowRun.run(
            Methods.Flow.register, FlowParameters(locale: .en),
            inputs: [
                .next(200, .text(.username, "ann")), .next(210, .text(.password, "secret1")),
                .next(220, .text(.repeatPassword, "secret1")), .next(230, .tap(.registerTap)),
                .next(235, .tap(.registerTap)),
            ])
        #expect(
            run.lines == [
                "101 username: empty ", "101 password: empty ", "101 repeatPassword: empty ",
                "101 passwordEnabled: false", "101 repeatEnabled: false", "101 registerEnabled: false",
                "101 registering: false",
                "202 username: ok username.available Username available", "202 passwordEnabled: true",
                "212 password: ok ", "212 repeatEnabled: true",
                "222 repeatPassword: ok ", "222 registerEnabled: true",
                "231 registerEnabled: false", "231 registering: true",
                "243 username: failed username.exists Account already exists", "243 passwordEnabled: false",
                "243 registering: false", "243 alert: success register.ok Registration succeeded",
            ])
        #expect(
            run.at(243).last
                == FlowOutput(
                    .alert, code: .registerOK, message: "Registration succeeded", kind: .success))
    }

    @Test func signinInTraditionalChineseEndsWithTheSession() {
        let run = FlowRun.run(
            Methods.Flow.signin, FlowParameters(locale: .zhHant),
            inputs: [
                .next(200, .text(.username, "alice")), .next(210, .text(.password, "secret1")),
                .next(230, .tap(.loginTap)),
            ])
        #expect(
            run.lines == [
                "101 username: empty ", "101 loginEnabled: false", "101 loggingIn: false",
                "202 username: ok username.exists 帳戶已存在", "211 loginEnabled: true",
                "231 loginEnabled: false", "231 loggingIn: true",
                "243 loginEnabled: true", "243 loggingIn: false",
                "243 alert: success login.ok 登入成功，使用者名稱:ann，識別碼:t1", "243 session: ann",
            ])
        #expect(run.at(243).last == FlowOutput(.session, name: "ann", token: "t1"))
    }

    @Test func heroesPagesAndRendersNamesInTheLocaleWithAFallback() {
        let run = FlowRun.run(
            Methods.Flow.heroes, FlowParameters(locale: .en, token: "good"),
            inputs: [.next(200, .text(.searchText, "")), .next(300, .text(.page, "1"))])
        #expect(
            run.lines == [
                "101 heroes: 0 heroes", "101 total: 0", "101 error: ", "101 searching: false",
                "201 searching: true", "208 heroes: 2 heroes for \"\" page 0 (2 in all)", "208 total: 2",
                "208 searching: false", "301 searching: true",
                "308 heroes: 0 heroes for \"\" page 1 (2 in all)",
                "308 searching: false",
            ])
        #expect(
            run.at(208).first
                == FlowOutput(
                    .heroes,
                    heroes: [
                        FlowHero(id: 1, name: "Yasuo", intro: "The Unforgiven"),
                        FlowHero(id: 2, name: "阿狸", intro: "九尾妖狐"),
                    ], query: "", page: 0, total: 2, pageSize: 50))
    }

    @Test func heroesWithARefusedTokenSayTheSessionExpired() {
        let run = FlowRun.run(
            Methods.Flow.heroes, FlowParameters(token: "stale"),
            inputs: [.next(200, .text(.searchText, "a"))])
        #expect(
            run.lines.suffix(2) == ["202 error: session.expired 未登录或会话已失效，请重新登录", "202 searching: false"])
    }

    @Test func aCatalogOutageShowsTheErrorBeforeSearchingEnds() {
        let run = FlowRun.run(
            Methods.Flow.heroes, FlowParameters(locale: .en, token: "down"),
            inputs: [.next(200, .text(.searchText, "a"))])
        #expect(
            run.lines.suffix(3) == [
                "202 heroes: 0 heroes for \"a\" page 0 (0 in all)",
                "202 error: network.error Network or data parsing error!", "202 searching: false",
            ])
    }

    @Test func numbersSumAndOverflow() {
        let run = FlowRun.run(
            Methods.Flow.numbers,
            inputs: [
                .next(200, .text(.a, "1")), .next(210, .text(.b, "2")),
                .next(220, .text(.b, "99999999999999999999")),
            ])
        #expect(run.lines == ["101 sum: 0", "201 sum: 1", "211 sum: 3", "221 sum: numbers.overflow 数值溢出"])
        #expect(run.at(221) == [FlowOutput(.sum, code: .numbersOverflow, message: "数值溢出")])
    }

    @Test func aValidationOutageShowsTheNetworkErrorAndHealsByItself() {
        let run = FlowRun.run(
            Methods.Flow.login,
            inputs: [.next(200, .text(.phone, "13800000000")), .next(210, .text(.password, "secret1"))],
            configure: { validation, scheduler in
                scheduler.scheduleAt(250) { validation.breakDown() }
                scheduler.scheduleAt(320) { validation.recover() }
            })
        // Broken at 250; reopened at 301 (still down: fails at once), then at 351 (works): the
        // latest texts are validated again.
        #expect(
            run.lines.filter { $0.hasPrefix("2") || $0.hasPrefix("3") } == [
                "202 phone: ok ", "212 password: ok ", "212 loginEnabled: true",
                "251 loginEnabled: false", "251 tip: network.error 网络或数据解析错误！",
                "353 loginEnabled: true", "353 tip: ",
            ])
        #expect(run.validation.opens == 3)
    }

    @Test func registerFieldsShowTheOutageAndRecover() {
        let run = FlowRun.run(
            Methods.Flow.register, FlowParameters(locale: .en),
            inputs: [.next(200, .text(.username, "ann"))],
            configure: { validation, scheduler in
                scheduler.scheduleAt(250) { validation.breakDown() }
                scheduler.scheduleAt(320) { validation.recover() }
            })
        #expect(
            run.lines.filter { $0.hasPrefix("2") || $0.hasPrefix("3") } == [
                "202 username: ok username.available Username available", "202 passwordEnabled: true",
                "251 username: failed network.error Network or data parsing error!",
                "251 passwordEnabled: false",
                "353 username: ok username.available Username available", "353 passwordEnabled: true",
            ])
    }
}

@Suite("GatewayService bad input", .timeLimit(.minutes(1)))
struct GatewayServiceBadInputTests {
    private func failure(_ run: FlowRun) -> RemoteError? {
        for recorded in run.outputs.events {
            if case .error(let error) = recorded.value { return error as? RemoteError }
        }
        return nil
    }

    @Test func anUnknownInputEndsTheChannelWithBadRequest() {
        let run = FlowRun.run(
            Methods.Flow.login, inputs: [.next(200, FlowInput(input: "email", text: "a@b"))])
        #expect(
            failure(run)
                == RemoteError(
                    code: .badRequest,
                    message:
                        "unknown input email: flow.login expects inputs phone, password (with text) and loginTap (taps)"
                ))
        #expect(run.service.counters.errors == ["bad_request": 1])
        #expect(run.service.counters.channelsOpen == [Methods.Flow.login.name: 0])
    }

    @Test func aFieldWithoutTextOrTooLongIsBadRequest() {
        let missing = FlowRun.run(Methods.Flow.register, inputs: [.next(200, .tap(.username))])
        #expect(failure(missing)?.message.hasPrefix("input username needs a text") == true)
        let long = FlowRun.run(
            Methods.Flow.numbers, inputs: [.next(200, .text(.a, String(repeating: "1", count: 4_097)))])
        #expect(
            failure(long)?.message
                == "input a is over 4096 bytes: flow.numbers expects inputs a, b, c (with text)")
        let page = FlowRun.run(
            Methods.Flow.heroes, FlowParameters(token: "good"), inputs: [.next(200, .text(.page, "-1"))])
        #expect(failure(page)?.code == .badRequest)
    }

    @Test func heroesWithoutATokenIsRefusedAtOpen() {
        let run = FlowRun.run(Methods.Flow.heroes, inputs: [])
        #expect(failure(run)?.code == .badRequest)
        #expect(run.outputs.events.count == 1)
    }

    @Test func theClientsCompletionEndsTheChannel() {
        let run = FlowRun.run(Methods.Flow.numbers, inputs: [.next(200, .text(.a, "4")), .completed(300)])
        #expect(run.lines == ["101 sum: 0", "201 sum: 4", "301 completed"])
    }
}

@Suite("GatewayService commands", .timeLimit(.minutes(1)))
struct GatewayServiceCommandTests {
    private func answer<Response: Sendable>(
        _ call: @escaping @Sendable (GatewayService) -> Single<Response>
    ) -> Result<Response, any Error>? {
        let scheduler = TestScheduler(initialClock: 0)
        let service = GatewayService(
            auth: GatewayStubAuth(scheduler: scheduler), validation: GatewayStubValidation(),
            heroes: GatewayStubCatalog(scheduler: scheduler), scheduler: scheduler)
        let answer = Mutex<Result<Response, any Error>?>(nil)
        _ = call(service).subscribe { event in
            switch event {
            case .success(let response): answer.withLock { $0 = .success(response) }
            case .failure(let error): answer.withLock { $0 = .failure(error) }
            }
        }
        scheduler.start()
        return answer.withLock { $0 }
    }

    @Test func loginAnswersTheSessionOrTheFirstFailingField() throws {
        let ok = try answer {
            $0.login(LoginCommand(phone: "13800000000", password: "secret1"), client: "c")
        }?.get()
        #expect(
            ok
                == CommandResult(
                    ok: true, code: .loginOK, message: "登录成功，用户名:ann，标识符:t1", name: "ann", token: "t1"))
        let short = try answer {
            $0.login(LoginCommand(phone: "138", password: "x", locale: .en), client: "c")
        }?.get()
        #expect(short == CommandResult(ok: false, code: .phoneShort, message: "Phone number too short"))
        let wrong = try answer {
            $0.login(LoginCommand(phone: "13800000000", password: "secret2", locale: .en), client: "c")
        }?.get()
        #expect(
            wrong == CommandResult(ok: false, code: .loginFailed, message: "Login failed: Wrong password"))
    }

    @Test func registerAndSignin() throws {
        let made = try answer {
            $0.register(RegisterCommand(username: "ann", password: "secret1"), client: nil)
        }?.get()
        #expect(made == CommandResult(ok: true, code: .registerOK, message: "注册成功"))
        let taken = try answer {
            $0.register(RegisterCommand(username: "taken", password: "secret1", locale: .en), client: nil)
        }?.get()
        #expect(taken == CommandResult(ok: false, code: .usernameExists, message: "Account already exists"))
        let mismatch = try answer {
            $0.register(
                RegisterCommand(username: "ann", password: "secret1", repeatPassword: "secret2"), client: nil)
        }?.get()
        #expect(mismatch?.code == .repeatMismatch)
        let signedIn = try answer {
            $0.signin(SigninCommand(username: "alice", password: "secret1"), client: nil)
        }?.get()
        #expect(signedIn?.ok == true && signedIn?.token == "t1")
        let unknown = try answer {
            $0.signin(SigninCommand(username: "bob", password: "secret1"), client: nil)
        }?.get()
        #expect(unknown == CommandResult(ok: false, code: .usernameUnknown, message: "用户名不存在"))
    }

    @Test func anEmptyFieldIsABadRequest() {
        let result = answer { $0.login(LoginCommand(phone: "", password: "secret1"), client: nil) }
        guard case .failure(let error) = result else {
            Issue.record("expected a failure, got \(String(describing: result))")
            return
        }
        #expect((error as? RemoteError)?.code == .badRequest)
    }

    @Test func heroesSearchRendersThePage() throws {
        let page = try answer {
            $0.search(HeroesCommand(token: "good", query: "", offset: 1, limit: 5, locale: .en))
        }?.get()
        #expect(page == HeroesCommandResult(total: 2, heroes: [FlowHero(id: 2, name: "阿狸", intro: "九尾妖狐")]))
        let refused = answer { $0.search(HeroesCommand(token: "stale")) }
        guard case .failure(let error) = refused else {
            Issue.record("expected a failure")
            return
        }
        #expect((error as? RemoteError)?.code == .unauthenticated)
    }
}
