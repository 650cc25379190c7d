import Contracts
import Foundation
import RemoteStreams
import Testing
import ZeroMQ

@Suite("Shards: a service with --loops 2, real binaries", .serialized, .timeLimit(.minutes(2)))
struct ShardIntegrationTests {
    @Test("auth-service --loops 2 on tcp: a plain client of the endpoint works, sys.endpoints lists 2")
    func twoLoops() async throws {
        try await withService(["--loops", "2"], transport: .tcp) { service, _ in
            let client = service.client
            let endpoints = try await client.request(Methods.System.endpoints).value
            #expect(endpoints.endpoints.count == 2)
            #expect(endpoints.endpoints.first == service.endpoint)
            #expect(endpoints.shard == 0)
            let registered = try await client.request(
                Methods.Auth.register, RegisterRequest(username: "sharded-user", password: "secret1")
            ).value
            #expect(registered.statusCode == 201)
            // The other shard, reached at its own endpoint, sees the same accounts.
            let second = try RemoteClient(
                context: service.context,
                configuration: .init(endpoints: [endpoints.endpoints[1]], name: "test-shard-1"))
            let exists = try await second.request(Methods.Auth.exists, ExistsRequest(username: "sharded-user"))
                .value
            #expect(exists.exists)
            #expect(try await second.request(Methods.System.endpoints).value.shard == 1)
            let stats = try await client.request(Methods.System.stats).value
            #expect(stats.counters["transport.0"] != nil && stats.counters["transport.1"] != nil)
            #expect(service.log.contains(endpoints.endpoints[1]))
            await second.stop()
        }
    }
}
