import Contracts
import Reactive
public import RemoteStreams
import Synchronization

/// A service this process calls, whose health it watches: `sys.health` turns `degraded` (still
/// serving; the affected answers say the service is unreachable) while an upstream does not answer.
public struct Upstream: Sendable {
    /// The upstream's name in reasons and logs, e.g. `auth-service`.
    public let name: String
    /// Where it listens, for reasons and logs.
    public let endpoint: String
    /// The client its health is asked through.
    public let client: RemoteClient
    /// Told every verdict (true: it answered ready), e.g. to fail channels to it at once.
    public let observe: @Sendable (_ reachable: Bool) -> Void

    /// An upstream named `name` at `endpoint`, asked through `client`.
    public init(
        name: String, endpoint: String, client: RemoteClient,
        observe: @escaping @Sendable (_ reachable: Bool) -> Void = { _ in }
    ) {
        self.name = name
        self.endpoint = endpoint
        self.client = client
        self.observe = observe
    }
}

/// Asks each upstream's `sys.health` every `interval`, all at once (one that does not answer delays
/// nobody's verdict), and sets `health`: `ready` when all are ready, else `degraded` with one reason
/// per upstream that is not. Logs each change of an upstream's reachability once.
///
/// A connection to an upstream that comes up (a service that returns) starts a round at once, after
/// the one in progress if any: `health` and the verdicts follow a recovery without waiting for the
/// next interval.
///
/// Run it while the service serves (``RunningService/serve()``): it returns once its task is
/// cancelled, which the host does when the drain begins, before setting `draining`.
public enum UpstreamProbe {
    /// Probes until cancelled; the first round runs at once.
    public static func run(
        _ upstreams: [Upstream], deadline: Duration, interval: Duration, health: HealthState, logger: Logger
    ) async {
        let alarm = ProbeAlarm()
        let watches = upstreams.map { upstream in
            upstream.client.connectionChanges.subscribe(onNext: { change in
                if change.isUp { alarm.ring() }
            })
        }
        defer { for watch in watches { watch.dispose() } }
        var wasReachable: [String: Bool] = [:]
        repeat {
            let reasons = await withTaskGroup(of: (Int, String?).self) { group in
                for (index, upstream) in upstreams.enumerated() {
                    group.addTask { (index, await reason(upstream, deadline: deadline)) }
                }
                var reasons = [String?](repeating: nil, count: upstreams.count)
                for await (index, reason) in group { reasons[index] = reason }
                return reasons
            }
            if Task.isCancelled { return }
            for (upstream, reason) in zip(upstreams, reasons) {
                let reachable = reason == nil
                upstream.observe(reachable)
                guard wasReachable[upstream.name] != reachable else { continue }
                wasReachable[upstream.name] = reachable
                if let reason {
                    logger.warning("\(upstream.name) unreachable", ["reason": .string(reason)])
                } else {
                    logger.notice("\(upstream.name) reachable", ["endpoint": .string(upstream.endpoint)])
                }
            }
            let notReady = reasons.compactMap { $0 }
            if notReady.isEmpty {
                health.set(.ready)
            } else {
                health.set(.degraded, reasons: notReady)
            }
        } while await alarm.wait(upTo: interval)
    }

    /// Why `upstream` is not ready, or nil when it is.
    static func reason(_ upstream: Upstream, deadline: Duration) async -> String? {
        do {
            let report = try await upstream.client.request(Methods.System.health, deadline: deadline).value
            return report.ready
                ? nil : "\(upstream.name) at \(upstream.endpoint) is \(report.status.rawValue)"
        } catch {
            return "\(upstream.name) at \(upstream.endpoint) does not answer (\(error))"
        }
    }
}

/// Wakes a probe early: ``ring()`` from any thread ends the current (or next) ``wait(upTo:)``.
final class ProbeAlarm: Sendable {
    private struct State {
        /// Rung while nobody waited: the next wait returns at once.
        var rung = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// Ends the wait in progress, or the next one.
    func ring() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.rung = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Waits until `interval` passed or the alarm rang; false when the task was cancelled.
    func wait(upTo interval: Duration) async -> Bool {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: interval) }
            group.addTask { await self.rang() }
            await group.next()
            group.cancelAll()
        }
        return !Task.isCancelled
    }

    /// Returns when the alarm rings or the task is cancelled.
    private func rang() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // Cancelled before the waiter is stored: the handler below found none, so resume here.
                let now = state.withLock { state -> Bool in
                    if state.rung || Task.isCancelled {
                        state.rung = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }
}
