// Row (3): request/response through `RemoteStreams` (RemoteClient → RemoteServer), with a small
// JSON payload of five string fields each way: protocol codec, JSON coding, the server's actor and
// the client's bookkeeping on top of (2).

import BenchmarkSupport
import Dispatch
import Reactive
import RemoteProtocol
import RemoteStreams
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

let benchmarkPayload = FiveStrings(
    username: "ada.lovelace", password: "correct horse", phone: "13800138000", locale: "zh-Hans",
    client: "bench")

/// Measures (3) with 1 and with 64 requests in flight.
func remoteStreamsRequests(budget: Budget) throws -> [Measurement] {
    let context = try Context()
    var handlers = RemoteHandlers()
    handlers.handle(benchEcho) { payload in Single.just(payload) }
    let server = try RemoteServer(
        context: context, configuration: .init(endpoints: ["tcp://127.0.0.1:*"]), handlers: handlers)
    let client = try RemoteClient(
        context: context, configuration: .init(endpoints: server.endpoints, deadline: .seconds(30)))
    defer {
        try? awaitOnPool {
            await client.stop()
            await server.stop()
        }
        context.terminate()
    }
    return Budget.inFlightSettings.map { inFlight in
        _ = requestRun(client, inFlight: inFlight, count: budget.warmUp, seconds: budget.seconds)
        return requestRun(
            client, inFlight: inFlight, count: budget.roundTrips(inFlight: inFlight), seconds: budget.seconds)
    }
}

/// Keeps `inFlight` requests outstanding until `count` have completed or `seconds` have passed;
/// each completion issues the next request from the client's delivery thread.
private func requestRun(_ client: RemoteClient, inFlight: Int, count: Int, seconds: Double) -> Measurement {
    let pump = RequestPump(client: client, count: count, seconds: seconds)
    let start = DispatchTime.now().uptimeNanoseconds
    let cpuStart = ownCPUTime()
    for _ in 0..<inFlight { pump.issue() }
    pump.finished.wait()
    let elapsed = DispatchTime.now().uptimeNanoseconds - start
    return Measurement(
        inFlight: inFlight, latencies: pump.latencies, elapsedNanoseconds: elapsed,
        cpu: ownCPUTime().since(cpuStart))
}

private final class RequestPump: Sendable {
    private struct State {
        var issued = 0
        var completed = 0
        var latencies: [UInt64] = []
    }

    let finished = DispatchSemaphore(value: 0)
    private let client: RemoteClient
    private let count: Int
    private let deadline: UInt64
    private let state = Mutex(State())

    init(client: RemoteClient, count: Int, seconds: Double) {
        self.client = client
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
        _ = client.request(benchEcho, benchmarkPayload).subscribe(
            onSuccess: { [self] _ in complete(latency: DispatchTime.now().uptimeNanoseconds - sent) },
            onFailure: { error in fatalError("bench.echo failed: \(error)") })
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
