import Contracts
import Dispatch
import Reactive
import RemoteProtocol
import RemoteStreams
import Synchronization
import TestSupport
import Testing
import ValidationCore
import ZeroMQ

/// Waits up to 10 s for `semaphore`, off the cooperative pool.
private func arrived(_ semaphore: DispatchSemaphore) async -> Bool {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(returning: semaphore.wait(timeout: .now() + 10) == .success)
        }
    }
}

/// ``RemoteUsernameDirectory`` against an in-process server that answers `auth.exists` like
/// auth-service, except that one name never answers: the cancel of its lookup must reach the server.
@Suite("remote username directory", .timeLimit(.minutes(1)))
struct RemoteDirectoryTests {
    @Test("a newer username's edit sends CANCEL for the older lookup; the server disposes it")
    func cancelReachesTheServer() async throws {
        let slowSubscribed = DispatchSemaphore(value: 0)
        let slowDisposed = DispatchSemaphore(value: 0)
        var handlers = RemoteHandlers()
        handlers.handle(Methods.Auth.exists) { (request: ExistsRequest) -> Single<ExistsResponse> in
            guard request.username == "slow_name" else {
                return .just(ExistsResponse(exists: request.username == "taken_name"))
            }
            return Single<ExistsResponse>.never().do(
                onSubscribed: { slowSubscribed.signal() }, onDispose: { slowDisposed.signal() })
        }
        let context = try Context()
        let server = try RemoteServer(
            context: context, configuration: .init(endpoints: ["tcp://127.0.0.1:*"]), handlers: handlers)
        let client = try RemoteClient(context: context, configuration: .init(endpoints: server.endpoints))
        let service = ValidationService(
            rules: ValidationRules(),
            directory: RemoteUsernameDirectory(client: client, deadline: .seconds(20)),
            lookupTimeout: .seconds(30), loop: TestLoop.shared)

        let edits = PublishSubject<FieldEdit>()
        let (stream, continuation) = AsyncStream<FieldResult>.makeStream()
        let subscription = service.fields(FieldsParameters(), edits: edits.asObservable())
            .subscribe(onNext: { continuation.yield($0) })
        var results = stream.makeAsyncIterator()
        edits.onNext(FieldEdit(field: .username, text: "slow_name"))
        #expect(await results.next() == FieldResult(field: .username, result: .validating))
        #expect(await arrived(slowSubscribed))
        edits.onNext(FieldEdit(field: .username, text: "taken_name"))
        #expect(await results.next() == FieldResult(field: .username, result: .validating))
        #expect(await results.next() == FieldResult(field: .username, result: .failed(.usernameExists)))
        #expect(await arrived(slowDisposed), "the server never saw the CANCEL")
        #expect(service.checks.cancelled == 1)
        subscription.dispose()
        await client.stop()
        await server.stop()
        context.terminate()
    }
}
