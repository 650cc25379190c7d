import Contracts
import GatewayCore
import GatewayMessages
import Reactive
import ReactiveTestKit
import Testing

/// What one login scenario recorded.
private struct LoginRun {
    let scheduler: TestScheduler
    let auth: LoginStubAuth
    let validation: LoginStubValidation
    let loginEnabled: TestableObserver<Bool>
    let loggingIn: TestableObserver<Bool>
    let tip: TestableObserver<[ScreenMessage]>
    let phoneResult: TestableObserver<ValidationResult>
}

/// Builds the view model over the stubs, binds every output at 200, unbinds at `disposed`, and runs
/// the scheduler to the end.
private func runLogin(
    phone: [Recorded<Event<String>>], password: [Recorded<Event<String>>],
    taps: [Recorded<Event<Void>>] = [], answers: [[Recorded<Event<LoginResponse>>]] = [],
    validationDelay: Int = 0, validationBreaks: Int = 0, validationRecoveries: [TestTime] = [],
    disposed: TestTime = 1000
) -> LoginRun {
    let scheduler = TestScheduler(initialClock: 0)
    let auth = LoginStubAuth(scheduler: scheduler, answers: answers)
    let validation = LoginStubValidation(
        scheduler: scheduler, delay: validationDelay, breakAfter: 100, breaks: validationBreaks,
        recoveries: validationRecoveries)
    let model = LoginViewModel(
        validation: validation, auth: auth, client: "cli-1", scheduler: scheduler, reopenAfter: .seconds(50))
    let output = SharingScheduler.mock(scheduler: scheduler) {
        model.transform(
            LoginViewModel.Input(
                phone: scheduler.createHotObservable(phone).asObservable(),
                password: scheduler.createHotObservable(password).asObservable(),
                loginTap: scheduler.createHotObservable(taps).asObservable()))
    }
    let run = LoginRun(
        scheduler: scheduler, auth: auth, validation: validation,
        loginEnabled: scheduler.createObserver(Bool.self),
        loggingIn: scheduler.createObserver(Bool.self), tip: scheduler.createObserver([ScreenMessage].self),
        phoneResult: scheduler.createObserver(ValidationResult.self))
    let bindings = SerialDisposable()
    scheduler.scheduleAt(200) {
        bindings.disposable = CompositeDisposable(disposables: [
            output.loginEnabled.drive(run.loginEnabled), output.loggingIn.drive(run.loggingIn),
            output.tip.drive(run.tip), output.phoneResult.drive(run.phoneResult),
        ])
    }
    scheduler.scheduleAt(disposed) { bindings.dispose() }
    scheduler.start()
    return run
}

/// A valid phone at 210 and a valid password at 220.
private let validPhone: [Recorded<Event<String>>] = [.next(210, "13800000000")]
private let validPassword: [Recorded<Event<String>>] = [.next(220, "secret1")]

private func tip(_ messages: ScreenMessage...) -> [ScreenMessage] { messages }

