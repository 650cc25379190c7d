import Contracts
import GatewayMessages
import Reactive
import RemoteProtocol
public import RemoteStreams
import Synchronization

/// One unit of the gateway's methods (a flow or a group of commands): it registers its handlers
/// with the server in ``register(into:)``. ``GatewayService`` lists every unit and registers them
/// all in one place.
public protocol GatewayRoutes: Sendable {
    /// Registers this unit's methods.
    func register(into handlers: inout RemoteHandlers)
}

/// What every route unit is built with: the three services' clients, the texts, the settings, the
/// scheduler the flow graphs run on, and the counters `sys.stats` reports.
struct GatewayEnvironment: Sendable {
    let auth: any AuthServiceClient
    let validation: any ValidationServiceClient
    let heroes: any HeroCatalogClient
    let catalogue: MessageCatalogue
    let settings: GatewayService.Settings
    let scheduler: any SchedulerType
    let counters = GatewayCounters()

    /// The renderer of `locale` (default `zh-Hans`).
    func renderer(_ locale: MessageLocale?) -> FlowRenderer {
        FlowRenderer(catalogue: catalogue, locale: locale ?? .zhHans)
    }
}

extension GatewayService {
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

/// The counters every route unit updates, behind one lock.
final class GatewayCounters: Sendable {
    private let counters = Mutex(GatewayService.Counters())

    /// The counters so far.
    var snapshot: GatewayService.Counters { counters.withLock { $0 } }

    /// Applies `update` under the lock.
    func count(_ update: (inout GatewayService.Counters) -> Void) {
        counters.withLock { update(&$0) }
    }

    /// Counts an `ERROR` by its code (`internal` for an error that is no ``RemoteError``).
    func countError(_ error: any Error) {
        let code = (error as? RemoteError)?.code.rawValue ?? ErrorCode.internal.rawValue
        count { $0.errors[code, default: 0] += 1 }
    }

    /// `answer`, counted as an answer of `command` when it succeeds and as an error when it fails.
    func counted<Parameters, Response>(
        _ command: RequestMethod<Parameters, Response>, _ answer: Single<Response>
    ) -> Single<Response> {
        answer.do(
            onSuccess: { [self] _ in count { $0.commands[command.name, default: 0] += 1 } },
            onError: { [self] error in countError(error) })
    }
}
