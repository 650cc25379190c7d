import Contracts
import Reactive
import RemoteProtocol

/// One flow: its inputs and how its outputs are built, in order.
struct FlowSpec: Sendable {
    let method: FlowMethod
    /// Inputs that carry a text.
    let fields: [FlowInput.Name]
    /// Inputs that are taps.
    let taps: [FlowInput.Name]
    let build: @Sendable (FlowInputs, FlowContext) -> [Observable<FlowOutput>]

    static let all: [FlowMethod: FlowSpec] = Dictionary(
        uniqueKeysWithValues: [login, register, signin, heroes, numbers].map { ($0.method, $0) })

    /// What a bad input's error says.
    var expected: String {
        let texts = fields.map(\.rawValue).joined(separator: ", ")
        let tapNames = taps.map(\.rawValue).joined(separator: ", ")
        return taps.isEmpty
            ? "\(method.name) expects inputs \(texts) (with text)"
            : "\(method.name) expects inputs \(texts) (with text) and \(tapNames) (taps)"
    }

    /// Throws `bad_request` for an input this flow does not take.
    func check(_ event: FlowInput, maximumTextBytes: Int, maximumPage: Int) throws(RemoteError) {
        let name = event.inputName
        if let name, taps.contains(name) { return }
        guard let name, fields.contains(name) else {
            throw RemoteError(code: .badRequest, message: "unknown input \(event.input): \(expected)")
        }
        guard let text = event.text else {
            throw RemoteError(code: .badRequest, message: "input \(event.input) needs a text: \(expected)")
        }
        guard text.utf8.count <= maximumTextBytes else {
            throw RemoteError(
                code: .badRequest,
                message: "input \(event.input) is over \(maximumTextBytes) bytes: \(expected)")
        }
        if name == .page, Int(text).map({ (0...maximumPage).contains($0) }) != true {
            throw RemoteError(
                code: .badRequest,
                message: "input page must be a number from 0 to \(maximumPage): \(expected)")
        }
    }

    /// The rendered, de-duplicated output.
    private static func rendered<Element: Sendable>(
        _ source: Driver<Element>, _ render: @escaping @Sendable (Element) -> FlowOutput
    ) -> Observable<FlowOutput> {
        source.asObservable().map(render).distinctUntilChanged()
    }

    private static func events<Element: Sendable>(
        _ source: Signal<Element>, _ render: @escaping @Sendable (Element) -> FlowOutput
    ) -> Observable<FlowOutput> {
        source.asObservable().map(render)
    }

    static let login = FlowSpec(
        method: Methods.Flow.login, fields: [.phone, .password], taps: [.loginTap]
    ) {
        inputs, context in
        let output = LoginViewModel(
            validation: context.validation, auth: context.auth, client: context.client,
            deviceTokens: context.deviceTokens, scheduler: context.scheduler,
            reopenAfter: context.settings.reopenAfter
        ).transform(
            LoginViewModel.Input(
                phone: inputs.text(.phone), password: inputs.text(.password),
                loginTap: inputs.taps(.loginTap)))
        let render = context.renderer
        return [
            rendered(output.phoneResult) { render.field(.phone, $0) },
            rendered(output.passwordResult) { render.field(.password, $0) },
            rendered(output.loginEnabled) { render.flag(.loginEnabled, $0) },
            rendered(output.loggingIn) { render.flag(.loggingIn, $0) },
            rendered(output.tip) { render.tip($0) },
        ]
    }

    static let register = FlowSpec(
        method: Methods.Flow.register, fields: [.username, .password, .repeatPassword], taps: [.registerTap]
    ) { inputs, context in
        let output = RegisterViewModel(
            input: RegisterViewModel.Input(
                username: inputs.text(.username), password: inputs.text(.password),
                repeatPassword: inputs.text(.repeatPassword), registerTap: inputs.taps(.registerTap)),
            validation: context.validation, auth: context.auth, client: context.client,
            scheduler: context.scheduler, reopenAfter: context.settings.reopenAfter
        ).output
        let render = context.renderer
        return [
            rendered(output.username) { render.field(.username, $0) },
            rendered(output.password) { render.field(.password, $0) },
            rendered(output.repeatPassword) { render.field(.repeatPassword, $0) },
            rendered(output.passwordEnabled) { render.flag(.passwordEnabled, $0) },
            rendered(output.repeatEnabled) { render.flag(.repeatEnabled, $0) },
            rendered(output.registerEnabled) { render.flag(.registerEnabled, $0) },
            rendered(output.registering) { render.flag(.registering, $0) },
            events(output.alert) { render.alert($0) },
        ]
    }

    static let signin = FlowSpec(
        method: Methods.Flow.signin, fields: [.username, .password], taps: [.loginTap]
    ) {
        inputs, context in
        let output = SigninViewModel(
            input: SigninViewModel.Input(
                username: inputs.text(.username), password: inputs.text(.password),
                loginTap: inputs.taps(.loginTap)),
            validation: context.validation, auth: context.auth, client: context.client,
            deviceTokens: context.deviceTokens, scheduler: context.scheduler,
            reopenAfter: context.settings.reopenAfter
        ).output
        let render = context.renderer
        return [
            rendered(output.usernameResult) { render.field(.username, $0) },
            rendered(output.loginEnabled) { render.flag(.loginEnabled, $0) },
            rendered(output.loggingIn) { render.flag(.loggingIn, $0) },
            events(output.alert) { render.alert($0) },
            events(output.user) {
                render.session(name: $0.name, token: $0.userToken, deviceToken: $0.deviceToken)
            },
        ]
    }

    static let heroes = FlowSpec(method: Methods.Flow.heroes, fields: [.searchText, .page], taps: []) {
        inputs, context in
        let output = HeroesViewModel(
            input: HeroesViewModel.Input(
                searchText: inputs.text(.searchText), page: inputs.text(.page).compactMap { Int($0) }),
            catalog: context.heroes, token: context.token, scheduler: context.scheduler,
            throttle: context.settings.heroesThrottle, pageSize: context.settings.heroesPageSize
        ).output
        let render = context.renderer
        return [
            // Every answer is sent, a repeated one too: it answers a page asked for again.
            output.heroes.asObservable().map { render.heroes($0) },
            rendered(output.total) { render.count(.total, $0) },
            // `error` before `searching`: a client that stops reading when `searching` goes false
            // (gateway-cli's heroes script) has seen the search's outcome by then.
            rendered(output.error) { render.error($0) },
            rendered(output.searching) { render.flag(.searching, $0) },
        ]
    }

    static let numbers = FlowSpec(method: Methods.Flow.numbers, fields: [.a, .b, .c], taps: []) {
        inputs, context in
        let output = NumbersViewModel().transform(
            NumbersViewModel.Input(a: inputs.text(.a), b: inputs.text(.b), c: inputs.text(.c)))
        let render = context.renderer
        return [rendered(output.sum) { render.sum($0) }]
    }
}
