public import Contracts
import Foundation
import Reactive
public import RemoteStreams
import Synchronization
import ZeroMQ

/// A service's health as it changes: what `sys.health` reports and `--check` reads.
public final class HealthState: Sendable {
    private let state = Mutex<(status: HealthReport.Status, reasons: [String])>((.starting, []))
    /// The service's name.
    public let service: String
    /// Its version.
    public let version: String
    /// When the service started.
    public let started = ContinuousClock.now

    /// The health of `service` at `version`, `starting`.
    public init(service: String, version: String) {
        self.service = service
        self.version = version
    }

    /// Sets the phase and the reasons (empty when all is well).
    public func set(_ status: HealthReport.Status, reasons: [String] = []) {
        state.withLock { $0 = (status, reasons) }
    }

    /// The report now.
    public var report: HealthReport {
        let (status, reasons) = state.withLock { $0 }
        return HealthReport(service: service, version: version, status: status, reasons: reasons)
    }

    /// Seconds since the service started.
    public var uptimeSeconds: Int64 { (ContinuousClock.now - started).components.seconds }
}

/// The server whose handlers are being registered, known once it is created: `sys.stats` reports
/// its transport counters. (Handlers are registered before the server exists.)
public final class ServerReference: Sendable {
    private let server = Mutex<RemoteServer?>(nil)

    /// Not bound yet.
    public init() {}

    /// Binds the server once it exists.
    public func bind(_ server: RemoteServer) {
        self.server.withLock { $0 = server }
    }

    /// The server's transport counters, once bound.
    var counters: RemoteCounters? {
        get async { await server.withLock { $0 }?.counters }
    }
}

extension RemoteHandlers {
    /// Registers `sys.health` and `sys.stats`: the health in `health`, and the counters `stats`
    /// gathers (a group per component), with `server`'s own as the group `transport`.
    public mutating func addSystemMethods(
        health: HealthState, server: ServerReference,
        stats: @escaping @Sendable () async -> [String: [String: Int]]
    ) {
        handle(Methods.System.health) { (_: NoParameters) in Single.just(health.report) }
        handle(Methods.System.stats) { (_: NoParameters) in
            Single.create { done in
                let task = Task {
                    var counters = await stats()
                    if let transport = await server.counters { counters["transport"] = transport.statsGroup }
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
            "refused_while_blocked": refusedWhileBlocked,
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
