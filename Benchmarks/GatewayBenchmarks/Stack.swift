// The four servers as `make run` starts them: CURVE between every pair, keys made first and exchanged
// in a temp directory (each service's pairs in its state directory, callers' client keys in the
// callees' allowed_clients, the callees' public keys in the callers' state directories), each server
// on tcp://127.0.0.1 at a free port. The benchmark's own key pair is allowed at the three services
// (for health checks, counters and the reference row); the gateway lets any client in.

import BenchmarkSupport
import Contracts
import Foundation
import ProcessSupport
import RemoteStreams
import ServiceKit
import ZeroMQ

/// The running stack and the keys an end client needs.
final class StackUnderTest {
    /// The temp directory holding every state directory and log.
    let directory: String
    /// auth-service.
    let auth: ServiceChild
    /// validation-service.
    let validation: ServiceChild
    /// hero-catalog-service (built-in catalog).
    let heroes: ServiceChild
    /// The gateway.
    let gateway: ServiceChild
    /// The gateway's public key.
    let gatewayKey: [UInt8]

    private init(
        directory: String, auth: ServiceChild, validation: ServiceChild, heroes: ServiceChild,
        gateway: ServiceChild, gatewayKey: [UInt8]
    ) {
        self.directory = directory
        self.auth = auth
        self.validation = validation
        self.heroes = heroes
        self.gateway = gateway
        self.gatewayKey = gatewayKey
    }

    /// The services' extra arguments in the benchmark: auth.exists is rate-limited per caller (50/s,
    /// burst 100 by default) and validation-service is one caller for every screen, so the username
    /// row runs with the limit out of the way, as bench-auth does for its exists row. `--loops`,
    /// when given, goes to all four.
    static func benchmarkArguments(_ options: Options) -> [String: [String]] {
        let loops = options.loops.map { ["--loops", "\($0)"] } ?? []
        return [
            "auth": ["--exists-per-second", "10000000", "--exists-burst", "10000000"] + loops,
            "validation": loops,
            "heroes": loops,
            "gateway": options.gatewayArguments + loops,
        ]
    }

    /// Starts the four from `bin`, each with its extra `arguments` (keyed auth, validation,
    /// heroes, gateway), and waits until each is ready.
    static func start(bin: String, arguments: [String: [String]]) async throws -> StackUnderTest {
        let directory = try makeTemporaryDirectory(prefix: "gwbench")
        var started: [ServiceChild] = []
        do {
            let names = ["auth", "validation", "heroes", "gateway"]
            var states: [String: StateDirectory] = [:]
            var servers: [String: CurveKeyPair] = [:]
            var clients: [String: CurveKeyPair] = [:]
            for name in names {
                let state = try StateDirectory(creating: "\(directory)/\(name)")
                states[name] = state
                servers[name] = try CurveKeyFiles.serverKeys(in: state)
                clients[name] = try CurveKeyFiles.clientKeys(in: state)
            }
            let own = try CurveKeyPair.generate()
            func state(_ name: String) throws -> StateDirectory {
                guard let state = states[name] else {
                    throw BenchmarkError(description: "no state for \(name)")
                }
                return state
            }
            func allow(_ callers: [String], at callee: String) throws {
                var lines = "\(try Z85.encode(own.publicKey)) gateway-benchmark\n"
                for caller in callers {
                    guard let key = clients[caller] else { continue }
                    lines += "\(try Z85.encode(key.publicKey)) stack:\(caller)\n"
                }
                try lines.write(
                    toFile: try state(callee).file("allowed_clients"), atomically: true, encoding: .utf8)
            }
            try allow(["validation", "heroes", "gateway"], at: "auth")
            try allow(["gateway"], at: "validation")
            try allow(["gateway"], at: "heroes")
            for (server, caller) in [
                ("auth", "validation"), ("auth", "heroes"), ("auth", "gateway"), ("validation", "gateway"),
                ("heroes", "gateway"),
            ] {
                try FileManager.default.copyItem(
                    atPath: try state(server).file("curve.pub"),
                    toPath: try state(caller).file("\(server).pub"))
            }

            func start(_ name: String, _ executable: String, _ options: (String) throws -> [String])
                async throws -> ServiceChild
            {
                guard let server = servers[name] else {
                    throw BenchmarkError(description: "no keys for \(name)")
                }
                var attempt = 0
                while true {
                    attempt += 1
                    let endpoint = "tcp://127.0.0.1:\(try freeLoopbackPort())"
                    let log = "\(directory)/\(name).log"
                    do {
                        let child = try await ServiceChild(
                            name: executable, executable: "\(bin)/\(executable)",
                            arguments: [
                                "--state-dir", try state(name).path, "--endpoint", endpoint, "--curve", "on",
                                "--log-level", "notice",
                            ] + (try options(try state(name).path)) + (arguments[name] ?? []),
                            endpoint: endpoint, logPath: log,
                            curve: RemoteClient.Curve(serverKey: server.publicKey, keys: own),
                            readyWithin: .seconds(60))
                        started.append(child)
                        return child
                    } catch {
                        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                        if attempt < 5, text.contains("in use") { continue }
                        throw error
                    }
                }
            }

            let auth = try await start("auth", "auth-service") { _ in [] }
            let validation = try await start("validation", "validation-service") { state in
                ["--auth-endpoint", auth.endpoint, "--auth-public-key", "\(state)/auth.pub"]
            }
            let heroes = try await start("heroes", "hero-catalog-service") { state in
                ["--auth-endpoint", auth.endpoint, "--auth-public-key", "\(state)/auth.pub"]
            }
            let gateway = try await start("gateway", "gateway") { state in
                [
                    "--auth-endpoint", auth.endpoint, "--auth-public-key", "\(state)/auth.pub",
                    "--validation-endpoint", validation.endpoint, "--validation-public-key",
                    "\(state)/validation.pub", "--heroes-endpoint", heroes.endpoint, "--heroes-public-key",
                    "\(state)/heroes.pub",
                ]
            }
            guard let gatewayKey = servers["gateway"]?.publicKey else {
                throw BenchmarkError(description: "no gateway key")
            }
            return StackUnderTest(
                directory: directory, auth: auth, validation: validation, heroes: heroes, gateway: gateway,
                gatewayKey: gatewayKey)
        } catch {
            for child in started.reversed() { await child.stop() }
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    /// A new end client of the gateway (own key pair, own connection to each of its shards), on
    /// `context`, once it is connected to every shard (at most 10 s), so that the channels it opens
    /// next spread over all of them. A gateway without `sys.endpoints` (an older build) has one.
    func endClient(context: Context, name: String) async throws -> RemoteClient {
        let client = try RemoteClient(
            context: context,
            configuration: .init(
                endpoints: [gateway.endpoint], deadline: .seconds(30), name: name,
                curve: RemoteClient.Curve(serverKey: gatewayKey, keys: try CurveKeyPair.generate()),
                discoversShards: true))
        guard let shards = try? await client.request(Methods.System.endpoints).value.endpoints.count else {
            return client
        }
        let end = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < end, !(0..<shards).allSatisfy({ client.isConnected(replica: $0) }) {
            try await Task.sleep(for: .milliseconds(10))
        }
        return client
    }

    /// Stops the gateway, then the services, by pid; removes the directory (kept, with the logs, when
    /// `keep`).
    func stop(keep: Bool = false) async {
        await gateway.stop()
        await heroes.stop()
        await validation.stop()
        await auth.stop()
        if keep {
            print("logs and state kept in \(directory)")
        } else {
            try? FileManager.default.removeItem(atPath: directory)
        }
    }
}
