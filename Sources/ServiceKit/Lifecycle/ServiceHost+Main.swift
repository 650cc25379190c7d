import Foundation
import ProcessSupport
import RemoteStreams

/// The options of a service's server, as its executable declares them (each with its own variable
/// and help), plus the ``StandardOptions``.
public struct ServerOptions: Sendable {
    /// `--endpoint`.
    public let endpoint: Option<Endpoint>
    /// `--curve`.
    public let curve: Option<CurveSetting>
    /// `--max-streams` (the gateway's `--max-channels`).
    public let maximumStreams: Option<Int>
    /// `--max-streams-per-client` (the gateway's `--max-channels-per-client`).
    public let maximumStreamsPerClient: Option<Int>
    /// `--check`.
    public let check: Option<Bool>
    /// `--log-level`, `--state-dir`, `--drain-timeout`, `--init`, …
    public let standard: StandardOptions

    /// The server options made of these.
    public init(
        endpoint: Option<Endpoint>, curve: Option<CurveSetting>, maximumStreams: Option<Int>,
        maximumStreamsPerClient: Option<Int>, check: Option<Bool>, standard: StandardOptions
    ) {
        self.endpoint = endpoint
        self.curve = curve
        self.maximumStreams = maximumStreams
        self.maximumStreamsPerClient = maximumStreamsPerClient
        self.check = check
        self.standard = standard
    }
}

extension ServiceHost {
    /// What a service executable's `main.swift` calls: opens the state directory, answers `--init`
    /// (keys and allow-list, then exit 0) and `--check` (0 ready, 1 not ready, 2 not answering), and
    /// otherwise runs `service` in a host until it ends, then exits: 0 after a drain, 2 when the
    /// drain deadline passed, 1 when the start failed.
    ///
    /// ```swift
    /// let configuration = AuthOptions.interface.parseOrExit()
    /// await ServiceHost.main(
    ///     AuthDescription(configuration: configuration), name: "auth",
    ///     version: AuthOptions.interface.version, configuration: configuration,
    ///     options: AuthOptions.server)
    /// ```
    public static func main(
        _ service: Service, name: String, version: String,
        configuration: Configuration, options: ServerOptions, allowAnyClient: Bool = false
    ) async -> Never {
        let standard = options.standard
        let logger = standard.logger(service: name, from: configuration)
        let state: StateDirectory
        do {
            state = try standard.stateDirectory(
                service: name, from: configuration, environment: ProcessInfo.processInfo.environment)
            if configuration[standard.initialize] {
                // Before the pid file: preparing the keys of a running instance is harmless.
                print(try state.initialize().line)
                exit(0)
            }
        } catch {
            logger.error("cannot start", ["error": .string("\(error)")])
            exit(1)
        }
        let endpoint = configuration[options.endpoint]
        let curve = configuration[options.curve]
        if configuration[options.check] {
            exit(await check(endpoint: endpoint, curve: curve, state: state, logger: logger))
        }
        let settings = Settings(
            name: name, version: version, endpoint: endpoint, curve: curve, allowAnyClient: allowAnyClient,
            maxStreamsTotal: configuration[options.maximumStreams],
            maxStreamsPerClient: configuration[options.maximumStreamsPerClient],
            peerQueue: standard.clientQueue(from: configuration),
            drainTimeout: configuration[standard.drainTimeout], loops: configuration[standard.loops],
            metricsListen: configuration[standard.metricsListen],
            tracer: standard.tracer(service: name, from: configuration))
        do {
            try await ServiceHost(service, settings: settings, state: state, logger: logger).run()
            exit(ServiceHostError.exitCode(for: nil))
        } catch {
            // Already logged by the host.
            exit(ServiceHostError.exitCode(for: error))
        }
    }

    /// `--check`: asks the running instance, with this service's own client key (always allowed).
    private static func check(
        endpoint: Endpoint, curve: CurveSetting, state: StateDirectory, logger: Logger
    ) async -> Int32 {
        let clientCurve: RemoteClient.Curve?
        do {
            clientCurve =
                curve.isOn
                ? RemoteClient.Curve(
                    serverKey: try CurveKeyFiles.serverKeys(in: state).publicKey,
                    keys: try CurveKeyFiles.clientKeys(in: state)) : nil
        } catch {
            logger.error("cannot start", ["error": .string("\(error)")])
            return 1
        }
        let outcome = await HealthCheck.run(
            endpoint: endpoint.description, curve: clientCurve, timeout: .seconds(2))
        print(outcome.message)
        return outcome.exitCode
    }
}
