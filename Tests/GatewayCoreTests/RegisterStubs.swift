import Contracts
import Synchronization
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
            case .username:
                result = edit.text == "taken" ? .failed(.usernameExists) : .ok(.usernameAvailable)
            case .password, .repeat: result = edit.text.count >= 6 ? .ok() : .failed(.passwordMin, ["n": "6"])
            case .phone: result = .ok()
            }
            let answer = FieldResult(field: edit.field, result: result)
            return scheduler.createColdObservable([.next(delay, answer)])
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

/// Auth stub for sign-in: each login is a cold observable (subscriptions recorded).
struct SigninAuthStub: AuthServiceClient {
    let login: TestableObservable<LoginResponse>

    func login(_ request: LoginRequest) -> Single<LoginResponse> {
        login.asObservable().asSingle()
    }

    func register(_ request: RegisterRequest) -> Single<RegisterResponse> {
        .just(RegisterResponse(statusCode: 201, message: .registerOK, username: request.username))
    }
}

/// Validation stub for sign-in: "alice" exists, any other name is unknown.
struct SigninValidationStub: ValidationServiceClient {
    let scheduler: TestScheduler

    func fields(_ parameters: FieldsParameters, edits: Observable<FieldEdit>) -> Observable<FieldResult> {
        let scheduler = self.scheduler
        return edits.flatMapLatest { edit -> Observable<FieldResult> in
            let result: ValidationResult =
                edit.text == "alice" ? .ok(.usernameExists) : .failed(.usernameUnknown)
            return scheduler.createColdObservable([.next(5, FieldResult(field: edit.field, result: result))])
                .asObservable()
        }
    }
}

/// Catalog stub: each search is the next cold observable in `answers` (subscriptions recorded).
final class HeroCatalogStub: HeroCatalogClient, Sendable {
    let answers: [TestableObservable<HeroSearchResponse>]
    let queries = HeroQueryLog()

    init(answers: [TestableObservable<HeroSearchResponse>]) { self.answers = answers }

    func search(_ request: HeroSearchRequest) -> Single<HeroSearchResponse> {
        let index = queries.appendReturningCount(request.query) - 1
        return answers[min(index, answers.count - 1)].asObservable().asSingle()
    }
}

/// The queries a stub has seen, in order.
final class HeroQueryLog: Sendable {
    private let storage = Mutex<[String]>([])

    /// Appends `query` and returns how many have been seen.
    func appendReturningCount(_ query: String) -> Int {
        storage.withLock { $0.append(query); return $0.count }
    }

    /// The queries so far.
    var all: [String] { storage.withLock { $0 } }
}
