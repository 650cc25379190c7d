import Contracts
import Reactive
import RemoteStreams
import TestSupport
import Testing
import ValidationCore

/// The service as the server runs it: graphs on its loop scheduler.
@Suite("validation service on its loop", .timeLimit(.minutes(1)))
struct ValidationServiceTests {
    let service = ValidationService(
        rules: ValidationRules(), directory: SetDirectory(names: ["taken_name"]), lookupTimeout: .seconds(2),
        loop: TestLoop.shared)

    @Test("registers the methods of its contract, Methods.Validation")
    func registersItsContract() {
        var handlers = RemoteHandlers()
        service.register(into: &handlers)
        #expect(handlers.names == Methods.Validation.all.map(\.name).sorted())
    }

    @Test("validate.username answers the final result, without validating")
    func usernameRequest() async throws {
        let taken = try await service.username(
            UsernameValidationRequest(text: "taken_name", purpose: .register), client: nil
        ).value
        #expect(taken == .failed(.usernameExists))
        let free = try await service.username(
            UsernameValidationRequest(text: "free_name", purpose: .register), client: nil
        )
        .value
        #expect(free == .ok(.usernameAvailable))
        let short = try await service.username(
            UsernameValidationRequest(text: "abc", purpose: .register), client: nil
        )
        .value
        #expect(short == .failed(.usernameShort, ["n": "6"]))
        #expect(service.checks.answered == 2)
    }

    @Test("a channel fed from another thread answers on the actor, in order per field")
    func channel() async throws {
        let edits = PublishSubject<FieldEdit>()
        let output = service.fields(FieldsParameters(), edits: edits.asObservable())
        let (stream, continuation) = AsyncStream<FieldResult>.makeStream()
        let subscription = output.subscribe(onNext: { continuation.yield($0) })
        defer { subscription.dispose() }
        edits.onNext(FieldEdit(field: .username, text: "taken_name"))
        edits.onNext(FieldEdit(field: .password, text: "secret1"))
        edits.onNext(FieldEdit(field: .repeat, text: "secret2"))
        edits.onNext(FieldEdit(field: .phone, text: "+86"))
        edits.onNext(FieldEdit(field: .username, text: "free_name"))
        var received: [FieldResult] = []
        for await result in stream {
            received.append(result)
            if result == FieldResult(field: .username, result: .ok(.usernameAvailable)) { break }
        }
        #expect(received.count >= 6)
        let usernames = received.filter { $0.field == .username }.map(\.result)
        #expect(
            usernames == [.validating, .failed(.usernameExists), .validating, .ok(.usernameAvailable)]
                || usernames == [.validating, .validating, .ok(.usernameAvailable)])
        #expect(received.contains(FieldResult(field: .repeat, result: .failed(.repeatMismatch))))
        #expect(received.contains(FieldResult(field: .phone, result: .failed(.phoneFormat))))
        #expect(service.counters.edits == 5)
    }
}
