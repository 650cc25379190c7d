// `make bench-transport`: DEALER/ROUTER round trips over tcp loopback, in one run and side by side:
//   (1) the C program on raw libzmq (raw/raw_roundtrip.c), the limit;
//   (2) the same method through the `ZeroMQ` wrapper, with the server on a `SocketLoop` (as a service
//       runs it) and, for reference, as a plain blocking echo loop;
//   (3) request/response through `RemoteStreams` with a five-string JSON payload, (4) the same
//       with the empty body `{}`, and (4m) row (4) with metrics on (every call counted and timed,
//       the exposition collected and rendered every second).
// Each with 1 and 64 requests in flight; round trips per second, p50 and p99 latency (send to
// reply, monotonic clock) and each row's ratio to (1). The goals are in docs/BENCHMARKS.md.
//
// The contenders run in turn, `--rounds` times, so load from other processes hits them alike; the
// table keeps each row's best round per in-flight setting. Every run prints a `RESULT` line first.
//
// A further contender is one more entry in `contenders`: a function `(Budget) throws ->
// [Measurement]` returning one measurement per `Budget.inFlightSettings`, in that order
// (`Measurement(inFlight:latencies:elapsedNanoseconds:cpu:)` computes the figures from raw latencies
// the same way for every row; `awaitOnPool` runs an async client from this synchronous top level).
//
// Usage: TransportBenchmarks --raw PATH [--count1 N] [--count64 N] [--seconds S] [--rounds N]
//                            [--only SERVER[,SERVER...]] [--baseline PATH]
// `--only socketloop` (or `blocking`, `remotestreams`: rows (3) and (4)) measures only those
// contenders after (1), as does a row's `impl` (`--only swift-remotestreams-empty`: row (4));
// `--raw none` leaves (1) out too (the table's ratios are then to the first
// row measured): handy under a profiler that cannot follow the C program. `--baseline PATH` adds
// rows (3) and (4) of an older build of this program (`make bench-transport
// BENCH_TRANSPORT_BASELINE=<git ref>` builds one), measured in turn with the others, for A/B runs;
// this build's rows (3) and (4) then run in a child process of their own too, as the baseline's do.

import Foundation
import Measuring

/// One row group of the table: a label and the function that measures it.
struct Contender {
    /// The row's label.
    let label: String
    /// The `impl` field of its `RESULT` lines.
    let implementation: String
    /// The `server` field of its `RESULT` lines (what `--only` selects).
    let server: String
    /// Measures every in-flight setting, in the order of `Budget.inFlightSettings`.
    var measure: (Budget) throws -> [Measurement]
}

func usage() -> Never {
    print(
        "usage: TransportBenchmarks --raw PATH [--count1 N] [--count64 N] [--seconds S] [--rounds N] "
            + "[--only SERVER[,SERVER...]] [--baseline PATH]")
    exit(2)
}

var budget = Budget()
var rawExecutable: String?
var only: String?
var rounds = 5
var baseline: ChildRows?
var arguments = CommandLine.arguments.dropFirst()
while let option = arguments.popFirst() {
    guard option != "--help" && option != "-h", let value = arguments.popFirst() else { usage() }
    switch option {
    case "--raw": rawExecutable = value
    case "--count1": budget.roundTripsOneInFlight = Int(value) ?? 0
    case "--count64": budget.roundTripsManyInFlight = Int(value) ?? 0
    case "--seconds": budget.seconds = Double(value) ?? 0
    case "--only": only = value
    case "--rounds": rounds = Int(value) ?? 0
    case "--baseline": baseline = ChildRows(executable: value)
    default: usage()
    }
}
guard let rawExecutable, budget.roundTripsOneInFlight > 0, budget.roundTripsManyInFlight > 0,
    budget.seconds > 0, rounds > 0
else { usage() }

var contenders = [
    Contender(
        label: "(1) raw libzmq, C", implementation: "raw-c", server: "blocking",
        measure: { try rawBaseline(executable: rawExecutable, budget: $0) }),
    Contender(
        label: "(2) ZeroMQ, SocketLoop server", implementation: "swift-zeromq", server: "socketloop",
        measure: wrapperWithSocketLoop),
    Contender(
        label: "(2) ZeroMQ, blocking server", implementation: "swift-zeromq", server: "blocking",
        measure: wrapperWithBlockingServer),
    Contender(
        label: "(3) RemoteStreams request, JSON", implementation: "swift-remotestreams",
        server: "remotestreams", measure: remoteStreamsRequests),
    Contender(
        label: "(4) RemoteStreams request, {}", implementation: "swift-remotestreams-empty",
        server: "remotestreams", measure: remoteStreamsEmptyRequests),
    Contender(
        label: "(4m) {}, metrics on", implementation: "swift-remotestreams-empty-metrics",
        server: "remotestreams", measure: remoteStreamsEmptyRequestsWithMetrics),
]
if let baseline {
    // This build's rows (3) and (4) run as a child too, like the baseline's.
    let own = ChildRows(executable: URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path)
    for index in contenders.indices where contenders[index].server == "remotestreams" {
        let implementation = contenders[index].implementation
        contenders[index].measure = { try own.measure(implementation, budget: $0) }
    }
    contenders += [
        Contender(
            label: "(3) JSON, baseline build", implementation: "baseline-remotestreams",
            server: "remotestreams",
            measure: { try baseline.measure("swift-remotestreams", budget: $0) }),
        Contender(
            label: "(4) {}, baseline build", implementation: "baseline-remotestreams-empty",
            server: "remotestreams",
            measure: { try baseline.measure("swift-remotestreams-empty", budget: $0) }),
    ]
}

print(
    "DEALER/ROUTER round trips over tcp://127.0.0.1, \(payloadSize)-byte requests; each run bounded by "
        + "\(budget.roundTripsOneInFlight) / \(budget.roundTripsManyInFlight) round trips (1 / "
        + "\(Budget.manyInFlight) in flight) and \(fixed(budget.seconds, 1)) s, after "
        + "\(budget.warmUp) warm-up round trips")
let selected = contenders.enumerated().filter { index, contender in
    if index == 0 { return rawExecutable != "none" }
    return only.map { names in
        names.split(separator: ",").contains { $0 == contender.server || $0 == contender.implementation }
    } ?? true
}.map(\.element)
// Rounds interleave the contenders, so load from other processes hits them alike; each row keeps its
// best round per in-flight setting (the highest rate, with that round's latencies).
var best: [[Measurement]] = Array(repeating: [], count: selected.count)
do {
    for round in 1...rounds {
        print("round \(round) of \(rounds)")
        for (index, contender) in selected.enumerated() {
            let results = try contender.measure(budget)
            precondition(
                results.map(\.inFlight) == Budget.inFlightSettings, "\(contender.label): wrong settings")
            for result in results {
                print(result.resultLine(implementation: contender.implementation, server: contender.server))
            }
            best[index] =
                best[index].isEmpty ? results : zip(best[index], results).map { $0.rate >= $1.rate ? $0 : $1 }
        }
    }
} catch {
    print("error: \(error)")
    exit(1)
}
print()
print("Best of \(rounds) rounds:")
print(table(zip(selected, best).map { ($0.label, $1) }))
print(
    "×(1): the row's rate over (1)'s. Goals: (2) at least 0.90 of (1); with 64 in flight (3) at least "
        + "0.40 and (4) at least 0.50 of (1), (3)'s CPU per round trip at most 3x (1)'s; (3)'s p50 with 1 in "
        + "flight within 1.2x of (1)'s.")
