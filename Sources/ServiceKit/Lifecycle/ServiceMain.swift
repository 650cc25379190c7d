import Foundation
import RemoteStreams

/// What every service executable's `main.swift` does, once: open the state directory, answer
/// `--init` (keys and allow-list, then exit 0) and `--check`, take the pid file, install the shutdown
/// signals and the one SIGHUP handler (``ReloadSignal``, which calls the service's
/// ``Service/reload()``), start the service and run it until a signal drains it, then exit with the
/// lifecycle's code. A start-up error is logged and exits 1.
///
/// ```swift
/// let configuration = AuthOptions.interface.parseOrExit()
/// await ServiceMain.run(
///     service: "auth", configuration: configuration, standard: AuthOptions.standard,
///     endpoint: configuration[AuthOptions.endpoint], curve: configuration[AuthOptions.curve] == .on,
///     check: configuration[AuthOptions.check]
/// ) { state, logger in try await AuthProcess(configuration: configuration, state: state, logger: logger) }
/// ```
public enum ServiceMain {
    /// Runs the service `start` builds (after the pid file is taken) and exits.
    public static func run<S: Service>(
        service name: String, configuration: Configuration, standard: StandardOptions, endpoint: Endpoint,
        curve: Bool, check: Bool,
        start: (_ state: StateDirectory, _ logger: Logger) async throws -> S
    ) async -> Never {
        let logger = standard.logger(service: name, from: configuration)
        var pidFile: PidFile?
        do {
            let state = try standard.stateDirectory(
                service: name, from: configuration, environment: ProcessInfo.processInfo.environment)
            if configuration[standard.initialize] {
                // Before the pid file: preparing the keys of a running instance is harmless.
                print(try state.initialize().line)
                exit(0)
            }
            if check {
                // Asks the running instance, with this service's own client key (always allowed).
                let clientCurve =
                    curve
                    ? RemoteClient.Curve(
                        serverKey: try CurveKeyFiles.serverKeys(in: state).publicKey,
                        keys: try CurveKeyFiles.clientKeys(in: state)) : nil
                let outcome = await HealthCheck.run(
                    endpoint: endpoint.description, curve: clientCurve, timeout: .seconds(2))
                print(outcome.message)
                exit(outcome.exitCode)
            }
            pidFile = try PidFile.acquire(in: state, service: name)
            let signals = ShutdownSignals()
            signals.installHandlers()
            // Before the service starts: a hang-up while starting must not end the process.
            let hangups = ReloadSignal()
            hangups.installHandler()
            let service = try await start(state, logger)
            hangups.setAction {
                logger.notice("reload requested (SIGHUP)")
                service.reload()
            }
            let outcome = await ServiceLifecycle.run(
                service, signals: signals, drainTimeout: configuration[standard.drainTimeout], logger: logger)
            pidFile?.release()
            exit(outcome.exitCode)
        } catch {
            logger.error("cannot start", ["error": .string("\(error)")])
            pidFile?.release()
            exit(1)
        }
    }
}
