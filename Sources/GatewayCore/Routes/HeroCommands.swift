public import Contracts
public import Reactive
import RemoteProtocol
public import RemoteStreams

/// The command `heroes.search`: one page of the hero catalog, rendered in the request's locale.
public struct HeroCommandRoutes: GatewayRoutes {
    private let environment: GatewayEnvironment

    init(_ environment: GatewayEnvironment) { self.environment = environment }

    /// Registers `heroes.search`.
    public func register(into handlers: inout RemoteHandlers) {
        let counters = environment.counters
        handlers.handle(Methods.Command.heroesSearch) { [self] command in
            counters.counted(Methods.Command.heroesSearch, search(command))
        }
    }

    /// `heroes.search`: one page, rendered. The catalog's refusals (`unauthenticated` for a bad
    /// token) and failures end the call as they are.
    public func search(_ command: HeroesCommand) -> Single<HeroesCommandResult> {
        let renderer = environment.renderer(command.locale)
        let maximumTextBytes = environment.settings.maximumTextBytes
        let limit = command.limit ?? 50
        let offset = command.offset ?? 0
        let query = command.query ?? ""
        guard (1...500).contains(limit), offset >= 0, !command.token.isEmpty,
            query.utf8.count <= maximumTextBytes
        else {
            return .error(
                RemoteError(
                    code: .badRequest,
                    message: "heroes.search needs a token, limit 1-500, offset ≥ 0 and a query of at most "
                        + "\(maximumTextBytes) bytes"))
        }
        return environment.heroes.search(
            HeroSearchRequest(query: query, offset: offset, limit: limit, token: command.token)
        )
        .map { page in HeroesCommandResult(total: page.total, heroes: page.items.map(renderer.hero)) }
    }
}
