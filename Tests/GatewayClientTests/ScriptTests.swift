import Contracts
import GatewayClient
import Reactive
import ReactiveTestKit
import RemoteProtocol
import Synchronization
import Testing

/// A fake `open` on a test scheduler: records when channels open and close and every input with
/// its time, and answers with `respond` (the fake gateway unless told otherwise).
final class RecordingFlow: Sendable {
    let scheduler: TestScheduler
    let respond: OpenFlow
    private let log = Mutex<(inputs: [Recorded<FlowInput>], opened: [TestTime], disposed: [TestTime])>(
        ([], [], []))

    init(_ scheduler: TestScheduler, respond: @escaping OpenFlow = FakeGateway.open) {
        self.scheduler = scheduler
        self.respond = respond
    }

    var inputs: [FlowInput] { log.withLock { $0.inputs.map(\.value) } }
    var inputTimes: [TestTime] { log.withLock { $0.inputs.map(\.time) } }
    var opened: [TestTime] { log.withLock { $0.opened } }
    var disposed: [TestTime] { log.withLock { $0.disposed } }

    var open: OpenFlow {
        { [self] flow, parameters, inputs in
            let recorded = inputs.do(onNext: { [self] input in
                log.withLock { $0.inputs.append(Recorded(time: scheduler.clock, value: input)) }
            })
            return respond(flow, parameters, recorded).do(
                onSubscribe: { [self] in log.withLock { $0.opened.append(scheduler.clock) } },
                onDispose: { [self] in log.withLock { $0.disposed.append(scheduler.clock) } })
        }
    }
}

/// Runs `script` on a fresh scheduler (milliseconds per tick) from time 200, with `timeout`.
func runScript<Script: FlowScript>(
    _ script: Script, timeout: Int = 10_000, respond: @escaping OpenFlow = FakeGateway.open
) -> (events: [Recorded<Event<ScriptEvent>>], flow: RecordingFlow) {
    let scheduler = TestScheduler(initialClock: 0, resolution: 0.001)
    let flow = RecordingFlow(scheduler, respond: respond)
    let observer = scheduler.start(disposed: 100_000) {
        ScriptRunner.run(script, open: flow.open, timeout: .milliseconds(timeout), scheduler: scheduler)
    }
    return (observer.events, flow)
}

/// The result a run finished with, or nil.
func result(_ events: [Recorded<Event<ScriptEvent>>]) -> ScriptResult? {
    for event in events {
        if case .next(.finished(let result)) = event.value { return result }
    }
    return nil
}

/// The failure a run ended with, or nil.
func failure(_ events: [Recorded<Event<ScriptEvent>>]) -> ScriptFailure? {
    guard case .error(let error)? = events.last?.value else { return nil }
    return error as? ScriptFailure
}

/// The outputs a run passed on.
func outputs(_ events: [Recorded<Event<ScriptEvent>>]) -> [FlowOutput] {
    events.compactMap { event in
        if case .next(.output(let output)) = event.value { return output }
        return nil
    }
}

@Suite(.timeLimit(.minutes(1)))
struct ScriptTests {
    @Test func numbersSendsTheThreeTextsAndFinishesOnTheSum() {
        let (events, flow) = runScript(NumbersScript(a: "1", b: "2", c: "3", locale: .en))
        #expect(flow.inputs == [.text(.a, "1"), .text(.b, "2"), .text(.c, "3")])
        #expect(flow.inputTimes == [200, 200, 200])
        #expect(outputs(events).map(\.number) == [0, 1, 3, 6])
        #expect(result(events) == ScriptResult(.succeeded, message: "6"))
        #expect(events.last.map { $0.value.isCompleted } == true)
        #expect(flow.opened == [200])
        #expect(flow.disposed == [events.last!.time])
    }

    @Test func numbersWithUnreadableTextsAndAZeroSum() {
        let (events, _) = runScript(NumbersScript(a: "x", b: "-5", c: "5", locale: .en))
        #expect(result(events) == ScriptResult(.succeeded, message: "0"))
    }

    @Test func numbersOverflowIsARefusal() {
        let (events, _) = runScript(
            NumbersScript(a: "9223372036854775807", b: "1", c: "0", locale: .en))
        #expect(result(events) == ScriptResult(.refused, message: "Number too large"))
    }

