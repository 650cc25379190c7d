import Dispatch
import Foundation
import Reactive
import RemoteProtocol
@testable import RemoteStreams
import Testing
import ZeroMQ

/// Sends `messages` from one raw DEALER (on a thread of its own), then reads answers until
/// `expecting` have come or 3 s pass with none.
func rawConversation(
    _ endpoint: String, context: Context, _ messages: [Frame], expecting: Int
) async throws -> [Frame] {
    let codec = FrameCodec()
    let parts = messages.map { codec.encode($0) }
    return try await rawMessages(endpoint, context: context, parts, expecting: expecting).map {
        try codec.decode($0)
    }
}

/// ``rawConversation(_:context:_:expecting:)`` with raw parts, for malformed messages.
func rawMessages(
    _ endpoint: String, context: Context, _ messages: [[[UInt8]]], expecting: Int
) async throws -> [[[UInt8]]] {
    try await withRawDealer(endpoint, context: context, receiveTimeout: 3_000) { raw in
        for message in messages { _ = try raw.send(parts: message) }
        var answers: [[[UInt8]]] = []
        while answers.count < expecting, case .done(let parts) = try raw.receiveParts() {
            answers.append(parts)
        }
        return answers
    }
}

/// The interaction rules of docs/PROTOCOL.md that only a raw client can break: input after the
/// channel's own end, a duplicate opening frame, a client's `ERROR` on a channel, a malformed
/// `ERROR`, and the liveness sweep's bound.
@Suite(.timeLimit(.minutes(1)))
struct InteractionRuleTests {
    /// A channel that echoes its input upper-cased and, like a lookup still in flight, does not
    /// end when its input does.
    static func handlers(disposed: DispatchSemaphore? = nil) -> RemoteHandlers {
        var handlers = RemoteHandlers()
        handlers.channel("text.slow") { (_: NoParameters, input: Observable<String>) in
            Observable.merge(input.map { $0.uppercased() }, Observable<String>.never())
                .do(onDispose: { disposed?.signal() })
        }
        handlers.channel("text.upper") { (_: NoParameters, input: Observable<String>) in
            input.map { $0.uppercased() }
        }
        // Does not pass its input's error on, so the stream stays open after the client's ERROR.
        handlers.channel("text.ignore") { (_: NoParameters, input: Observable<String>) in
            input.catch { _ in .never() }
        }
        return handlers
    }

    static func body(_ json: String) -> [UInt8] { Array(json.utf8) }

