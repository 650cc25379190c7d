import Contracts
import Dispatch
import Foundation
import LoadTestCore
import RemoteStreams
import ServiceKit
import Synchronization
import ZeroMQ

/// A failure that stops the tool before or instead of a run: exit 2, or 64 for options that do not
/// go together (``usage(_:)``).
struct CommandError: Error, CustomStringConvertible {
    let description: String
    let exitCode: Int32
    init(_ description: String, exitCode: Int32 = 2) {
        self.description = description
        self.exitCode = exitCode
    }

    /// Options that cannot be used together or as given (exit 64, like any bad option).
    static func usage(_ description: String) -> CommandError { CommandError(description, exitCode: 64) }
}

/// One invocation: connect, check, seed, run, report. Returns the exit code: 0, or 1 when a
/// `--fail-if` condition was missed.
struct LoadTestCommand {
    let configuration: Configuration

    func run() async throws -> Int32 {
        let options = LoadTestOptions.self
        let plan = try makePlan()
        let echo = configuration[options.echo]
        let context = try Context()
        var stub: StubAuthServer?
        var endpoints = configuration[options.endpoint].map(\.description)
        var scenario = configuration[options.scenario]
        var curve: RemoteClient.Curve?
        if echo {
            let server = try StubAuthServer(context: context, endpoint: "tcp://127.0.0.1:*")
            stub = server
            endpoints = [server.server.endpoints[0]]
            scenario = Scenario(weights: [(.exists, 1)])
        } else {
            for endpoint in configuration[options.endpoint] { try checkEndpoint(endpoint) }
            if configuration[options.curve] == .on { curve = try curveSettings() }
        }
        let shard = configuration[options.shard]
        let clients = try (0..<configuration[options.connections]).map { index in
            try RemoteClient(
                context: context,
                configuration: .init(
                    endpoints: endpoints, deadline: configuration[options.timeout],
                    name: shard.isWhole ? "loadtest-\(index)" : "loadtest-\(shard.index)-\(index)",
                    curve: curve, discoversShards: true))
        }
        defer { context.terminate() }
        let workloadOptions = WorkloadOptions(
            scenario: scenario, users: echo ? 1 : configuration[options.users],
            failRatio: configuration[options.failRatio], clients: configuration[options.clients],
            seed: UInt64(configuration[options.seed]), timeout: configuration[options.timeout], shard: shard)
        let tokens: [String]
        do {
            tokens = try await prepare(
                client: clients[0], options: workloadOptions, endpoint: endpoints.joined(separator: ","),
                echo: echo)
        } catch {
            await stopAll(clients, stub)
            throw error
        }
        let workload = AuthWorkload(clients: clients, options: workloadOptions, tokens: tokens)
        let driver = LoadDriver(plan: plan, shards: clients.count) { index, done in workload.call(index, done)
        }
        let interruption = Interruption(driver: driver)
        let line = ProgressLine(setting: configuration[options.progress])
        var show: (@Sendable (ProgressSnapshot) -> Void)?
        if line.isOn { show = { @Sendable snapshot in line.show(snapshot) } }
        var result = await driver.run(progress: show)
        line.finish()
        interruption.cancel()
        await stopAll(clients, stub)
        result.scenario = echo ? "exists (in-process stub, --echo)" : scenario.description
        result.connections = clients.count
        result.shard = shard.isWhole ? nil : shard
        let verdicts = configuration[options.failIf].evaluate(result)
        print(result.report(verdicts: verdicts), terminator: "")
        if let path = configuration[options.json] {
            try result.json(verdicts: verdicts).write(to: URL(fileURLWithPath: path))
        }
        if let path = configuration[options.svg] {
            try Data(result.svg().utf8).write(to: URL(fileURLWithPath: path))
        }
        if result.interrupted { return 130 }
        return verdicts.allSatisfy { $0.passed } ? 0 : 1
    }

    private func stopAll(_ clients: [RemoteClient], _ stub: StubAuthServer?) async {
        for client in clients { await client.stop() }
        await stub?.stop()
    }

