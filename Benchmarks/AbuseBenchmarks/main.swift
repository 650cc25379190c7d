// make bench-abuse: what one client that does not read costs everyone else, side by side with the
// same server idle, in one run (docs/BENCHMARKS.md, "Abuse").
//
// For auth-service and validation-service (release builds, started here as real processes, CURVE
// off so that a raw DEALER can speak to them): `sys.health` latencies from a well-behaved client on
// the idle server; then a raw DEALER sends --flood requests and never reads its answers, and the
// same client's latencies are measured while the server works through the flood and once that
// client has been cut off (it went over its queue bound); resident memory before and after. Last,
// how long a closed connection's open stream lives on (auth.events, then the DEALER closes).

import BenchmarkSupport
import Contracts
import Dispatch
import Foundation
import Measuring
import RemoteProtocol
import RemoteStreams
import ZeroMQ

struct Options {
    var bin = ""
    var calls = 500
    var flood = 60_000

    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var index = 0
        func value() -> String {
            index += 1
            guard index < arguments.count else {
                print("\(arguments[index - 1]) needs a value")
                exit(64)
            }
            return arguments[index]
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--bin": options.bin = value()
            case "--calls": options.calls = max(10, Int(value()) ?? options.calls)
            case "--flood": options.flood = max(1_000, Int(value()) ?? options.flood)
            case "--help", "-h":
                print(
                    "usage: AbuseBenchmarks --bin DIR [--calls N (500)] [--flood N (60000)]\n"
                        + "DIR holds release builds of auth-service and validation-service.")
                exit(0)
            default:
                print("unknown argument \(arguments[index]) (try --help)")
                exit(64)
            }
            index += 1
        }
        guard !options.bin.isEmpty else {
            print("--bin DIR is required (try --help)")
            exit(64)
        }
        return options
    }
}

/// Latencies of sequential `sys.health` calls, in microseconds, sorted; and the calls that failed
/// (a 1 s deadline, as a load balancer's probe would have).
struct Latencies {
    var sorted: [Double] = []
    var failures = 0

    static func measure(_ client: RemoteClient, calls: Int) async -> Latencies {
        var result = Latencies()
        for _ in 0..<calls {
            let start = monotonicNanoseconds()
            do {
                _ = try await client.request(Methods.System.health, deadline: .seconds(1)).value
                result.sorted.append(Double(monotonicNanoseconds() - start) / 1_000)
            } catch {
                result.failures += 1
            }
        }
        result.sorted.sort()
        return result
    }

    func percentile(_ fraction: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }
}

/// A DEALER on a thread of its own that sends its messages and reads nothing until it is closed;
/// its receive queue (5) and TCP buffer (4 KiB) are small, so the answers back up into the server.
final class SilentDealer: Sendable {
    private let sent = DispatchSemaphore(value: 0)
    private let closeRequested = DispatchSemaphore(value: 0)
    private let closed = DispatchSemaphore(value: 0)

    init(context: Context, endpoint: String, messages: [[[UInt8]]]) {
        let thread = Thread { [sent, closeRequested, closed] in
            if let dealer = try? Socket(context, .dealer, linger: 0) {
                try? dealer.set(.receiveHighWaterMark, 5)
                try? dealer.set(.receiveBuffer, 4_096)
                try? dealer.set(.sendHighWaterMark, 0)
                if (try? dealer.connect(endpoint)) != nil {
                    for message in messages { _ = try? dealer.send(parts: message) }
                }
                sent.signal()
                closeRequested.wait()
                dealer.close(linger: 0)
            } else {
                sent.signal()
                closeRequested.wait()
            }
            closed.signal()
        }
        thread.start()
    }

    func waitUntilSent() async { await Self.wait(sent) }

    func close() async {
        closeRequested.signal()
        await Self.wait(closed)
    }

    private static func wait(_ semaphore: DispatchSemaphore) async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                semaphore.wait()
                continuation.resume()
            }
        }
    }
}

/// The `transport` counters of a service.
func transport(_ service: ServiceChild) async -> [String: Int] {
    ((try? await service.stats()) ?? [:])["transport"] ?? [:]
}

/// Polls (each poll a `sys.stats` round trip) until `condition` holds or `limit` passes; the
/// time it took in milliseconds, nil on timeout.
func poll(_ service: ServiceChild, within limit: Duration, until condition: ([String: Int]) -> Bool) async
    -> Double?
{
    let start = monotonicNanoseconds()
    let end = ContinuousClock.now + limit
    while ContinuousClock.now < end {
        if condition(await transport(service)) { return Double(monotonicNanoseconds() - start) / 1e6 }
    }
    return nil
}

struct Row {
    var service: String
    var idle: Latencies
    var flooded: Latencies
    var cutOff: Latencies
    var memoryBefore: Int
    var memoryAfter: Int
    var counters: [String: Int]
    var disposedMilliseconds: Double?
}

