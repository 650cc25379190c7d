import Contracts
import GatewayCore
import Reactive
import ReactiveTestKit
import Testing

@Suite("SigninViewModel", .timeLimit(.minutes(1)))
struct SigninViewModelTests {
    static let alice = LoginResponse.User(name: "alice", userToken: "t1")

    @Test func aTapWhileLoggingInIsIgnoredAndTheTokenArrives() {
        let scheduler = TestScheduler(initialClock: 0)
        let loginCall = scheduler.createColdObservable([
            .next(40, LoginResponse(statusCode: 200, message: .loginOK, user: Self.alice)),
            .completed(40),
        ])
        let input = SigninViewModel.Input(
            username: scheduler.createHotObservable([.next(210, "bob"), .next(230, "alice")]).asObservable(),
            password: scheduler.createHotObservable([.next(220, "pw")]).asObservable(),
            loginTap: scheduler.createHotObservable([.next(300, ()), .next(310, ())]).asObservable()
        )
        let enabled = scheduler.createObserver(Bool.self)
        let username = scheduler.createObserver(ValidationResult.self)
        let session = scheduler.createObserver(String.self)
        let alert = scheduler.createObserver(RegisterViewModel.Alert.self)
        SharingScheduler.mock(scheduler: scheduler) {
            let output = SigninViewModel(
                input: input, validation: SigninValidationStub(scheduler: scheduler),
                auth: SigninAuthStub(login: loginCall)
            ).output
            scheduler.scheduleAt(200) {
                _ = output.loginEnabled.drive(enabled)
                _ = output.usernameResult.drive(username)
                _ = output.session.emit(to: session)
                _ = output.alert.emit(to: alert)
            }
            scheduler.start()
        }
        // Enabled once the username exists and a password is typed; off while logging in.
        #expect(enabled.events == [.next(201, false), .next(236, true), .next(301, false), .next(341, true)])
        #expect(
            username.events == [
                .next(201, .empty), .next(216, .failed(.usernameUnknown)), .next(236, .ok(.usernameExists)),
            ])
        #expect(session.events == [.next(341, "t1")])
        #expect(
            alert.events == [
                .next(341, .init(kind: .success, code: .loginOK, params: ["name": "alice", "token": "t1"]))
            ])
        // The second tap came while the button was disabled (logging in): ignored.
        #expect(loginCall.subscriptions == [Subscription(300, 340)])
    }

    @Test func aWrongPasswordForAnUnknownUserReadsTheSame() {
        let scheduler = TestScheduler(initialClock: 0)
        let loginCall = scheduler.createColdObservable([
            .next(10, LoginResponse(statusCode: 401, message: .usernameUnknown)), .completed(10),
        ])
        let input = SigninViewModel.Input(
            username: scheduler.createHotObservable([.next(210, "alice")]).asObservable(),
            password: scheduler.createHotObservable([.next(220, "pw")]).asObservable(),
            loginTap: scheduler.createHotObservable([.next(300, ())]).asObservable()
        )
        let alert = scheduler.createObserver(RegisterViewModel.Alert.self)
        SharingScheduler.mock(scheduler: scheduler) {
            let output = SigninViewModel(
                input: input, validation: SigninValidationStub(scheduler: scheduler),
                auth: SigninAuthStub(login: loginCall)
            ).output
            scheduler.scheduleAt(200) { _ = output.alert.emit(to: alert) }
            scheduler.start()
        }
        // The service said the user is unknown; the screen must not.
        #expect(alert.events == [.next(311, .init(kind: .failure, code: .loginWrongPassword))])
    }
}
