import Contracts
import GatewayCore
import Reactive
import ReactiveTestKit
import Testing

@Suite("RegisterViewModel", .timeLimit(.minutes(1)))
struct RegisterViewModelTests {
    @Test func enablingFollowsTheVerdictsAndASecondTapCancelsTheFirst() {
        let scheduler = TestScheduler(initialClock: 0)
        let registerCall = scheduler.createColdObservable([
            .next(50, RegisterResponse(statusCode: 201, message: .registerOK, username: "alice")),
            .completed(50),
        ])
        let auth = RegisterAuthStub(register: registerCall)
        let validation = RegisterValidationStub(scheduler: scheduler, delay: 5)
        let input = RegisterViewModel.Input(
            username: scheduler.createHotObservable([.next(210, "alice")]).asObservable(),
            password: scheduler.createHotObservable([.next(220, "secret1")]).asObservable(),
            repeatPassword: scheduler.createHotObservable([.next(230, "secret1")]).asObservable(),
            registerTap: scheduler.createHotObservable([.next(300, ()), .next(320, ())]).asObservable()
        )
        let passwordEnabled = scheduler.createObserver(Bool.self)
        let registerEnabled = scheduler.createObserver(Bool.self)
        let registering = scheduler.createObserver(Bool.self)
        let username = scheduler.createObserver(ValidationResult.self)
        let alert = scheduler.createObserver(RegisterViewModel.Alert.self)
        SharingScheduler.mock(scheduler: scheduler) {
            let output = RegisterViewModel(input: input, validation: validation, auth: auth).output
            scheduler.scheduleAt(200) {
                _ = output.passwordEnabled.drive(passwordEnabled)
                _ = output.registerEnabled.drive(registerEnabled)
                _ = output.registering.drive(registering)
                _ = output.username.drive(username)
                _ = output.alert.emit(to: alert)
            }
            scheduler.start()
        }
        // The password field opens once the username verdict is ok, and closes when the
        // registration turns the name into a taken one.
        #expect(passwordEnabled.events == [.next(201, false), .next(216, true), .next(371, false)])
        #expect(registerEnabled.events == [.next(201, false), .next(236, true), .next(301, false)])
        #expect(registering.events == [.next(201, false), .next(301, true), .next(371, false)])
        #expect(
            username.events == [
                .next(201, .empty), .next(216, .ok(.usernameAvailable)),
                .next(371, .failed(.usernameExists, ["name": "alice"])),
            ])
        #expect(
            alert.events == [.next(371, .init(kind: .success, code: .registerOK, params: ["name": "alice"]))])
        // The second tap disposed the first call (the cancel) and only the second answered.
        #expect(registerCall.subscriptions == [Subscription(300, 320), Subscription(320, 370)])
    }
}
