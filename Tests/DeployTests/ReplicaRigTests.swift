import Contracts
import Foundation
import RemoteStreams
import TestSupport
import Testing
import ZeroMQ

/// Two auth-service replicas on hosts of the rig (deploy/local/hosts.sh, with names and a network of
/// the suite's own: `rlr-`, 10.80.0.0/24), sharing a throwaway PostgreSQL that listens on the rig's
/// bridge, as `make cluster-up` deploys them: what one replica does, the other sees.
@Suite("auth replicas on rig hosts", .timeLimit(.minutes(2)), .serialized)
struct ReplicaRigTests {
    private let rig = DatabaseRig(prefix: "rlr-", network: "10.80.0", databasePort: 55432)

    @Test(
        "replicas on two hosts, PostgreSQL on the bridge: registered on A, logged in on B; logged out on A, B refuses the token",
        .needsNamespaces)
    func sessionsAcrossHosts() async throws {
        try await rig.run(statePrefix: "rigreplicas", scenario(state:servers:))
    }

    private func scenario(state: TemporaryDirectory, servers: inout [Int32]) async throws {
        let url = try await rig.start(hosts: 2, state: state)
        #expect(url == "postgresql://postgres@10.80.0.1:55432/postgres")

        let auth = Paths.binaries + "/auth-service"
        var endpoints: [String] = []
        for host in 1...2 {
            let endpoint = "tcp://10.80.0.1\(host):5562"
            let directory = state.file("auth-\(host)")
            // hosts.sh run execs into the service: the pid the shell prints is auth-service's own.
            let started = try await runCommand(
                "/bin/bash",
                [
                    "-c",
                    "mkdir -p \"$2\" && \"$0\" run \"$4\" \"$1\" --curve off --hash-cost test --state-dir \"$2\" "
                        + "--endpoint \"$3\" --database \"$5\" >\"$2.log\" 2>&1 </dev/null & echo $!",
                    rig.hosts.script, auth, directory, endpoint, "\(host)", url,
                ], environment: rig.hosts.environment)
            let pid = try #require(
                Int32(started.output.trimmingCharacters(in: .whitespacesAndNewlines)),
                "no pid: \(started.output)\(started.error)")
            servers.append(pid)
            endpoints.append(endpoint)
        }

        let context = try Context()
        defer { context.terminate() }
        let clients = try endpoints.map { endpoint in
            try RemoteClient(
                context: context,
                configuration: .init(endpoints: [endpoint], deadline: .seconds(5), name: "rig-test"))
        }
        do {
            for (index, client) in clients.enumerated() {
                #expect(
                    await ready(client, within: .seconds(30)),
                    "replica \(index + 1) not ready: \(contents(state.file("auth-\(index + 1).log")))")
            }
            let (a, b) = (clients[0], clients[1])
            let registered = try await a.request(
                Methods.Auth.register, RegisterRequest(username: "rig_ann", password: "correct horse")
            ).value
            #expect(registered.statusCode == 201)
            let login = try await b.request(
                Methods.Auth.login, LoginRequest(username: "rig_ann", password: "correct horse")
            ).value
            #expect(login.statusCode == 200)
            let token = try #require(login.user?.userToken)
            #expect(
                try await a.request(Methods.Auth.verify, VerifyRequest(token: token)).value.name == "rig_ann")
            #expect(try await a.request(Methods.Auth.logout, LogoutRequest(token: token)).value.revoked)
            #expect(
                await errorCode(of: b.request(Methods.Auth.verify, VerifyRequest(token: token)))
                    == .unauthenticated)
        } catch {
            for client in clients { await client.stop() }
            throw error
        }
        for client in clients { await client.stop() }
    }
}
