import Contracts
import Foundation
import ProcessSupport
import Reactive
import RemoteProtocol
@testable import RemoteStreams
import ServiceKit
import TestSupport
import Testing
import ZeroMQ

#if canImport(Glibc)
    import Glibc
#endif

/// auth-service and validation-service running side by side in one temp directory.
private struct Stack {
    let auth: ServiceProcess
    let validation: ServiceProcess

    /// Starts auth-service (`--curve off --hash-cost test`), then validation-service pointed at it,
    /// both on `ipc://` in `directory`.
    static func start(in directory: TemporaryDirectory, validationArguments: [String] = []) async throws
        -> Stack
    {
        let auth = try await ServiceProcess.start(in: directory)
        do {
            let validation = try await ServiceProcess.start(
                ["--auth-endpoint", auth.endpoint, "--auth-curve", "off"] + validationArguments,
                in: directory,
                name: "validation", executable: "validation-service")
            return Stack(auth: auth, validation: validation)
        } catch {
            await auth.stop()
            throw error
        }
    }

    func stop() async -> (auth: Termination?, validation: Termination?) {
        let validation = await validation.stop()
        let auth = await auth.stop()
        return (auth, validation)
    }
}

/// Runs `body` with a fresh stack, stopping it whatever happens.
private func withStack(
    _ validationArguments: [String] = [], _ body: (Stack, TemporaryDirectory) async throws -> Void
) async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let stack = try await Stack.start(in: directory, validationArguments: validationArguments)
    do {
        try await body(stack, directory)
        let ended = await stack.stop()
        #expect(ended.validation == .exited(0), "validation log:\n\(stack.validation.log)")
    } catch {
        Issue.record("validation log:\n\(stack.validation.log)")
        _ = await stack.stop()
        throw error
    }
}

extension RemoteClient {
    fileprivate func validate<Request>(_ method: RequestMethod<Request, ValidationResult>, _ request: Request)
        async throws
        -> ValidationResult
    {
        try await self.request(method, request).value
    }
}

/// A `validate.fields` channel whose edits are sent one at a time and whose results are read one at
/// a time.
private final class FieldsSession {
    private let edits = ReplaySubject<FieldEdit>.createUnbounded()
    private var iterator: AsyncStream<Event<FieldResult>>.Iterator
    private let subscription: any Disposable

    init(_ client: RemoteClient, _ parameters: FieldsParameters = FieldsParameters()) {
        let (stream, continuation) = AsyncStream<Event<FieldResult>>.makeStream()
        subscription = client.channel(
            Methods.Validation.fields, parameters, input: edits.asObservable(),
            deadline: .seconds(30)
        ).subscribe { event in
            continuation.yield(event)
            if event.isStopEvent { continuation.finish() }
        }
        iterator = stream.makeAsyncIterator()
    }

    func send(_ field: Field, _ text: String) { edits.onNext(FieldEdit(field: field, text: text)) }

    /// The next result (nil after the end).
    func next() async -> FieldResult? {
        guard case .next(let result) = await iterator.next() else { return nil }
        return result
    }

    /// The next `count` results.
    func next(_ count: Int) async -> [FieldResult] {
        var results: [FieldResult] = []
        for _ in 0..<count {
            guard let result = await next() else { break }
            results.append(result)
        }
        return results
    }

    /// Completes the edits; returns the results that still came, up to the end of the channel.
    func finish() async -> [FieldResult] {
        edits.onCompleted()
        var rest: [FieldResult] = []
        while let result = await next() { rest.append(result) }
        return rest
    }

    /// Skips results up to the channel's end and returns how it ended (nil: the stream finished
    /// without a terminal event).
    func end() async -> Event<FieldResult>? {
        while let event = await iterator.next() {
            if event.isStopEvent { return event }
        }
        return nil
    }

    func close() { subscription.dispose() }
}

