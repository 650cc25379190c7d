public import Contracts
public import Reactive
public import RemoteStreams
public import ZeroMQ

/// A client of the gateway (docs/gateway/cli.md): its flow channels and its commands, over one
/// ``RemoteClient``.
///
/// ```swift
/// let gateway = try GatewayConnection(configuration: .init(endpoint: "tcp://127.0.0.1:5560",
///                                                           curve: curve))
/// let outputs = gateway.open(Methods.Flow.numbers, FlowParameters(locale: .en), inputs)
/// ```
public final class GatewayConnection: Sendable {
    /// How to reach the gateway.
    public struct Configuration: Sendable {
        /// The gateway's endpoint, e.g. `tcp://127.0.0.1:5560`.
        public var endpoint: String
        /// CURVE settings (the gateway's public key and this client's key pair), or nil for a plain
        /// connection.
        public var curve: RemoteClient.Curve?
        /// The deadline of each command.
        public var deadline: Duration
        /// The deadline of each flow channel: how long the gateway keeps it open at most.
        public var channelDeadline: Duration
        /// How long a call waits for the connection to the gateway (the CURVE handshake included)
        /// before it fails with `unavailable`: a gateway that is down, or that does not accept this
        /// key, is reported after this long, not after the whole deadline. A connection that is lost
        /// fails the open calls at once.
        public var connectTimeout: Duration

        /// A configuration; channels default to a day, which outlasts any interactive session.
        public init(
            endpoint: String, curve: RemoteClient.Curve? = nil, deadline: Duration = .seconds(10),
            channelDeadline: Duration = .seconds(86_400), connectTimeout: Duration = .seconds(2)
        ) {
            self.endpoint = endpoint
            self.curve = curve
            self.deadline = deadline
            self.channelDeadline = channelDeadline
            self.connectTimeout = connectTimeout
        }
    }

    /// The underlying client.
    public let client: RemoteClient
    private let configuration: Configuration
    /// The context the connection made for itself, kept alive with it.
    private let context: Context?

    /// Connects to the gateway in `context`, or in a context of its own when nil.
    public init(configuration: Configuration, context: Context? = nil) throws {
        let shared: Context
        if let context {
            shared = context
            self.context = nil
        } else {
            shared = try Context()
            self.context = shared
        }
        self.configuration = configuration
        client = try RemoteClient(
            context: shared,
            configuration: RemoteClient.Configuration(
                endpoints: [configuration.endpoint], deadline: configuration.deadline, name: "gateway-cli",
                curve: configuration.curve, connectTimeout: configuration.connectTimeout))
    }

    /// Opens the `flow` channel (one of ``Methods/Flow/all``) with `parameters`, streaming
    /// `inputs` to the gateway; the gateway's outputs come back, in order, on the client's thread.
    /// Disposing the subscription cancels the channel. Has the shape of ``OpenFlow``.
    public func open(_ flow: FlowMethod, _ parameters: FlowParameters, _ inputs: Observable<FlowInput>)
        -> Observable<FlowOutput>
    {
        client.channel(flow, parameters, input: inputs, deadline: configuration.channelDeadline)
    }

    /// ``open(_:_:_:)`` as a value, for ``ScriptRunner`` and the terminal UI.
    public var openFlow: OpenFlow {
        { [self] flow, parameters, inputs in open(flow, parameters, inputs) }
    }

    /// `login`: the phone login as one call.
    public func login(_ command: LoginCommand) -> Single<CommandResult> {
        client.request(Methods.Command.login, command)
    }

    /// `register`: a registration as one call.
    public func register(_ command: RegisterCommand) -> Single<CommandResult> {
        client.request(Methods.Command.register, command)
    }

    /// `signin`: a username sign-in as one call.
    public func signin(_ command: SigninCommand) -> Single<CommandResult> {
        client.request(Methods.Command.signin, command)
    }

    /// `heroes.search`: one page of heroes.
    public func searchHeroes(_ command: HeroesCommand) -> Single<HeroesCommandResult> {
        client.request(Methods.Command.heroesSearch, command)
    }

    /// Stops the client: open calls fail with `unavailable`. A context of its own is terminated
    /// when the connection is released.
    public func stop() async {
        await client.stop()
    }
}
