import Contracts
import Foundation
import GatewayCore
import Reactive
import RemoteProtocol
import RemoteStreams
import TestSupport
import Testing
import ZeroMQ

/// A flow channel opened by a ``RemoteClient``: inputs sent one at a time, outputs read in order.
private final class FlowSession {
    private let inputs = ReplaySubject<FlowInput>.createUnbounded()
    private var iterator: AsyncStream<Event<FlowOutput>>.Iterator
    private let subscription: any Disposable

    init(_ client: RemoteClient, _ method: FlowMethod, _ parameters: FlowParameters = FlowParameters()) {
        let (stream, continuation) = AsyncStream<Event<FlowOutput>>.makeStream()
        subscription = client.channel(
            method, parameters, input: inputs.asObservable(), deadline: .seconds(60)
        ).subscribe { event in
            continuation.yield(event)
            if event.isStopEvent { continuation.finish() }
        }
        iterator = stream.makeAsyncIterator()
    }

    func send(_ input: FlowInput) { inputs.onNext(input) }

    /// The next `count` outputs as `output: …` lines (fewer if the channel ended).
    func next(_ count: Int) async -> [String] {
        var lines: [String] = []
        for _ in 0..<count {
            switch await iterator.next() {
            case .next(let output): lines.append(output.description)
            case .error(let error):
                lines.append("error \(error)")
                return lines
            case .completed, nil: return lines
            }
        }
        return lines
    }

    /// Reads as many outputs as `expected` has and expects exactly those.
    func expect(_ expected: [String], sourceLocation: SourceLocation = #_sourceLocation) async {
        let got = await next(expected.count)
        #expect(got == expected, sourceLocation: sourceLocation)
    }

    func close() { subscription.dispose() }
}

/// Polls `condition` every 10 ms until it holds or 5 s pass.
private func eventually(_ condition: @Sendable () -> Bool) async -> Bool {
    let end = ContinuousClock.now + .seconds(5)
    while ContinuousClock.now < end {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

@Suite("GatewayService over ZeroMQ", .timeLimit(.minutes(1)))
struct GatewayRemoteTests {
    @Test("a RemoteClient drives flow.login and flow.numbers; closing disposes the server-side graphs")
    func flowsOverIPC() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "gw-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let validation = GatewayStubValidation()
        let service = GatewayService(
            auth: GatewayStubAuth(scheduler: nil), validation: validation,
            heroes: GatewayStubCatalog(scheduler: nil), loop: TestLoop.shared)
        var handlers = RemoteHandlers()
        service.register(into: &handlers)
        // Exactly the gateway's contract: its flows and its commands.
        #expect(handlers.names == (Methods.Flow.all.map(\.name) + Methods.Command.all.map(\.name)).sorted())
        let context = try Context()
        let server = try RemoteServer(
            context: context, configuration: .init(endpoints: ["ipc://\(directory.path)/gateway.sock"]),
            handlers: handlers)
        let client = try RemoteClient(context: context, configuration: .init(endpoints: server.endpoints))

        let login = FlowSession(client, Methods.Flow.login, FlowParameters(locale: .en))
        await login.expect([
            "phone: empty ", "password: empty ", "loginEnabled: false", "loggingIn: false", "tip: ",
        ])
        login.send(.text(.phone, "138"))
        await login.expect([
            "phone: failed phone.short Phone number too short", "tip: phone.short Phone number too short",
        ])
        login.send(.text(.phone, "13800000000"))
        await login.expect(["phone: ok ", "tip: "])
        login.send(.text(.password, "secret1"))
        await login.expect(["password: ok ", "loginEnabled: true"])
        login.send(.tap(.loginTap))
        await login.expect([
            "loggingIn: true", "loggingIn: false", "tip: login.ok Login succeeded, user: ann, token: t1 ann",
        ])

        let numbers = FlowSession(client, Methods.Flow.numbers)
        await numbers.expect(["sum: 0"])
        numbers.send(.text(.a, "1"))
        await numbers.expect(["sum: 1"])
        numbers.send(.text(.c, "x"))
        numbers.send(.text(.b, "41"))
        await numbers.expect(["sum: 42"])
        #expect(service.counters.channelsOpen == [Methods.Flow.login.name: 1, Methods.Flow.numbers.name: 1])

        // Disposing the client's subscriptions sends CANCEL: the server disposes the graphs.
        numbers.close()
        login.close()
        #expect(
            await eventually {
                service.counters.channelsOpen == [Methods.Flow.login.name: 0, Methods.Flow.numbers.name: 0]
                    && validation.open == 0
            })
        #expect(
            service.counters.channelsOpened == [Methods.Flow.login.name: 1, Methods.Flow.numbers.name: 1])

        // A bad input ends the channel with bad_request, naming the expected inputs.
        let bad = FlowSession(client, Methods.Flow.numbers)
        await bad.expect(["sum: 0"])
        bad.send(FlowInput(input: "a"))
        await bad.expect([
            "error bad_request: input a needs a text: flow.numbers expects inputs a, b, c (with text)"
        ])
        let command = try await client.request(
            Methods.Command.login, LoginCommand(phone: "13800000000", password: "secret1", locale: .en)
        ).value
        #expect(command.ok && command.token == "t1")
        #expect(service.counters.errors == ["bad_request": 1])
        #expect(service.counters.commands == [Methods.Command.login.name: 1])

        await client.stop()
        await server.stop()
        context.terminate()
    }
}
