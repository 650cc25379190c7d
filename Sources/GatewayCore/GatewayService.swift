public import Contracts
public import Dispatch
public import GatewayMessages
public import Reactive
public import RemoteProtocol
public import RemoteStreams
import Synchronization
public import ZeroMQ

/// The actor every flow graph runs in: its executor is the gateway's event loop (the thread its
/// server and its clients of the three services run on), so inputs, the services' answers and the
/// outputs meet on one thread; the view models are built and run there.
public actor FlowGraphs {
    /// The loop whose executor this actor runs on.
    public nonisolated let loop: SocketLoop

    /// An actor on `loop`'s executor.
    public init(on loop: SocketLoop) { self.loop = loop }

    public nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor.asUnownedSerialExecutor() }
}

/// The gateway's logic (docs/gateway/protocol.md): the `flow.*` channels, each hosting one view
/// model per screen, and the request/response commands.
///
/// A flow channel's inputs are split by name into the view model's input streams; its outputs are
/// rendered in the channel's locale and merged into one stream of ``FlowOutput``s: every output's
/// initial value once at open, in the flow's documented order, then only changes. Bad input (an
/// unknown name, a field without text, an oversize text) ends the channel with `bad_request`.
public final class GatewayService: Sendable {
    /// Counters for `sys.stats`.
    public struct Counters: Sendable, Hashable {
        /// Channels opened, by flow.
        public var channelsOpened: [String: Int] = [:]
        /// Channels open now, by flow.
        public var channelsOpen: [String: Int] = [:]
        /// Commands answered (including refusals), by command.
        public var commands: [String: Int] = [:]
        /// Calls and channels ended with an `ERROR`, by error code.
        public var errors: [String: Int] = [:]
        /// Input events received on channels.
        public var inputs = 0
        /// Output events sent on channels.
        public var outputs = 0
    }

    /// How flows behave.
    public struct Settings: Sendable {
        /// The longest text a field input may carry, in UTF-8 bytes.
        public var maximumTextBytes: Int
        /// How long after a broken validation channel a flow opens it again.
        public var reopenAfter: RxTimeInterval
        /// The heroes search box's throttle.
        public var heroesThrottle: RxTimeInterval
        /// Heroes per page on `flow.heroes`.
        public var heroesPageSize: Int
        /// The highest page number `flow.heroes` accepts.
        public var maximumPage: Int
        /// How long a command's field check may take before it is `network.error`.
        public var checkTimeout: RxTimeInterval

        /// Settings; the defaults are the gateway's.
        public init(
            maximumTextBytes: Int = 4_096, reopenAfter: RxTimeInterval = .seconds(1),
            heroesThrottle: RxTimeInterval = .milliseconds(300),
            heroesPageSize: Int = HeroesViewModel.defaultPageSize, maximumPage: Int = 100_000,
            checkTimeout: RxTimeInterval = .seconds(5)
        ) {
            self.maximumTextBytes = maximumTextBytes
            self.reopenAfter = reopenAfter
            self.heroesThrottle = heroesThrottle
            self.heroesPageSize = heroesPageSize
            self.maximumPage = maximumPage
            self.checkTimeout = checkTimeout
        }
    }

    /// The texts every output is rendered from.
    public let catalogue: MessageCatalogue
    /// How flows behave.
    public let settings: Settings
    private let auth: any AuthServiceClient
    private let validation: any ValidationServiceClient
    private let heroes: any HeroCatalogClient
    private let graphs: FlowGraphs?
    /// The loop the service made for its graphs, when it was given none (stopped when it goes).
    private let ownLoop: SocketLoop?
    private let scheduler: any SchedulerType
    private let counters_ = Mutex(Counters())

