public import Contracts
import Foundation
import Reactive
import RemoteProtocol
public import RemoteStreams
import Synchronization
import ZeroMQ

/// A service's health as it changes: what `sys.health` reports and `--check` reads.
///
/// A process of several shards keeps one part per shard (``shard(_:)``), which its upstream probes
/// set: while the process is `ready`, its report is `degraded` when any shard's part is, with every
/// shard's reasons (each once).
public final class HealthState: Sendable {
    private let state = Mutex<(status: HealthReport.Status, reasons: [String])>((.starting, []))
    private let shards: [HealthState]
    /// The service's name.
    public let service: String
    /// Its version.
    public let version: String
    /// When the service started.
    public let started = ContinuousClock.now

    /// The health of `service` at `version`, `starting`, with `shards` parts.
    public init(service: String, version: String, shards: Int = 0) {
        self.service = service
        self.version = version
        self.shards = (0..<shards).map { _ in HealthState(service: service, version: version) }
    }

    /// Shard `index`'s part.
    public func shard(_ index: Int) -> HealthState { shards[index] }

    /// Sets the phase and the reasons (empty when all is well).
    public func set(_ status: HealthReport.Status, reasons: [String] = []) {
        state.withLock { $0 = (status, reasons) }
    }

    /// The report now.
    public var report: HealthReport {
        var (status, reasons) = state.withLock { $0 }
        if status == .ready {
            for shard in shards {
                let (shardStatus, shardReasons) = shard.state.withLock { $0 }
                guard shardStatus == .degraded else { continue }
                status = .degraded
                reasons += shardReasons.filter { !reasons.contains($0) }
            }
        }
        return HealthReport(service: service, version: version, status: status, reasons: reasons)
    }

    /// Seconds since the service started.
    public var uptimeSeconds: Int64 { (ContinuousClock.now - started).components.seconds }
}

/// The servers whose handlers are being registered, one per shard, known once they are bound:
/// `sys.stats` reports their transport counters and `sys.endpoints` their endpoints. (Handlers are
/// registered before the servers exist.)
public final class ServerReference: Sendable {
    private let servers = Mutex<[RemoteServer]>([])

    /// Not bound yet.
    public init() {}

    /// Binds the server once it exists (a process of one shard).
    public func bind(_ server: RemoteServer) {
        bind([server])
    }

    /// Binds every shard's server, shard 0 first, once all are bound.
    public func bind(_ servers: [RemoteServer]) {
        self.servers.withLock { $0 = servers }
    }

    /// Each server's transport counters, by shard, once bound.
    var counters: [RemoteCounters] {
        get async {
            var counters: [RemoteCounters] = []
            for server in servers.withLock({ $0 }) { counters.append(await server.counters) }
            return counters
        }
    }

    /// Each shard's endpoint (its server's first), shard 0 first.
    var endpoints: [String] { servers.withLock { $0 }.compactMap(\.endpoints.first) }
}

extension RemoteHandlers {
    /// Registers `sys.health`, `sys.stats` and `sys.endpoints` for shard `shard` of `server`: the
    /// health in `health`; the counters `stats` gathers (a group per component), with the servers'
    /// own summed as the group `transport` (and, with several shards, each shard's as
    /// `transport.<shard>`); every shard's endpoint, with `shard` as the answering one.
    public mutating func addSystemMethods(
        health: HealthState, server: ServerReference, shard: Int = 0,
        stats: @escaping @Sendable () async -> [String: [String: Int]]
    ) {
        handle(Methods.System.health) { (_: NoParameters) in Single.just(health.report) }
        handle(Methods.System.endpoints) { (_: NoParameters) in
            Single.just(ShardEndpoints(endpoints: server.endpoints, shard: shard))
        }
        handle(Methods.System.stats) { (_: NoParameters) in
            Single.create { done in
                let task = Task {
                    var counters = await stats()
                    let transport = await server.counters
                    if !transport.isEmpty {
                        counters["transport"] = transport.map(\.statsGroup).reduce([:], StatsGroups.sum)
                    }
                    if transport.count > 1 {
                        for (index, shard) in transport.enumerated() {
                            counters["transport.\(index)"] = shard.statsGroup
                        }
                    }
                    done(
                        .success(
                            StatsReport(
                                service: health.service, version: health.version,
                                uptimeSeconds: health.uptimeSeconds, counters: counters)))
                }
                return Disposables.create { task.cancel() }
            }
        }
    }
}

/// Sums of `sys.stats` groups.
enum StatsGroups {
    /// `left` and `right` added counter by counter.
    static func sum(_ left: [String: Int], _ right: [String: Int]) -> [String: Int] {
        left.merging(right, uniquingKeysWith: +)
    }

    /// `left` and `right` added group by group, counter by counter.
    static func sum(_ left: [String: [String: Int]], _ right: [String: [String: Int]]) -> [String: [String: Int]] {
        left.merging(right) { sum($0, $1) }
    }
}

extension RemoteCounters {
    /// The counters as a `sys.stats` group: `open_streams`, `frames_in`, `frames_out`,
    /// `dropped_frames`, `requests_answered_at_once`, `clients_lost`, `client_overflows`,
    /// `blocked_clients`, `queued_for_blocked_clients`, `messages_dropped`, `refused_while_blocked` and
    /// `errors.<code>`.
    public var statsGroup: [String: Int] {
        var group = [
            "open_streams": openStreams, "frames_in": framesIn, "frames_out": framesOut,
            "dropped_frames": droppedFrames, "requests_answered_at_once": requestsAnsweredAtOnce,
            "clients_lost": clientsLost, "client_overflows": clientOverflows, "blocked_clients": blockedClients,
            "queued_for_blocked_clients": queuedForBlockedClients, "messages_dropped": messagesDropped,
            "refused_while_blocked": refusedWhileBlocked, "retries": retries,
        ]
        for (code, count) in errorsByCode { group["errors.\(code)"] = count }
        return group
    }
}

/// `--check`: asks a running instance for its health, for make, systemd and Kubernetes probes.
public enum HealthCheck {
    /// What a check found.
    public struct Outcome: Sendable {
        /// 0 ready, 1 answering but not ready, 2 not answering (down, wrong key, timeout).
        public let exitCode: Int32
        /// One line for a person.
        public let message: String
    }

    /// Calls `sys.health` at `endpoint` and waits up to `timeout`.
    public static func run(endpoint: String, curve: RemoteClient.Curve?, timeout: Duration) async -> Outcome {
        let context: Context
        let client: RemoteClient
        do {
            context = try Context()
            client = try RemoteClient(
                context: context,
                configuration: .init(
                    endpoints: [endpoint], deadline: timeout, name: "health-check", curve: curve))
        } catch {
            return Outcome(exitCode: 2, message: "cannot check \(endpoint): \(error)")
        }
        defer { context.terminate() }
        let outcome: Outcome
        do {
            let report = try await client.request(Methods.System.health).value
            let reasons = report.reasons.isEmpty ? "" : " (" + report.reasons.joined(separator: "; ") + ")"
            outcome = Outcome(
                exitCode: report.ready ? 0 : 1,
                message:
                    "\(report.service) \(report.version) at \(endpoint): \(report.status.rawValue)\(reasons)")
        } catch {
            outcome = Outcome(exitCode: 2, message: "\(endpoint) did not answer: \(error)")
        }
        await client.stop()
        return outcome
    }
}
