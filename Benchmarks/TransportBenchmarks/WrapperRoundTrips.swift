import BenchmarkSupport
import Dispatch
import Measuring
import Synchronization
import ZeroMQ

// Part (2): the C program's method (raw/raw_roundtrip.c) through the `ZeroMQ` wrapper. The client is
// a DEALER on a thread of its own using the wrapper's blocking send and receive; the server is a
// ROUTER that echoes each request, either on a `SocketLoop` (how a service uses the wrapper) or in a
// plain blocking receive/send loop on its own thread.

/// The request size, as in the C program: the slot in the first 4 bytes (little-endian), then 'x'.
let payloadSize = 32

/// Runs `body` on a new thread of its own (blocking libzmq calls never run on the main actor or the
/// cooperative pool) and waits for it: the main thread blocks on a semaphore, not in libzmq.
func onOwnedThread<T: Sendable>(
    _ name: String, _ body: sending @escaping () throws -> T
) throws -> T {
    let outcome = Mutex<Result<T, any Error>?>(nil)
    let finished = DispatchSemaphore(value: 0)
    OwnedThread.spawn(name: name) {
        let result = Result { try body() }
        outcome.withLock { $0 = result }
        finished.signal()
    }
    finished.wait()
    guard let result = outcome.withLock({ $0 }) else {
        preconditionFailure("the thread ended without a result")
    }
    return try result.get()
}

/// The client's side of the C program's `run`: `count` round trips (or until `seconds` pass) with
/// `inFlight` outstanding. Returns each round trip's latency in nanoseconds when `record` is set.
func clientRun(
    _ dealer: Socket, inFlight: Int, count: Int, seconds: Double, record: Bool
) throws -> [UInt64] {
    var sentAt = [UInt64](repeating: 0, count: inFlight)
    var latencies: [UInt64] = []
    if record { latencies.reserveCapacity(count) }
    var request = [UInt8](repeating: UInt8(ascii: "x"), count: payloadSize)
    func send(slot: Int) throws {
        withUnsafeBytes(of: UInt32(slot).littleEndian) { slotBytes in
            request.withUnsafeMutableBytes { $0.copyMemory(from: slotBytes) }
        }
        sentAt[slot] = monotonicNanoseconds()
        try dealer.send(request)
    }
    let deadline = monotonicNanoseconds() + UInt64(seconds * 1e9)
    var started = 0
    var done = 0
    var stopSending = false
    while started < min(inFlight, count) {
        try send(slot: started)
        started += 1
    }
    while done < started {
        guard case .done(let reply) = try dealer.receivePart() else { continue }
        let now = monotonicNanoseconds()
        guard reply.bytes.count == payloadSize, !reply.more else { fatalError("bad reply") }
        let slot = reply.bytes.withUnsafeBytes {
            Int(UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)))
        }
        guard slot < inFlight else { fatalError("bad reply slot \(slot)") }
        if record { latencies.append(now - sentAt[slot]) }
        done += 1
        if !stopSending && done & 63 == 0 && now >= deadline { stopSending = true }
        if !stopSending && started < count {
            try send(slot: slot)
            started += 1
        }
    }
    return latencies
}

/// Connects a DEALER to `endpoint` and measures every in-flight setting in turn, each after a
/// warm-up, on a thread of its own.
func measureClient(context: Context, endpoint: String, budget: Budget) throws -> [Measurement] {
    try onOwnedThread("bench-client") {
        let dealer = try Socket(context, .dealer, linger: 0)
        defer { dealer.close(linger: 0) }
        try dealer.connect(endpoint)
        var results: [Measurement] = []
        for inFlight in Budget.inFlightSettings {
            _ = try clientRun(
                dealer, inFlight: inFlight, count: budget.warmUp, seconds: budget.seconds, record: false)
            let start = monotonicNanoseconds()
            let cpuStart = ownCPUTime()
            let latencies = try clientRun(
                dealer, inFlight: inFlight, count: budget.roundTrips(inFlight: inFlight),
                seconds: budget.seconds, record: true)
            let elapsed = monotonicNanoseconds() - start
            results.append(
                Measurement(
                    inFlight: inFlight, latencies: latencies, elapsedNanoseconds: elapsed,
                    cpu: ownCPUTime().since(cpuStart)))
        }
        return results
    }
}

/// A ROUTER bound to a port the OS picks on 127.0.0.1, set up as the C program's.
func makeRouter(_ context: Context) throws -> (router: Socket, endpoint: String) {
    let router = try Socket(context, .router, linger: 0)
    try router.set(.routerMandatory, true)
    try router.bind("tcp://127.0.0.1:*")
    return (router, try router.lastEndpoint)
}

/// (2) with the server on a `SocketLoop`: the handler echoes each batch back through the loop, so
/// the replies go out in the same loop turn.
func wrapperWithSocketLoop(_ budget: Budget) throws -> [Measurement] {
    let context = try Context()
    let (router, endpoint) = try makeRouter(context)
    let loop = try SocketLoop(context: context, sockets: [router]) { batch, loop in
        for message in batch { loop.send(message.parts, to: message.socket) }
    }
    defer { loop.stop() }
    return try measureClient(context: context, endpoint: endpoint, budget: budget)
}

/// (2) with a plain blocking echo server on a thread of its own: receive a whole message, send it
/// back, until the context is shut down.
func wrapperWithBlockingServer(_ budget: Budget) throws -> [Measurement] {
    let context = try Context()
    let (router, endpoint) = try makeRouter(context)
    let serverEnded = DispatchSemaphore(value: 0)
    OwnedThread.spawn(name: "bench-echo") {
        defer {
            router.close(linger: 0)
            serverEnded.signal()
        }
        while case .done(let parts)? = try? router.receiveParts() {
            guard (try? router.send(parts: parts)) != nil else { return }
        }
    }
    defer {
        context.shutdown()  // the server's blocking receive fails with ETERM
        serverEnded.wait()
    }
    return try measureClient(context: context, endpoint: endpoint, budget: budget)
}

/// Runs an async measurement (for example one driving a RemoteStreams client) from the benchmark's
/// synchronous top level: `body` runs as a detached task on the cooperative pool while the calling
/// thread, the main thread and not one of the pool's, waits on a semaphore. `body` must not need the
/// main actor (it is blocked meanwhile).
func awaitOnPool<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let outcome = Mutex<Result<T, any Error>?>(nil)
    let finished = DispatchSemaphore(value: 0)
    Task.detached {
        let result: Result<T, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        outcome.withLock { $0 = result }
        finished.signal()
    }
    finished.wait()
    guard let result = outcome.withLock({ $0 }) else {
        preconditionFailure("the task ended without a result")
    }
    return try result.get()
}