    /// The run's pacing and bounds: with `--shard I/N`, this generator's share of them.
    private func makePlan() throws -> RunPlan {
        let options = LoadTestOptions.self
        let shard = configuration[options.shard]
        var stages = configuration[options.stages]
        let model: LoadModel
        switch (configuration[options.rate], configuration[options.concurrency]) {
        case (.some, .some):
            throw CommandError.usage("give --rate (open model) or --concurrency (closed), not both")
        case (.some(let rate), nil): model = .open(rate: shard.share(ofRate: rate))
        case (nil, .some(let concurrency)):
            let share = shard.range(of: concurrency).count
            guard share > 0 else {
                throw CommandError.usage(
                    "--concurrency \(concurrency) cannot be shared by \(shard.count) generators")
            }
            model = .closed(concurrency: share)
            if let stage = stages.first(where: { $0.target != $0.target.rounded() || $0.target > 100_000 }) {
                throw CommandError.usage(
                    "--stages: stage \(stage.name) ramps the concurrency to \(stage.target); give a whole number up to 100000"
                )
            }
        case (nil, nil): model = .open(rate: stages.isEmpty ? shard.share(ofRate: 1_000) : 0)
        }
        if case .open = model, let stage = stages.first(where: { $0.target > 10_000_000 }) {
            throw CommandError.usage("--stages: stage \(stage.name)'s rate \(stage.target) is over 10000000")
        }
        // Each generator of N ramps to 1/N of every target.
        for index in stages.indices { stages[index].target = shard.share(ofRate: stages[index].target) }
        let unknown = configuration[options.failIf].unknownStages(in: stages)
        if let name = unknown.first {
            throw CommandError.usage(
                stages.isEmpty
                    ? "--fail-if \(name):…: there are no --stages"
                    : "--fail-if \(name):…: no stage is named \(name) (stages: \(stages.map(\.name).joined(separator: ", ")))"
            )
        }
        if !stages.isEmpty, configuration.source(of: options.duration) != .defaultValue {
            throw CommandError.usage("--stages sets the measured time: leave out --duration")
        }
        let duration = nanoseconds(configuration[options.duration])
        guard duration > 0 else { throw CommandError.usage("--duration must be positive") }
        var warmup = nanoseconds(configuration[options.warmup])
        // A ramp from nothing has nothing to warm up with.
        if !stages.isEmpty, model == .open(rate: 0) { warmup = 0 }
        var requests = configuration[options.requests]
        if let total = requests {
            requests = shard.range(of: total).count
            guard requests != 0 else {
                throw CommandError.usage("--requests \(total) cannot be shared by \(shard.count) generators")
            }
        }
        guard shard.range(of: configuration[options.clients]).count > 0 else {
            throw CommandError.usage(
                "--clients \(configuration[options.clients]) cannot be shared by \(shard.count) generators")
        }
        return RunPlan(
            model: model, duration: duration, warmup: warmup, maxRequests: requests,
            drainTimeout: nanoseconds(configuration[options.timeout]) + 2_000_000_000, stages: stages)
    }

    /// Refuses a tcp endpoint off the loopback interface unless `--allow-remote`.
    private func checkEndpoint(_ endpoint: Endpoint) throws {
        guard endpoint.transport == .tcp, !configuration[LoadTestOptions.allowRemote] else { return }
        let host = String(
            endpoint.address[..<(endpoint.address.lastIndex(of: ":") ?? endpoint.address.endIndex)])
        let loopback = host == "localhost" || host == "[::1]" || host.hasPrefix("127.")
        guard loopback else {
            throw CommandError("\(endpoint) is not on the loopback interface; add --allow-remote to load it")
        }
    }