    /// A gateway over the three services' clients.
    ///
    /// - Parameters:
    ///   - loop: the gateway's event loop (its server's and clients'): flow graphs run in a
    ///     ``FlowGraphs`` actor on its executor, with its timers. Without one (and without a
    ///     `scheduler`) the service makes a loop of its own.
    ///   - scheduler: where flow graphs are built and run instead (tests pass a `TestScheduler`).
    ///     Inputs, the services' answers and timers are all observed there, and the view models'
    ///     Drivers deliver inline, so a flow's outputs come out in a deterministic order.
    public init(
        auth: any AuthServiceClient, validation: any ValidationServiceClient, heroes: any HeroCatalogClient,
        catalogue: MessageCatalogue = .standard, settings: Settings = Settings(), loop: SocketLoop? = nil,
        scheduler: (any SchedulerType)? = nil
    ) {
        self.auth = auth
        self.validation = validation
        self.heroes = heroes
        self.catalogue = catalogue
        self.settings = settings
        if let scheduler {
            graphs = nil
            ownLoop = nil
            self.scheduler = scheduler
        } else {
            let (loop, own) = SocketLoop.forService(loop, name: "gateway-flows")
            let graphs = FlowGraphs(on: loop)
            self.graphs = graphs
            ownLoop = own
            self.scheduler = ActorScheduler(graphs, on: loop)
        }
    }

    deinit {
        ownLoop?.stop()
    }

    /// The counters so far.
    public var counters: Counters { counters_.withLock { $0 } }

    /// The longest device token a flow's parameters may carry (the auth service's are 64 bytes).
    static let maximumDeviceTokenBytes = 256

    /// Registers the `flow.*` channels and the commands.
    public func register(into handlers: inout RemoteHandlers) {
        for method in Methods.Flow.all {
            handlers.handle(method) { [self] parameters, input, call in
                flow(method, parameters: parameters, input: input, client: call.peer)
            }
        }
        handlers.handle(Methods.Command.login) { [self] command, call in
            counted(Methods.Command.login, login(command, client: call.peer))
        }
        handlers.handle(Methods.Command.register) { [self] command, call in
            counted(Methods.Command.register, register(command, client: call.peer))
        }
        handlers.handle(Methods.Command.signin) { [self] command, call in
            counted(Methods.Command.signin, signin(command, client: call.peer))
        }
        handlers.handle(Methods.Command.heroesSearch) { [self] command in
            counted(Methods.Command.heroesSearch, search(command))
        }
    }

    // MARK: Flows

