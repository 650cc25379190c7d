// validation-service: the field rules over the remote-streams protocol, usernames checked live
// against auth-service. Everything it does is in ValidationCore; this file reads the configuration
// and runs it.
import Foundation
import RemoteStreams
import ServiceKit

let configuration = ValidationOptions.interface.parseOrExit()
let environment = ProcessInfo.processInfo.environment
let logger = ValidationOptions.standard.logger(service: "validation", from: configuration)

do {
    let state = try ValidationOptions.standard.stateDirectory(
        service: "validation", from: configuration, environment: environment)
    if configuration[ValidationOptions.check] {
        var curve: RemoteClient.Curve?
        if configuration[ValidationOptions.curve] == .on {
            curve = RemoteClient.Curve(
                serverKey: try CurveKeyFiles.serverKeys(in: state).publicKey,
                keys: try CurveKeyFiles.clientKeys(in: state))
        }
        let outcome = await HealthCheck.run(
            endpoint: configuration[ValidationOptions.endpoint].description, curve: curve,
            timeout: .seconds(2))
        print(outcome.message)
        exit(outcome.exitCode)
    }
    let pidFile = try PidFile.acquire(in: state, service: "validation")
    let signals = ShutdownSignals()
    signals.installHandlers()
    let process = try await ValidationProcess(configuration: configuration, state: state, logger: logger)
    let outcome = await ServiceLifecycle.run(
        process, signals: signals, drainTimeout: configuration[ValidationOptions.standard.drainTimeout],
        logger: logger)
    pidFile.release()
    exit(outcome.exitCode)
} catch {
    logger.error("cannot start", ["error": .string("\(error)")])
    exit(1)
}