    @Test func loginSucceeds() {
        let (events, flow) = runScript(
            LoginScript(phone: "13800138000", password: "secret1", locale: .zhHans))
        #expect(
            flow.inputs == [.text(.phone, "13800138000"), .text(.password, "secret1"), .tap(.loginTap)])
        #expect(
            result(events)
                == ScriptResult(
                    .succeeded, message: "登录成功，用户名:13800138000，标识符:tok-13800138000",
                    token: "tok-13800138000",
                    deviceToken: IssuedDeviceToken(account: "13800138000", token: "dev-13800138000")))
        #expect(flow.disposed.count == 1)
    }

    @Test func loginAndSigninPresentTheDeviceTokenForTheirAccountAndBringBackTheNewOne() {
        let login = LoginScript(phone: "13800138000", password: "secret1", locale: .en, deviceToken: "d1")
        #expect(login.parameters == FlowParameters(locale: .en, deviceTokens: ["13800138000": "d1"]))
        #expect(
            result(runScript(login).events)?.deviceToken
                == IssuedDeviceToken(account: "13800138000", token: "d1+"))
        let signin = SigninScript(username: "ann2024", password: "secret1", locale: .en, deviceToken: "d2")
        #expect(signin.parameters == FlowParameters(locale: .en, deviceTokens: ["ann2024": "d2"]))
        #expect(
            result(runScript(signin).events)?.deviceToken
                == IssuedDeviceToken(account: "ann2024", token: "d2+"))
        // Without one, none is sent; a refusal brings none.
        #expect(SigninScript(username: "ann2024", password: "x", locale: .en).parameters.deviceTokens == nil)
        let refused = runScript(
            SigninScript(username: "ann2024", password: "wrong12", locale: .en, deviceToken: "d2"))
        #expect(result(refused.events)?.deviceToken == nil)
    }

    /// A `login.ok` tip without its `token` member: the token is never parsed out of the text.
    @Test(arguments: MessageLocale.allCases)
    func loginOKWithoutATokenIsAProtocolError(locale: MessageLocale) {
        let respond: OpenFlow = { flow, parameters, inputs in
            FakeGateway.open(flow, parameters, inputs).map { output in
                var output = output
                output.token = nil
                output.name = nil
                return output
            }
        }
        let (events, _) = runScript(
            LoginScript(phone: "13800138000", password: "secret1", locale: locale), respond: respond)
        #expect(result(events) == nil)
        #expect(failure(events)?.kind == .protocolError)
    }

    @Test func loginWithAWrongPasswordIsRefused() {
        let (events, flow) = runScript(LoginScript(phone: "13800138000", password: "wrong12", locale: .en))
        #expect(flow.inputs.last == .tap(.loginTap))
        #expect(result(events) == ScriptResult(.refused, message: "Login failed: Wrong password"))
    }

    @Test func loginWithInvalidFieldsIsRefusedWithTheTipAndNeverTaps() {
        let (events, flow) = runScript(LoginScript(phone: "138", password: "123", locale: .zhHant))
        #expect(flow.inputs == [.text(.phone, "138"), .text(.password, "123")])
        #expect(result(events) == ScriptResult(.refused, message: "號碼長度不足 密碼長度不足"))
    }

    @Test func loginWithANetworkErrorIsUnreachable() {
        let (events, _) = runScript(LoginScript(phone: "13900139000", password: "secret1", locale: .en))
        #expect(failure(events) == ScriptFailure(.unreachable, "Network or data parsing error!"))
        #expect(failure(events)?.exitCode == .unreachable)
    }

    /// The tip with both fields' messages comes after the fields' results, in a later batch: the
    /// script waits for it instead of refusing with half a tip.
    @Test func loginWaitsForTheWholeTip() {
        let respond: OpenFlow = { _, _, inputs in
            Observable.create { observer in
                inputs.subscribe(onNext: { input in
                    guard input.input == "password" else { return }
                    observer.onNext(FlowOutput(.phone, state: .failed, message: "A"))
                    observer.onNext(FlowOutput(.tip, message: "A"))
                    observer.onNext(FlowOutput(.password, state: .failed, message: "B"))
                    observer.onNext(FlowOutput(.tip, message: "A B"))
                })
            }
        }
        let (events, _) = runScript(LoginScript(phone: "1", password: "2", locale: .en), respond: respond)
        #expect(result(events) == ScriptResult(.refused, message: "A B"))
    }

    @Test func registerSucceeds() {
        let (events, flow) = runScript(
            RegisterScript(username: "newuser", password: "secret1", repeatPassword: "secret1", locale: .en))
        #expect(
            flow.inputs == [
                .text(.username, "newuser"), .text(.password, "secret1"),
                .text(.repeatPassword, "secret1"),
                .tap(.registerTap),
            ])
        #expect(result(events) == ScriptResult(.succeeded, message: "Registration succeeded"))
        #expect(outputs(events).contains { $0.outputName == .username && $0.state == .validating })
    }

    @Test func registerATakenUsernameIsRefused() {
        let (events, flow) = runScript(
            RegisterScript(
                username: "taken1", password: "secret1", repeatPassword: "secret1", locale: .zhHans))
        #expect(!flow.inputs.contains(.tap(.registerTap)))
        #expect(result(events) == ScriptResult(.refused, message: "账户已存在"))
    }

    @Test func registerWithDifferentPasswordsIsRefused() {
        let (events, _) = runScript(
            RegisterScript(username: "newuser", password: "secret1", repeatPassword: "secret2", locale: .en))
        #expect(result(events) == ScriptResult(.refused, message: "The two passwords differ"))
    }

    @Test func signinSucceedsWithTheToken() {
        let (events, flow) = runScript(SigninScript(username: "ann2024", password: "secret1", locale: .en))
        #expect(
            flow.inputs == [.text(.username, "ann2024"), .text(.password, "secret1"), .tap(.loginTap)])
        #expect(
            result(events)
                == ScriptResult(
                    .succeeded, message: "Login succeeded, user: ann2024, token: tok-ann2024",
                    token: "tok-ann2024",
                    deviceToken: IssuedDeviceToken(account: "ann2024", token: "dev-ann2024")))
    }

    @Test func signinWithAWrongPasswordIsRefused() {
        let (events, _) = runScript(SigninScript(username: "ann2024", password: "nope", locale: .zhHans))
        #expect(result(events) == ScriptResult(.refused, message: "密码错误"))
    }

    @Test func registerAndSigninErrorAlertsAreUnreachable() {
        let alerting: OpenFlow = { flow, parameters, inputs in
            Observable.create { observer in
                let fake = FakeGateway.open(flow, parameters, inputs).subscribe(onNext: { output in
                    guard output.output != "session", output.kind != "success" else {
                        observer.onNext(
                            FlowOutput(.alert, code: .networkError, message: "down", kind: .error))
                        return
                    }
                    observer.onNext(output)
                })
                return fake
            }
        }
        let (register, _) = runScript(
            RegisterScript(username: "newuser", password: "secret1", repeatPassword: "secret1", locale: .en),
            respond: alerting)
        let (signin, _) = runScript(
            SigninScript(username: "ann2024", password: "secret1", locale: .en), respond: alerting)
        #expect(failure(register) == ScriptFailure(.unreachable, "down"))
        #expect(failure(signin) == ScriptFailure(.unreachable, "down"))
    }

    @Test func signinWithAnUnknownUsernameIsRefusedWithoutATap() {
        let (events, flow) = runScript(SigninScript(username: "nobody", password: "secret1", locale: .en))
        #expect(!flow.inputs.contains(.tap(.loginTap)))
        #expect(result(events) == ScriptResult(.refused, message: "Username does not exist"))
    }

    @Test func heroesListsTheMatchesAndTheTotal() {
        let (events, flow) = runScript(HeroesScript(token: "good-token", query: "MAN", locale: .zhHans))
        #expect(flow.inputs == [.text(.searchText, "MAN")])
        #expect(
            result(events)
                == ScriptResult(
                    .succeeded, message: "共4个", lines: ["Superman", "Batman", "Wonder Woman", "Aquaman"]))
    }

    @Test func heroesSendsThePageFirst() {
        let (_, flow) = runScript(HeroesScript(token: "good-token", query: "", page: 2, locale: .en))
        #expect(flow.inputs == [.text(.page, "1"), .text(.searchText, "")])
    }

    /// No match: an empty page that says it answers "zzz", even though it equals the page before.
    @Test func heroesWithNoMatch() {
        let (events, _) = runScript(HeroesScript(token: "good-token", query: "zzz", locale: .en))
        let answers = outputs(events).filter { $0.outputName == .heroes && $0.query == "zzz" }
        #expect(answers.map(\.heroes) == [[]])
        #expect(answers.first?.page == 0)
        #expect(answers.first?.total == 0)
        #expect(result(events) == ScriptResult(.succeeded, message: "0 in all"))
    }

    /// An answer to another text or page (a search before this one, still in flight) is dropped:
    /// the script reports the answer to its own text and page.
    @Test func heroesDropsAnswersToAnotherTextOrPage() {
        let respond: OpenFlow = { _, _, inputs in
            Observable.create { observer in
                inputs.subscribe(onNext: { input in
                    guard input.inputName == .searchText else { return }
                    let hero = FlowHero(id: 1, name: "Ann", intro: "")
                    let other = FlowHero(id: 2, name: "Bob", intro: "")
                    observer.onNext(FlowOutput(.searching, value: true))
                    observer.onNext(FlowOutput(.heroes, heroes: [other], query: "b", page: 1, total: 60))
                    observer.onNext(FlowOutput(.searching, value: false))
                    observer.onNext(FlowOutput(.searching, value: true))
                    observer.onNext(FlowOutput(.heroes, heroes: [other], query: "a", page: 0, total: 60))
                    observer.onNext(FlowOutput(.searching, value: false))
                    observer.onNext(FlowOutput(.searching, value: true))
                    observer.onNext(FlowOutput(.heroes, heroes: [hero], query: "a", page: 1, total: 51))
                    observer.onNext(FlowOutput(.total, number: 51))
                    observer.onNext(FlowOutput(.error, message: ""))
                    observer.onNext(FlowOutput(.searching, value: false))
                })
            }
        }
        let (events, _) = runScript(
            HeroesScript(token: "t", query: "a", page: 2, locale: .en), respond: respond)
        #expect(result(events) == ScriptResult(.succeeded, message: "51 in all", lines: ["Ann"]))
    }

    @Test func heroesWithABadTokenIsRefused() {
        let (events, _) = runScript(HeroesScript(token: "stale", query: "", locale: .en))
        #expect(failure(events) == ScriptFailure(.refused, "the session has expired"))
    }

    @Test func heroesErrorOutputIsUnreachable() {
        let respond: OpenFlow = { _, _, inputs in
            Observable.create { observer in
                inputs.subscribe(onNext: { _ in
                    observer.onNext(FlowOutput(.searching, value: true))
                    observer.onNext(FlowOutput(.heroes, heroes: [], query: "", page: 0, total: 0))
                    observer.onNext(FlowOutput(.error, code: .networkError, message: "down"))
                    observer.onNext(FlowOutput(.searching, value: false))
                })
            }
        }
        let (events, _) = runScript(HeroesScript(token: "t", query: "", locale: .en), respond: respond)
        #expect(failure(events) == ScriptFailure(.unreachable, "down"))
    }

    /// The real gateway's answer to a refused token: an `error` output, not an `ERROR` frame.
    @Test func heroesSessionExpiredOutputIsRefused() {
        let respond: OpenFlow = { _, _, inputs in
            Observable.create { observer in
                inputs.subscribe(onNext: { _ in
                    observer.onNext(FlowOutput(.searching, value: true))
                    observer.onNext(FlowOutput(.heroes, heroes: [], query: "", page: 0, total: 0))
                    observer.onNext(FlowOutput(.error, code: .sessionExpired, message: "expired"))
                    observer.onNext(FlowOutput(.searching, value: false))
                })
            }
        }
        let (events, _) = runScript(HeroesScript(token: "t", query: "", locale: .en), respond: respond)
        #expect(failure(events) == ScriptFailure(.refused, "expired"))
    }

    @Test func aSilentGatewayTimesOutAndTheChannelIsDisposed() {
        let (events, flow) = runScript(
            NumbersScript(a: "1", b: "2", c: "3", locale: .en), timeout: 500, respond: { _, _, _ in .never() }
        )
        #expect(events.count == 1)
        #expect(events.first?.time == 700)
        #expect(failure(events)?.kind == .timedOut)
        #expect(failure(events)?.exitCode == .unreachable)
        #expect(flow.disposed == [700])
    }

    @Test func aChannelThatEndsEarlyIsAProtocolError() {
        let (events, _) = runScript(
            NumbersScript(a: "1", b: "2", c: "3", locale: .en), respond: { _, _, _ in .empty() })
        #expect(failure(events)?.kind == .protocolError)
        #expect(failure(events)?.exitCode == .protocolError)
    }

    @Test(arguments: [
        (ErrorCode.unavailable, ScriptFailure.Kind.unreachable), (.timeout, .timedOut),
        (.unauthenticated, .refused), (.badRequest, .protocolError), (.unknownMethod, .protocolError),
        (.internal, .protocolError),
    ])
    func channelErrorsMapToFailures(code: ErrorCode, kind: ScriptFailure.Kind) {
        let (events, _) = runScript(
            NumbersScript(a: "1", b: "2", c: "3", locale: .en),
            respond: { _, _, _ in .error(RemoteError(code: code, message: "m")) })
        #expect(failure(events)?.kind == kind)
    }

    @Test func disposingTheRunCancelsTheChannel() {
        let scheduler = TestScheduler(initialClock: 0, resolution: 0.001)
        let flow = RecordingFlow(scheduler, respond: { _, _, _ in .never() })
        let observer = scheduler.start(disposed: 300) {
            ScriptRunner.run(
                NumbersScript(a: "1", b: "2", c: "3", locale: .en), open: flow.open, timeout: .seconds(10),
                scheduler: scheduler)
        }
        #expect(observer.events.isEmpty)
        #expect(flow.opened == [200])
        #expect(flow.disposed == [300])
    }
}
