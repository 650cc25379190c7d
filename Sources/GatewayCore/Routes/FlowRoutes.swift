public import Contracts
public import Reactive
public import RemoteProtocol
public import RemoteStreams

/// The `flow.*` channels (``Methods/Flow/all``), each hosting one view model per screen
/// (``FlowSpec`` says how each flow's graph is built).
///
/// A flow channel's inputs are split by name into the view model's input streams; its outputs are
/// rendered in the channel's locale and merged into one stream of ``FlowOutput``s: every output's
/// initial value once at open, in the flow's documented order, then only changes. Bad input (an
/// unknown name, a field without text, an oversize text) ends the channel with `bad_request`.
public struct FlowRoutes: GatewayRoutes {
    private let environment: GatewayEnvironment

    /// The longest device token a flow's parameters may carry (the auth service's are 64 bytes).
    static let maximumDeviceTokenBytes = 256

    init(_ environment: GatewayEnvironment) { self.environment = environment }

    /// Registers every `flow.*` channel.
    public func register(into handlers: inout RemoteHandlers) {
        for method in Methods.Flow.all {
            handlers.handle(method) { [self] parameters, input, call in
                flow(method, parameters: parameters, input: input, client: call.peer)
            }
        }
    }

    /// The outputs of the flow `method` (one of ``Methods/Flow/all``) for `input`, on behalf of
    /// the end client `client`. Fails with `not_found` for another channel and `bad_request` for
    /// bad parameters or input.
    public func flow(
        _ method: FlowMethod, parameters: FlowParameters, input: Observable<FlowInput>, client: String?
    ) -> Observable<FlowOutput> {
        let settings = environment.settings
        let counters = environment.counters
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
        let scheduler = environment.scheduler
        let context = FlowContext(
            auth: ScheduledAuth(base: environment.auth, scheduler: scheduler),
            validation: ScheduledValidation(base: environment.validation, scheduler: scheduler),
            heroes: ScheduledCatalog(base: environment.heroes, scheduler: scheduler), settings: settings,
            scheduler: scheduler, renderer: environment.renderer(parameters.locale),
            token: parameters.token ?? "", client: client, deviceTokens: deviceTokens)
        let maximumTextBytes = settings.maximumTextBytes
        let maximumPage = settings.maximumPage
        return Observable<FlowOutput>.create { observer in
            // The graph is built on the flow scheduler, and the input is subscribed at once, where
            // the server subscribes the channel, observed on that scheduler: the build is scheduled
            // first, so (the scheduler being FIFO) every input reaches the built graph, in order. On
            // the gateway's loop both happen right here, in the server's call.
            let received = PublishSubject<FlowInput>()
            let graph = scheduler.schedule(()) { _ in
                let checked = received.map { event -> FlowInput in
                    counters.count { $0.inputs += 1 }
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
                    .do(onNext: { _ in counters.count { $0.outputs += 1 } })
                // The outputs never end by themselves; the input's end (or failure) ends the channel.
                let forward = outputs.subscribe(onNext: { observer.onNext($0) })
                let end = shared.subscribe(
                    onError: { error in
                        counters.countError(error)
                        observer.onError(error)
                    },
                    onCompleted: { observer.onCompleted() })
                // Connected last, so the inputs reach every branch.
                let connection = shared.connect()
                return Disposables.create(forward, end, connection)
            }
            let intake = input.observe(on: scheduler).subscribe { event in received.on(event) }
            return Disposables.create(intake, graph)
        }
        .do(
            onSubscribe: {
                counters.count {
                    $0.channelsOpened[method.name, default: 0] += 1
                    $0.channelsOpen[method.name, default: 0] += 1
                }
            },
            onDispose: { counters.count { $0.channelsOpen[method.name, default: 0] -= 1 } })
    }

    private func failed(_ error: RemoteError) -> Observable<FlowOutput> {
        environment.counters.countError(error)
        return .error(error)
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
