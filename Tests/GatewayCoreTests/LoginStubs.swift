import Contracts
import GatewayCore
import Reactive
import ReactiveTestKit
import Synchronization

/// The error the login stubs fail with (a transport failure, as far as the view model knows).
struct LoginStubError: Error, Equatable {}

/// A `validate.fields` stand-in with the login rules (phone: ASCII digits, 11 to 15; password: at
/// least 6), answering every edit `delay` ticks later on the test scheduler. The first `breaks`
/// channels opened fail `breakAfter` ticks after they open; `opens` records when each was opened.
final class LoginStubValidation: ValidationServiceClient {
    let scheduler: TestScheduler
    let delay: Int
    let breakAfter: TestTime
    let breaks: Int
    private let opened = Mutex<[TestTime]>([])
    private let recovering: TestableObservable<Void>

    /// `recoveries` are the times the service is reachable again (``recoveries``).
    init(
        scheduler: TestScheduler, delay: Int = 0, breakAfter: TestTime = 0, breaks: Int = 0,
        recoveries: [TestTime] = []
    ) {
        self.scheduler = scheduler
        self.delay = delay
        self.breakAfter = breakAfter
        self.breaks = breaks
        recovering = scheduler.createHotObservable(recoveries.map { .next($0, ()) })
    }

    var recoveries: Observable<Void> { recovering.asObservable() }

    /// When each channel was opened (subscribed).
    var opens: [TestTime] { opened.withLock { $0 } }

    func fields(_ parameters: FieldsParameters, edits: Observable<FieldEdit>) -> Observable<FieldResult> {
        Observable.deferred { [self] in
            let index = opened.withLock { opens in
                opens.append(scheduler.clock)
                return opens.count - 1
            }
            let results = edits.map { edit in
                FieldResult(field: edit.field, result: Self.rule(edit, purpose: parameters.passwordPurpose))
            }
            let answered = delay == 0 ? results : results.delay(.seconds(delay), scheduler: scheduler)
            guard index < breaks else { return answered }
            let failure: Observable<FieldResult> = Observable<Int>.timer(
                .seconds(breakAfter), scheduler: scheduler
            )
            .flatMapLatest { _ in Observable<FieldResult>.error(LoginStubError()) }
            return Observable.merge(answered, failure)
        }
    }

    static func rule(_ edit: FieldEdit, purpose: PasswordPurpose) -> ValidationResult {
        if edit.text.isEmpty { return .empty }
        switch edit.field {
        case .phone:
            guard edit.text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return .failed(.phoneFormat) }
            if edit.text.count < 11 { return .failed(.phoneShort) }
            return edit.text.count > 15 ? .failed(.phoneFormat) : .ok()
        case .password:
            return edit.text.count < 6 ? .failed(.passwordShort) : .ok()
        case .username, .repeat:
            return .ok()
        }
    }
}

/// An `auth` stand-in: the n-th login answers with the n-th cold observable (virtual time from its
/// subscription), so `answers[n].subscriptions` shows when that login was sent and when it was
/// disposed (answered or cancelled). Logins past the last answer never answer.
final class LoginStubAuth: AuthServiceClient {
    let answers: [TestableObservable<LoginResponse>]
    private let received = Mutex<[LoginRequest]>([])

    init(scheduler: TestScheduler, answers: [[Recorded<Event<LoginResponse>>]]) {
        self.answers = answers.map { scheduler.createColdObservable($0) }
    }

    /// The login requests, in the order they were made.
    var requests: [LoginRequest] { received.withLock { $0 } }

    func login(_ request: LoginRequest) -> Single<LoginResponse> {
        let index = received.withLock { requests in
            requests.append(request)
            return requests.count - 1
        }
        guard index < answers.count else { return .never() }
        return answers[index].asSingle()
    }

    func register(_ request: RegisterRequest) -> Single<RegisterResponse> { .never() }
}

extension LoginResponse {
    /// 200 `login.ok` for `name`.
    static func ok(_ name: String, token: String) -> LoginResponse {
        LoginResponse(statusCode: 200, message: .loginOK, user: User(name: name, userToken: token))
    }

    /// 401 `login.wrongPassword`.
    static let wrongPassword = LoginResponse(statusCode: 401, message: .loginWrongPassword)

    /// 429 `login.throttled`, retry after `seconds`.
    static func throttled(_ seconds: Int) -> LoginResponse {
        LoginResponse(statusCode: 429, message: .loginThrottled, retryAfter: seconds)
    }
}
