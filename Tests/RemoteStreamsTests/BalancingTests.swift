import Dispatch
import Foundation
import Reactive
import RemoteProtocol
@testable import RemoteStreams
import Synchronization
import TestSupport
import Testing
import ZeroMQ

/// A count shared with handlers.
private final class Tally: Sendable {
    private let value = Mutex(0)
    func add() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}

/// Replicas that say who they are: `whoami` answers the replica's name, `hang` never answers (and
/// counts its calls), `refuse` answers `overloaded` on the replicas told to.
private struct Replicas {
    let context: Context
    let servers: [RemoteServer]
    /// `hang` calls each server has received.
    let hanging: [Tally]

    init(count: Int, endpoints: [String]? = nil, refusing: Set<Int> = [], context: Context? = nil) throws {
        let context = try context ?? Context()
        self.context = context
        var servers: [RemoteServer] = []
        var hanging: [Tally] = []
        for index in 0..<count {
            let hangs = Tally()
            hanging.append(hangs)
            var handlers = RemoteHandlers()
            handlers.request("whoami") { (_: NoParameters) in
                refusing.contains(index)
                    ? Single.error(RemoteError(code: .overloaded, message: "busy"))
                    : Single.just("replica-\(index)")
            }
            handlers.request("hang") { (_: NoParameters) in
                Single<String>.never().do(onSubscribed: { hangs.add() })
            }
            servers.append(
                try RemoteServer(
                    context: context,
                    configuration: .init(endpoints: [endpoints?[index] ?? "tcp://127.0.0.1:*"]),
                    handlers: handlers))
        }
        self.servers = servers
        self.hanging = hanging
    }

    var endpoints: [String] { servers.map { $0.endpoints[0] } }

    /// A client of every replica with a 30 s deadline (and `pingInterval`, when given), once it is
    /// connected to all of them.
    func connectedClient(pingInterval: Duration? = nil) async throws -> RemoteClient {
        var configuration = RemoteClient.Configuration(endpoints: endpoints, deadline: .seconds(30))
        if let pingInterval { configuration.pingInterval = pingInterval }
        let client = try RemoteClient(context: context, configuration: configuration)
        for replica in servers.indices { await waitUntilConnected(client, replica: replica) }
        return client
    }

    func stop() async {
        for server in servers { await server.stop() }
    }
}

private func whoami(_ client: RemoteClient, idempotent: Bool = false, deadline: Duration? = nil) async throws
    -> String
{
    try await client.request(
        "whoami", NoParameters(), as: String.self, deadline: deadline, idempotent: idempotent
    )
    .value
}

/// Starts `count` calls of `hang` (with `idempotent`), returning their outcomes as tasks.
private func hangingCalls(_ client: RemoteClient, _ count: Int, idempotent: Bool, deadline: Duration)
    -> [Task<Result<String, RemoteError>, Never>]
{
    (0..<count).map { _ in
        Task {
            do {
                return .success(
                    try await client.request(
                        "hang", NoParameters(), as: String.self, deadline: deadline, idempotent: idempotent
                    ).value)
            } catch let error as RemoteError {
                return .failure(error)
            } catch {
                return .failure(RemoteError(code: .internal, message: "\(error)"))
            }
        }
    }
}

@Suite("Balancing over replicas: fewest calls in flight, retries elsewhere", .timeLimit(.minutes(1)))
struct BalancingTests {
    @Test func aNewCallGoesToTheConnectedReplicaWithFewestCallsInFlight() async throws {
        let replicas = try Replicas(count: 2)
        let client = try await replicas.connectedClient(pingInterval: .seconds(60))
        let held = client.request("hang", NoParameters(), as: String.self).subscribe { _ in }
        let busy = client.callsInFlight.firstIndex(of: 1)
        #expect(busy != nil)
        // Every call while one is open on `busy` goes to the other, which has none.
        for _ in 0..<10 {
            #expect(try await whoami(client) == "replica-\(1 - (busy ?? 0))")
        }
        // Equal loads: round-robin.
        held.dispose()
        #expect(await eventually { client.callsInFlight == [0, 0] })
        var answers: Set<String> = []
        for _ in 0..<4 { answers.insert(try await whoami(client)) }
        #expect(answers == ["replica-0", "replica-1"])
        await client.stop()
        await replicas.stop()
        replicas.context.terminate()
    }