@Suite("validation-service: rules and codes over the wire", .timeLimit(.minutes(1)))
struct ValidationRequestIntegrationTests {
    @Test("validate.phone, validate.password and validate.repeat answer every rule's code")
    func pureRules() async throws {
        try await withStack { stack, _ throws in
            let client = stack.validation.client
            let phones: [(String, ValidationResult)] = [
                ("", .empty), ("1380013800", .failed(.phoneShort)), ("13800138000", .ok()),
                ("138001380001234", .ok()), ("1380013800012345", .failed(.phoneLong)),
                ("+8613800138000", .failed(.phoneFormat)), ("１３８００１３８０００", .failed(.phoneFormat)),
                ("138 0013 8000", .failed(.phoneFormat)),
            ]
            for (text, expected) in phones {
                #expect(
                    try await client.validate(Methods.Validation.phone, PhoneValidationRequest(text: text))
                        == expected)
            }
            let passwords: [(String, PasswordPurpose, ValidationResult)] = [
                ("", .login, .empty), ("12345", .login, .failed(.passwordShort)), ("123456", .login, .ok()),
                ("", .register, .empty), ("12345", .register, .failed(.passwordMin, ["n": "6"])),
                ("123456", .register, .ok(.passwordOK)), ("🙂🙂🙂🙂🙂🙂", .register, .ok(.passwordOK)),
            ]
            for (text, purpose, expected) in passwords {
                let request = PasswordValidationRequest(text: text, purpose: purpose)
                #expect(try await client.validate(Methods.Validation.password, request) == expected)
            }
            let repeats: [(String, String, ValidationResult)] = [
                ("secret1", "", .empty), ("secret1", "secret1", .ok()),
                ("secret1", "secret2", .failed(.repeatMismatch)),
            ]
            for (password, repeated, expected) in repeats {
                let request = RepeatValidationRequest(password: password, repeat: repeated)
                #expect(try await client.validate(Methods.Validation.repeat, request) == expected)
            }
            // The exact body: a code and its parameters, never text.
            let body = try await client.request(
                Methods.Validation.password.name, PasswordValidationRequest(text: "abc", purpose: .register),
                as: JSONValue.self
            ).value
            #expect(
                body
                    == .object([
                        "state": .string("failed"), "code": .string("password.min"),
                        "params": .object(["n": .string("6")]),
                    ]))
            let malformed = await errorCode(
                of: client.request(
                    Methods.Validation.password.name, AnyParameters(members: ["text": .string("x")]),
                    as: ValidationResult.self))
            #expect(malformed == .badRequest)
        }
    }

    @Test("validate.username asks auth-service: short, exists, available, unknown")
    func username() async throws {
        try await withStack { stack, _ throws in
            #expect(try await stack.auth.client.register("taken_user").statusCode == 201)
            let client = stack.validation.client
            let cases: [(String, UsernamePurpose, ValidationResult)] = [
                ("", .register, .empty), ("alice", .register, .failed(.usernameShort, ["n": "6"])),
                ("taken_user", .register, .failed(.usernameExists)),
                ("fresh_user", .register, .ok(.usernameAvailable)),
                ("", .signin, .empty), ("taken_user", .signin, .ok(.usernameExists)),
                ("fresh_user", .signin, .failed(.usernameUnknown)),
            ]
            for (text, purpose, expected) in cases {
                let request = UsernameValidationRequest(text: text, purpose: purpose)
                #expect(
                    try await client.validate(Methods.Validation.username, request) == expected, "\(text)")
            }
        }
    }

    @Test("limits are flags, and the messages carry them")
    func limitFlags() async throws {
        try await withStack(["--min-username", "3", "--min-password", "10"]) { stack, _ throws in
            let client = stack.validation.client
            #expect(
                try await client.validate(
                    Methods.Validation.username, UsernameValidationRequest(text: "ab", purpose: .register))
                    == .failed(.usernameShort, ["n": "3"]))
            #expect(
                try await client.validate(
                    Methods.Validation.username, UsernameValidationRequest(text: "abc", purpose: .register))
                    == .ok(.usernameAvailable))
            #expect(
                try await client.validate(
                    Methods.Validation.password,
                    PasswordValidationRequest(text: "123456789", purpose: .register))
                    == .failed(.passwordMin, ["n": "10"]))
        }
    }
}

