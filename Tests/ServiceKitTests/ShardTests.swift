import Contracts
import Foundation
import Reactive
import RemoteProtocol
@testable import RemoteStreams
import ServiceKit
import Testing
import ZeroMQ

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Shards: --loops, derived endpoints, sys.endpoints, discovery", .timeLimit(.minutes(1)))
struct ShardTests {
    @Test("shard 0 binds the endpoint; a later shard the same host on any port, path.k or name.k")
    func endpointDerivation() throws {
        let tcp = try #require(Endpoint("tcp://127.0.0.1:5561"))
        #expect(tcp.forShard(0) == tcp)
        #expect(tcp.forShard(1).description == "tcp://127.0.0.1:*")
        #expect(try #require(Endpoint("tcp://[::1]:5561")).forShard(2).description == "tcp://[::1]:*")
        #expect(
            try #require(Endpoint("ipc:///tmp/x/a.sock")).forShard(3).description == "ipc:///tmp/x/a.sock.3")
        #expect(try #require(Endpoint("inproc://auth")).forShard(1).description == "inproc://auth.1")
    }

    @Test("--loops and <PREFIX>_LOOPS: default one per two available cores")
    func loopsOption() throws {
        let standard = StandardOptions(environmentPrefix: "TEST")
        let interface = CommandLineInterface(
            executable: "test", version: "1", summary: "test", options: standard.all)
        func loops(_ arguments: [String], _ environment: [String: String] = [:]) throws -> Int? {
            guard
                case .run(let configuration) = try interface.parse(
                    arguments: arguments, environment: environment)
            else { return nil }
            return configuration[standard.loops]
        }
        #expect(try loops([]) == StandardOptions.defaultLoops(cores: AvailableCores.count))
        #expect((1...9).map { StandardOptions.defaultLoops(cores: $0) } == [1, 1, 1, 2, 2, 3, 3, 4, 4])
        #expect(try loops(["--loops", "3"]) == 3)
        #expect(try loops([], ["TEST_LOOPS": "2"]) == 2)
    }

    @Test("two shards: both serve, sys.endpoints lists both, stats sum, the drain ends both")
    func twoShards() async throws {
        try await withTemporaryDirectory { root in
            let rig = try HostRig(root: root, loops: 2)
            let run = rig.start()
            try await rig.events.wait(for: "serving")
            #expect(rig.events.all.filter { $0 == "start" }.count == 2)
            let plain = try rig.client()
            let endpoints = try await plain.request(Methods.System.endpoints).value
            #expect(endpoints.shard == 0)
            #expect(endpoints.endpoints == [rig.endpoint.description, rig.endpoint.description + ".1"])
            // Shard 1 answers at its own endpoint, as itself.
            let second = try RemoteClient(
                context: try HostRig.context.get(),
                configuration: .init(endpoints: [endpoints.endpoints[1]], name: "test-shard-1"))
            #expect(try await second.request(Methods.System.endpoints).value.shard == 1)
            #expect(try await second.request(Methods.System.health).value.ready)
            let stats = try await plain.request(Methods.System.stats).value
            #expect(stats.counters["test"] == ["answers": 84])
            let total = try #require(stats.counters["transport"]?["frames_in"])
            let first = try #require(stats.counters["transport.0"]?["frames_in"])
            let other = try #require(stats.counters["transport.1"]?["frames_in"])
            #expect(first >= 2 && other >= 2 && total == first + other)
            #expect(rig.log.line("listening")?.contains(endpoints.endpoints[1]) == true)
            await second.stop()
            await plain.stop()
            rig.signals.deliver(SIGTERM)
            try await run.value
            #expect(rig.events.all.filter { $0 == "stop" }.count == 2)
            #expect(rig.events.all.filter { $0 == "serve cancelled" }.count == 2)
        }
    }

    @Test("a discovering client adds the other shard and its calls reach both")
    func discovery() async throws {
        try await withTemporaryDirectory { root in
            let rig = try HostRig(root: root, loops: 2)
            let run = rig.start()
            try await rig.events.wait(for: "serving")
            let client = try rig.client(discoversShards: true)
            let second = Recorder<Bool>()
            let watch = client.connectionChanges.subscribe(onNext: { change in
                if change.replica == 1, change.isUp { second.append(true) }
            })
            // The shard may have been discovered and reached before the subscription.
            if client.isConnected(replica: 1) { second.append(true) }
            _ = try await client.request(Methods.System.health).value
            try await second.wait(for: true)
            watch.dispose()
            for _ in 0..<10 { _ = try await client.request(Methods.System.health).value }
            let stats = try await client.request(Methods.System.stats).value
            #expect(stats.counters["transport.0"]?["requests_answered_at_once"] ?? 0 >= 3)
            #expect(stats.counters["transport.1"]?["requests_answered_at_once"] ?? 0 >= 3)
            await client.stop()
            rig.signals.deliver(SIGTERM)
            try await run.value
        }
    }

    @Test("a discovering client of a server without sys.endpoints keeps its one connection")
    func noDiscoveryMethod() async throws {
        try await withTemporaryDirectory { root in
            let context = try HostRig.context.get()
            var handlers = RemoteHandlers()
            handlers.request("test.echo") { (value: Int) -> Single<Int> in .just(value) }
            let server = try RemoteServer(
                context: context, configuration: .init(endpoints: ["ipc://\(root)/old.sock"]),
                handlers: handlers)
            let client = try RemoteClient(
                context: context,
                configuration: .init(endpoints: server.endpoints, name: "test-old", discoversShards: true))
            for value in 0..<5 {
                #expect(try await client.request("test.echo", value, as: Int.self).value == value)
            }
            #expect(client.counters.errorsByCode["unknown_method"] == 1)
            #expect(!client.isConnected(replica: 1))
            await client.stop()
            await server.stop()
        }
    }

    @Test("wildcard hosts are dialled at the host the client used, with the shard's port")
    func dialable() {
        #expect(
            RemoteClient.dialableEndpoint("tcp://0.0.0.0:4001", dialled: "tcp://10.1.2.3:5561")
                == "tcp://10.1.2.3:4001")
        #expect(
            RemoteClient.dialableEndpoint("tcp://*:4001", dialled: "tcp://localhost:5561")
                == "tcp://localhost:4001")
        #expect(
            RemoteClient.dialableEndpoint("tcp://127.0.0.1:4001", dialled: "tcp://localhost:5561")
                == "tcp://127.0.0.1:4001")
        #expect(RemoteClient.dialableEndpoint("ipc:///tmp/a.1", dialled: "ipc:///tmp/a") == "ipc:///tmp/a.1")
    }
}
