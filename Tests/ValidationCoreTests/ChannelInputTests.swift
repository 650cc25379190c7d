import Contracts
import Dispatch
import Foundation
import Reactive
import RemoteProtocol
import RemoteStreams
import TestSupport
import Testing
import ValidationCore
import ZeroMQ

/// `validate.fields` over the wire from a raw client, against a fake auth-service whose lookup of
/// `slow_name` never answers: the channel's input rules of docs/PROTOCOL.md ("Channel").
@Suite("validate.fields: input after the client's own end", .timeLimit(.minutes(1)))
struct ChannelInputTests {
    struct Servers {
        let context: Context
        let auth: RemoteServer
        let client: RemoteClient
        let validation: RemoteServer
        let slowSubscribed = DispatchSemaphore(value: 0)
        let slowDisposed = DispatchSemaphore(value: 0)

        init() throws {
            context = try Context()
            var authHandlers = RemoteHandlers()
            let (subscribed, disposed) = (slowSubscribed, slowDisposed)
            authHandlers.handle(Methods.Auth.exists) { (request: ExistsRequest) -> Single<ExistsResponse> in
                guard request.username == "slow_name" else { return .just(ExistsResponse(exists: false)) }
                return Single<ExistsResponse>.never().do(
                    onSubscribed: { subscribed.signal() }, onDispose: { disposed.signal() })
            }
            auth = try RemoteServer(
                context: context, configuration: .init(endpoints: ["tcp://127.0.0.1:*"]),
                handlers: authHandlers)
            client = try RemoteClient(context: context, configuration: .init(endpoints: auth.endpoints))
            let service = ValidationService(
                rules: ValidationRules(),
                directory: RemoteUsernameDirectory(client: client, deadline: .seconds(20)),
                lookupTimeout: .seconds(30), loop: TestLoop.shared)
            var handlers = RemoteHandlers()
            service.register(into: &handlers)
            validation = try RemoteServer(
                context: context, configuration: .init(endpoints: ["tcp://127.0.0.1:*"]), handlers: handlers)
        }

        /// Runs `steps` from one raw DEALER: for each, waits for its signal (if any), sends its frames,
        /// then reads its number of answers (3 s at most for each).
        func exchange(_ steps: [(signal: DispatchSemaphore?, frames: [Frame], expecting: Int)]) async throws
            -> [Frame]
        {
            let endpoint = validation.endpoints[0]
            let context = self.context
            return try await withCheckedThrowingContinuation { continuation in
                Thread {
                    do {
                        let codec = FrameCodec()
                        let raw = try Socket(context, .dealer, linger: 0)
                        try raw.set(.receiveTimeout, 3_000)
                        try raw.connect(endpoint)
                        var answers: [Frame] = []
                        for step in steps {
                            _ = step.signal?.wait(timeout: .now() + 10)
                            for frame in step.frames { _ = try raw.send(parts: codec.encode(frame)) }
                            var read = 0
                            while read < step.expecting, case .done(let parts) = try raw.receiveParts() {
                                answers.append(try codec.decode(parts))
                                read += 1
                            }
                        }
                        raw.close()
                        continuation.resume(returning: answers)
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }.start()
            }
        }

        func stop() async {
            await validation.stop()
            await client.stop()
            await auth.stop()
            context.terminate()
        }
    }

    static func edit(_ text: String) -> [UInt8] { Array(#"{"field":"username","text":"\#(text)"}"#.utf8) }

    @Test("an edit after COMPLETE, with a lookup in flight: ERROR bad_request, and the lookup is cancelled")
    func editAfterComplete() async throws {
        let servers = try Servers()
        // The late edit goes out once the lookup runs at auth, and its `validating` has come.
        let answers = try await servers.exchange([
            (
                nil,
                [
                    try .open(stream: 1, method: Methods.Validation.fields.name, body: Array("{}".utf8)),
                    try .next(stream: 1, body: Self.edit("slow_name")), try .complete(stream: 1),
                ], 1
            ),
            (servers.slowSubscribed, [try .next(stream: 1, body: Self.edit("other_name"))], 1),
        ])
        #expect(answers.map(\.type) == [.next, .error])
        #expect(answers.allSatisfy { $0.stream == 1 })
        #expect(answers.last?.remoteError?.code == .badRequest)
        #expect(await arrivedWithin(servers.slowDisposed), "the lookup in flight was not cancelled")
        #expect(await servers.validation.counters.openStreams == 0)
        await servers.stop()
    }

    @Test("the client's ERROR comes back as the channel's ERROR, with its code and message")
    func clientError() async throws {
        let servers = try Servers()
        let answers = try await servers.exchange([
            (
                nil,
                [
                    try .open(stream: 2, method: Methods.Validation.fields.name, body: Array("{}".utf8)),
                    try .next(stream: 2, body: Self.edit("slow_name")),
                ], 1
            ),
            (
                servers.slowSubscribed,
                [.error(stream: 2, RemoteError(code: .timeout, message: "the screen closed"))], 1
            ),
        ])
        #expect(answers.map(\.type) == [.next, .error])
        #expect(answers.last?.remoteError == RemoteError(code: .timeout, message: "the screen closed"))
        #expect(await arrivedWithin(servers.slowDisposed), "the lookup in flight was not cancelled")
        await servers.stop()
    }
}

/// Waits up to 10 s for `semaphore`, off the cooperative pool.
private func arrivedWithin(_ semaphore: DispatchSemaphore) async -> Bool {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(returning: semaphore.wait(timeout: .now() + 10) == .success)
        }
    }
}