    /// The outputs of the flow `method` (one of ``Methods/Flow/all``) for `input`, on behalf of
    /// the end client `client`. Fails with `not_found` for another channel and `bad_request` for
    /// bad parameters or input.
    public func flow(
        _ method: FlowMethod, parameters: FlowParameters, input: Observable<FlowInput>, client: String?
    ) -> Observable<FlowOutput> {
        guard let spec = FlowSpec.all[method] else {
            return failed(RemoteError(code: .notFound, message: "no flow \(method.name)"))
        }
        if method == Methods.Flow.heroes, (parameters.token ?? "").isEmpty {
            return failed(
                RemoteError(
                    code: .badRequest, message: "flow.heroes needs a token (sign in first): {\"token\":\"…\"}"
                ))
        }
        let deviceTokens = parameters.deviceTokens ?? [:]
        if deviceTokens.count > FlowParameters.maximumDeviceTokens
            || deviceTokens.contains(where: {
                $0.key.utf8.count > settings.maximumTextBytes
                    || $0.value.utf8.count > Self.maximumDeviceTokenBytes
            })
        {
            return failed(
                RemoteError(
                    code: .badRequest,
                    message:
                        "device_tokens takes at most \(FlowParameters.maximumDeviceTokens) names of at most "
                        + "\(settings.maximumTextBytes) bytes, each with a token of at most "
                        + "\(Self.maximumDeviceTokenBytes) bytes"))
        }
        let renderer = FlowRenderer(catalogue: catalogue, locale: parameters.locale ?? .zhHans)
        let context = FlowContext(
            auth: ScheduledAuth(base: auth, scheduler: scheduler),
            validation: ScheduledValidation(base: validation, scheduler: scheduler),
            heroes: ScheduledCatalog(base: heroes, scheduler: scheduler), settings: settings,
            scheduler: scheduler,
            renderer: renderer, token: parameters.token ?? "", client: client, deviceTokens: deviceTokens)
        let scheduler = self.scheduler
        let maximumTextBytes = settings.maximumTextBytes
        let maximumPage = settings.maximumPage
        return Observable<FlowOutput>.create { observer in
            // The input is subscribed at once, where the server subscribes the channel (inputs that
            // arrive before the graph is built wait in the buffer); the graph is built and runs on
            // the flow actor (or the test scheduler).
            let buffer = PendingInput()
            let intake = input.subscribe { event in buffer.on(event) }
            let graph = scheduler.schedule(()) { [self] _ in
                let checked = buffer.events.observe(on: scheduler).map { event -> FlowInput in
                    self.count { $0.inputs += 1 }
                    try spec.check(event, maximumTextBytes: maximumTextBytes, maximumPage: maximumPage)
                    return event
                }
                let shared = checked.publish()
                let inputs = FlowInputs(shared: shared.asObservable())
                // Every source is observed on the flow scheduler, so Drivers deliver inline (see
                // InlineScheduler): simultaneous changes come out in the flow's documented order.
                let built = SharingScheduler.mock(scheduler: InlineScheduler(base: scheduler)) {
                    spec.build(inputs, context)
                }
                let outputs = Observable.merge(built)
                    .do(onNext: { [self] _ in count { $0.outputs += 1 } })
                // The outputs never end by themselves; the input's end (or failure) ends the channel.
                let forward = outputs.subscribe(onNext: { observer.onNext($0) })
                let end = shared.subscribe(
                    onError: { [self] error in
                        countError(error)
                        observer.onError(error)
                    },
                    onCompleted: { observer.onCompleted() })
                // Connected last, so the inputs reach every branch.
                let connection = shared.connect()
                return Disposables.create(forward, end, connection)
            }
            return Disposables.create(intake, graph)
        }
        .do(
            onSubscribe: { [self] in
                count {
                    $0.channelsOpened[method.name, default: 0] += 1
                    $0.channelsOpen[method.name, default: 0] += 1
                }
            },
            onDispose: { [self] in count { $0.channelsOpen[method.name, default: 0] -= 1 } })
    }

    // MARK: Commands

    /// `login`: the phone and password checked with the login rules, then `auth.login`.
    public func login(_ command: LoginCommand, client: String?) -> Single<CommandResult> {
        let renderer = FlowRenderer(catalogue: catalogue, locale: command.locale ?? .zhHans)
        let auth = self.auth
        let edits = [
            FieldEdit(field: .phone, text: command.phone),
            FieldEdit(field: .password, text: command.password),
        ]
        return checked(edits, purposes: (.signin, .login), client: client, renderer: renderer) {
            auth.login(
                LoginRequest(
                    username: command.phone, password: command.password, client: client,
                    deviceToken: command.deviceToken)
            )
            .map { response in
                let message = LoginViewModel.message(for: response)
                let ok = message.code == .loginOK
                return CommandResult(
                    ok: ok, code: message.code, message: renderer.text(message),
                    name: ok ? response.user?.name : nil, token: ok ? response.user?.userToken : nil,
                    deviceToken: ok ? response.user?.deviceToken : nil)
            }
        }
    }

    /// `register`: the three fields checked with the register rules (the username looked up), then
    /// `auth.register`.
    public func register(_ command: RegisterCommand, client: String?) -> Single<CommandResult> {
        let renderer = FlowRenderer(catalogue: catalogue, locale: command.locale ?? .zhHans)
        let auth = self.auth
        let edits = [
            FieldEdit(field: .username, text: command.username),
            FieldEdit(field: .password, text: command.password),
            FieldEdit(field: .repeat, text: command.repeatPassword ?? command.password),
        ]
        return checked(edits, purposes: (.register, .register), client: client, renderer: renderer) {
            auth.register(
                RegisterRequest(
                    username: command.username, password: command.password, client: client,
                    requestID: RegisterRequest.newRequestID())
            )
            .map { response in
                let message = ScreenMessage(response.message, ["name": response.username])
                return CommandResult(
                    ok: response.statusCode / 100 == 2, code: message.code, message: renderer.text(message))
            }
        }
    }

