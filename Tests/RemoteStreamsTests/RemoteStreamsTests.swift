import Dispatch
import Foundation
import Reactive
import RemoteProtocol
@testable import RemoteStreams
import Synchronization
import TestSupport
import Testing
import ZeroMQ

struct Pair: Codable, Sendable { var a: Int, b: Int }
struct Count: Codable, Sendable { var n: Int }

/// Waits for a signal, up to 10 s, off the cooperative pool.
func arrived(_ semaphore: DispatchSemaphore) async -> Bool {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(returning: semaphore.wait(timeout: .now() + 10) == .success)
        }
    }
}

/// A server on a random loopback port and a client connected to it.
struct Fixture {
    let context: Context
    let server: RemoteServer
    let client: RemoteClient

    init(
        handlers: RemoteHandlers, maxStreamsPerClient: Int = 256, deadline: Duration = .seconds(30)
    ) throws {
        context = try Context()
        server = try RemoteServer(
            context: context,
            configuration: .init(endpoints: ["tcp://127.0.0.1:*"], maxStreamsPerClient: maxStreamsPerClient),
            handlers: handlers)
        client = try RemoteClient(
            context: context, configuration: .init(endpoints: server.endpoints, deadline: deadline))
    }

    /// A client of an existing server.
    init(server: RemoteServer, context: Context) throws {
        self.context = context
        self.server = server
        client = try RemoteClient(context: context, configuration: .init(endpoints: server.endpoints))
    }

    func stop() async {
        await client.stop()
        await server.stop()
        context.terminate()
    }
}

/// Everything a stream sends, once it ends.
func collect<Element: Sendable>(_ source: Observable<Element>) async -> ([Element], (any Error)?) {
    await withCheckedContinuation { continuation in
        let elements = Mutex<[Element]>([])
        _ = source.subscribe(
            onNext: { element in elements.withLock { $0.append(element) } },
            onError: { error in continuation.resume(returning: (elements.withLock { $0 }, error)) },
            onCompleted: { continuation.resume(returning: (elements.withLock { $0 }, nil)) })
    }
}

/// Runs `body` on a thread of its own with a raw DEALER connected to `endpoint` (receives wait at
/// most `receiveTimeout` ms), then closes the socket.
func withRawDealer<T: Sendable>(
    _ endpoint: String, context: Context, receiveTimeout: Int32,
    _ body: @escaping @Sendable (Socket) throws -> T
) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread {
            do {
                let raw = try Socket(context, .dealer, linger: 0)
                try raw.set(.receiveTimeout, receiveTimeout)
                try raw.connect(endpoint)
                let result = try body(raw)
                raw.close()
                continuation.resume(returning: result)
            } catch {
                continuation.resume(throwing: error)
            }
        }.start()
    }
}

/// Sends each message from a raw DEALER and reads one answer after each; returns the answers.
func rawExchange(_ fixture: Fixture, _ messages: [[[UInt8]]]) async throws -> [[[UInt8]]] {
    try await withRawDealer(fixture.server.endpoints[0], context: fixture.context, receiveTimeout: 5_000) {
        raw in
        var answers: [[[UInt8]]] = []
        for message in messages {
            _ = try raw.send(parts: message)
            if case .done(let parts) = try raw.receiveParts() { answers.append(parts) }
        }
        return answers
    }
}

@Suite(.timeLimit(.minutes(1)))
struct RemoteStreamsTests {
    @Test func requestResponse() async throws {
        var handlers = RemoteHandlers()
        handlers.request("math.add") { (pair: Pair) in Single.just(pair.a + pair.b) }
        let fixture = try Fixture(handlers: handlers)
        let sum = try await fixture.client.request("math.add", Pair(a: 2, b: 40), as: Int.self).value
        #expect(sum == 42)
        await fixture.stop()
    }

    @Test func streamDeliversEveryElementThenCompletes() async throws {
        var handlers = RemoteHandlers()
        handlers.stream("count.up") { (count: Count) in Observable.from(Array(0..<count.n)) }
        let fixture = try Fixture(handlers: handlers)
        let (elements, error) = await collect(fixture.client.stream("count.up", Count(n: 100), as: Int.self))
        #expect(elements == Array(0..<100))
        #expect(error == nil)
        await fixture.stop()
    }

