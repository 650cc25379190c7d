import Contracts
import Dispatch
import GatewayCore
import Reactive
import RemoteProtocol
import RemoteStreams
import Synchronization
import Testing
import ZeroMQ

/// Waits up to 10 s for `semaphore`, off the cooperative pool.
private func arrived(_ semaphore: DispatchSemaphore) async -> Bool {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(returning: semaphore.wait(timeout: .now() + 10) == .success)
        }
    }
}

/// The ZeroMQ clients against an in-process server standing in for the three services.
@Suite("remote service clients", .timeLimit(.minutes(1)))
struct RemoteServiceClientsTests {
    @Test(
        "a fields channel answers; a probe outage fails it at once (CANCEL reaches the server); a new one waits"
    )
    func validationChannelAndOutage() async throws {
        let opened = DispatchSemaphore(value: 0)
        let disposed = DispatchSemaphore(value: 0)
        var handlers = RemoteHandlers()
        handlers.handle(Methods.Validation.fields) {
            (_: FieldsParameters, edits: Observable<FieldEdit>) -> Observable<FieldResult> in
            edits.map { FieldResult(field: $0.field, result: .ok()) }
                .do(onSubscribed: { opened.signal() }, onDispose: { disposed.signal() })
        }
        handlers.handle(Methods.Auth.login) { (request: LoginRequest) in
            Single.just(LoginResponse(statusCode: 401, message: .loginWrongPassword))
        }
        handlers.handle(Methods.Heroes.search) { (request: HeroSearchRequest) -> Single<HeroSearchResponse> in
            request.token == "good"
                ? .just(HeroSearchResponse(total: 0, items: []))
                : .error(RemoteError(code: .unauthenticated, message: "bad token"))
        }
        let context = try Context()
        let server = try RemoteServer(
            context: context, configuration: .init(endpoints: ["tcp://127.0.0.1:*"]), handlers: handlers)
        let client = try RemoteClient(context: context, configuration: .init(endpoints: server.endpoints))
        let liveness = UpstreamLiveness()
        let validation = RemoteValidationServiceClient(
            client: client, channelDeadline: .seconds(30), liveness: liveness)

        let edits = ReplaySubject<FieldEdit>.createUnbounded()
        let (stream, continuation) = AsyncStream<Event<FieldResult>>.makeStream()
        let subscription = validation.fields(FieldsParameters(), edits: edits.asObservable()).subscribe {
            continuation.yield($0)
        }
        var events = stream.makeAsyncIterator()
        edits.onNext(FieldEdit(field: .phone, text: "1"))
        #expect(await events.next() == .next(FieldResult(field: .phone, result: .ok())))
        #expect(await arrived(opened))
        liveness.set(reachable: false)
        guard case .error(let error) = await events.next() else {
            Issue.record("the channel did not fail")
            return
        }
        #expect((error as? RemoteError)?.code == .unavailable)
        #expect(await arrived(disposed), "the server never saw the CANCEL")
        subscription.dispose()

        // A verdict that is already unreachable does not refuse a new channel: it goes out (a service
        // that is back answers it at once); only a change to unreachable fails the open ones.
        let again = try await validation.fields(
            FieldsParameters(), edits: .just(FieldEdit(field: .password, text: "x"))
        ).take(1).asSingle().value
        #expect(again == FieldResult(field: .password, result: .ok()))

        let auth = RemoteAuthServiceClient(client: client, deadline: .seconds(5))
        let answer = try await auth.login(LoginRequest(username: "a", password: "b")).value
        #expect(answer.message == .loginWrongPassword)
        let catalog = RemoteHeroCatalogClient(client: client, deadline: .seconds(5))
        #expect(try await catalog.search(HeroSearchRequest(query: "", token: "good")).value.total == 0)
        await #expect(throws: RemoteError.self) {
            try await catalog.search(HeroSearchRequest(query: "", token: "bad")).value
        }
        await client.stop()
        await server.stop()
        context.terminate()
    }

    @Test(
        "validation-service gone: the channel fails at once, new ones too; back: recoveries says so, channels work"
    )
    func validationServiceGoneAndBack() async throws {
        let opened = DispatchSemaphore(value: 0)
        var handlers = RemoteHandlers()
        handlers.handle(Methods.Validation.fields) {
            (_: FieldsParameters, edits: Observable<FieldEdit>) -> Observable<FieldResult> in
            edits.map { FieldResult(field: $0.field, result: .ok()) }.do(onSubscribed: { opened.signal() })
        }
        let context = try Context()
        let first = try RemoteServer(
            context: context, configuration: .init(endpoints: ["tcp://127.0.0.1:*"]), handlers: handlers)
        let endpoint = first.endpoints[0]
        let client = try RemoteClient(context: context, configuration: .init(endpoints: [endpoint]))
        let validation = RemoteValidationServiceClient(client: client, channelDeadline: .seconds(30))
        let edits = ReplaySubject<FieldEdit>.createUnbounded()
        edits.onNext(FieldEdit(field: .phone, text: "1"))
        // The service goes once its answer has reached the client: stopping it earlier could drop
        // the answer with the connection, which is not what this test is about.
        let answered = DispatchSemaphore(value: 0)
        let channel = Task {
            await outcome(
                of: validation.fields(FieldsParameters(), edits: edits.asObservable()),
                onResult: { answered.signal() })
        }
        #expect(await arrived(opened))
        #expect(await arrived(answered))
        await first.stop()
        let lost = await channel.value
        #expect(lost.results == [FieldResult(field: .phone, result: .ok())])
        #expect(lost.error?.code == .unavailable, "\(String(describing: lost.error))")
        let refused = await outcome(of: validation.fields(FieldsParameters(), edits: .never()))
        #expect(
            refused.error == RemoteError(code: .unavailable, message: "validation-service is not connected"))

        // Watched from now on: the first connection's coming up is no recovery.
        let (recovered, recovery) = AsyncStream<Void>.makeStream()
        let watch = validation.recoveries.subscribe(onNext: { recovery.yield() })
        defer { watch.dispose() }
        var recoveries = recovered.makeAsyncIterator()

        let second = try RemoteServer(
            context: context, configuration: .init(endpoints: [endpoint]), handlers: handlers)
        _ = await recoveries.next()
        let again = try await validation.fields(
            FieldsParameters(), edits: .just(FieldEdit(field: .password, text: "x"))
        ).take(1).asSingle().value
        #expect(again == FieldResult(field: .password, result: .ok()))
        await client.stop()
        await second.stop()
        context.terminate()
    }
}

/// Every result of `channel` until it fails or completes, and its error.
private func outcome(
    of channel: Observable<FieldResult>, onResult: @escaping @Sendable () -> Void = {}
) async -> (
    results: [FieldResult], error: RemoteError?
) {
    await withCheckedContinuation { continuation in
        let results = Mutex<[FieldResult]>([])
        _ = channel.subscribe(
            onNext: { result in
                results.withLock { $0.append(result) }
                onResult()
            },
            onError: { error in
                continuation.resume(returning: (results.withLock { $0 }, error as? RemoteError))
            },
            onCompleted: { continuation.resume(returning: (results.withLock { $0 }, nil)) })
    }
}
