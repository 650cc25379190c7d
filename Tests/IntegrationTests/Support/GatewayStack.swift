import Contracts
import Foundation
import ProcessSupport
import Reactive
import RemoteProtocol
import RemoteStreams
import ServiceKit
import ZeroMQ

#if canImport(Glibc)
    import Glibc
#endif

/// The four binaries with CURVE on, in one temp directory: auth-service, validation-service and
/// hero-catalog-service (each allowing the clients that call it), and the gateway in front of them,
/// which lets in any client that knows its key.
///
/// Keys are made before the processes start: every service's pair and client pair in its own state
/// directory, the callers' client keys in the callees' `allowed_clients`, and the three services'
/// public keys copied into the gateway's state directory as `auth.pub`, `validation.pub` and
/// `heroes.pub` (the gateway's defaults).
struct GatewayStack {
    let directory: TemporaryDirectory
    let auth: ServiceProcess
    let validation: ServiceProcess
    let heroes: ServiceProcess
    let gateway: ServiceProcess
    /// The gateway's arguments (besides those ``ServiceProcess/start`` adds), for a restart.
    let gatewayArguments: [String]
    /// An end client of the gateway, with a key pair of its own (not on any list).
    let client: RemoteClient
    let context: Context

    static let validationArguments = ["--curve", "on", "--auth-curve", "on"]

    /// The gateway's probe interval and deadline in most tests: short, so that probes settle fast.
    static let quickTimings = ["--probe-interval", "200ms", "--deadline", "1s"]

    /// Starts the four, the gateway with `timings` (its probe interval and deadline;
    /// ``quickTimings`` unless given, `[]` for its defaults) and `gatewayArguments` added;
    /// `allowedEndClients` (public keys) become the gateway's `allowed_clients` (for `--clients
    /// allow-list`). With `heroesEndpoint`, the gateway calls hero-catalog-service there instead of
    /// the one started (a stand-in with the same keys, in the state directory `state-heroes`).
    /// `everyServer` is added to each of the four's arguments.
    static func start(
        in directory: TemporaryDirectory, gatewayArguments: [String] = [], allowedEndClients: [[UInt8]] = [],
        timings: [String] = quickTimings, heroesEndpoint: String? = nil, everyServer: [String] = []
    ) async throws -> GatewayStack {
        let authState = try StateDirectory(creating: ServiceProcess.stateDirectory(in: directory))
        let validationState = try StateDirectory(creating: directory.file("state-validation"))
        let heroesState = try StateDirectory(creating: directory.file("state-heroes"))
        let gatewayState = try StateDirectory(creating: directory.file("state-gateway"))
        func pairs(_ state: StateDirectory) throws -> (server: CurveKeyPair, client: CurveKeyPair) {
            (try CurveKeyFiles.serverKeys(in: state), try CurveKeyFiles.clientKeys(in: state))
        }
        let authKeys = try pairs(authState)
        let validationKeys = try pairs(validationState)
        let heroesKeys = try pairs(heroesState)
        let gatewayKeys = try pairs(gatewayState)
        func allow(_ clients: [(CurveKeyPair, String)], in state: StateDirectory) throws {
            let lines = try clients.map { "\(try Z85.encode($0.0.publicKey)) \($0.1)\n" }.joined()
            try lines.write(toFile: state.file("allowed_clients"), atomically: true, encoding: .utf8)
        }
        try allow(
            [
                (validationKeys.client, "validation"), (heroesKeys.client, "heroes"),
                (gatewayKeys.client, "gateway"),
            ],
            in: authState)
        try allow([(gatewayKeys.client, "gateway")], in: validationState)
        try allow([(gatewayKeys.client, "gateway")], in: heroesState)
        if !allowedEndClients.isEmpty {
            let lines = try allowedEndClients.map { "\(try Z85.encode($0)) end-client\n" }.joined()
            try lines.write(toFile: gatewayState.file("allowed_clients"), atomically: true, encoding: .utf8)
        }
        for (state, name) in [(authState, "auth"), (validationState, "validation"), (heroesState, "heroes")] {
            try FileManager.default.copyItem(
                atPath: state.file("curve.pub"), toPath: gatewayState.file("\(name).pub"))
        }

        var started: [ServiceProcess] = []
        do {
            let auth = try await ServiceProcess.start(
                ["--curve", "on"] + everyServer, in: directory,
                curve: RemoteClient.Curve(serverKey: authKeys.server.publicKey, keys: authKeys.client))
            started.append(auth)
            let validation = try await startValidation(
                in: directory, auth: auth.endpoint, arguments: everyServer)
            started.append(validation)
            let heroes = try await ServiceProcess.start(
                [
                    "--curve", "on", "--auth-endpoint", auth.endpoint, "--auth-curve", "on",
                    "--auth-public-key",
                    authState.file("curve.pub"),
                ] + everyServer, in: directory,
                curve: RemoteClient.Curve(serverKey: heroesKeys.server.publicKey, keys: heroesKeys.client),
                name: "heroes", executable: "hero-catalog-service")
            started.append(heroes)
            let allGatewayArguments =
                [
                    "--curve", "on", "--auth-endpoint", auth.endpoint, "--validation-endpoint",
                    validation.endpoint, "--heroes-endpoint", heroesEndpoint ?? heroes.endpoint,
                ] + timings + gatewayArguments + everyServer
            let gateway = try await ServiceProcess.start(
                allGatewayArguments, in: directory,
                curve: RemoteClient.Curve(serverKey: gatewayKeys.server.publicKey, keys: gatewayKeys.client),
                name: "gateway", executable: "gateway")
            started.append(gateway)
            let endClientState = try StateDirectory(creating: directory.file("end-client"))
            let context = try Context()
            let client = try RemoteClient(
                context: context,
                configuration: .init(
                    endpoints: [gateway.endpoint], deadline: .seconds(10), name: "end-client",
                    curve: RemoteClient.Curve(
                        serverKey: gatewayKeys.server.publicKey,
                        keys: try CurveKeyFiles.clientKeys(in: endClientState))))
            return GatewayStack(
                directory: directory, auth: auth, validation: validation, heroes: heroes, gateway: gateway,
                gatewayArguments: allGatewayArguments, client: client, context: context)
        } catch {
            for process in started.reversed() { await process.stop() }
            throw error
        }
    }

