import Contracts
import GatewayCore
import Reactive
import ReactiveTestKit

/// Validation stub: answers each edit after `delay` ticks; a username is ok unless it is "taken".
struct RegisterValidationStub: ValidationServiceClient {
    let scheduler: TestScheduler
    let delay: TestTime

    func fields(_ parameters: FieldsParameters, edits: Observable<FieldEdit>) -> Observable<FieldResult> {
        let scheduler = self.scheduler
        let delay = self.delay
        return edits.flatMap { edit -> Observable<FieldResult> in
            let result: ValidationResult
            switch edit.field {
            case _ where edit.text.isEmpty: result = .empty
            case .username: result = edit.text == "taken" ? .failed(.usernameExists) : .ok(.usernameAvailable)
            case .password, .repeat: result = edit.text.count >= 6 ? .ok() : .failed(.passwordMin, ["n": "6"])
            case .phone: result = .ok()
            }
            return scheduler.createColdObservable([.next(delay, FieldResult(field: edit.field, result: result))])
                .asObservable()
        }
    }
}

/// Auth stub: each call is a cold observable on the test scheduler, so its subscribe and dispose
/// times are recorded (`calls`).
struct RegisterAuthStub: AuthServiceClient {
    let register: TestableObservable<RegisterResponse>

    func login(_ request: LoginRequest) -> Single<LoginResponse> {
        .just(LoginResponse(statusCode: 401, message: .loginWrongPassword))
    }

    func register(_ request: RegisterRequest) -> Single<RegisterResponse> {
        register.asObservable().asSingle()
    }
}
