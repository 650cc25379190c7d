import Contracts
import Foundation
import Reactive
import RemoteProtocol
import RemoteStreams
import TestSupport
import Testing

/// auth-service started with `--database postgresql://…` on a throwaway cluster.
@Suite("auth-service: PostgreSQL", .timeLimit(.minutes(1)))
struct AuthPostgresIntegrationTests {
    @Test("accounts and sessions in PostgreSQL; a retried registration answers its own 201")
    func accounts() async throws {
        try await PostgresCluster.with { cluster in
            try await withService(["--database", cluster.url]) { service, _ in
                let client = service.client
                let request = RegisterRequest(
                    username: "alice-pg", password: "correct horse", requestID: "r-1")
                let first = try await client.request(Methods.Auth.register, request).value
                #expect(first.statusCode == 201)
                // The same registration again (its answer lost on the way): the same success.
                let again = try await client.request(Methods.Auth.register, request).value
                #expect(again.statusCode == 201)
                #expect(again.message == .registerOK)
                let other = RegisterRequest(username: "alice-pg", password: "correct horse", requestID: "r-2")
                #expect(try await client.request(Methods.Auth.register, other).value.statusCode == 409)
                #expect(try await client.register("alice-pg").statusCode == 409)

                let login = try await client.login("alice-pg")
                #expect(login.statusCode == 200)
                let token = try #require(login.user?.userToken)
                let verified = try await client.request(Methods.Auth.verify, VerifyRequest(token: token))
                    .value
                #expect(verified.name == "alice-pg")
                #expect(try await client.exists("alice-pg"))

                let stats = try await client.request(Methods.System.stats).value
                #expect(stats.counters["auth"]?["registrations_repeated"] == 1)
                #expect(stats.counters["store"]?["reachable"] == 1)
            }
        }
    }

    @Test("the database goes away: degraded and unavailable; it comes back: ready again by itself")
    func databaseRestart() async throws {
        try await PostgresCluster.with { cluster in
            try await withService(["--database", cluster.url]) { service, directory in
                let client = service.client
                #expect(try await client.register("before1").statusCode == 201)
                try await cluster.stop()
                // The first call finds the connection gone; from then on health says why.
                let code = await errorCode(
                    of: client.request(Methods.Auth.exists, ExistsRequest(username: "before1")))
                #expect(code == .unavailable)
                #expect(try await waitForHealth(client, .degraded))
                let report = try await client.health().value
                #expect(report.ready)  // still serving: answers say what is wrong
                #expect(report.reasons.contains { $0.contains("database") })
                let (ended, output) = try await runAuthService(
                    [
                        "--check", "--curve", "off", "--state-dir", service.stateDirectory, "--endpoint",
                        service.endpoint,
                    ], in: directory)
                #expect(ended == .exited(0))  // answering: degraded is still ready
                #expect(output.contains("degraded"))
                #expect(
                    await errorCode(
                        of: client.request(
                            Methods.Auth.register,
                            RegisterRequest(username: "during1", password: "correct horse"))) == .unavailable)

                try await cluster.restart()
                #expect(try await waitForHealth(client, .ready))
                #expect(try await client.exists("before1"))
                #expect(try await client.register("after1").statusCode == 201)
            }
        }
    }
}

/// Polls `sys.health` until it reports `status` (each poll a request; at most 20 s).
func waitForHealth(_ client: RemoteClient, _ status: HealthReport.Status) async throws -> Bool {
    let end = ContinuousClock.now + .seconds(20)
    while ContinuousClock.now < end {
        if let report = try? await client.health(deadline: .milliseconds(500)).value, report.status == status
        {
            return true
        }
        await Task.yield()
    }
    return false
}