    /// Starts validation-service (again) in its state directory, on `endpoint` if given.
    static func startValidation(
        in directory: TemporaryDirectory, auth: String, endpoint: String? = nil, arguments: [String] = []
    ) async throws -> ServiceProcess {
        let state = try StateDirectory(creating: directory.file("state-validation"))
        return try await ServiceProcess.start(
            validationArguments + [
                "--auth-endpoint", auth, "--auth-public-key", directory.file("state/curve.pub"),
            ] + arguments,
            in: directory, endpoint: endpoint,
            curve: RemoteClient.Curve(
                serverKey: try CurveKeyFiles.serverKeys(in: state).publicKey,
                keys: try CurveKeyFiles.clientKeys(in: state)),
            name: "validation", executable: "validation-service")
    }

    /// Starts the gateway again, after ``gateway`` ended: the same arguments, endpoint, state
    /// directory and keys. The caller stops the process returned.
    func restartGateway() async throws -> ServiceProcess {
        try await ServiceProcess.start(
            gatewayArguments, in: directory, endpoint: gateway.endpoint, curve: gateway.curve,
            name: "gateway",
            executable: "gateway")
    }

    /// Stops the end client, then the processes in reverse order.
    func stop() async {
        await client.stop()
        context.terminate()
        await gateway.stop()
        await heroes.stop()
        await validation.stop()
        await auth.stop()
    }

    /// Every log, for a failure's message.
    var logs: String {
        [gateway, validation, heroes, auth].map { "== \($0.executable)\n\($0.log)" }.joined(separator: "\n")
    }
}

/// A flow channel on the gateway: inputs sent one at a time, outputs read in order.
final class GatewayFlowSession {
    /// What the session's stream carries: the channel's events, and the deadlines of reads.
    private enum Item: Sendable {
        case event(Event<FlowOutput>)
        /// The deadline of read number `read` passed.
        case deadline(read: Int)
    }

    private let inputs = ReplaySubject<FlowInput>.createUnbounded()
    private var iterator: AsyncStream<Item>.Iterator
    private let continuation: AsyncStream<Item>.Continuation
    private let subscription: any Disposable
    private var reads = 0

    init(_ client: RemoteClient, _ method: FlowMethod, _ parameters: FlowParameters) {
        let (stream, continuation) = AsyncStream<Item>.makeStream()
        self.continuation = continuation
        subscription = client.channel(
            method, parameters, input: inputs.asObservable(), deadline: .seconds(110)
        ).subscribe { event in
            continuation.yield(.event(event))
            if event.isStopEvent { continuation.finish() }
        }
        iterator = stream.makeAsyncIterator()
    }

    func send(_ input: FlowInput) { inputs.onNext(input) }

    /// The next `count` outputs as `output: …` lines; an error ends the list with `error …`.
    func next(_ count: Int) async -> [String] {
        await next(count, within: nil)
    }

    /// The next `count` outputs, read until `deadline` passes (nil: no deadline); the lines read by
    /// then, fewer than `count` if it passed.
    func next(_ count: Int, within deadline: Duration?) async -> [String] {
        reads += 1
        let read = reads
        let timer = deadline.map { deadline in
            Task { [continuation] in
                try await Task.sleep(for: deadline)
                continuation.yield(.deadline(read: read))
            }
        }
        defer { timer?.cancel() }
        var lines: [String] = []
        while lines.count < count {
            switch await iterator.next() {
            case .event(.next(let output)): lines.append(output.description)
            case .event(.error(let error)):
                lines.append("error \(error)")
                return lines
            case .event(.completed), nil: return lines
            case .deadline(let expired): if expired == read { return lines }
            }
        }
        return lines
    }

    /// Reads outputs until one equals `line` or `deadline` passes; returns the lines read (the last
    /// one is `line` if it came).
    func next(until line: String, within deadline: Duration) async -> [String] {
        let end = ContinuousClock.now + deadline
        var lines: [String] = []
        while lines.last != line {
            let left = end - ContinuousClock.now
            guard left > .zero else { return lines }
            let got = await next(1, within: left)
            guard let output = got.first else { return lines }
            lines.append(output)
            if output.hasPrefix("error ") { return lines }
        }
        return lines
    }

    func close() {
        subscription.dispose()
        continuation.finish()
    }
}