@Suite("LoginViewModel", .timeLimit(.minutes(1)))
struct LoginViewModelTests {
    @Test func typingMovesTheTipAndTheButton() {
        let run = runLogin(
            phone: [.next(210, "1380000"), .next(220, "13800000000"), .next(250, "13800x")],
            password: [.next(230, "abc"), .next(240, "secret1")])
        #expect(
            run.tip.events == [
                .next(201, []),
                .next(212, tip(ScreenMessage(.phoneShort))),
                .next(222, []),
                .next(232, tip(ScreenMessage(.passwordShort))),
                .next(242, []),
                .next(252, tip(ScreenMessage(.phoneFormat))),
            ])
        #expect(run.loginEnabled.events == [.next(201, false), .next(241, true), .next(251, false)])
        #expect(run.loggingIn.events == [.next(201, false)])
        #expect(
            run.phoneResult.events == [
                .next(201, .empty), .next(211, .failed(.phoneShort)), .next(221, .ok()),
                .next(251, .failed(.phoneFormat)),
            ])
    }

    @Test func theTipListsPhoneThenPassword() {
        let run = runLogin(phone: [.next(220, "12")], password: [.next(210, "abc")])
        #expect(
            run.tip.events == [
                .next(201, []),
                .next(212, tip(ScreenMessage(.passwordShort))),
                .next(222, tip(ScreenMessage(.phoneShort), ScreenMessage(.passwordShort))),
            ])
    }

    @Test func anEmptyFieldHasNoMessageAndIsNotValid() {
        let run = runLogin(phone: [.next(210, "1"), .next(220, "")], password: validPassword)
        #expect(
            run.tip.events == [.next(201, []), .next(212, tip(ScreenMessage(.phoneShort))), .next(222, [])])
        #expect(run.loginEnabled.events == [.next(201, false)])
    }

    @Test func aTapLogsInWithTheLatestPhoneAndPassword() {
        let run = runLogin(
            phone: validPhone + [.next(400, "138000000001")], password: validPassword,
            taps: [.next(300, ())],
            answers: [[.next(50, .ok("13800000000", token: "tok")), .completed(50)]])
        #expect(
            run.auth.requests == [LoginRequest(username: "13800000000", password: "secret1", client: "cli-1")]
        )
        #expect(run.auth.answers[0].subscriptions == [Subscription(300, 350)])
        #expect(run.loggingIn.events == [.next(201, false), .next(301, true), .next(351, false)])
        #expect(
            run.tip.events == [
                .next(201, []),
                .next(351, tip(ScreenMessage(.loginOK, ["name": "13800000000", "token": "tok"]))),
                // The next keystroke brings the fields' messages back.
                .next(401, []),
            ])
    }

    @Test func theLoginResultStaysUntilTheNextKeystroke() {
        // The answer (305) arrives before the validation's result (310) for a keystroke made before
        // it (290): the login result stays, since no key was pressed after it; the keystroke at 400
        // brings the fields' messages back.
        let run = runLogin(
            phone: validPhone,
            password: [.next(220, "secret1"), .next(290, "secret12"), .next(400, "secret")],
            taps: [.next(300, ())], answers: [[.next(5, .wrongPassword), .completed(5)]], validationDelay: 20)
        let failed = ScreenMessage(LoginViewModel.loginFailed, ["message": "login.wrongPassword"])
        #expect(run.loginEnabled.events == [.next(201, false), .next(241, true)])
        #expect(run.loggingIn.events == [.next(201, false), .next(301, true), .next(306, false)])
        #expect(run.tip.events == [.next(201, []), .next(306, tip(failed)), .next(401, [])])
    }

    @Test func aSecondTapCancelsTheFirst() {
        let run = runLogin(
            phone: validPhone, password: validPassword, taps: [.next(300, ()), .next(320, ())],
            answers: [
                [.next(50, .ok("13800000000", token: "first")), .completed(50)],
                [.next(50, .ok("13800000000", token: "second")), .completed(50)],
            ])
        #expect(run.auth.answers[0].subscriptions == [Subscription(300, 320)])
        #expect(run.auth.answers[1].subscriptions == [Subscription(320, 370)])
        #expect(run.loggingIn.events == [.next(201, false), .next(301, true), .next(371, false)])
        #expect(
            run.tip.events == [
                .next(201, []),
                .next(371, tip(ScreenMessage(.loginOK, ["name": "13800000000", "token": "second"]))),
            ])
    }

    @Test func unbindingCancelsTheLoginInFlight() {
        let run = runLogin(
            phone: validPhone, password: validPassword, taps: [.next(300, ())],
            answers: [[.next(50, .wrongPassword), .completed(50)]], disposed: 320)
        #expect(run.auth.answers[0].subscriptions == [Subscription(300, 320)])
        #expect(run.loggingIn.events == [.next(201, false), .next(301, true)])
    }

    @Test func aTapWhileDisabledIsIgnored() {
        let run = runLogin(
            phone: [.next(210, "138")], password: validPassword, taps: [.next(300, ())],
            answers: [[.next(50, .wrongPassword), .completed(50)]])
        #expect(run.auth.requests.isEmpty)
        #expect(run.loggingIn.events == [.next(201, false)])
    }

    @Test func aRefusalShowsTheServersMessage() {
        let run = runLogin(
            phone: validPhone, password: validPassword, taps: [.next(300, ())],
            answers: [[.next(30, .wrongPassword), .completed(30)]])
        #expect(run.loggingIn.events == [.next(201, false), .next(301, true), .next(331, false)])
        #expect(
            run.tip.events == [
                .next(201, []),
                .next(
                    331, tip(ScreenMessage(LoginViewModel.loginFailed, ["message": "login.wrongPassword"]))),
            ])
    }

    @Test func aThrottledLoginSaysWhenToRetry() {
        let run = runLogin(
            phone: validPhone, password: validPassword, taps: [.next(300, ())],
            answers: [[.next(30, .throttled(60)), .completed(30)]])
        #expect(
            run.tip.events == [
                .next(201, []), .next(331, tip(ScreenMessage(.loginThrottled, ["retry_after": "60"]))),
            ])
    }

    @Test func aTransportFailureIsTheNetworkError() {
        let run = runLogin(
            phone: validPhone, password: validPassword, taps: [.next(300, ()), .next(400, ())],
            answers: [
                [.error(30, LoginStubError())], [.next(30, .ok("13800000000", token: "t")), .completed(30)],
            ])
        #expect(
            run.loggingIn.events == [
                .next(201, false), .next(301, true), .next(331, false), .next(401, true), .next(431, false),
            ])
        #expect(
            run.tip.events == [
                .next(201, []),
                .next(331, tip(ScreenMessage(.networkError))),
                // The failure did not end the flow: the next tap logs in.
                .next(431, tip(ScreenMessage(.loginOK, ["name": "13800000000", "token": "t"]))),
            ])
        #expect(run.auth.answers[0].subscriptions == [Subscription(300, 330)])
    }

    @Test func anAnswerWithoutTheUserIsTheNetworkError() {
        let run = runLogin(
            phone: validPhone, password: validPassword, taps: [.next(300, ())],
            answers: [[.next(30, LoginResponse(statusCode: 200, message: .loginOK)), .completed(30)]])
        #expect(run.tip.events == [.next(201, []), .next(331, tip(ScreenMessage(.networkError)))])
    }

    @Test func aBrokenValidationChannelDisablesLoginSaysSoAndRecovers() {
        // The channel opened at 200 breaks at 300; it is opened again at 350, the latest texts are
        // validated again, and login is enabled again.
        let run = runLogin(phone: validPhone, password: validPassword, validationBreaks: 1)
        #expect(run.validation.opens == [200, 350])
        #expect(
            run.loginEnabled.events == [
                .next(201, false), .next(221, true), .next(301, false), .next(351, true),
            ])
        #expect(
            run.tip.events == [.next(201, []), .next(302, tip(ScreenMessage(.networkError))), .next(352, [])])
    }

    @Test func aBrokenValidationChannelIsOpenedAgainAsSoonAsTheServiceIsBack() {
        // Broken at 300; the service is reachable again at 320, before the 50-tick delay: the
        // channel is opened again then (a recovery before the break changes nothing).
        let run = runLogin(
            phone: validPhone, password: validPassword, validationBreaks: 1, validationRecoveries: [250, 320])
        #expect(run.validation.opens == [200, 320])
        #expect(
            run.loginEnabled.events == [
                .next(201, false), .next(221, true), .next(301, false), .next(321, true),
            ])
        #expect(
            run.tip.events == [.next(201, []), .next(302, tip(ScreenMessage(.networkError))), .next(322, [])])
    }

    @Test func whileTheChannelIsDownTheTipSaysSoAfterTheFieldsMessages() {
        let run = runLogin(phone: [.next(210, "138")], password: validPassword, validationBreaks: 2)
        #expect(run.validation.opens == [200, 350, 500])
        #expect(
            run.tip.events == [
                .next(201, []),
                .next(212, tip(ScreenMessage(.phoneShort))),
                .next(302, tip(ScreenMessage(.phoneShort), ScreenMessage(.networkError))),
                .next(352, tip(ScreenMessage(.phoneShort))),
                .next(452, tip(ScreenMessage(.phoneShort), ScreenMessage(.networkError))),
                .next(502, tip(ScreenMessage(.phoneShort))),
            ])
    }

    @Test func unbindingReleasesTheWholeGraph() {
        Resources.measure { scope in
            _ = runLogin(
                phone: validPhone, password: validPassword, taps: [.next(300, ()), .next(320, ())],
                answers: [[.next(50, .wrongPassword), .completed(50)]], validationBreaks: 1, disposed: 400)
            #expect(scope.total == 0)
        }
    }

    @Test func renderedMessagesJoinWithOneSpace() {
        let messages = [ScreenMessage(.phoneShort), ScreenMessage("quiet"), ScreenMessage(.passwordShort)]
        let line = ScreenMessage.joined(messages) { message in
            switch message.code {
            case .phoneShort: "Phone number too short"
            case .passwordShort: "Password too short"
            default: ""
            }
        }
        #expect(line == "Phone number too short Password too short")
        #expect(ScreenMessage.joined([]) { $0.code.rawValue } == "")
        #expect(
            ScreenMessage(.loginOK, ["token": "t", "name": "n"]).description == "login.ok name=n token=t")
    }
}