func measure(service: ServiceChild, options: Options, streamMethod: String?) async throws -> Row {
    _ = await Latencies.measure(service.client, calls: 100)
    let idle = await Latencies.measure(service.client, calls: options.calls)
    let before = try service.residentKiB()
    let codec = FrameCodec()
    let flood = try (1...options.flood).map { id in
        codec.encode(try Frame.request(stream: UInt64(id), method: Methods.System.health.name))
    }
    let silent = SilentDealer(context: try Context(), endpoint: service.endpoint, messages: flood)
    await silent.waitUntilSent()
    let flooded = await Latencies.measure(service.client, calls: options.calls)
    _ = await poll(service, within: .seconds(30)) { $0["client_overflows", default: 0] >= 1 }
    let cutOff = await Latencies.measure(service.client, calls: options.calls)
    let after = try service.residentKiB()
    let counters = await transport(service)
    await silent.close()

    var disposed: Double?
    if let streamMethod {
        let baseline = await transport(service)["open_streams", default: 0]
        let opening = codec.encode(try Frame.subscribe(stream: 1, method: streamMethod))
        let peer = SilentDealer(context: try Context(), endpoint: service.endpoint, messages: [opening])
        await peer.waitUntilSent()
        _ = await poll(service, within: .seconds(10)) { $0["open_streams", default: 0] > baseline }
        let closedAt = monotonicNanoseconds()
        await peer.close()
        if await poll(service, within: .seconds(30), until: { $0["open_streams", default: 0] <= baseline }) != nil {
            disposed = Double(monotonicNanoseconds() - closedAt) / 1e6
        }
    }
    return Row(
        service: service.name, idle: idle, flooded: flooded, cutOff: cutOff, memoryBefore: before,
        memoryAfter: after, counters: counters, disposedMilliseconds: disposed)
}

func microseconds(_ value: Double) -> String { value.isNaN ? "-" : grouped(value) }

let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
stopChildrenOnSignals()
let directory = try makeTemporaryDirectory(prefix: "bench-abuse")
defer { try? FileManager.default.removeItem(atPath: directory) }
print("make bench-abuse: \(options.calls) sys.health calls per phase, a flood of \(options.flood) unread requests")
print("load average before: \(loadAverage())")

var rows: [Row] = []
do {
    let authEndpoint = "tcp://127.0.0.1:\(try freeLoopbackPort())"
    let auth = try await ServiceChild(
        name: "auth-service", executable: options.bin + "/auth-service",
        arguments: [
            "--state-dir", directory + "/auth", "--endpoint", authEndpoint, "--curve", "off", "--hash-cost", "test",
            "--log-level", "notice",
        ], endpoint: authEndpoint, logPath: directory + "/auth.log")
    rows.append(try await measure(service: auth, options: options, streamMethod: Methods.Auth.events.name))
    let validationEndpoint = "tcp://127.0.0.1:\(try freeLoopbackPort())"
    let validation = try await ServiceChild(
        name: "validation-service", executable: options.bin + "/validation-service",
        arguments: [
            "--state-dir", directory + "/validation", "--endpoint", validationEndpoint, "--curve", "off",
            "--auth-curve", "off", "--auth-endpoint", authEndpoint, "--log-level", "notice",
        ], endpoint: validationEndpoint, logPath: directory + "/validation.log")
    rows.append(try await measure(service: validation, options: options, streamMethod: nil))
    await validation.stop()
    await auth.stop()
} catch {
    print("bench-abuse failed: \(error)")
    exit(1)
}

print("")
print(
    "| server | idle p50 µs | idle p99 µs | flood p50 | flood p99 | × idle p99 | cut off p50 | cut off p99 | × idle p99 | timeouts | RSS KiB before → after | overflows | queued | closed stream gone after |"
)
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for row in rows {
    let idle99 = row.idle.percentile(0.99)
    print(
        "| \(row.service) | \(microseconds(row.idle.percentile(0.5))) | \(microseconds(idle99)) "
            + "| \(microseconds(row.flooded.percentile(0.5))) | \(microseconds(row.flooded.percentile(0.99))) "
            + "| \(fixed(row.flooded.percentile(0.99) / idle99, 2)) "
            + "| \(microseconds(row.cutOff.percentile(0.5))) | \(microseconds(row.cutOff.percentile(0.99))) "
            + "| \(fixed(row.cutOff.percentile(0.99) / idle99, 2)) "
            + "| \(row.idle.failures + row.flooded.failures + row.cutOff.failures) "
            + "| \(grouped(Double(row.memoryBefore))) → \(grouped(Double(row.memoryAfter))) "
            + "| \(row.counters["client_overflows", default: 0]) | \(row.counters["queued_for_blocked_clients", default: 0]) "
            + "| \(row.disposedMilliseconds.map { fixed($0, 1) + " ms" } ?? "-") |")
}
print("load average after: \(loadAverage())")
