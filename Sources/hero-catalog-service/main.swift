// hero-catalog-service: the hero catalog over the remote-streams protocol, for session holders.
// Everything it does is in HeroCatalogCore; this file reads the configuration and runs it.
import Foundation
import HeroCatalogCore
import RemoteStreams
import ServiceKit

let configuration = HeroOptions.interface.parseOrExit()
let environment = ProcessInfo.processInfo.environment
let logger = HeroOptions.standard.logger(service: "heroes", from: configuration)

do {
    let state = try HeroOptions.standard.stateDirectory(
        service: "heroes", from: configuration, environment: environment)
    if configuration[HeroOptions.check] {
        var curve: RemoteClient.Curve?
        if configuration[HeroOptions.curve] == .on {
            curve = RemoteClient.Curve(
                serverKey: try CurveKeyFiles.serverKeys(in: state).publicKey,
                keys: try CurveKeyFiles.clientKeys(in: state))
        }
        let outcome = await HealthCheck.run(
            endpoint: configuration[HeroOptions.endpoint].description, curve: curve, timeout: .seconds(2))
        print(outcome.message)
        exit(outcome.exitCode)
    }
    // The catalog is read before anything listens: a bad file is an error at start-up.
    let catalog =
        try configuration[HeroOptions.catalog].map { path in try CatalogLoader.load(path: path) }
        ?? HeroCatalog(heroes: CatalogLoader.decode(Data(BuiltInCatalog.json.utf8), as: .json))
    let pidFile = try PidFile.acquire(in: state, service: "heroes")
    let signals = ShutdownSignals()
    signals.installHandlers()
    let process = try HeroProcess(
        configuration: configuration, state: state, environment: environment, catalog: catalog, logger: logger
    )
    let hangups = process.reloadOnHangup()
    let outcome = await ServiceLifecycle.run(
        process, signals: signals, drainTimeout: configuration[HeroOptions.standard.drainTimeout],
        logger: logger)
    hangups.cancel()
    pidFile.release()
    exit(outcome.exitCode)
} catch {
    logger.error("cannot start", ["error": .string("\(error)")])
    exit(1)
}
