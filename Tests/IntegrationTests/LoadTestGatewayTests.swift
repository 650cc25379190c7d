import Foundation
import ServiceKit
import TestSupport
import Testing

/// Runs `auth-loadtest` through `/bin/sh` with `STACK_DIR`, `HOME` and `XDG_STATE_HOME` set, as a
/// user of the stack would: the gateway's key is found as gateway-cli finds it.
private func runLoadTest(
    _ arguments: [String], stackDirectory: String, home: String, in directory: TemporaryDirectory
) async throws -> (Termination, String, String) {
    let output = directory.file("gateway-loadtest-\(UUID().uuidString).out")
    let script = #"STACK_DIR="$1" HOME="$2" XDG_STATE_HOME="$2" exec "$3" "${@:4}""#
    let child = try ChildProcess(
        executable: "/bin/bash",
        arguments: ["-c", script, "bash", stackDirectory, home, try Binaries.path("auth-loadtest")]
            + arguments,
        standardOutput: output, standardError: output + ".err")
    guard let ended = await child.waitForExit(timeout: .seconds(50)) else {
        await child.stop(grace: .zero)
        throw SupportError("auth-loadtest \(arguments) did not exit")
    }
    return (
        ended, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "",
        (try? String(contentsOfFile: output + ".err", encoding: .utf8)) ?? ""
    )
}

@Suite("auth-loadtest --target gateway: virtual users on the real stack", .timeLimit(.minutes(2)))
struct LoadTestGatewayTests {
    @Test(
        "every flow's sessions end in their result, each wait timed by kind; keys found as gateway-cli finds them"
    )
    func flows() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let stack = try await GatewayStack.start(in: directory)
        do {
            // A stack directory holding only the gateway's public key, as make up leaves it.
            let stackDirectory = directory.file("stack")
            try FileManager.default.createDirectory(
                atPath: stackDirectory + "/gateway", withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                atPath: stack.gatewayKeyFile, toPath: stackDirectory + "/gateway/curve.pub")
            let home = directory.file("home")
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
            let json = directory.file("mix.json")
            let (ended, report, error) = try await runLoadTest(
                [
                    "--target", "gateway", "--endpoint", stack.gateway.endpoint, "--users", "6",
                    "--scenario", "mix:flow.login=1,flow.signin=1,flow.register=1,flow.heroes=1",
                    "--concurrency", "4",
                    "--think", "20ms", "--duration", "4s", "--warmup", "0s", "--progress", "off", "--json",
                    json,
                ],
                stackDirectory: stackDirectory, home: home, in: directory)
            #expect(ended == .exited(0), "\(report)\(error)")
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json)))
                    as? [String: Any])
            let outcomes = try #require(object["outcomes"] as? [String: Int])
            for flow in ["flow.login", "flow.signin", "flow.register", "flow.heroes"] {
                #expect((outcomes["\(flow) ok"] ?? 0) > 0, "\(outcomes)")
            }
            #expect(object["errors"] as? Int == 0, "\(outcomes)")
            let interactions = try #require(object["interactions"] as? [String: [String: Any]])
            #expect(Set(interactions.keys) == ["screen", "keystroke", "tap", "search"])
            #expect(report.contains("via the gateway, think 20.0ms"), "\(report)")

            // Every keystroke timed: a login session types 11 + 13 characters (lt-password-N for
            // N < 10), and each has its wait; one tap and one screen per session.
            let every = directory.file("every.json")
            let (timed, timedReport, timedError) = try await runLoadTest(
                [
                    "--target", "gateway", "--endpoint", stack.gateway.endpoint, "--users", "6",
                    "--scenario", "flow.login", "--concurrency", "2", "--think", "10ms", "--time-keystrokes",
                    "all",
                    "--duration", "3s", "--warmup", "0s", "--progress", "off", "--json", every,
                ],
                stackDirectory: stackDirectory, home: home, in: directory)
            #expect(timed == .exited(0), "\(timedReport)\(timedError)")
            let all = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: every)))
                    as? [String: Any])
            let sessions = try #require((all["outcomes"] as? [String: Int])?["flow.login ok"])
            #expect(sessions > 0)
            let kinds = try #require(all["interactions"] as? [String: [String: Any]])
            func count(_ kind: String) -> Int? {
                (kinds[kind]?["latency_nanoseconds"] as? [String: Any])?["count"] as? Int
            }
            #expect(
                count("keystroke") == 24 * sessions, "\(kinds.mapValues { $0["latency_nanoseconds"] ?? "" })")
            #expect(count("tap") == sessions)
            #expect(count("screen") == sessions)

            // Flows belong to the gateway target, auth's calls to the auth target.
            for (arguments, message) in [
                (["--target", "gateway", "--scenario", "login"], "runs flows"),
                (["--scenario", "flow.login"], "add --target gateway"),
                (["--target", "gateway", "--echo"], "not the gateway"),
            ] {
                let (refused, _, text) = try await runLoadTest(
                    arguments, stackDirectory: stackDirectory, home: home, in: directory)
                #expect(refused == .exited(64), "\(arguments)")
                #expect(text.contains(message), "\(text)")
            }
            // Without a key to find: gateway-cli's message, exit 2.
            let (keyless, _, keylessText) = try await runLoadTest(
                ["--target", "gateway", "--endpoint", stack.gateway.endpoint],
                stackDirectory: directory.file("none"),
                home: home, in: directory)
            #expect(keyless == .exited(2))
            #expect(keylessText.contains("no gateway key"), "\(keylessText)")
        } catch {
            await stack.stop()
            throw error
        }
        await stack.stop()
    }
}