@Suite("validation-service: the validate.fields channel", .timeLimit(.minutes(1)))
struct ValidationChannelIntegrationTests {
    @Test("a register screen: taken then free username, password, repeat re-checked after a change")
    func registerScreen() async throws {
        try await withStack { stack, _ throws in
            #expect(try await stack.auth.client.register("taken_user").statusCode == 201)
            let session = FieldsSession(stack.validation.client)
            defer { session.close() }
            session.send(.username, "taken_user")
            #expect(
                await session.next(2) == [
                    FieldResult(field: .username, result: .validating),
                    FieldResult(field: .username, result: .failed(.usernameExists)),
                ])
            session.send(.username, "taken_user")  // the same text: nothing new
            session.send(.username, "fresh_user")
            #expect(
                await session.next(2) == [
                    FieldResult(field: .username, result: .validating),
                    FieldResult(field: .username, result: .ok(.usernameAvailable)),
                ])
            session.send(.password, "secret1")
            #expect(await session.next() == FieldResult(field: .password, result: .ok(.passwordOK)))
            session.send(.repeat, "secret1")
            #expect(await session.next() == FieldResult(field: .repeat, result: .ok()))
            session.send(.password, "secret2")
            #expect(
                await session.next(2) == [
                    FieldResult(field: .password, result: .ok(.passwordOK)),
                    FieldResult(field: .repeat, result: .failed(.repeatMismatch)),
                ])
            session.send(.phone, "+86")
            #expect(await session.next() == FieldResult(field: .phone, result: .failed(.phoneFormat)))
            #expect(await session.finish() == [])
        }
    }

    @Test("a sign-in screen; the latest username wins and the channel ends after the last answer")
    func signinScreen() async throws {
        try await withStack { stack, _ throws in
            #expect(try await stack.auth.client.register("known_user").statusCode == 201)
            let session = FieldsSession(
                stack.validation.client, FieldsParameters(usernamePurpose: .signin, passwordPurpose: .login))
            defer { session.close() }
            session.send(.password, "123")
            #expect(await session.next() == FieldResult(field: .password, result: .failed(.passwordShort)))
            session.send(.username, "nobody")
            session.send(.username, "known_user")
            let results = await session.finish()
            // Whatever happened to the first lookup, the last result is the latest name's.
            #expect(results.last == FieldResult(field: .username, result: .ok(.usernameExists)))
            #expect(results.filter { $0.result == .validating }.count == 2)
            #expect(!results.contains(FieldResult(field: .username, result: .failed(.networkError))))
        }
    }
}

