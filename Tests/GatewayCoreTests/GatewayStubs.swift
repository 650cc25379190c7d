import Contracts
import GatewayCore
import Reactive
import ReactiveTestKit
import RemoteProtocol
import Synchronization

/// A `validate.fields` stand-in with every screen's rules, answering at once: phone (login rules),
/// password (6 or more; `password.short` to log in, `password.min {n}` to register), repeat (ok
/// when equal to the latest password on the channel), username (register: "taken" exists; signin:
/// only "alice" exists). While `down` holds, opening a channel fails at once.
final class GatewayStubValidation: ValidationServiceClient {
    private let state = Mutex((down: false, opens: 0, open: 0))
    private let outages = PublishRelay<Void>()

    /// Breaks every open channel and fails new ones until ``recover()``.
    func breakDown() {
        down = true
        outages.accept(())
    }

    /// New channels work again.
    func recover() { down = false }

    /// Channels open now.
    var open: Int { state.withLock { $0.open } }

    /// Whether the service is "down" (channels fail when opened).
    var down: Bool {
        get { state.withLock { $0.down } }
        set { state.withLock { $0.down = newValue } }
    }

    /// Channels opened so far.
    var opens: Int { state.withLock { $0.opens } }

    func fields(_ parameters: FieldsParameters, edits: Observable<FieldEdit>) -> Observable<FieldResult> {
        Observable.deferred { [self] in
            let down = state.withLock { state -> Bool in
                state.opens += 1
                return state.down
            }
            if down { return .error(RemoteError(code: .unavailable, message: "down")) }
            let results = edits.scan((password: "", answer: FieldResult?.none)) { state, edit in
                var password = state.password
                if edit.field == .password { password = edit.text }
                let result = Self.rule(edit, parameters: parameters, password: password)
                return (password, FieldResult(field: edit.field, result: result))
            }
            .compactMap(\.answer)
            let broken = outages.flatMap { _ in
                Observable<FieldResult>.error(RemoteError(code: .unavailable, message: "went down"))
            }
            return Observable.merge(results, broken).do(
                onSubscribe: { [self] in state.withLock { $0.open += 1 } },
                onDispose: { [self] in state.withLock { $0.open -= 1 } })
        }
    }

    static func rule(_ edit: FieldEdit, parameters: FieldsParameters, password: String) -> ValidationResult {
        if edit.text.isEmpty { return .empty }
        switch edit.field {
        case .phone:
            return LoginStubValidation.rule(edit, purpose: parameters.passwordPurpose)
        case .password:
            if edit.text.count >= 6 { return .ok() }
            return parameters.passwordPurpose == .login
                ? .failed(.passwordShort) : .failed(.passwordMin, ["n": "6"])
        case .repeat:
            return edit.text == password ? .ok() : .failed(.repeatMismatch)
        case .username:
            switch parameters.usernamePurpose {
            case .register:
                return edit.text == "taken"
                    ? .failed(.usernameExists, ["name": edit.text])
                    : .ok(.usernameAvailable, ["name": edit.text])
            case .signin:
                return edit.text == "alice" ? .ok(.usernameExists) : .failed(.usernameUnknown)
            }
        }
    }
}

/// An auth stand-in answering `delay` ticks later (at once without a scheduler): phone 13800000000
/// (or "alice") with "secret1" logs in as ann (token t1), answering back the device token the login
/// presented, as auth-service does for a device it knows; registering succeeds for any name but
/// "taken".
struct GatewayStubAuth: AuthServiceClient {
    let scheduler: TestScheduler?
    var delay = 10

    private func answer<Response: Sendable>(_ response: Response) -> Single<Response> {
        guard let scheduler else { return .just(response) }
        return Observable.just(response).delay(.seconds(delay), scheduler: scheduler).asSingle()
    }

    func login(_ request: LoginRequest) -> Single<LoginResponse> {
        let ok = ["13800000000", "alice"].contains(request.username) && request.password == "secret1"
        var success = LoginResponse.ok("ann", token: "t1")
        success.user?.deviceToken = request.deviceToken
        return answer(ok ? success : .wrongPassword)
    }

    func register(_ request: RegisterRequest) -> Single<RegisterResponse> {
        let response =
            request.username == "taken"
            ? RegisterResponse(statusCode: 409, message: .usernameExists, username: request.username)
            : RegisterResponse(statusCode: 201, message: .registerOK, username: request.username)
        return answer(response)
    }
}

/// A catalog of two heroes; the token "good" is accepted, any other is `unauthenticated`.
struct GatewayStubCatalog: HeroCatalogClient {
    static let heroes = [
        Hero(
            id: 1, name: ["zh-Hans": "亚索", "en": "Yasuo"],
            intro: ["zh-Hans": "疾风剑豪", "en": "The Unforgiven"], icon: "1.png"),
        Hero(id: 2, name: ["zh-Hans": "阿狸"], intro: ["zh-Hans": "九尾妖狐"], icon: "2.png"),
    ]

    let scheduler: TestScheduler?

    func search(_ request: HeroSearchRequest) -> Single<HeroSearchResponse> {
        if request.token == "down" {
            return .error(RemoteError(code: .unavailable, message: "hero-catalog-service is down"))
        }
        guard request.token == "good" else {
            return .error(RemoteError(code: .unauthenticated, message: "bad token"))
        }
        let matches = Self.heroes.filter { hero in
            request.query.isEmpty || hero.name.values.contains { $0.contains(request.query) }
        }
        let page = Array(matches.dropFirst(request.offset ?? 0).prefix(request.limit ?? 50))
        let response = HeroSearchResponse(total: matches.count, items: page)
        guard let scheduler else { return .just(response) }
        return Observable.just(response).delay(.seconds(5), scheduler: scheduler).asSingle()
    }
}