    @Test func channelStreamsInputInAndOutputBack() async throws {
        var handlers = RemoteHandlers()
        handlers.channel("text.upper") { (_: NoParameters, input: Observable<String>) in
            input.map { $0.uppercased() }
        }
        let fixture = try Fixture(handlers: handlers)
        let input = Observable.from(["a", "bc", "def"])
        let (elements, error) = await collect(
            fixture.client.channel("text.upper", NoParameters(), input: input, as: String.self))
        #expect(elements == ["A", "BC", "DEF"])
        #expect(error == nil)
        await fixture.stop()
    }

    @Test func disposingSendsCancelWhichDisposesTheServerGraph() async throws {
        let subscribed = DispatchSemaphore(value: 0)
        let disposed = DispatchSemaphore(value: 0)
        var handlers = RemoteHandlers()
        handlers.stream("ticks") { (_: NoParameters) in
            Observable<Int>.never().do(
                onSubscribed: { subscribed.signal() }, onDispose: { disposed.signal() })
        }
        let fixture = try Fixture(handlers: handlers)
        let subscription = fixture.client.stream("ticks", NoParameters(), as: Int.self).subscribe()
        #expect(await arrived(subscribed))
        #expect(await fixture.server.counters.openStreams == 1)
        subscription.dispose()
        #expect(await arrived(disposed))
        #expect(await fixture.server.counters.openStreams == 0)
        await fixture.stop()
    }

    @Test func disposingAPendingRequestCancelsItOnTheServer() async throws {
        let subscribed = DispatchSemaphore(value: 0)
        let disposed = DispatchSemaphore(value: 0)
        var handlers = RemoteHandlers()
        handlers.request("wait") { (_: NoParameters) in
            Single<Int>.never().do(onSubscribed: { subscribed.signal() }, onDispose: { disposed.signal() })
        }
        let fixture = try Fixture(handlers: handlers)
        let outcomes = Mutex(0)
        let subscription = fixture.client.request("wait", NoParameters(), as: Int.self).subscribe(
            onSuccess: { _ in outcomes.withLock { $0 += 1 } },
            onFailure: { _ in outcomes.withLock { $0 += 1 } })
        #expect(await arrived(subscribed))
        #expect(fixture.client.counters.openStreams == 1)
        subscription.dispose()
        #expect(await arrived(disposed))
        #expect(await fixture.server.counters.openStreams == 0)
        #expect(fixture.client.counters.openStreams == 0)
        // A second dispose is harmless, and the subscriber heard nothing.
        subscription.dispose()
        #expect(outcomes.withLock { $0 } == 0)
        await fixture.stop()
        #expect(outcomes.withLock { $0 } == 0)
    }

    @Test func aRequestIsAnsweredByOneNextAndNothingAfterIt() async throws {
        var handlers = RemoteHandlers()
        handlers.request("math.add") { (pair: Pair) in Single.just(pair.a + pair.b) }
        // Answered later, from another thread: the server's other answer path.
        handlers.request("math.add.later") { (pair: Pair) in
            Single.create { done in
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) {
                    done(.success(pair.a + pair.b))
                }
                return Disposables.create()
            }
        }
        let fixture = try Fixture(handlers: handlers)
        let body = Array(#"{"a":2,"b":40}"#.utf8)
        // One message in, one message out each time: a COMPLETE after a NEXT would be the answer
        // read for the next request.
        let answers = try await rawExchange(
            fixture,
            try [(1, "math.add"), (2, "math.add.later"), (3, "math.add")].map { stream, method in
                FrameCodec().encode(try Frame.request(stream: stream, method: method, body: body))
            })
        let frames = try answers.map { try FrameCodec().decode($0) }
        #expect(frames.map(\.type) == [.next, .next, .next])
        #expect(frames.map(\.stream) == [1, 2, 3])
        #expect(frames.map { $0.body.map { String(decoding: $0, as: UTF8.self) } } == ["42", "42", "42"])
        let counters = await fixture.server.counters
        #expect(counters.framesOut == 3)
        #expect(counters.openStreams == 0)
        await fixture.stop()
    }

