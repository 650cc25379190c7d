import Contracts
import Dispatch
import Foundation
import GatewayClient
import LoadTestCore
import Measuring
import ProcessSupport
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
        let search = try makeSearch(plan)
        let echo = configuration[options.echo]
        let target = configuration[options.target]
        var scenario = try checkedScenario()
        let context = try Context()
        var stub: StubAuthServer?
        var endpoints = configuration[options.endpoint].map(\.description)
        if target == .gateway, configuration.source(of: options.endpoint) == .defaultValue {
            endpoints = ["tcp://127.0.0.1:5560"]
        }
        var curve: RemoteClient.Curve?
        if echo {
            let server = try StubAuthServer(
                context: context, endpoint: "tcp://127.0.0.1:*", delay: configuration[options.echoDelay])
            stub = server
            endpoints = [server.server.endpoints[0]]
            scenario = Scenario(weights: [(.exists, 1)])
        } else {
            for endpoint in configuration[options.endpoint] { try checkEndpoint(endpoint) }
            if configuration[options.curve] == .on {
                curve = target == .gateway ? try gatewayCurve() : try curveSettings()
            }
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
        let call: LoadDriver.Call
        switch target {
        case .auth:
            let workload = AuthWorkload(clients: clients, options: workloadOptions, tokens: tokens)
            call = { index, done in workload.call(index, done) }
        case .gateway:
            let workload = GatewayWorkload(
                clients: clients, options: workloadOptions,
                flow: FlowOptions(
                    think: DurationText.nanoseconds(configuration[options.think]),
                    timeEveryKeystroke: configuration[options.timeKeystrokes] == .all),
                tokens: tokens)
            call = { index, done in workload.call(index, done) }
        }
        var label = echo ? "exists (in-process stub, --echo)" : scenario.description
        if target == .gateway {
            label +=
                " via the gateway, think \(DurationText.format(DurationText.nanoseconds(configuration[options.think])))"
        }
        if let search {
            let found = await runSearch(
                search, plan: plan, call: call, connections: clients.count, label: label)
            await stopAll(clients, stub)
            return try report(found)
        }
        let driver = LoadDriver(plan: plan, shards: clients.count, call: call)
        let interruption = Interruption(driver: driver)
        let line = ProgressLine(setting: configuration[options.progress])
        var show: (@Sendable (ProgressSnapshot) -> Void)?
        if line.isOn { show = { @Sendable snapshot in line.show(snapshot) } }
        var result = await driver.run(progress: show)
        line.finish()
        interruption.cancel()
        await stopAll(clients, stub)
        result.scenario = label
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

    /// The capacity search `--find-capacity` asks for, or nil; `plan` is a step's plan at the
    /// starting rate.
    private func makeSearch(_ plan: RunPlan) throws -> CapacitySearch? {
        let options = LoadTestOptions.self
        guard let objective = configuration[options.findCapacity] else { return nil }
        for (option, given) in [
            ("--concurrency", configuration[options.concurrency] != nil),
            ("--stages", !configuration[options.stages].isEmpty),
            ("--requests", configuration[options.requests] != nil),
            ("--shard", !configuration[options.shard].isWhole),
        ] where given {
            throw CommandError.usage(
                "--find-capacity steps the open model's rate from one generator: leave out \(option)")
        }
        if objective.contains(where: { $0.stage != nil }) {
            throw CommandError.usage(
                "--find-capacity: the objective's conditions apply to each step, not to a stage")
        }
        let budget =
            configuration.source(of: options.duration) == .defaultValue
            ? 120_000_000_000 : DurationText.nanoseconds(configuration[options.duration])
        let step = DurationText.nanoseconds(configuration[options.stepDuration])
        guard step >= 1_000_000_000 else { throw CommandError.usage("--step-duration must be at least 1s") }
        let cost = plan.warmup + step + 2 * allowance(step: step, timeout: plan.drainTimeout)
        guard cost <= budget else {
            throw CommandError.usage(
                "--duration \(DurationText.format(budget)) cannot hold one step "
                    + "(--warmup + --step-duration + drain: \(DurationText.format(cost)))")
        }
        // A virtual user's session lasts seconds and answers only at its end: the answers within a
        // step say nothing of keeping up, so there the objective's latencies and errors decide.
        let gateway = configuration[options.target] == .gateway
        return CapacitySearch(
            objective: objective, startRate: configuration[options.rate] ?? (gateway ? 5 : 100),
            stepCost: cost,
            budget: budget, keptUpShare: gateway ? 0 : 0.9)
    }

    /// How long a step waits for answers after its last send, and again for stragglers before the
    /// next step: a fifth of the step, at least 200 ms, at most the request timeout; for the
    /// gateway's virtual users, a session's typing time on top (50 thinks).
    private func allowance(step: UInt64, timeout: UInt64) -> UInt64 {
        let session =
            configuration[LoadTestOptions.target] == .gateway
            ? 50 * DurationText.nanoseconds(configuration[LoadTestOptions.think]) : 0
        return min(timeout, max(200_000_000, step / 5)) + session
    }

    /// Runs the search's steps, one driver each; SIGINT stops the step in progress and the search.
    private func runSearch(
        _ search: CapacitySearch, plan: RunPlan, call: @escaping LoadDriver.Call, connections: Int,
        label: String
    ) async -> CapacityResult {
        let options = LoadTestOptions.self
        let step = DurationText.nanoseconds(configuration[options.stepDuration])
        let allowance = allowance(step: step, timeout: plan.drainTimeout)
        let current = CurrentDriver()
        let interruption = Interruption { current.stop() }
        defer { interruption.cancel() }
        let verbose = configuration[options.progress] != .off
        var offset = 0
        var number = 0
        let result = await search.run(
            step: { rate in
                let base = offset
                let driver = LoadDriver(
                    plan: RunPlan(
                        model: .open(rate: rate), duration: step, warmup: plan.warmup, drainTimeout: allowance
                    ),
                    shards: connections
                ) { index, done in call(base + index, done) }
                current.set(driver)
                let cpu = processCPUSeconds()
                var run = await driver.run()
                // Stragglers of an overloaded step would land in the next one: give them a moment.
                let settled = monotonicNanoseconds() + allowance
                while driver.outstanding > 0, monotonicNanoseconds() < settled {
                    try? await Task.sleep(for: .milliseconds(10))
                }
                offset += driver.issuedRequests
                run.scenario = label
                run.connections = connections
                number += 1
                if verbose {
                    let verdicts = search.objective.evaluate(run)
                    let met = verdicts.allSatisfy(\.passed) ? "met" : "missed"
                    FileHandle.standardError.write(
                        Data(
                            ("step \(number): \(grouped(rate)) req/s, p99 \(DurationText.format(run.latency.value(atPercentile: 99))), "
                                + "errors \(fixed(run.errorPercent, 2)) %: objective \(met)\n").utf8))
                }
                return (run, processCPUSeconds() - cpu)
            }, now: monotonicNanoseconds)
        return result
    }

    /// Prints the search's report and the best step's, writes --json and --svg; exit 0, 1 when no
    /// rate met the objective or a --fail-if condition was missed, 130 when interrupted.
    private func report(_ found: CapacityResult) throws -> Int32 {
        let options = LoadTestOptions.self
        print(found.report(), terminator: "")
        var verdicts: [ThresholdVerdict] = []
        if let best = found.best {
            verdicts = configuration[options.failIf].evaluate(best.run)
            print("the best step's run:")
            print(best.run.report(verdicts: verdicts), terminator: "")
        }
        if let path = configuration[options.json], !found.steps.isEmpty {
            try found.json(verdicts: verdicts).write(to: URL(fileURLWithPath: path))
        }
        if let path = configuration[options.svg], !found.steps.isEmpty {
            try Data(found.svg().utf8).write(to: URL(fileURLWithPath: path))
        }
        if found.interrupted { return 130 }
        return found.best != nil && verdicts.allSatisfy(\.passed) ? 0 : 1
    }

    /// The run's pacing and bounds: with `--shard I/N`, this generator's share of them.
    private func makePlan() throws -> RunPlan {
        let options = LoadTestOptions.self
        let shard = configuration[options.shard]
        var stages = configuration[options.stages]
        var model: LoadModel
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
        if configuration[options.findCapacity] != nil, configuration[options.rate] == nil {
            // A search starts from --rate or 100 req/s.
            model = .open(rate: 100)
        }
        let unknown = configuration[options.failIf].unknownStages(in: stages)
        if let name = unknown.first {
            throw CommandError.usage(
                stages.isEmpty
                    ? "--fail-if \(name):…: there are no --stages"
                    : "--fail-if \(name):…: no stage is named \(name) (stages: \(stages.map(\.name).joined(separator: ", ")))"
            )
        }
        if !stages.isEmpty, configuration.source(of: options.duration) != .defaultValue,
            configuration[options.findCapacity] == nil
        {
            throw CommandError.usage("--stages sets the measured time: leave out --duration")
        }
        let duration = DurationText.nanoseconds(
            configuration[options.findCapacity] == nil
                ? configuration[options.duration] : configuration[options.stepDuration])
        guard duration > 0 else { throw CommandError.usage("--duration must be positive") }
        var warmup = DurationText.nanoseconds(configuration[options.warmup])
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
        // A virtual user's session may take its typing time (up to 50 thinks) besides the timeout.
        let sessionTime =
            configuration[options.target] == .gateway
            ? 50 * DurationText.nanoseconds(configuration[options.think]) : 0
        return RunPlan(
            model: model, duration: duration, warmup: warmup, maxRequests: requests,
            drainTimeout: DurationText.nanoseconds(configuration[options.timeout]) + 2_000_000_000
                + sessionTime,
            stages: stages)
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

    /// The scenario, checked against the target: auth's calls for `--target auth`, flows for
    /// `--target gateway` (whose default is `flow.login`).
    private func checkedScenario() throws -> Scenario {
        let options = LoadTestOptions.self
        let scenario = configuration[options.scenario]
        switch configuration[options.target] {
        case .auth:
            if let kind = scenario.kinds.first(where: \.isFlow) {
                throw CommandError.usage(
                    "--scenario \(kind.rawValue) is a gateway flow: add --target gateway")
            }
        case .gateway:
            if configuration[options.echo] {
                throw CommandError.usage("--echo stands in for auth-service, not the gateway")
            }
            if configuration.source(of: options.scenario) == .defaultValue {
                return Scenario(weights: [(.flowLogin, 1)])
            }
            if let kind = scenario.kinds.first(where: { !$0.isFlow }) {
                throw CommandError.usage(
                    "--target gateway runs flows (flow.login, flow.register, flow.signin, flow.heroes), not \(kind.rawValue)"
                )
            }
        }
        return scenario
    }

    /// The gateway's key and this client's pair, found as `gateway-cli` finds them.
    private func gatewayCurve() throws -> RemoteClient.Curve {
        do {
            return try GatewayKeys.curve(
                serverKey: configuration[LoadTestOptions.serverKey],
                environment: ProcessInfo.processInfo.environment)
        } catch {
            throw CommandError(error.message)
        }
    }

    /// Checks the service answers, seeds the users and fetches tokens for `auth.verify` (auth) or
    /// `flow.heroes` (gateway).
    private func prepare(client: RemoteClient, options: WorkloadOptions, endpoint: String, echo: Bool)
        async throws -> [String]
    {
        if echo { return [] }
        if configuration[LoadTestOptions.target] == .gateway {
            return try await prepareGateway(client: client, options: options, endpoint: endpoint)
        }
        try await checkReady(client, "\(endpoint)")
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

extension LoadTestCommand {
    /// Whether the target `client` reaches (named `target` in errors) answers `sys.health` ready.
    fileprivate func checkReady(_ client: RemoteClient, _ target: String) async throws {
        do {
            let health = try await client.request(Methods.System.health, deadline: .seconds(5)).value
            guard health.ready else {
                throw CommandError("\(target) is not ready (status \(health.status.rawValue))")
            }
        } catch let error as CommandError {
            throw error
        } catch {
            throw CommandError("\(target) does not answer sys.health: \(error)")
        }
    }

    /// The gateway's side of ``prepare(client:options:endpoint:echo:)``: it answers, the flows'
    /// accounts exist (registered through it), and `flow.heroes` users have sessions.
    fileprivate func prepareGateway(client: RemoteClient, options: WorkloadOptions, endpoint: String)
        async throws -> [String]
    {
        try await checkReady(client, "the gateway at \(endpoint)")
        let kinds = options.scenario.kinds
        let users = options.userRange
        guard kinds == [.flowRegister] || !users.isEmpty else {
            throw CommandError.usage(
                "--users must be at least \(options.shard.count) for \(options.scenario)")
        }
        if kinds != [.flowRegister] {
            let created = try await GatewayWorkload.seed(client: client, users: users, kinds: kinds)
            FileHandle.standardError.write(
                Data("seeded \(users.count) users through the gateway (\(created) accounts new)\n".utf8))
        }
        guard kinds.contains(.flowHeroes) else { return [] }
        return try await GatewayWorkload.fetchTokens(client: client, users: users, count: 16)
    }
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

    convenience init(driver: LoadDriver) {
        self.init { driver.stop() }
    }

    /// Calls `stop` on the first SIGINT.
    init(stop: @escaping @Sendable () -> Void) {
        let signals = self.signals
        signals.watch([SIGINT])
        watcher = Task {
            var presses = 0
            for await _ in signals.received {
                presses += 1
                if presses > 1 { exit(130) }
                FileHandle.standardError.write(Data("\ninterrupted: stopping (again to quit at once)\n".utf8))
                stop()
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

/// The driver of a capacity search's step in progress, for SIGINT to stop.
final class CurrentDriver: Sendable {
    private let state = Mutex<(driver: LoadDriver?, stopped: Bool)>((nil, false))

    /// The step now running; stopped at once when the search already was.
    func set(_ driver: LoadDriver) {
        let stopped = state.withLock {
            $0.driver = driver
            return $0.stopped
        }
        if stopped { driver.stop() }
    }

    /// Stops the step in progress and any later one.
    func stop() {
        state.withLock {
            $0.stopped = true
            return $0.driver
        }?.stop()
    }
}