    @Test func idempotentCallsOnAReplicaThatDiesFailOverWithinTheirDeadline() async throws {
        let replicas = try Replicas(count: 2)
        let client = try await replicas.connectedClient()
        // Half the calls go to each replica; both hold them.
        let calls = hangingCalls(client, 10, idempotent: true, deadline: .seconds(5))
        #expect(await eventually { replicas.hanging.map(\.count) == [5, 5] })
        let killed = ContinuousClock.now
        await replicas.servers[0].stop()
        // The five on replica 0 moved to replica 1 at once.
        #expect(await eventually { replicas.hanging[1].count == 10 })
        #expect(ContinuousClock.now - killed < .seconds(2))
        #expect(client.counters.retries == 5)
        #expect(!client.isConnected(replica: 0))
        // New calls go to the live replica only, and none waits for the dead one.
        for _ in 0..<6 { #expect(try await whoami(client, deadline: .seconds(2)) == "replica-1") }
        // None is left hanging: they end with the live replica's deadline, not later.
        for call in calls {
            if case .failure(let error) = await call.value {
                #expect(error.code == .timeout, "\(error)")
            } else {
                Issue.record("hang answered")
            }
        }
        #expect(ContinuousClock.now - killed < .seconds(8))
        await client.stop()
        await replicas.servers[1].stop()
        replicas.context.terminate()
    }

    @Test func aCallThatMayHaveRunIsNotSentAgainUnlessItsMethodAllowsIt() async throws {
        let replicas = try Replicas(count: 2)
        let client = try await replicas.connectedClient()
        let calls = hangingCalls(client, 4, idempotent: false, deadline: .seconds(20))
        #expect(await eventually { replicas.hanging.map(\.count) == [2, 2] })
        let killed = ContinuousClock.now
        await replicas.servers[0].stop()
        // The two on replica 0 fail at once; the two on replica 1 are still open.
        #expect(await eventually { client.callsInFlight[0] == 0 })
        #expect(ContinuousClock.now - killed < .seconds(2))
        #expect(client.counters.retries == 0)
        #expect(replicas.hanging[1].count == 2)
        #expect(client.callsInFlight == [0, 2])
        await client.stop()  // ends the other two
        var unavailable = 0
        for call in calls {
            if case .failure(let error) = await call.value, error.code == .unavailable { unavailable += 1 }
        }
        #expect(unavailable == 4)
        await replicas.servers[1].stop()
        replicas.context.terminate()
    }

    @Test func aCallRefusedAsOverloadedIsAnsweredByAnotherReplica() async throws {
        let replicas = try Replicas(count: 2, refusing: [0])
        let client = try RemoteClient(
            context: replicas.context,
            configuration: .init(endpoints: replicas.endpoints, deadline: .seconds(10)))
        await waitUntilConnected(client, replica: 0)
        await waitUntilConnected(client, replica: 1)
        // Not idempotent: refused without running, it is safe to send again anyway.
        for _ in 0..<6 { #expect(try await whoami(client) == "replica-1") }
        #expect(client.counters.retries == 3)  // round-robin sent every other call to replica 0 first
        #expect(client.counters.errorsByCode["overloaded"] == 3)
        await client.stop()

        // With no other replica the refusal is the answer.
        let alone = try RemoteClient(
            context: replicas.context, configuration: .init(endpoints: [replicas.endpoints[0]]))
        await #expect(throws: RemoteError.self) { try await whoami(alone) }
        #expect(alone.counters.retries == 0)
        await alone.stop()
        await replicas.stop()
        replicas.context.terminate()
    }

    @Test func aOneEndpointClientCountsItsCallsAndFailsThemWhenItsConnectionIsLost() async throws {
        let replicas = try Replicas(count: 1)
        let client = try RemoteClient(
            context: replicas.context,
            configuration: .init(endpoints: replicas.endpoints, deadline: .seconds(30)))
        await waitUntilConnected(client)
        // Idempotent or not, with one replica there is nowhere else to send a call.
        let calls =
            hangingCalls(client, 2, idempotent: true, deadline: .seconds(20))
            + hangingCalls(client, 1, idempotent: false, deadline: .seconds(20))
        #expect(await eventually { replicas.hanging[0].count == 3 })
        #expect(client.callsInFlight == [3])
        #expect(try await whoami(client, idempotent: true) == "replica-0")
        #expect(client.callsInFlight == [3])
        #expect(client.counters.openStreams == 3)
        await replicas.servers[0].stop()
        for call in calls {
            if case .failure(let error) = await call.value {
                #expect(error.code == .unavailable, "\(error)")
            } else {
                Issue.record("hang answered")
            }
        }
        #expect(client.callsInFlight == [0])
        #expect(client.counters.openStreams == 0)
        #expect(client.counters.retries == 0)
        await client.stop()
        replicas.context.terminate()
    }

    @Test func aCallThatNeverLeftTheClientGoesToAReplicaThatConnected() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("balance-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let dead = "ipc://\(directory.path)/dead.sock"
        let live = "ipc://\(directory.path)/live.sock"
        let context = try Context()
        let client = try RemoteClient(
            context: context,
            configuration: .init(
                endpoints: [dead, live], deadline: .seconds(20), connectTimeout: .seconds(2)))
        // Nothing is connected: it waits on the first configured replica.
        let call = Task { try await whoami(client) }
        #expect(await eventually { client.callsInFlight == [1, 0] })
        let replicas = try Replicas(count: 1, endpoints: [live], context: context)
        await waitUntilConnected(client, replica: 1)
        // At the connect timeout it moves to the replica that connected, although not idempotent.
        #expect(try await call.value == "replica-0")
        #expect(client.counters.retries == 1)
        await client.stop()
        await replicas.stop()
        context.terminate()
    }
}

@Suite("Names resolved into replicas", .timeLimit(.minutes(1)))
struct ResolutionTests {
    @Test func aNameBecomesOneReplicaPerAddressFollowingItsAnswers() async throws {
        // One port on 127.0.0.1 and ::1: the two addresses of one name.
        let context = try Context()
        let first = try Replicas(count: 1, context: context)
        let port = first.endpoints[0].split(separator: ":").last.map(String.init) ?? ""
        let second = try Replicas(count: 1, endpoints: ["tcp://[::1]:\(port)"], context: context)
        let addresses = Mutex(["127.0.0.1"])
        let lookups = Mutex(0)
        let client = try RemoteClient(
            context: context,
            configuration: .init(
                endpoints: ["tcp://localhost:\(port)"], deadline: .seconds(5),
                resolver: .init { host in
                    lookups.withLock { $0 += 1 }
                    return host == "localhost" ? addresses.withLock { $0 } : nil
                },
                resolveInterval: .milliseconds(20)))
        func active() -> [String] { client.replicas.filter { !$0.isRetired }.map(\.endpoint) }
        #expect(await eventually { active() == ["tcp://127.0.0.1:\(port)"] })
        #expect(client.replicas.first?.isRetired == true)  // the name itself, dialled until resolved
        #expect(try await whoami(client) == "replica-0")

        addresses.withLock { $0 = ["127.0.0.1", "::1"] }
        #expect(await eventually { active() == ["tcp://127.0.0.1:\(port)", "tcp://[::1]:\(port)"] })
        await waitUntilConnected(client, replica: 2)
        var answers: Set<String> = []
        for _ in 0..<4 { answers.insert(try await whoami(client)) }
        #expect(answers == ["replica-0"], "both servers call themselves replica-0")
        #expect(await first.servers[0].counters.framesIn >= 2)
        #expect(await second.servers[0].counters.framesIn >= 2)

        // 127.0.0.1 vanishes: no new call goes there.
        addresses.withLock { $0 = ["::1"] }
        #expect(await eventually { active() == ["tcp://[::1]:\(port)"] })
        let before = await first.servers[0].counters.framesIn
        for _ in 0..<4 { _ = try await whoami(client) }
        #expect(await first.servers[0].counters.framesIn == before)

        // A lookup that fails, or finds nothing, changes nothing.
        addresses.withLock { $0 = [] }
        let seen = lookups.withLock { $0 }
        #expect(await eventually { lookups.withLock { $0 } > seen + 1 })
        #expect(active() == ["tcp://[::1]:\(port)"])
        #expect(try await whoami(client) == "replica-0")
        await client.stop()
        await first.stop()
        await second.stop()
        context.terminate()
    }

    @Test func literalAddressesAreNotResolved() {
        #expect(RemoteClient.resolvableHost(of: "tcp://127.0.0.1:5562") == nil)
        #expect(RemoteClient.resolvableHost(of: "tcp://[::1]:5562") == nil)
        #expect(RemoteClient.resolvableHost(of: "ipc:///tmp/x.sock") == nil)
        #expect(RemoteClient.resolvableHost(of: "tcp://auth.default.svc:5562") == "auth.default.svc")
        #expect(RemoteClient.resolvableHost(of: "tcp://localhost:5562") == "localhost")
    }

    @Test func localhostThroughTheSystemResolver() async throws {
        let addresses = RemoteClient.NameResolver.system.resolve("localhost") ?? []
        #expect(addresses.contains("127.0.0.1"))
        let context = try Context()
        let first = try Replicas(count: 1, context: context)
        let port = first.endpoints[0].split(separator: ":").last.map(String.init) ?? ""
        // With ::1 among localhost's addresses, a server there too (as `getent ahosts localhost`).
        let second =
            addresses.contains("::1")
            ? try Replicas(count: 1, endpoints: ["tcp://[::1]:\(port)"], context: context) : nil
        let client = try RemoteClient(
            context: context,
            configuration: .init(
                endpoints: ["tcp://localhost:\(port)"], deadline: .seconds(5),
                resolveInterval: .milliseconds(50)))
        let expected = addresses.filter { $0 == "127.0.0.1" || $0 == "::1" }.map {
            $0.contains(":") ? "tcp://[\($0)]:\(port)" : "tcp://\($0):\(port)"
        }
        #expect(await eventually { Set(client.replicas.filter { !$0.isRetired }.map(\.endpoint)) == Set(expected) })
        for _ in 0..<4 { #expect(try await whoami(client) == "replica-0") }
        await client.stop()
        await first.stop()
        await second?.stop()
        context.terminate()
    }
}
