import Contracts
import Foundation
import RemoteProtocol
import RemoteStreams
import Synchronization
import Testing
import ZeroMQ

#if canImport(Glibc)
    import Glibc
#endif

/// What went wrong, from many tasks.
private final class Failures: Sendable {
    private let list = Mutex<[String]>([])
    func add(_ failure: String) { list.withLock { $0.append(failure) } }
    var all: [String] { list.withLock { $0 } }
}

/// Two auth-service processes as replicas of one client; one is killed with SIGKILL mid-load.
@Suite("Failover: a replica killed under load", .timeLimit(.minutes(1)))
struct FailoverIntegrationTests {
    @Test("lookups in flight on a SIGKILLed replica are answered by the other within their deadline")
    func killedReplica() async throws {
        try await withService { first, directory in
            try await withService { second, _ in
                let context = try Context()
                defer { context.terminate() }
                let client = try RemoteClient(
                    context: context,
                    configuration: .init(endpoints: [first.endpoint, second.endpoint], deadline: .seconds(5)))
                // Both replicas answer before the kill.
                // (Each call as its own end client: the per-client lookup limit stays out of the way.)
                for index in 0..<4 {
                    _ = try await client.request(
                        Methods.Auth.exists, ExistsRequest(username: "nobody_here", client: "warm-\(index)")
                    ).value
                }
                let failures = Failures()
                let started = ContinuousClock.now
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<400 {
                        if index == 200 { first.child.send(SIGKILL) }
                        group.addTask {
                            do {
                                _ = try await client.request(
                                    Methods.Auth.exists,
                                    ExistsRequest(username: "user_\(index)", client: "load-\(index)")
                                ).value
                            } catch {
                                failures.add("\(index): \(error)")
                            }
                        }
                        if index % 20 == 0 { try await group.next() }
                    }
                    try await group.waitForAll()
                }
                #expect(failures.all.isEmpty, "\(failures.all)")
                // Within the calls' deadline: none waited for the dead replica.
                #expect(ContinuousClock.now - started < .seconds(5))
                #expect(await first.child.waitForExit(timeout: .seconds(5)) == .signaled(SIGKILL))
                #expect(!client.isConnected(replica: 0))
                // From now on only the live replica is used.
                for index in 0..<10 {
                    _ = try await client.request(
                        Methods.Auth.exists, ExistsRequest(username: "nobody_here", client: "after-\(index)"),
                        deadline: .seconds(2)
                    ).value
                }
                #expect(client.callsInFlight == [0, 0])
                await client.stop()
                _ = directory
            }
        }
    }
}
