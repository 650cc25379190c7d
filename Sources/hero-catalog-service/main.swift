// hero-catalog-service: the hero catalog over the remote-streams protocol, for session holders.
// Everything it does is in HeroCatalogCore; this file reads the configuration and runs it.
import Foundation
import HeroCatalogCore
import ServiceKit

let configuration = HeroOptions.interface.parseOrExit()
await ServiceMain.run(
    service: "heroes", configuration: configuration, standard: HeroOptions.standard,
    endpoint: configuration[HeroOptions.endpoint], curve: configuration[HeroOptions.curve] == .on,
    check: configuration[HeroOptions.check]
) { state, logger in
    // The catalog is read before anything listens: a bad file is an error at start-up.
    let catalog =
        try configuration[HeroOptions.catalog].map { path in try CatalogLoader.load(path: path) }
        ?? HeroCatalog(heroes: CatalogLoader.decode(Data(BuiltInCatalog.json.utf8), as: .json))
    // SIGHUP reloads --catalog and the allow-list (HeroProcess.reload).
    return try HeroProcess(
        configuration: configuration, state: state, environment: ProcessInfo.processInfo.environment,
        catalog: catalog, logger: logger)
}
