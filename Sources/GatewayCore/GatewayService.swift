public import Contracts
public import Dispatch
public import GatewayMessages
public import Reactive
public import RemoteStreams
public import ZeroMQ

/// The gateway's logic (docs/gateway/protocol.md): the composition root of its route units, each
/// of which registers its own methods (``GatewayRoutes``):
///
/// - ``FlowRoutes``: the `flow.*` channels, each hosting one view model per screen;
/// - ``AccountCommandRoutes``: the commands `login`, `signin` and `register`;
/// - ``HeroCommandRoutes``: the command `heroes.search`.
///
/// The units share one ``GatewayEnvironment``: the three services' clients, the catalogue, the
/// settings, the scheduler the graphs run on and the `sys.stats` counters.
public final class GatewayService: Sendable {
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

    /// What every route unit shares.
    let environment: GatewayEnvironment
    /// The `flow.*` channels.
    public let flows: FlowRoutes
    /// `login`, `signin` and `register`.
    public let accounts: AccountCommandRoutes
    /// `heroes.search`.
    public let heroSearch: HeroCommandRoutes
    /// A gateway over the three services' clients whose flow graphs run on `loop`'s thread
    /// (a ``LoopScheduler``), with its timers: the gateway's event loop (its server's and
    /// clients'), which its caller owns and stops. Inputs, the services' answers and the outputs
    /// meet on that one thread; the view models are built and run there.
    public convenience init(
        auth: any AuthServiceClient, validation: any ValidationServiceClient, heroes: any HeroCatalogClient,
        catalogue: MessageCatalogue = .standard, settings: Settings = Settings(), loop: SocketLoop
    ) {
        self.init(
            auth: auth, validation: validation, heroes: heroes, catalogue: catalogue, settings: settings,
            scheduler: LoopScheduler(on: loop) as any SchedulerType)
    }

    /// A gateway over the three services' clients whose flow graphs are built and run on
    /// `scheduler` (tests pass a `TestScheduler`): inputs, the services' answers and timers are all
    /// observed there, and the view models' Drivers deliver inline, so a flow's outputs come out in
    /// a deterministic order.
    public init(
        auth: any AuthServiceClient, validation: any ValidationServiceClient, heroes: any HeroCatalogClient,
        catalogue: MessageCatalogue = .standard, settings: Settings = Settings(), scheduler: any SchedulerType
    ) {
        environment = GatewayEnvironment(
            auth: auth, validation: validation, heroes: heroes, catalogue: catalogue, settings: settings,
            scheduler: scheduler)
        flows = FlowRoutes(environment)
        accounts = AccountCommandRoutes(environment)
        heroSearch = HeroCommandRoutes(environment)
    }

    /// Every route unit, in the order their methods are registered.
    public var routes: [any GatewayRoutes] { [flows, accounts, heroSearch] }

    /// Registers every route unit's methods: the `flow.*` channels and the commands.
    public func register(into handlers: inout RemoteHandlers) {
        for unit in routes { unit.register(into: &handlers) }
    }

    /// The texts every output is rendered from.
    public var catalogue: MessageCatalogue { environment.catalogue }
    /// How flows behave.
    public var settings: Settings { environment.settings }
    /// The counters so far.
    public var counters: Counters { environment.counters.snapshot }

    // MARK: The route units' entry points

    /// ``FlowRoutes/flow(_:parameters:input:client:)``.
    public func flow(
        _ method: FlowMethod, parameters: FlowParameters, input: Observable<FlowInput>, client: String?
    ) -> Observable<FlowOutput> {
        flows.flow(method, parameters: parameters, input: input, client: client)
    }

    /// ``AccountCommandRoutes/login(_:client:)``.
    public func login(_ command: LoginCommand, client: String?) -> Single<CommandResult> {
        accounts.login(command, client: client)
    }

    /// ``AccountCommandRoutes/signin(_:client:)``.
    public func signin(_ command: SigninCommand, client: String?) -> Single<CommandResult> {
        accounts.signin(command, client: client)
    }

    /// ``AccountCommandRoutes/register(_:client:)``.
    public func register(_ command: RegisterCommand, client: String?) -> Single<CommandResult> {
        accounts.register(command, client: client)
    }

    /// ``HeroCommandRoutes/search(_:)``.
    public func search(_ command: HeroesCommand) -> Single<HeroesCommandResult> {
        heroSearch.search(command)
    }
}
