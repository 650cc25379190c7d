// auth-service: accounts, passwords and session tokens over the remote-streams protocol.
// Everything it does is in AuthCore; this file reads the configuration and runs it.
import Foundation
import RemoteStreams
import ServiceKit

let configuration = AuthOptions.interface.parseOrExit()
let environment = ProcessInfo.processInfo.environment
let logger = AuthOptions.standard.logger(service: "auth", from: configuration)

do {
    let state = try AuthOptions.standard.stateDirectory(
        service: "auth", from: configuration, environment: environment)
    if configuration[AuthOptions.check] {
        var curve: RemoteClient.Curve?
        if configuration[AuthOptions.curve] == .on {
            curve = RemoteClient.Curve(
                serverKey: try CurveKeyFiles.serverKeys(in: state).publicKey,
                keys: try CurveKeyFiles.clientKeys(in: state))
        }
        let outcome = await HealthCheck.run(
            endpoint: configuration[AuthOptions.endpoint].description, curve: curve, timeout: .seconds(2))
        print(outcome.message)
        exit(outcome.exitCode)
    }
    let pidFile = try PidFile.acquire(in: state, service: "auth")
    let signals = ShutdownSignals()
    signals.installHandlers()
    let process = try await AuthProcess(configuration: configuration, state: state, logger: logger)
    let outcome = await ServiceLifecycle.run(
        process, signals: signals, drainTimeout: configuration[AuthOptions.standard.drainTimeout],
        logger: logger)
    pidFile.release()
    exit(outcome.exitCode)
} catch {
    logger.error("cannot start", ["error": .string("\(error)")])
    exit(1)
}
