// hero-catalog-service: the hero catalog over the remote-streams protocol, for session holders.
// Everything it does is in HeroCatalogCore; this file reads the configuration and hosts it.
import ServiceKit

let configuration = HeroOptions.interface.parseOrExit()
await ServiceHost.main(
    HeroDescription(configuration: configuration), name: "heroes", version: HeroOptions.interface.version,
    configuration: configuration, options: HeroOptions.server)