    /// `signin`: the username checked (it must exist) and the password non-empty, then
    /// `auth.login`; a refusal reads `login.wrongPassword` whether or not the user exists.
    public func signin(_ command: SigninCommand, client: String?) -> Single<CommandResult> {
        let renderer = FlowRenderer(catalogue: catalogue, locale: command.locale ?? .zhHans)
        let auth = self.auth
        let edits = [
            FieldEdit(field: .username, text: command.username),
            FieldEdit(field: .password, text: command.password),
        ]
        return checked(edits, purposes: (.signin, .login), client: client, renderer: renderer) {
            auth.login(
                LoginRequest(
                    username: command.username, password: command.password, client: client,
                    deviceToken: command.deviceToken)
            )
            .map { response in
                let alert = SigninViewModel.alert(for: response)
                let ok = alert.kind == .success
                return CommandResult(
                    ok: ok, code: alert.code, message: renderer.text(alert.message),
                    name: ok ? response.user?.name : nil, token: ok ? response.user?.userToken : nil,
                    deviceToken: ok ? response.user?.deviceToken : nil)
            }
        }
    }

    /// `heroes.search`: one page, rendered. The catalog's refusals (`unauthenticated` for a bad
    /// token) and failures end the call as they are.
    public func search(_ command: HeroesCommand) -> Single<HeroesCommandResult> {
        let renderer = FlowRenderer(catalogue: catalogue, locale: command.locale ?? .zhHans)
        let limit = command.limit ?? 50
        let offset = command.offset ?? 0
        let query = command.query ?? ""
        guard (1...500).contains(limit), offset >= 0, !command.token.isEmpty,
            query.utf8.count <= settings.maximumTextBytes
        else {
            return .error(
                RemoteError(
                    code: .badRequest,
                    message: "heroes.search needs a token, limit 1-500, offset ≥ 0 and a query of at most "
                        + "\(settings.maximumTextBytes) bytes"))
        }
        return heroes.search(
            HeroSearchRequest(query: query, offset: offset, limit: limit, token: command.token)
        )
        .map { page in HeroesCommandResult(total: page.total, heroes: page.items.map(renderer.hero)) }
    }

    /// Checks `edits` over `validate.fields`; the first failing field (in `edits`' order) is the
    /// answer, else `call` runs. Empty or oversize fields are `bad_request`; a check or call that
    /// fails is `network.error`.
    private func checked(
        _ edits: [FieldEdit], purposes: (UsernamePurpose, PasswordPurpose), client: String?,
        renderer: FlowRenderer, then call: @escaping @Sendable () -> Single<CommandResult>
    ) -> Single<CommandResult> {
        for edit in edits {
            if edit.text.isEmpty || edit.text.utf8.count > settings.maximumTextBytes {
                return .error(
                    RemoteError(
                        code: .badRequest,
                        message: "\(edit.field.rawValue) must be 1 to \(settings.maximumTextBytes) bytes"))
            }
        }
        let wanted = edits.map(\.field)
        let parameters = FieldsParameters(
            usernamePurpose: purposes.0, passwordPurpose: purposes.1, client: client)
        let networkError = CommandResult(
            ok: false, code: .networkError, message: renderer.text(ScreenMessage(.networkError)))
        return validation.fields(parameters, edits: .from(edits))
            .scan([Field: ValidationResult]()) { results, answer in
                var next = results
                next[answer.field] = answer.result
                return next
            }
            .filter { results in wanted.allSatisfy { results[$0].map { $0.state != .validating } ?? false } }
            .take(1)
            .asSingle()
            .timeout(settings.checkTimeout, scheduler: scheduler)
            .flatMap { results -> Single<CommandResult> in
                for field in wanted {
                    guard let result = results[field], !result.isValid else { continue }
                    let message = ScreenMessage(result.code ?? .networkError, result.params)
                    return .just(
                        CommandResult(ok: false, code: message.code, message: renderer.text(message)))
                }
                return call().catchAndReturn(networkError)
            }
            .catchAndReturn(networkError)
    }

