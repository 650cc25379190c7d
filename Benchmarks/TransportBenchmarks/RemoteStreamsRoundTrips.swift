// Rows (3) and (4): request/response through `RemoteStreams` (RemoteClient → RemoteServer), with a
// small JSON payload of five string fields each way (3), or the empty body `{}` (4): protocol codec,
// JSON coding, the server's actor and the client's bookkeeping on top of (2); (4) is the transport's
// own cost with next to no JSON.

import BenchmarkSupport
import Dispatch
import Foundation
import Metrics
import Reactive
import RemoteProtocol
import RemoteStreams
import ServiceKit
import Synchronization
import ZeroMQ

/// The request and the response: five short strings.
struct FiveStrings: Codable, Sendable {
    var username: String
    var password: String
    var phone: String
    var locale: String
    var client: String
}

/// The method row (3) calls: its payload back.
let benchEcho = RequestMethod<FiveStrings, FiveStrings>("bench.echo")

/// The method row (4) calls: `{}` in, `{}` back.
let benchEmpty = RequestMethod<NoParameters, NoParameters>("bench.empty")

let benchmarkPayload = FiveStrings(
    username: "ada.lovelace", password: "correct horse", phone: "13800138000", locale: "zh-Hans",
    client: "bench")

/// Measures (3) with 1 and with 64 requests in flight.
func remoteStreamsRequests(budget: Budget) throws -> [Measurement] {
    try remoteStreamsRequests(benchEcho, benchmarkPayload, budget: budget)
}

/// Measures (4), the empty body, with 1 and with 64 requests in flight.
func remoteStreamsEmptyRequests(budget: Budget) throws -> [Measurement] {
    try remoteStreamsRequests(benchEmpty, NoParameters(), budget: budget)
}

/// Measures (4m): (4) with metrics on, as `--metrics-listen` runs a server: every call counted by
/// method and outcome, with its latency in a histogram, and the whole exposition collected from the
/// server's loop and rendered every ``scrapeInterval``, as a scrape does.
func remoteStreamsEmptyRequestsWithMetrics(budget: Budget) throws -> [Measurement] {
    try remoteStreamsRequests(benchEmpty, NoParameters(), metrics: true, budget: budget)
}

/// How often (4m) collects and renders the exposition: a 1 s scrape interval, the shortest one in
/// common use (Prometheus's default is 1 m, typical configurations 15 s).
let scrapeInterval = Duration.seconds(1)

/// Measures `method` called with `payload` (its handler answers with its parameters), with 1 and
/// with 64 requests in flight; with `metrics`, as (4m) describes.
private func remoteStreamsRequests<Body: Codable & Sendable>(
    _ method: RequestMethod<Body, Body>, _ payload: Body, metrics: Bool = false, budget: Budget
) throws -> [Measurement] {
    let context = try Context()
    var handlers = RemoteHandlers()
    handlers.handle(method) { payload in Single.just(payload) }
    let server = try RemoteServer(
        context: context, configuration: .init(endpoints: ["tcp://127.0.0.1:*"], countsCalls: metrics),
        handlers: handlers)
    let client = try RemoteClient(
        context: context, configuration: .init(endpoints: server.endpoints, deadline: .seconds(30)))
    let scraper = metrics ? Scraper(server: server) : nil
    defer {
        scraper?.stop()
        try? awaitOnPool {
            await client.stop()
            await server.stop()
        }
        context.terminate()
    }
    return Budget.inFlightSettings.map { inFlight in
        _ = requestRun(
            client, method, payload, inFlight: inFlight, count: budget.warmUp, seconds: budget.seconds)
        return requestRun(
            client, method, payload, inFlight: inFlight, count: budget.roundTrips(inFlight: inFlight),
            seconds: budget.seconds)
    }
}

/// Collects `server`'s counters and renders them as a scrape would, every ``scrapeInterval`` on a
/// thread of its own, until stopped.
private final class Scraper: Sendable {
    private let running = Atomic<Bool>(true)
    private let done = DispatchSemaphore(value: 0)

    init(server: RemoteServer) {
        let thread = Thread { [self] in
            var bytes = 0
            while running.load(ordering: .relaxed) {
                let started = ContinuousClock.now
                bytes &+=
                    (try? awaitOnPool {
                        Exposition.text(HostMetrics.transport([await server.counters])).utf8.count
                    }) ?? 0
                let next = started + scrapeInterval
                if next > ContinuousClock.now {
                    Thread.sleep(forTimeInterval: Double((next - .now) / .microseconds(1)) / 1e6)
                }
            }
            precondition(bytes >= 0)
            done.signal()
        }
        thread.name = "scraper"
        thread.start()
    }

    func stop() {
        running.store(false, ordering: .relaxed)
        done.wait()
    }
}

/// Keeps `inFlight` requests outstanding until `count` have completed or `seconds` have passed;
/// each completion issues the next request from the client's delivery thread.
private func requestRun<Body: Codable & Sendable>(
    _ client: RemoteClient, _ method: RequestMethod<Body, Body>, _ payload: Body, inFlight: Int, count: Int,
    seconds: Double
) -> Measurement {
    let pump = RequestPump(client: client, method: method, payload: payload, count: count, seconds: seconds)
    let start = DispatchTime.now().uptimeNanoseconds
    let cpuStart = ownCPUTime()
    for _ in 0..<inFlight { pump.issue() }
    pump.finished.wait()
    let elapsed = DispatchTime.now().uptimeNanoseconds - start
    return Measurement(
        inFlight: inFlight, latencies: pump.latencies, elapsedNanoseconds: elapsed,
        cpu: ownCPUTime().since(cpuStart))
}

private final class RequestPump<Body: Codable & Sendable>: Sendable {
    private struct State {
        var issued = 0
        var completed = 0
        var latencies: [UInt64] = []
    }

    let finished = DispatchSemaphore(value: 0)
    private let client: RemoteClient
    private let method: RequestMethod<Body, Body>
    private let payload: Body
    private let count: Int
    private let deadline: UInt64
    private let state = Mutex(State())

    init(client: RemoteClient, method: RequestMethod<Body, Body>, payload: Body, count: Int, seconds: Double)
    {
        self.client = client
        self.method = method
        self.payload = payload
        self.count = count
        deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        state.withLock { $0.latencies.reserveCapacity(count) }
    }

    var latencies: [UInt64] { state.withLock { $0.latencies } }

    /// Sends one more request, unless the run is over.
    func issue() {
        let go = state.withLock { state -> Bool in
            guard state.issued < count, DispatchTime.now().uptimeNanoseconds < deadline else { return false }
            state.issued += 1
            return true
        }
        guard go else { return }
        let sent = DispatchTime.now().uptimeNanoseconds
        _ = client.request(method, payload).subscribe(
            onSuccess: { [self] _ in complete(latency: DispatchTime.now().uptimeNanoseconds - sent) },
            onFailure: { [method] error in fatalError("\(method.name) failed: \(error)") })
    }

    private func complete(latency: UInt64) {
        let done = state.withLock { state -> Bool in
            state.completed += 1
            state.latencies.append(latency)
            let over = state.issued >= count || DispatchTime.now().uptimeNanoseconds >= deadline
            return over && state.completed == state.issued
        }
        if done { finished.signal() } else { issue() }
    }
}
