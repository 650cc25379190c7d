import Dispatch
import Foundation
import Reactive
import RemoteProtocol
@testable import RemoteStreams
import Synchronization
import TestSupport
import Testing
import ZeroMQ

/// Polls `condition` until it holds or `limit` passes, with a round trip through `client` between
/// polls (real work, not a sleep); returns how long it took, nil on timeout.
func waitFor(_ limit: Duration, pacedBy client: RemoteClient, _ condition: () async -> Bool) async -> Duration? {
    let start = ContinuousClock.now
    while ContinuousClock.now - start < limit {
        if await condition() { return ContinuousClock.now - start }
        _ = try? await client.request("math.add", Pair(a: 1, b: 1), as: Int.self).value
    }
    return await condition() ? ContinuousClock.now - start : nil
}

@Suite("RemoteServer under abuse", .timeLimit(.minutes(1)))
struct RemoteServerAbuseTests {
    @Test("a client that never reads is cut off at its bound; everyone else is answered at once")
    func aClientThatDoesNotReadOnlyHurtsItself() async throws {
        var handlers = RemoteHandlers()
        let blob = String(repeating: "x", count: 4_096)
        handlers.request("blob") { (_: NoParameters) in Single.just(blob) }
        handlers.request("math.add") { (pair: Pair) in Single.just(pair.a + pair.b) }
        handlers.stream("ticks") { (_: NoParameters) in Observable<Int>.never() }
        let context = try Context()
        let server = try RemoteServer(
            context: context,
            configuration: .init(
                endpoints: ["tcp://127.0.0.1:*"], maxStreamsPerClient: 4_096, maxStreamsTotal: 8_192,
                peerQueue: .init(messages: 50, bytes: 1 << 20)),
            handlers: handlers)
        let codec = FrameCodec()
        // It opens a stream, then asks for 3,000 answers of 4 KiB and reads none of them.
        var messages = [codec.encode(try Frame.subscribe(stream: 1, method: "ticks"))]
        for id in 2...3_001 { messages.append(codec.encode(try Frame.request(stream: UInt64(id), method: "blob"))) }
        let stuck = NonReadingDealer(context: context, endpoint: server.endpoints[0], messages: messages)
        #expect(await stuck.waitUntilSent())

        let client = try RemoteClient(
            context: context, configuration: .init(endpoints: server.endpoints, deadline: .seconds(5)))
        var latencies: [Duration] = []
        for value in 0..<200 {
            let start = ContinuousClock.now
            let sum = try await client.request("math.add", Pair(a: value, b: 1), as: Int.self).value
            latencies.append(ContinuousClock.now - start)
            #expect(sum == value + 1)
        }
        latencies.sort()
        let p99 = latencies[latencies.count * 99 / 100]
        #expect(p99 < .milliseconds(500), "p99 \(p99) with a client that does not read")

        let cutOff = await waitFor(.seconds(20), pacedBy: client) { await server.counters.clientOverflows >= 1 }
        #expect(cutOff != nil)
        let counters = await server.counters
        // Its stream was ended (overloaded), and what waits for it is within its bound.
        #expect(counters.openStreams == 0)
        #expect(counters.blockedClients <= 1)
        #expect(counters.queuedForBlockedClients <= 50)
        #expect(counters.errorsByCode["overloaded", default: 0] >= 1)
        // Once its answers backed up, its further calls were refused unread (no work for nobody).
        #expect(counters.refusedWhileBlocked > 0)
        #expect(await stuck.close() == nil)
        await client.stop()
        await server.stop()
        context.terminate()
    }

    @Test(
        "a client whose connection closes has its streams disposed at once, not after the client timeout",
        arguments: ["tcp", "ipc"])
    func aClosedConnectionEndsItsStreamsAtOnce(transport: String) async throws {
        let subscribed = DispatchSemaphore(value: 0)
        let disposed = DispatchSemaphore(value: 0)
        var handlers = RemoteHandlers()
        handlers.stream("ticks") { (_: NoParameters) in
            Observable<Int>.never().do(onSubscribed: { subscribed.signal() }, onDispose: { disposed.signal() })
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "remote-abuse-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let endpoint = transport == "tcp" ? "tcp://127.0.0.1:*" : "ipc://\(directory.path)/server"
        let context = try Context()
        let server = try RemoteServer(
            context: context,
            configuration: .init(endpoints: [endpoint], clientTimeout: .seconds(60)),
            handlers: handlers)
        let opening = FrameCodec().encode(try Frame.subscribe(stream: 1, method: "ticks"))
        let peer = NonReadingDealer(context: context, endpoint: server.endpoints[0], messages: [opening])
        #expect(await arrived(subscribed))
        let closed = ContinuousClock.now
        #expect(await peer.close() == nil)
        #expect(await arrived(disposed))
        let elapsed = ContinuousClock.now - closed
        #expect(elapsed < .seconds(3), "disposed \(elapsed) after the connection closed")
        #expect(await server.counters.openStreams == 0)
        #expect(await server.counters.clientsLost == 1)
        await server.stop()
        context.terminate()
    }
}
