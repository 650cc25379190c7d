import Foundation
import LoadTestCore
import ProcessSupport
import ServiceKit
import ZeroMQ

/// `auth-loadtest stub --endpoint tcp://HOST:PORT [--echo-delay D]`: the `--echo` stub as a process
/// of its own, for generators on other hosts to load (`make loadtest-distributed`): it answers
/// `auth.exists` with `{"exists": true}`, `--echo-delay` after each request, until SIGTERM or
/// SIGINT. Prints `listening ENDPOINT` once bound. Exit 0 when stopped, 64 for bad usage, 2 when
/// it cannot listen.
enum StubCommand {
    static let usage = """
        usage: auth-loadtest stub --endpoint tcp://HOST:PORT|tcp://HOST:* [--echo-delay DURATION]

        Serves the --echo stub (answers auth.exists at once, or DURATION after each request) without
        CURVE, until SIGTERM or SIGINT: a target whose cost is known, for measuring generators.

        """

    static func run(_ arguments: [String]) async -> Int32 {
        func fail(_ message: String) -> Int32 { SubcommandArguments.fail("stub", message) }
        let parsed: SubcommandArguments
        switch SubcommandArguments.parse(
            arguments, name: "stub", options: ["--endpoint", "--echo-delay"], usage: usage)
        {
        case .exit(let code): return code
        case .run(let arguments): parsed = arguments
        }
        if let extra = parsed.positional.first { return fail("unknown argument \(extra) (see --help)") }
        let endpoint = parsed.value("--endpoint")
        // A port of * binds a free one; the listening line names it.
        if let endpoint, !endpoint.hasPrefix("tcp://"), !endpoint.hasPrefix("ipc://") {
            return fail(
                "--endpoint: cannot read \"\(endpoint)\" (tcp://host:port, tcp://host:* or ipc://path)")
        }
        var delay = Duration.zero
        if let text = parsed.value("--echo-delay") {
            guard let nanoseconds = DurationText.nanoseconds(text) else {
                return fail("--echo-delay: cannot read \"\(text)\" (a duration such as 2ms)")
            }
            delay = .nanoseconds(Int64(min(nanoseconds, UInt64(Int64.max))))
        }
        guard let endpoint else { return fail("give --endpoint tcp://HOST:PORT") }
        let signals = ProcessSignals()
        signals.watch([SIGTERM, SIGINT])
        let context: Context
        let stub: StubAuthServer
        do {
            context = try Context()
            stub = try StubAuthServer(context: context, endpoint: endpoint, delay: delay)
        } catch {
            FileHandle.standardError.write(
                Data("auth-loadtest stub: cannot listen on \(endpoint): \(error)\n".utf8))
            return 2
        }
        FileHandle.standardOutput.write(
            Data("listening \(stub.server.endpoints.joined(separator: ","))\n".utf8))
        for await _ in signals.received { break }
        await stub.stop()
        context.terminate()
        return 0
    }
}