    /// The service's public key and this client's pair, from the flags or the state directory.
    private func curveSettings() throws -> RemoteClient.Curve {
        let options = LoadTestOptions.self
        let directory = StateDirectory.resolve(
            service: "auth", override: configuration[options.stateDirectory],
            environment: ProcessInfo.processInfo.environment)
        let serverKeyText: String
        if let text = configuration[options.serverKey] {
            serverKeyText = text
        } else {
            guard let text = try? String(contentsOfFile: directory + "/curve.pub", encoding: .utf8) else {
                throw CommandError(
                    "no \(directory)/curve.pub: give --server-key, --state-dir, or --curve off for a service "
                        + "started with --curve off")
            }
            serverKeyText = text
        }
        guard let serverKey = try? Z85.decode(serverKeyText.trimmingCharacters(in: .whitespacesAndNewlines)),
            serverKey.count == 32
        else { throw CommandError("the server key is not 40 Z85 characters") }
        let keys: CurveKeyPair
        if let path = configuration[options.clientKey] {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8),
                let secret = try? Z85.decode(text.trimmingCharacters(in: .whitespacesAndNewlines)),
                let pair = try? CurveKeyPair(secretKey: secret)
            else { throw CommandError("\(path) does not hold a CURVE secret key (40 Z85 characters)") }
            keys = pair
        } else {
            keys = try CurveKeyFiles.loadOrCreate(
                secret: directory + "/client.key", public: directory + "/client.pub")
        }
        return RemoteClient.Curve(serverKey: serverKey, keys: keys)
    }

    /// Checks the service answers, seeds the users and fetches tokens for `auth.verify`.
    private func prepare(client: RemoteClient, options: WorkloadOptions, endpoint: String, echo: Bool)
        async throws -> [String]
    {
        if echo { return [] }
        do {
            let health = try await client.request(
                Methods.System.health, deadline: .seconds(5)
            ).value
            guard health.ready else {
                throw CommandError("\(endpoint) is not ready (status \(health.status.rawValue))")
            }
        } catch let error as CommandError {
            throw error
        } catch {
            throw CommandError("\(endpoint) does not answer sys.health: \(error)")
        }
        let kinds = options.scenario.kinds
        let needsUsers = kinds.contains { $0 != .register }
        let users = options.userRange
        guard !needsUsers || !users.isEmpty else {
            throw CommandError(
                options.shard.isWhole
                    ? "--users must be at least 1 for \(options.scenario)"
                    : "--users must be at least \(options.shard.count) to share among \(options.shard.count) generators"
            )
        }
        if needsUsers {
            let created = try await AuthWorkload.seed(client: client, users: users)
            let which =
                options.shard.isWhole
                ? "" : " (\(users.lowerBound)..<\(users.upperBound), generator \(options.shard))"
            FileHandle.standardError.write(
                Data(
                    "seeded \(users.count) users\(which) (\(created) new, \(users.count - created) reused)\n"
                        .utf8))
        }
        guard kinds.contains(.verify) else { return [] }
        return try await AuthWorkload.fetchTokens(client: client, users: users, count: 64)
    }
}

/// Duration to nanoseconds (negative as 0).
func nanoseconds(_ duration: Duration) -> UInt64 {
    let (seconds, attoseconds) = duration.components
    guard seconds >= 0 else { return 0 }
    return UInt64(seconds) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
}

/// The live line on standard error: elapsed, rate, p99 so far, errors; redrawn in place.
final class ProgressLine: Sendable {
    /// Whether it is drawn.
    let isOn: Bool

    init(setting: ProgressSetting) {
        switch setting {
        case .auto: isOn = isatty(STDERR_FILENO) == 1
        case .on: isOn = true
        case .off: isOn = false
        }
    }

    func show(_ snapshot: ProgressSnapshot) {
        let phase = snapshot.warmingUp ? " (warm-up)" : ""
        let text =
            "\r\u{1B}[2K\(Int(snapshot.elapsed))s\(phase)  \(Int(snapshot.rate.rounded()))/s  "
            + "p99 \(DurationText.format(snapshot.p99))  answered \(snapshot.completed)  errors \(snapshot.errors)"
        FileHandle.standardError.write(Data(text.utf8))
    }

    func finish() {
        if isOn { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
    }
}

/// SIGINT during a run: the first stops sending, so the report covers what was measured; a second
/// exits at once (130).
final class Interruption {
    private let signals = ProcessSignals()
    private let watcher: Task<Void, Never>

    init(driver: LoadDriver) {
        let signals = self.signals
        signals.watch([SIGINT])
        watcher = Task {
            var presses = 0
            for await _ in signals.received {
                presses += 1
                if presses > 1 { exit(130) }
                FileHandle.standardError.write(Data("\ninterrupted: stopping (again to quit at once)\n".utf8))
                driver.stop()
            }
        }
    }

    /// Stops watching (SIGINT kills the process again).
    func cancel() {
        signals.finish()
        watcher.cancel()
        signal(SIGINT, SIG_DFL)
    }
}
