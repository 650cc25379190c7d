import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// deploy/local/loadtest-distributed.sh (`make loadtest-distributed`): its settings are checked before
/// anything is made; on the rig (hosts with names and a network of the suite's own: `rldt-`,
/// 10.89.0.0/24), two generators and one alone against stubs, merged; the hosts are removed after a
/// run and after a failure.
@Suite("deploy/local/loadtest-distributed.sh", .timeLimit(.minutes(1)), .serialized)
struct LoadTestDistributedTests {
    static let script = Paths.deploy + "/local/loadtest-distributed.sh"
    private let hosts = TestHosts(prefix: "rldt-", network: "10.89.0")

    /// The script's environment: the suite's hosts, results in `results`, executables from `binaries`,
    /// plus `settings`.
    private func environment(results: String, binaries: String = Paths.binaries, _ settings: [String: String])
        -> [String: String]
    {
        hosts.environment.merging(
            ["LOADTEST_RESULTS": results, "BIN_DIR": binaries, "HOSTS_STOP_SECONDS": "3"]
        ) { $1 }.merging(settings) { $1 }
    }

    @Test(
        "a bad setting exits 64 with one line naming it, and makes nothing",
        arguments: [
            ("LOADTEST_GENERATORS", "0"), ("LOADTEST_GENERATORS", "three"), ("LOADTEST_GENERATORS", "33"),
            ("LOADTEST_GENERATORS", "-1"), ("LOADTEST_CPU", "half"), ("LOADTEST_CPU", "0"),
            ("LOADTEST_CONCURRENCY", "0"), ("LOADTEST_DURATION", "5"), ("LOADTEST_ROUNDS", "x"),
            ("LOADTEST_SERVER", "postgres"), ("LOADTEST_PIN", "2"),
        ])
    func badSetting(name: String, value: String) async throws {
        let scratch = try TemporaryDirectory(prefix: "ldbad")
        defer { scratch.remove() }
        let results = scratch.file("results")
        let result = try await runCommand(
            Self.script, [], environment: environment(results: results, [name: value]),
            timeLimit: .seconds(10))
        #expect(result.status == 64, "\(name)=\(value): \(result.status) \(result.error)")
        let lines = result.error.split(separator: "\n")
        #expect(lines.count == 1, "\(result.error)")
        #expect(lines.first?.hasPrefix("loadtest-distributed: error: \(name) ") == true, "\(result.error)")
        #expect(lines.first?.contains("'\(value)'") == true, "\(result.error)")
        #expect(result.output.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: results), "a results directory was made")
    }

    @Test(
        "two generators and one alone for 1 s against stubs on rig hosts: merged, the sums exact, the hosts removed",
        .needsNamespaces)
    func tinyRun() async throws {
        let scratch = try TemporaryDirectory(prefix: "ldrun")
        defer { scratch.remove() }
        let results = scratch.file("results")
        let result = try await runCommand(
            Self.script, [],
            environment: environment(
                results: results,
                [
                    "LOADTEST_GENERATORS": "2", "LOADTEST_ROUNDS": "1", "LOADTEST_DURATION": "1s",
                    "LOADTEST_WARMUP": "200ms", "LOADTEST_CONCURRENCY": "8",
                    "LOADTEST_WORKLOAD": "--scenario exists --users 20",
                ]), timeLimit: .seconds(45))
        let after = try await hosts.run(["status"])
        #expect(after.output.contains("rldt-br0: absent"), "\(after.output)")
        #expect(!after.output.contains("rldt-h1"), "\(after.output)")
        try #require(result.status == 0, "exit \(result.status): \(result.output)\(result.error)")

        func document(_ name: String) throws -> [String: Any] {
            let data = try Data(contentsOf: URL(fileURLWithPath: results + "/round-1/" + name))
            let object = try JSONSerialization.jsonObject(with: data)
            return try #require(object as? [String: Any], "\(name) is not a JSON object")
        }
        let shards = try (0..<2).map { try document("shard-\($0).json") }
        let merged = try document("merged.json")
        let one = try document("one.json")
        #expect(shards.map { $0["shard"] as? String } == ["0/2", "1/2"])
        let sent = shards.compactMap { $0["sent"] as? Int }
        try #require(sent.count == 2)
        #expect(sent.allSatisfy { $0 > 0 })
        #expect(merged["sent"] as? Int == sent.reduce(0, +))
        #expect(merged["completed"] as? Int == shards.compactMap { $0["completed"] as? Int }.reduce(0, +))
        #expect(merged["errors"] as? Int == 0)
        // Each of the two had half of 2 × 8 in flight: the same as the one alone.
        #expect(shards.allSatisfy { $0["concurrency"] as? Int == 8 })
        #expect(one["concurrency"] as? Int == 8)
        #expect((one["completed"] as? Int ?? 0) > 0)
        #expect(one["shard"] == nil || one["shard"] as? String == "0/1")

        let output = result.output
        #expect(output.contains("round 1: one generator "), "\(output)")
        #expect(output.contains("2 generators, merged"), "\(output)")
        #expect(output.contains("ratio to 2 x one"), "\(output)")
        #expect(
            output.contains("goal: 2 generators reach at least 0.9 x 2 x one generator's rate: "), "\(output)"
        )
    }

    @Test(
        "a generator that cannot start fails the run with exit 1, and the hosts are removed", .needsNamespaces
    )
    func failureCleansUp() async throws {
        let scratch = try TemporaryDirectory(prefix: "ldfail")
        defer { scratch.remove() }
        // An auth-loadtest whose stub listens and waits for its SIGTERM, and whose generator exits 2.
        let fake = scratch.file("auth-loadtest")
        try """
        #!/bin/sh
        if [ "$1" = stub ]; then echo "listening $3"; exec sleep 60; fi
        echo "auth-loadtest: the service does not answer" >&2
        exit 2
        """.write(toFile: fake, atomically: true, encoding: .utf8)
        chmod(fake, 0o755)
        let result = try await runCommand(
            Self.script, [],
            environment: environment(
                results: scratch.file("results"), binaries: scratch.path,
                ["LOADTEST_GENERATORS": "2", "LOADTEST_ROUNDS": "1", "LOADTEST_DURATION": "1s"]),
            timeLimit: .seconds(30))
        #expect(result.status == 1, "\(result.status): \(result.output)\(result.error)")
        #expect(result.error.contains("the generator alone exited 2"), "\(result.error)")
        #expect(result.error.contains("the service does not answer"), "\(result.error)")
        let after = try await hosts.run(["status"])
        #expect(after.output.contains("rldt-br0: absent"), "\(after.output)")
        #expect(!after.output.contains("rldt-h1"), "\(after.output)")
    }
}