    @Test func aRequestAnsweredLaterLeavesNothingBehind() async throws {
        // Each request's graph holds a tracker, which signals when it is freed.
        final class Tracker: Sendable {
            let freed: DispatchSemaphore
            init(_ freed: DispatchSemaphore) { self.freed = freed }
            deinit { freed.signal() }
        }
        let freed = DispatchSemaphore(value: 0)
        var handlers = RemoteHandlers()
        handlers.request("math.add.later") { (pair: Pair) in
            let tracker = Tracker(freed)
            return Single.create { done in
                DispatchQueue.global().async { done(.success(pair.a + pair.b)) }
                return Disposables.create()
            }
            .map { sum in withExtendedLifetime(tracker) { sum } }
        }
        let fixture = try Fixture(handlers: handlers)
        let requests = 5
        for index in 0..<requests {
            let sum = try await fixture.client.request("math.add.later", Pair(a: index, b: 1), as: Int.self)
                .value
            #expect(sum == index + 1)
        }
        // Answered, so freed: not kept until the deadline (30 s) nor for the server's life.
        for _ in 0..<requests { #expect(await arrived(freed)) }
        #expect(await fixture.server.counters.openStreams == 0)
        await fixture.stop()
    }

    @Test func theServerEnforcesTheDeadline() async throws {
        let disposed = DispatchSemaphore(value: 0)
        var handlers = RemoteHandlers()
        handlers.request("slow") { (_: NoParameters) in
            Single<Int>.never().do(onDispose: { disposed.signal() })
        }
        let fixture = try Fixture(handlers: handlers)
        // A raw client, so that only the server's deadline can end the call.
        let request = FrameCodec().encode(
            try Frame.request(stream: 7, method: "slow", deadlineMilliseconds: 200))
        let answer = try await rawExchange(fixture, [request]).first
        let frame = try answer.map { try FrameCodec().decode($0) }
        #expect(frame?.stream == 7)
        #expect(frame?.remoteError?.code == .timeout)
        #expect(await arrived(disposed))
        let counters = await fixture.server.counters
        #expect(counters.errorsByCode["timeout"] == 1)
        #expect(counters.openStreams == 0)
        await fixture.stop()
    }

    @Test func aCallPastItsDeadlineFailsWithTimeout() async throws {
        var handlers = RemoteHandlers()
        handlers.request("slow") { (_: NoParameters) in Single<Int>.never() }
        let fixture = try Fixture(handlers: handlers)
        do {
            _ = try await fixture.client.request(
                "slow", NoParameters(), as: Int.self, deadline: .milliseconds(200)
            )
            .value
            Issue.record("a call past its deadline succeeded")
        } catch let error as RemoteError {
            #expect(error.code == .timeout, "\(error)")
        }
        await fixture.stop()
    }

    @Test func aServerThatIsDownIsUnavailable() async throws {
        let context = try Context()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("remote-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let client = try RemoteClient(
            context: context,
            configuration: .init(endpoints: ["ipc://\(directory.path)/nobody.sock"]))
        do {
            _ = try await client.request(
                "math.add", Pair(a: 1, b: 1), as: Int.self, deadline: .milliseconds(150)
            ).value
            Issue.record("a call to a server that is down succeeded")
        } catch let error as RemoteError {
            #expect(error.code == .unavailable)
        }
        await client.stop()
        context.terminate()
    }

    @Test func unknownMethodsAndWrongModelsAreRefused() async throws {
        var handlers = RemoteHandlers()
        handlers.stream("count.up") { (count: Count) in Observable.from(Array(0..<count.n)) }
        let fixture = try Fixture(handlers: handlers)
        for (method, expected) in [("no.such", ErrorCode.unknownMethod), ("count.up", .badRequest)] {
            do {
                _ = try await fixture.client.request(method, Count(n: 1), as: Int.self).value
                Issue.record("\(method) succeeded")
            } catch let error as RemoteError {
                #expect(error.code == expected)
            }
        }
        await fixture.stop()
    }

    @Test func badParametersAreABadRequest() async throws {
        var handlers = RemoteHandlers()
        handlers.request("math.add") { (pair: Pair) in Single.just(pair.a + pair.b) }
        let fixture = try Fixture(handlers: handlers)
        do {
            _ = try await fixture.client.request("math.add", Count(n: 1), as: Int.self).value
            Issue.record("bad parameters were accepted")
        } catch let error as RemoteError {
            #expect(error.code == .badRequest)
        }
        await fixture.stop()
    }

    @Test func pastTheLimitStreamsAreOverloadedAtOnce() async throws {
        var handlers = RemoteHandlers()
        handlers.stream("ticks") { (_: NoParameters) in Observable<Int>.never() }
        let fixture = try Fixture(handlers: handlers, maxStreamsPerClient: 2)
        let open = (0..<2).map { _ in fixture.client.stream("ticks", NoParameters(), as: Int.self).subscribe()
        }
        let (_, error) = await collect(fixture.client.stream("ticks", NoParameters(), as: Int.self))
        #expect((error as? RemoteError)?.code == .overloaded)
        open.forEach { $0.dispose() }
        await fixture.stop()
    }

    @Test func malformedFramesFromARawSocketGetAnError() async throws {
        var handlers = RemoteHandlers()
        handlers.request("math.add") { (pair: Pair) in Single.just(pair.a + pair.b) }
        let fixture = try Fixture(handlers: handlers)
        let garbage: [[[UInt8]]] = [[[0xFF, 0x01]], [[2, 1] + [UInt8](repeating: 0, count: 13)], [[1]]]
        let answers = try await rawExchange(fixture, garbage)
        let codec = FrameCodec()
        let errors = answers.compactMap { try? codec.decode($0).remoteError }
        #expect(errors.count == 3)
        #expect(errors.allSatisfy { $0.code == .badRequest })
        // The server still serves.
        #expect(try await fixture.client.request("math.add", Pair(a: 1, b: 2), as: Int.self).value == 3)
        await fixture.stop()
    }

    @Test func manyConcurrentClients() async throws {
        var handlers = RemoteHandlers()
        handlers.request("math.add") { (pair: Pair) in Single.just(pair.a + pair.b) }
        let fixture = try Fixture(handlers: handlers)
        let clients = try (0..<8).map { _ in
            try RemoteClient(
                context: fixture.context, configuration: .init(endpoints: fixture.server.endpoints))
        }
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for (index, client) in clients.enumerated() {
                group.addTask {
                    var sum = 0
                    for value in 0..<50 {
                        sum += try await client.request("math.add", Pair(a: index, b: value), as: Int.self)
                            .value
                    }
                    return sum
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(total == (0..<8).reduce(0) { $0 + 50 * $1 } + 8 * (0..<50).reduce(0, +))
        for client in clients { await client.stop() }
        await fixture.stop()
    }
}

@Suite(.timeLimit(.minutes(1)))
struct RemoteStreamsLivenessAndSecurityTests {
    @Test func aLostClientsStreamsAreDisposed() async throws {
        let subscribed = DispatchSemaphore(value: 0)
        let disposed = DispatchSemaphore(value: 0)
        var handlers = RemoteHandlers()
        handlers.stream("ticks") { (_: NoParameters) in
            Observable<Int>.never().do(
                onSubscribed: { subscribed.signal() }, onDispose: { disposed.signal() })
        }
        let context = try Context()
        let server = try RemoteServer(
            context: context,
            configuration: .init(endpoints: ["tcp://127.0.0.1:*"], clientTimeout: .milliseconds(300)),
            handlers: handlers)
        let endpoint = server.endpoints[0]
        // A client that opens a stream and vanishes without CANCEL or PING.
        let opening = FrameCodec().encode(try Frame.subscribe(stream: 1, method: "ticks"))
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Thread {
                do {
                    let raw = try Socket(context, .dealer, linger: 0)
                    try raw.connect(endpoint)
                    _ = try raw.send(parts: opening)
                    _ = subscribed.wait(timeout: .now() + 10)
                    raw.close()
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }.start()
        }
        #expect(await arrived(disposed))
        #expect(await server.counters.openStreams == 0)
        await server.stop()
        context.terminate()
    }

    @Test func curveLetsInAllowedClientsOnly() async throws {
        var handlers = RemoteHandlers()
        handlers.request("math.add") { (pair: Pair) in Single.just(pair.a + pair.b) }
        let context = try Context()
        let serverKeys = try CurveKeyPair.generate()
        let allowed = try CurveKeyPair.generate()
        let stranger = try CurveKeyPair.generate()
        let server = try RemoteServer(
            context: context,
            configuration: .init(
                endpoints: ["tcp://127.0.0.1:*"],
                curve: .init(keys: serverKeys, allowList: CurveAllowList([allowed.publicKey]))),
            handlers: handlers)
        func client(_ keys: CurveKeyPair) throws -> RemoteClient {
            try RemoteClient(
                context: context,
                configuration: .init(
                    endpoints: server.endpoints, curve: .init(serverKey: serverKeys.publicKey, keys: keys)))
        }
        let friend = try client(allowed)
        #expect(try await friend.request("math.add", Pair(a: 20, b: 22), as: Int.self).value == 42)
        let intruder = try client(stranger)
        do {
            _ = try await intruder.request(
                "math.add", Pair(a: 1, b: 1), as: Int.self, deadline: .milliseconds(300)
            )
            .value
            Issue.record("a client whose key is not allowed got an answer")
        } catch let error as RemoteError {
            #expect(error.code == .unavailable)
        }
        await friend.stop()
        await intruder.stop()
        await server.stop()
        context.terminate()
    }
}

@Suite(.timeLimit(.minutes(1)))
struct RemoteStreamsRestartTests {
    @Test func aServerStoppedMidStreamIsUnavailableAndTheClientReconnectsToItsSuccessor() async throws {
        let subscribed = DispatchSemaphore(value: 0)
        var handlers = RemoteHandlers()
        handlers.request("math.add") { (pair: Pair) in Single.just(pair.a + pair.b) }
        handlers.stream("ticks") { (_: NoParameters) in
            Observable<Int>.never().do(onSubscribed: { subscribed.signal() })
        }
        let context = try Context()
        let first = try RemoteServer(
            context: context, configuration: .init(endpoints: ["tcp://127.0.0.1:*"]), handlers: handlers)
        let endpoint = first.endpoints[0]
        let client = try RemoteClient(context: context, configuration: .init(endpoints: [endpoint]))
        #expect(try await client.request("math.add", Pair(a: 1, b: 2), as: Int.self).value == 3)

        // Mid-stream, the server goes away: the lost connection fails the stream as unavailable,
        // long before its deadline.
        let stream = client.stream("ticks", NoParameters(), as: Int.self, deadline: .seconds(30))
        let ended = Task { await collect(stream) }
        #expect(await arrived(subscribed))
        let stopped = ContinuousClock.now
        await first.stop()
        let (_, error) = await ended.value
        #expect((error as? RemoteError)?.code == .unavailable)
        #expect(ContinuousClock.now - stopped < .seconds(2))

        // A new server on the same endpoint: the client reconnects by itself.
        let second = try RemoteServer(
            context: context, configuration: .init(endpoints: [endpoint]), handlers: handlers)
        #expect(try await client.request("math.add", Pair(a: 2, b: 3), as: Int.self).value == 5)
        await client.stop()
        await second.stop()
        context.terminate()
    }
}

@Suite(.timeLimit(.minutes(1)))
struct RemoteStreamsReplicaTests {
    @Test func callsAreSpreadAcrossReplicas() async throws {
        var handlers = RemoteHandlers()
        handlers.request("math.add") { (pair: Pair) in Single.just(pair.a + pair.b) }
        let context = try Context()
        let replicas = try (0..<2).map { _ in
            try RemoteServer(
                context: context, configuration: .init(endpoints: ["tcp://127.0.0.1:*"]), handlers: handlers)
        }
        let client = try RemoteClient(
            context: context, configuration: .init(endpoints: replicas.map { $0.endpoints[0] }))
        for value in 0..<20 {
            #expect(
                try await client.request("math.add", Pair(a: value, b: 1), as: Int.self).value == value + 1)
        }
        for replica in replicas {
            #expect(await replica.counters.framesIn >= 10)  // ten requests each (plus any pings)
        }
        await client.stop()
        for replica in replicas { await replica.stop() }
        context.terminate()
    }
}

@Suite(.timeLimit(.minutes(1)))
struct RemoteStreamsOversizeTests {
    @Test func anOversizeBodyIsTooLargeAndAHugeMessageOnlyCostsItsSender() async throws {
        var handlers = RemoteHandlers()
        handlers.request("math.add") { (pair: Pair) in Single.just(pair.a + pair.b) }
        let context = try Context()
        let server = try RemoteServer(
            context: context,
            configuration: .init(
                endpoints: ["tcp://127.0.0.1:*"], limits: ProtocolLimits(maxBodyLength: 1_000)),
            handlers: handlers)
        let fixture = try Fixture(server: server, context: context)
        let header = FrameCodec().encodeHeader(try Frame.request(stream: 3, method: "math.add"))
        let answers = try await rawExchange(fixture, [[header, [UInt8](repeating: 0x20, count: 1_100)]])
        let error = try answers.first.map { try FrameCodec().decode($0) }?.remoteError
        #expect(error?.code == .tooLarge)

        // 10 MB: ZeroMQ drops the sender's connection; the server goes on serving others.
        let huge = [header, [UInt8](repeating: 0x20, count: 10 << 20)]
        let endpoint = server.endpoints[0]
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Thread {
                do {
                    let raw = try Socket(context, .dealer, linger: 0)
                    try raw.connect(endpoint)
                    _ = try raw.send(parts: huge)
                    raw.close()
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }.start()
        }
        #expect(try await fixture.client.request("math.add", Pair(a: 4, b: 5), as: Int.self).value == 9)
        await fixture.stop()
    }
}

@Suite(.timeLimit(.minutes(1)))
struct RemoteStreamsDrainTests {
    @Test func drainingRefusesNewCallsEndsStreamsAndWaitsForRequestsInFlight() async throws {
        let release = PublishSubject<Int>()
        let started = DispatchSemaphore(value: 0)
        var handlers = RemoteHandlers()
        handlers.request("slow.answer") { (_: NoParameters) in
            release.take(1).asSingle().do(onSubscribed: { started.signal() })
        }
        handlers.stream("endless.ticks") { (_: NoParameters) in
            Observable<Int>.never().do(onSubscribed: { started.signal() })
        }
        let fixture = try Fixture(handlers: handlers)
        let inFlight = Task {
            try await fixture.client.request("slow.answer", NoParameters(), as: Int.self).value
        }
        #expect(await arrived(started))
        let ticks = Task {
            await collect(fixture.client.stream("endless.ticks", NoParameters(), as: Int.self))
        }
        #expect(await arrived(started))

        let drained = Task { await fixture.server.drain() }
        // The subscription is ended at once, with `unavailable`.
        let (elements, streamError) = await ticks.value
        #expect(elements.isEmpty)
        #expect((streamError as? RemoteError)?.code == .unavailable)
        // A new call is refused while the request in flight is still waited for.
        let refused = await #expect(throws: RemoteError.self) {
            _ = try await fixture.client.request("slow.answer", NoParameters(), as: Int.self).value
        }
        #expect(refused?.code == .unavailable)
        release.onNext(42)
        #expect(try await inFlight.value == 42)
        await drained.value
        #expect(await fixture.server.counters.openStreams == 0)
        await fixture.stop()
    }
}

/// A client's connection changes from now on, as an async sequence.
func connectionChanges(of client: RemoteClient) -> AsyncStream<RemoteClient.ConnectionChange> {
    let (stream, continuation) = AsyncStream<RemoteClient.ConnectionChange>.makeStream()
    let subscription = client.connectionChanges.subscribe(onNext: { continuation.yield($0) })
    continuation.onTermination = { _ in subscription.dispose() }
    return stream
}

/// Returns once `replica` of `client` is connected (the suite's time limit bounds the wait).
func waitUntilConnected(_ client: RemoteClient, replica: Int = 0) async {
    let changes = connectionChanges(of: client)
    if client.isConnected(replica: replica) { return }
    for await change in changes where change.replica == replica && change.isUp { return }
}

/// Whether `client`'s first replica is connected now or becomes so within `limit`.
func connected(_ client: RemoteClient, within limit: Duration) async -> Bool {
    let changes = connectionChanges(of: client)
    if client.isConnected() { return true }
    return await withTaskGroup(of: Bool.self) { group in
        group.addTask {
            for await change in changes where change.isUp { return true }
            return false
        }
        group.addTask { (try? await Task.sleep(for: limit)) == nil }
        let first = await group.next() ?? false
        group.cancelAll()
        return first
    }
}

/// How a client reacts to its connections: a lost one ends its calls at once, a call made while
/// there is none goes out when the server returns, a connect timeout reports a server that is down.
@Suite(.timeLimit(.minutes(1)))
struct RemoteStreamsConnectionTests {
    @Test func aLostConnectionEndsEveryOpenCallAtOnceWithUnavailable() async throws {
        let opened = DispatchSemaphore(value: 0)
        var handlers = RemoteHandlers()
        handlers.request("slow") { (_: NoParameters) in
            Single<Int>.never().do(onSubscribed: { opened.signal() })
        }
        handlers.stream("ticks") { (_: NoParameters) in
            Observable<Int>.never().do(onSubscribed: { opened.signal() })
        }
        handlers.channel("echo") { (_: NoParameters, input: Observable<Int>) in
            input.do(onSubscribed: { opened.signal() })
        }
        let context = try Context()
        let server = try RemoteServer(
            context: context, configuration: .init(endpoints: ["tcp://127.0.0.1:*"]), handlers: handlers)
        let endpoint = server.endpoints[0]
        let client = try RemoteClient(
            context: context, configuration: .init(endpoints: [endpoint], deadline: .seconds(30)))
        let request = Task {
            await collect(client.request("slow", NoParameters(), as: Int.self).asObservable())
        }
        let stream = Task { await collect(client.stream("ticks", NoParameters(), as: Int.self)) }
        let input = PublishSubject<Int>()
        let channel = Task {
            await collect(client.channel("echo", NoParameters(), input: input.asObservable(), as: Int.self))
        }
        for _ in 0..<3 { #expect(await arrived(opened)) }
        // The server has the three calls; the client's monitor may report the handshake a moment
        // later (another thread of libzmq's).
        #expect(await connected(client, within: .seconds(10)))
        #expect(client.counters.openStreams == 3)
        var changes = connectionChanges(of: client).makeAsyncIterator()

        let stopped = ContinuousClock.now
        await server.stop()
        for task in [request, stream, channel] {
            let (elements, error) = await task.value
            #expect(elements.isEmpty)
            let remote = error as? RemoteError
            #expect(remote?.code == .unavailable, "\(String(describing: error))")
            #expect(remote?.message == "the connection to \(endpoint) was lost")
        }
        // Well before the 30 s deadline (and before any heartbeat timeout).
        #expect(ContinuousClock.now - stopped < .seconds(2))
        #expect(client.counters.openStreams == 0)
        #expect(!client.isConnected())
        #expect(client.isCutOff)
        var lost = await changes.next()
        // A subscriber made right after the handshake can still get its "up": the client marks the
        // replica connected first and tells its observers next.
        if lost?.isUp == true { lost = await changes.next() }
        #expect(lost == RemoteClient.ConnectionChange(replica: 0, endpoint: endpoint, isUp: false))
        await client.stop()
        context.terminate()
    }

    /// The loop runs from the client's creation: a handshake it reads before the client is bound
    /// to it must still count.
    @Test func everyClientSeesItsFirstConnectionComeUp() async throws {
        var handlers = RemoteHandlers()
        handlers.request("math.add") { (pair: Pair) in Single.just(pair.a + pair.b) }
        var missed = 0
        // A fresh context and server each time, as in a test that starts both: the handshake is then
        // quick enough to beat the client's binding now and then.
        for _ in 0..<100 {
            let context = try Context()
            let server = try RemoteServer(
                context: context, configuration: .init(endpoints: ["tcp://127.0.0.1:*"]), handlers: handlers)
            let client = try RemoteClient(context: context, configuration: .init(endpoints: server.endpoints))
            #expect(try await client.request("math.add", Pair(a: 1, b: 2), as: Int.self).value == 3)
            if !(await connected(client, within: .seconds(2))) { missed += 1 }
            await client.stop()
            await server.stop()
            context.terminate()
        }
        #expect(missed == 0, "\(missed) of 100 clients never saw their connection come up")
    }

    @Test func aCallMadeWhileTheServerIsDownGoesOutWhenItReturns() async throws {
        var handlers = RemoteHandlers()
        handlers.request("math.add") { (pair: Pair) in Single.just(pair.a + pair.b) }
        handlers.channel("double") { (_: NoParameters, input: Observable<Int>) in input.map { $0 * 2 } }
        let context = try Context()
        let first = try RemoteServer(
            context: context, configuration: .init(endpoints: ["tcp://127.0.0.1:*"]), handlers: handlers)
        let endpoint = first.endpoints[0]
        let client = try RemoteClient(
            context: context, configuration: .init(endpoints: [endpoint], deadline: .seconds(30)))
        #expect(try await client.request("math.add", Pair(a: 1, b: 2), as: Int.self).value == 3)
        var changes = connectionChanges(of: client).makeAsyncIterator()
        await first.stop()
        #expect(await changes.next()?.isUp == false)
        #expect(!client.isConnected())

        // Made while nothing listens: the request and the channel (with its input) wait in ZeroMQ's
        // queue, and the server that comes back answers them.
        let request = Task { try await client.request("math.add", Pair(a: 2, b: 3), as: Int.self).value }
        let input = ReplaySubject<Int>.createUnbounded()
        input.onNext(21)
        let doubled = Task {
            try await client.channel("double", NoParameters(), input: input.asObservable(), as: Int.self)
                .take(1).asSingle().value
        }
        let second = try RemoteServer(
            context: context, configuration: .init(endpoints: [endpoint]), handlers: handlers)
        #expect(try await request.value == 5)
        #expect(try await doubled.value == 42)
        #expect(await changes.next()?.isUp == true)
        #expect(client.isConnected())
        #expect(!client.isCutOff)
        await client.stop()
        await second.stop()
        context.terminate()
    }

    @Test func aConnectTimeoutReportsAServerThatIsDownSoonerThanTheDeadline() async throws {
        let context = try Context()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("remote-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let endpoint = "ipc://\(directory.path)/nobody.sock"
        let client = try RemoteClient(
            context: context,
            configuration: .init(
                endpoints: [endpoint], deadline: .seconds(30), connectTimeout: .milliseconds(300)))
        #expect(!client.isCutOff)  // never connected: still connecting, not cut off
        let started = ContinuousClock.now
        let (_, error) = await collect(client.stream("ticks", NoParameters(), as: Int.self))
        let remote = error as? RemoteError
        #expect(remote?.code == .unavailable, "\(String(describing: error))")
        #expect(remote?.message == "no connection to \(endpoint) within 300 ms")
        #expect(ContinuousClock.now - started < .seconds(3))
        #expect(client.counters.openStreams == 0)
        await client.stop()
        context.terminate()
    }

    @Test func aConnectTimeoutDoesNotEndCallsOnAConnectionThatIsUp() async throws {
        var handlers = RemoteHandlers()
        handlers.request("math.add") { (pair: Pair) in Single.just(pair.a + pair.b) }
        handlers.request("slow") { (_: NoParameters) in Single<Int>.never() }
        let context = try Context()
        let server = try RemoteServer(
            context: context, configuration: .init(endpoints: ["tcp://127.0.0.1:*"]), handlers: handlers)
        let client = try RemoteClient(
            context: context,
            configuration: .init(endpoints: server.endpoints, connectTimeout: .milliseconds(100)))
        // The first call may wait for the handshake; it is well within the connect timeout here.
        #expect(try await client.request("math.add", Pair(a: 1, b: 2), as: Int.self).value == 3)
        let slow = await errorCode(
            of: client.request("slow", NoParameters(), as: Int.self, deadline: .milliseconds(400)))
        #expect(slow == .timeout)
        await client.stop()
        await server.stop()
        context.terminate()
    }

    @Test func callsGoToConnectedReplicasWhileOneIsDown() async throws {
        var handlers = RemoteHandlers()
        handlers.request("math.add") { (pair: Pair) in Single.just(pair.a + pair.b) }
        let context = try Context()
        let server = try RemoteServer(
            context: context, configuration: .init(endpoints: ["tcp://127.0.0.1:*"]), handlers: handlers)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("remote-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let client = try RemoteClient(
            context: context,
            configuration: .init(
                endpoints: ["ipc://\(directory.path)/down.sock", server.endpoints[0]], deadline: .seconds(30))
        )
        await waitUntilConnected(client, replica: 1)
        #expect(!client.isConnected(replica: 0))
        for value in 0..<10 {
            #expect(
                try await client.request("math.add", Pair(a: value, b: 1), as: Int.self).value == value + 1)
        }
        await client.stop()
        await server.stop()
        context.terminate()
    }
}
