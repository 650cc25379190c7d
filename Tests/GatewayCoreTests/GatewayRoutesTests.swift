import Contracts
import GatewayCore
import ReactiveTestKit
import RemoteProtocol
import RemoteStreams
import Testing

@Suite("GatewayService routes", .timeLimit(.minutes(1)))
struct GatewayRoutesTests {
    private let service: GatewayService = {
        let scheduler = TestScheduler(initialClock: 0)
        return GatewayService(
            auth: GatewayStubAuth(scheduler: scheduler), validation: GatewayStubValidation(),
            heroes: GatewayStubCatalog(scheduler: scheduler), scheduler: scheduler)
    }()

    private func names(_ unit: any GatewayRoutes) -> Set<String> {
        var handlers = RemoteHandlers()
        unit.register(into: &handlers)
        return Set(handlers.names)
    }

    @Test func theServiceRegistersEveryFlowAndCommandOnce() {
        var handlers = RemoteHandlers()
        service.register(into: &handlers)
        let wire = Methods.Flow.all.map(\.name) + Methods.Command.all.map(\.name)
        #expect(handlers.names == wire.sorted())
        // No two units register the same method.
        let units = service.routes.map(names)
        #expect(units.map(\.count).reduce(0, +) == wire.count)
        #expect(units.reduce(into: Set<String>()) { $0.formUnion($1) } == Set(wire))
    }

    @Test func eachUnitRegistersItsOwnMethods() {
        #expect(names(service.flows) == Set(Methods.Flow.all.map(\.name)))
        #expect(
            names(service.accounts)
                == [Methods.Command.login.name, Methods.Command.signin.name, Methods.Command.register.name])
        #expect(names(service.heroSearch) == [Methods.Command.heroesSearch.name])
    }
}
