import Contracts
import GatewayCore
import Reactive
import ReactiveTestKit
import Testing

@Suite("RegisterViewModel", .timeLimit(.minutes(1)))
struct RegisterViewModelTests {
    @Test func enablingFollowsTheVerdictsAndATapWhileRegisteringIsIgnored() {
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
        #expect(passwordEnabled.events == [.next(201, false), .next(216, true), .next(351, false)])
        #expect(registerEnabled.events == [.next(201, false), .next(236, true), .next(301, false)])
        #expect(registering.events == [.next(201, false), .next(301, true), .next(351, false)])
        #expect(
            username.events == [
                .next(201, .empty), .next(216, .ok(.usernameAvailable)),
                .next(351, .failed(.usernameExists, ["name": "alice"])),
            ])
        #expect(
            alert.events == [.next(351, .init(kind: .success, code: .registerOK, params: ["name": "alice"]))])
        // The second tap came while the button was disabled (registering): ignored.
        #expect(registerCall.subscriptions == [Subscription(300, 350)])
    }
}

@Suite("RegisterViewModel failures", .timeLimit(.minutes(1)))
struct RegisterViewModelFailureTests {
    @Test func aRefusalIsAFailureAlertWithTheServicesCode() {
        let scheduler = TestScheduler(initialClock: 0)
        let refused = scheduler.createColdObservable([
            .next(10, RegisterResponse(statusCode: 409, message: .usernameExists, username: "alice")),
            .completed(10),
        ])
        let input = RegisterViewModel.Input(
            username: scheduler.createHotObservable([.next(210, "alice")]).asObservable(),
            password: scheduler.createHotObservable([.next(220, "secret1")]).asObservable(),
            repeatPassword: scheduler.createHotObservable([.next(230, "secret1")]).asObservable(),
            registerTap: scheduler.createHotObservable([.next(300, ())]).asObservable()
        )
        let alert = scheduler.createObserver(RegisterViewModel.Alert.self)
        let registering = scheduler.createObserver(Bool.self)
        SharingScheduler.mock(scheduler: scheduler) {
            let output = RegisterViewModel(
                input: input, validation: RegisterValidationStub(scheduler: scheduler, delay: 5),
                auth: RegisterAuthStub(register: refused)
            ).output
            scheduler.scheduleAt(200) {
                _ = output.alert.emit(to: alert)
                _ = output.registering.drive(registering)
            }
            scheduler.start()
        }
        #expect(
            alert.events == [
                .next(311, .init(kind: .failure, code: .usernameExists, params: ["name": "alice"]))
            ])
        #expect(registering.events == [.next(201, false), .next(301, true), .next(311, false)])
    }

    @Test func aTransportErrorIsANetworkErrorAlertAndTheOutputsDoNotFail() {
        let scheduler = TestScheduler(initialClock: 0)
        let broken = scheduler.createColdObservable(
            [.error(10, HeroesStubFailure())] as [Recorded<Event<RegisterResponse>>])
        let input = RegisterViewModel.Input(
            username: scheduler.createHotObservable([.next(210, "alice")]).asObservable(),
            password: scheduler.createHotObservable([.next(220, "secret1")]).asObservable(),
            repeatPassword: scheduler.createHotObservable([.next(230, "secret1")]).asObservable(),
            registerTap: scheduler.createHotObservable([.next(300, ()), .next(400, ())]).asObservable()
        )
        let alert = scheduler.createObserver(RegisterViewModel.Alert.self)
        SharingScheduler.mock(scheduler: scheduler) {
            let output = RegisterViewModel(
                input: input, validation: RegisterValidationStub(scheduler: scheduler, delay: 5),
                auth: RegisterAuthStub(register: broken)
            ).output
            scheduler.scheduleAt(200) { _ = output.alert.emit(to: alert) }
            scheduler.start()
        }
        // Both taps answer: the first error did not end the stream.
        #expect(
            alert.events == [
                .next(311, .init(kind: .error, code: .networkError)),
                .next(411, .init(kind: .error, code: .networkError)),
            ])
        #expect(broken.subscriptions == [Subscription(300, 310), Subscription(400, 410)])
    }
}