    @Test func inputAfterTheClientsOwnCompleteIsABadRequestEvenWithWorkInFlight() async throws {
        let disposed = DispatchSemaphore(value: 0)
        let fixture = try Fixture(handlers: Self.handlers(disposed: disposed))
        let answers = try await rawConversation(
            fixture.server.endpoints[0], context: fixture.context,
            [
                try .open(stream: 1, method: "text.slow", body: Self.body("{}")),
                try .next(stream: 1, body: Self.body(#""a""#)),
                try .complete(stream: 1),
                try .next(stream: 1, body: Self.body(#""late""#)),
            ], expecting: 2)
        #expect(answers.map(\.type) == [.next, .error])
        #expect(answers.map(\.stream) == [1, 1])
        #expect(answers.last?.remoteError?.code == .badRequest)
        #expect(await arrived(disposed))
        #expect(await fixture.server.counters.openStreams == 0)
        await fixture.stop()
    }

    @Test func inputAfterTheClientsOwnErrorIsABadRequest() async throws {
        let fixture = try Fixture(handlers: Self.handlers())
        let answers = try await rawConversation(
            fixture.server.endpoints[0], context: fixture.context,
            [
                try .open(stream: 4, method: "text.ignore", body: Self.body("{}")),
                .error(stream: 4, RemoteError(code: .internal, message: "the client gave up")),
                try .complete(stream: 4),
            ], expecting: 1)
        #expect(answers.map(\.type) == [.error])
        #expect(answers.first?.stream == 4)
        #expect(answers.first?.remoteError?.code == .badRequest)
        await fixture.stop()
    }

    @Test func aClientsErrorOnAChannelComesBackAsTheStreamsError() async throws {
        let fixture = try Fixture(handlers: Self.handlers())
        let answers = try await rawConversation(
            fixture.server.endpoints[0], context: fixture.context,
            [
                try .open(stream: 2, method: "text.upper", body: Self.body("{}")),
                try .next(stream: 2, body: Self.body(#""x""#)),
                .error(stream: 2, RemoteError(code: .timeout, message: "the user left")),
            ], expecting: 2)
        #expect(answers.map(\.type) == [.next, .error])
        #expect(answers.last?.remoteError == RemoteError(code: .timeout, message: "the user left"))
        await fixture.stop()
    }

    @Test func aDuplicateOpeningFrameIsRefusedAndTheOriginalStreamLivesOn() async throws {
        let fixture = try Fixture(handlers: Self.handlers())
        let answers = try await rawConversation(
            fixture.server.endpoints[0], context: fixture.context,
            [
                try .open(stream: 7, method: "text.upper", body: Self.body("{}")),
                try .open(stream: 7, method: "text.upper", body: Self.body("{}")),
                try .next(stream: 7, body: Self.body(#""still here""#)),
                try .complete(stream: 7),
            ], expecting: 3)
        #expect(answers.map(\.type) == [.error, .next, .complete])
        #expect(answers.allSatisfy { $0.stream == 7 })
        #expect(answers.first?.remoteError?.code == .badRequest)
        #expect(answers.dropFirst().first?.body == Self.body(#""STILL HERE""#))
        await fixture.stop()
    }

    @Test func aMalformedErrorIsDroppedNotAnswered() async throws {
        let fixture = try Fixture(handlers: Self.handlers())
        // An ERROR header without its body, then a PING: the first answer is the PONG (frames of one
        // connection are answered in order, so an answer to the ERROR would have come first).
        let errorWithoutBody: [UInt8] = [1, 6, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0]
        let answers = try await rawMessages(
            fixture.server.endpoints[0], context: fixture.context,
            [[errorWithoutBody], FrameCodec().encode(.ping)], expecting: 1)
        #expect(answers.map { try? FrameCodec().decode($0).type } == [.pong])
        // Any other malformed message without a body is answered: a NEXT without one.
        let nextWithoutBody: [UInt8] = [1, 4, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0]
        let refused = try await rawMessages(
            fixture.server.endpoints[0], context: fixture.context, [[nextWithoutBody]], expecting: 1)
        let error = try refused.first.map { try FrameCodec().decode($0) }
        #expect(error?.type == .error)
        #expect(error?.stream == 1)
        #expect(error?.remoteError?.code == .badRequest)
        await fixture.stop()
    }

    @Test func aSilentClientIsDroppedWithinItsTimeoutPlusOneSecond() async throws {
        let subscribed = DispatchSemaphore(value: 0)
        let disposed = DispatchSemaphore(value: 0)
        var handlers = RemoteHandlers()
        handlers.stream("ticks") { (_: NoParameters) in
            Observable<Int>.never().do(onSubscribed: { subscribed.signal() }, onDispose: { disposed.signal() })
        }
        let context = try Context()
        // 4 s: long enough that a sweep every half timeout (2 s) would miss the bound below.
        let timeout = Duration.seconds(4)
        let server = try RemoteServer(
            context: context, configuration: .init(endpoints: ["tcp://127.0.0.1:*"], clientTimeout: timeout),
            handlers: handlers)
        let endpoint = server.endpoints[0]
        let opening = FrameCodec().encode(try Frame.subscribe(stream: 1, method: "ticks"))
        // A client that opens a stream and then says nothing, with its connection up (libzmq
        // answers the server's heartbeats by itself).
        let silence: Duration = try await withCheckedThrowingContinuation { continuation in
            Thread {
                do {
                    let raw = try Socket(context, .dealer, linger: 0)
                    try raw.connect(endpoint)
                    _ = try raw.send(parts: opening)
                    _ = subscribed.wait(timeout: .now() + 10)
                    let start = ContinuousClock.now
                    _ = disposed.wait(timeout: .now() + 10)
                    let silence = ContinuousClock.now - start
                    raw.close()
                    continuation.resume(returning: silence)
                } catch {
                    continuation.resume(throwing: error)
                }
            }.start()
        }
        #expect(silence >= timeout - .milliseconds(50))
        // The bound is the timeout plus one sweep interval; the rest is slack for a busy machine.
        #expect(silence < timeout + .seconds(1) + .milliseconds(500))
        await server.stop()
        context.terminate()
    }
}