    // MARK: Counting

    private func counted<Parameters, Response>(
        _ command: RequestMethod<Parameters, Response>, _ answer: Single<Response>
    ) -> Single<Response> {
        answer.do(
            onSuccess: { [self] _ in count { $0.commands[command.name, default: 0] += 1 } },
            onError: { [self] error in countError(error) })
    }

    private func failed(_ error: RemoteError) -> Observable<FlowOutput> {
        countError(error)
        return .error(error)
    }

    private func countError(_ error: any Error) {
        let code = (error as? RemoteError)?.code.rawValue ?? ErrorCode.internal.rawValue
        count { $0.errors[code, default: 0] += 1 }
    }

    private func count(_ update: (inout Counters) -> Void) {
        counters_.withLock { update(&$0) }
    }
}

extension GatewayService.Counters {
    /// The counters as `sys.stats` groups: `gateway` (totals) and one group per breakdown.
    public var statsGroups: [String: [String: Int]] {
        [
            "gateway": [
                "channels_open": channelsOpen.values.reduce(0, +),
                "channels_opened": channelsOpened.values.reduce(0, +),
                "commands": commands.values.reduce(0, +), "errors": errors.values.reduce(0, +),
                "inputs": inputs, "outputs": outputs,
            ],
            "channels_open": channelsOpen, "channels_opened": channelsOpened, "commands": commands,
            "errors": errors,
        ]
    }
}

/// A channel's input events, held from the moment the server subscribes the channel until the graph
/// (built later, on the flow actor) subscribes ``events``; then passed straight on, in order.
///
/// One producer (the server's thread) calls ``on(_:)``. Nothing is called out under the lock: the
/// held events are handed over in batches outside it, and the observer is attached only once no
/// event is held, so the order is kept.
final class PendingInput: Sendable {
    private struct State {
        var pending: [Event<FlowInput>] = []
        var observer: AnyObserver<FlowInput>?
        var disposed = false
    }

    private let state = Mutex(State())

    /// Receives one event from the server.
    func on(_ event: Event<FlowInput>) {
        let observer = state.withLock { state -> AnyObserver<FlowInput>? in
            if state.disposed { return nil }
            guard let observer = state.observer else {
                state.pending.append(event)
                return nil
            }
            return observer
        }
        observer?.on(event)
    }

    /// The events, the held ones first; one subscriber.
    var events: Observable<FlowInput> {
        Observable.create { [self] observer in
            while true {
                let batch = state.withLock { state -> [Event<FlowInput>] in
                    guard !state.pending.isEmpty else {
                        if !state.disposed { state.observer = observer }
                        return []
                    }
                    defer { state.pending = [] }
                    return state.pending
                }
                if batch.isEmpty { break }
                for event in batch { observer.on(event) }
            }
            return Disposables.create { [self] in
                state.withLock { state in
                    state.observer = nil
                    state.disposed = true
                    state.pending = []
                }
            }
        }
    }
}

/// What a flow's view model is built with.
struct FlowContext: Sendable {
    let auth: any AuthServiceClient
    let validation: any ValidationServiceClient
    let heroes: any HeroCatalogClient
    let settings: GatewayService.Settings
    let scheduler: any SchedulerType
    let renderer: FlowRenderer
    let token: String
    let client: String?
    /// The client's device tokens, by account name.
    let deviceTokens: [String: String]
}

/// A channel's checked inputs, split by name.
struct FlowInputs: Sendable {
    let shared: Observable<FlowInput>

    /// The texts of the field `name` (errors stay on the channel's own branch).
    func text(_ name: FlowInput.Name) -> Observable<String> {
        shared.filter { $0.input == name.rawValue }.map { $0.text ?? "" }.catch { _ in .never() }
    }

    /// The taps on `name`.
    func taps(_ name: FlowInput.Name) -> Observable<Void> {
        shared.filter { $0.input == name.rawValue }.map { _ in () }.catch { _ in .never() }
    }
}

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
