import Foundation
import Testing

/// Runs `auth-loadtest` with `arguments` to its end; returns how it ended, its stdout and stderr.
private func runLoadTest(
    _ arguments: [String], in directory: TemporaryDirectory, timeout: Duration = .seconds(30)
)
    async throws -> (Termination, String, String)
{
    let output = directory.file("loadtest-\(UUID().uuidString).out")
    let child = try ChildProcess(
        executable: try Binaries.path("auth-loadtest"), arguments: arguments, standardOutput: output,
        standardError: output + ".err")
    guard let ended = await child.waitForExit(timeout: timeout) else {
        await child.stop(grace: .zero)
        throw SupportError("auth-loadtest \(arguments) did not exit within \(timeout)")
    }
    let standardOutput = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    let standardError = (try? String(contentsOfFile: output + ".err", encoding: .utf8)) ?? ""
    return (ended, standardOutput, standardError)
}

/// The fields of `--json` the tests read.
private struct LoadTestJSON: Decodable {
    struct Verdict: Decodable {
        let condition: String
        let passed: Bool
    }
    let sent: Int
    let completed: Int
    let errors: Int
    let outcomes: [String: Int]
    let perSecond: [Int]
    let thresholds: [Verdict]
}

private func readJSON(_ path: String) throws -> LoadTestJSON {
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    return try decoder.decode(LoadTestJSON.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
}

@Suite("auth-loadtest against a real auth-service", .timeLimit(.minutes(1)))
struct LoadTestIntegrationTests {
    @Test("a 2 s mixed open-model run: exit 0, --json and --svg written, --fail-if passes then fails")
    func realRun() async throws {
        try await withService { service, directory in
            let json = directory.file("run.json")
            let svg = directory.file("run.svg")
            let common = [
                "--endpoint", service.endpoint, "--curve", "off", "--users", "20", "--warmup", "0s",
                "--scenario", "mix:login=50,exists=40,verify=10", "--rate", "150",
            ]
            let (ended, output, errors) = try await runLoadTest(
                common + ["--duration", "2s", "--json", json, "--svg", svg, "--fail-if", "errors<1%,p99<5s"],
                in: directory)
            #expect(ended == .exited(0), "stdout:\n\(output)\nstderr:\n\(errors)")
            #expect(output.contains("open model at 150 req/s"))
            #expect(output.contains("pass  errors<1%"))
            #expect(errors.contains("seeded 20 users (20 new, 0 reused)"))
            let result = try readJSON(json)
            #expect(result.sent == 300)
            #expect(result.completed == 300)
            #expect(result.errors == 0)
            #expect(result.outcomes["login 200", default: 0] > 100)
            #expect(result.outcomes["exists ok", default: 0] > 80)
            #expect(result.outcomes["verify ok", default: 0] > 10)
            #expect(result.thresholds.map(\.passed) == [true, true])
            let picture = try String(contentsOfFile: svg, encoding: .utf8)
            #expect(picture.hasPrefix("<svg") && picture.hasSuffix("</svg>\n"))

            // The same users again (reused, not re-created), with a threshold nobody meets: exit 1.
            let (failed, failedOutput, failedErrors) = try await runLoadTest(
                common + ["--duration", "1s", "--json", json, "--fail-if", "p99<1us"], in: directory)
            #expect(failed == .exited(1), "stdout:\n\(failedOutput)\nstderr:\n\(failedErrors)")
            #expect(failedErrors.contains("seeded 20 users (0 new, 20 reused)"))
            #expect(failedOutput.contains("FAIL  p99<1us"))
            #expect(try readJSON(json).thresholds.map(\.passed) == [false])
        }
    }

    @Test("usage errors exit 64, an unreachable or remote endpoint exits 2, --help exits 0")
    func exitCodes() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (help, helpText, _) = try await runLoadTest(["--help"], in: directory)
        #expect(help == .exited(0))
        #expect(helpText.contains("--fail-if"))
        let (usage, _, usageText) = try await runLoadTest(["--scenario", "mix:login=0"], in: directory)
        #expect(usage == .exited(64))
        #expect(usageText.contains("--scenario"))
        let (both, _, bothText) = try await runLoadTest(
            ["--rate", "10", "--concurrency", "2"], in: directory)
        #expect(both == .exited(2))
        #expect(bothText.contains("not both"))
        let (remote, _, remoteText) = try await runLoadTest(
            ["--endpoint", "tcp://192.0.2.1:5562", "--curve", "off"], in: directory)
        #expect(remote == .exited(2))
        #expect(remoteText.contains("--allow-remote"))
        let (absent, _, absentText) = try await runLoadTest(
            ["--endpoint", "ipc://" + directory.file("nobody.sock"), "--curve", "off"], in: directory)
        #expect(absent == .exited(2))
        #expect(absentText.contains("does not answer sys.health"))
    }
}