@Suite("validation-service: operations", .timeLimit(.minutes(1)))
struct ValidationOperationsIntegrationTests {
    @Test("auth-service unreachable: usernames fail with network.error, health is degraded with a reason")
    func unreachableAuth() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let validation = try await ServiceProcess.start(
            [
                "--auth-endpoint", "ipc://" + directory.file("nobody-listens.sock"), "--auth-curve", "off",
                "--auth-deadline", "300ms", "--auth-probe-interval", "200ms",
            ], in: directory, name: "validation", executable: "validation-service")
        do {
            let client = validation.client
            for purpose in UsernamePurpose.allCases {
                let request = UsernameValidationRequest(text: "anyone_at_all", purpose: purpose)
                #expect(
                    try await client.validate(Methods.Validation.username, request) == .failed(.networkError))
            }
            // Rules that need no lookup still answer.
            #expect(
                try await client.validate(
                    Methods.Validation.username, UsernameValidationRequest(text: "abc", purpose: .register))
                    == .failed(.usernameShort, ["n": "6"]))
            let session = FieldsSession(client)
            session.send(.username, "someone_new")
            #expect(
                await session.next(2) == [
                    FieldResult(field: .username, result: .validating),
                    FieldResult(field: .username, result: .failed(.networkError)),
                ])
            session.close()
            // The probe ran at start-up with the same deadline as the lookups above, so it has failed.
            let health = try await client.request(Methods.System.health)
                .value
            #expect(health.status == .degraded)
            #expect(health.ready)
            #expect(health.reasons.first?.contains("auth-service") == true)
            let stats = try await client.request(Methods.System.stats)
                .value
            #expect((stats.counters["username_checks"]?["checks_failed"] ?? 0) >= 3)
            #expect(await validation.stop() == .exited(0))
        } catch {
            Issue.record("validation log:\n\(validation.log)")
            await validation.stop()
            throw error
        }
    }

    @Test("sys.stats counts requests and channels; --check answers 0; SIGTERM drains and exits 0")
    func statsCheckAndDrain() async throws {
        try await withStack { stack, directory throws in
            let client = stack.validation.client
            _ = try await client.validate(
                Methods.Validation.phone, PhoneValidationRequest(text: "13800138000"))
            let session = FieldsSession(client)
            session.send(.phone, "1")
            _ = await session.next()
            #expect(await session.finish() == [])
            let stats = try await client.request(Methods.System.stats)
                .value
            #expect(stats.service == "validation")
            #expect(stats.counters["validation"]?["requests"] == 1)
            #expect(stats.counters["validation"]?["channels_opened"] == 1)
            #expect(stats.counters["validation"]?["edits"] == 1)
            #expect(stats.counters["transport"] != nil)
            let health = try await client.request(Methods.System.health)
                .value
            #expect(health.status == .ready)

            let output = directory.file("check.out")
            let check = try ChildProcess(
                executable: try Binaries.path("validation-service"),
                arguments: [
                    "--check", "--curve", "off", "--state-dir", stack.validation.stateDirectory, "--endpoint",
                    stack.validation.endpoint,
                ], standardOutput: output, standardError: output + ".err")
            #expect(await check.waitForExit(timeout: .seconds(15)) == .exited(0))
            #expect((try? String(contentsOfFile: output, encoding: .utf8))?.contains("ready") == true)
        }
    }

    @Test("SIGTERM with a channel open: the channel ends with unavailable and the process exits 0")
    func drainWithOpenChannel() async throws {
        try await withStack { stack, _ throws in
            let session = FieldsSession(stack.validation.client)
            defer { session.close() }
            session.send(.phone, "13800138000")
            #expect(await session.next() == FieldResult(field: .phone, result: .ok()))
            stack.validation.child.send(SIGTERM)
            let ended = await session.end()
            if case .error(let error as RemoteError) = ended {
                #expect(error.code == .unavailable)
            } else {
                Issue.record("the channel ended with \(String(describing: ended))")
            }
            #expect(await stack.validation.child.waitForExit(timeout: .seconds(15)) == .exited(0))
        }
    }

    @Test("CURVE to auth-service without its public key file: a clear start-up error, exit 1")
    func missingAuthKey() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.file("validation.log")
        let child = try ChildProcess(
            executable: try Binaries.path("validation-service"),
            arguments: [
                "--state-dir", directory.file("state-validation"), "--endpoint",
                "ipc://" + directory.file("validation.sock"), "--curve", "off",
            ], standardOutput: log, standardError: log)
        #expect(await child.waitForExit(timeout: .seconds(15)) == .exited(1))
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(text.contains(directory.file("state-validation") + "/auth.pub"), "log:\n\(text)")
    }

    @Test("CURVE to auth-service with validation's client key on auth's allow-list")
    func curveToAuth() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let authState = try StateDirectory(creating: ServiceProcess.stateDirectory(in: directory))
        let authKey = try CurveKeyFiles.serverKeys(in: authState).publicKey
        let authOwn = try CurveKeyFiles.clientKeys(in: authState)
        let validationState = try StateDirectory(creating: directory.file("state-validation"))
        let validationKey = try CurveKeyFiles.clientKeys(in: validationState)
        try (try Z85.encode(validationKey.publicKey) + " validation-service\n")
            .write(toFile: authState.file("allowed_clients"), atomically: true, encoding: .utf8)
        let auth = try await ServiceProcess.start(
            ["--curve", "on"], in: directory, curve: RemoteClient.Curve(serverKey: authKey, keys: authOwn))
        do {
            #expect(try await auth.client.register("curve_user").statusCode == 201)
            let validation = try await ServiceProcess.start(
                [
                    "--auth-endpoint", auth.endpoint, "--auth-curve", "on", "--auth-public-key",
                    authState.file("curve.pub"),
                ], in: directory, name: "validation", executable: "validation-service")
            let request = UsernameValidationRequest(text: "curve_user", purpose: .register)
            let result = try? await validation.client.validate(Methods.Validation.username, request)
            #expect(result == .failed(.usernameExists), "log:\n\(validation.log)")
            #expect(await validation.stop() == .exited(0))
        } catch {
            await auth.stop()
            throw error
        }
        await auth.stop()
    }
}
