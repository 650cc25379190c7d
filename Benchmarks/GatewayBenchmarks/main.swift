// The gateway through the whole stack: auth-service, validation-service,
// hero-catalog-service and the gateway started as real processes with CURVE (as `make run` does), on
// tcp loopback, and measured from end clients of the gateway:
//
//   (0) reference: `validate.phone` requests straight to validation-service, 1 in flight
//   (1) flow.login: a phone keystroke → the `phone` output, 1 channel
//   (2) the same on 1,000 channels at once (each one keystroke in flight), over a few connections
//   (2b) the same 1,000 channels, each typing at a person's pace (a keystroke every 200 ms)
//   (3) flow.register: a username keystroke → the final `username` output (validation-service asks
//       auth-service with auth.exists), 1 channel
//   memory per idle flow.login channel: VmRSS of the gateway and of validation-service (each login
//       channel holds a validate.fields channel there) before and after opening 1,000 and 5,000
//
// Usage: GatewayBenchmarks [--bin DIR] [--seconds S] [--warmup W] [--keystrokes N] [--channels C]
//                          [--clients K] [--pace MS] [--idle N,N] [--cycles N] [--keep]
//                          [--only idle,reference,login1,loginN,paced,register] [--gateway-arg A]...
//                          [--loops N]
//   --bin         where the four binaries are (default: next to this one)
//   --seconds     measured seconds per run (default 5); --warmup seconds before it (default 1)
//   --keystrokes  most keystrokes per channel in a run (default 100000)
//   --channels    channels of run (2) (default 1000), over --clients connections (default 2)
//   --idle        idle channel counts for the memory rows, cumulative (default 1000,5000)
//   --pace        run (2b): the same channels, each typing a keystroke every --pace ms (default 200:
//                 5 keystrokes per second, a fast typist)
//   --cycles      idle rows: close every channel and open as many again, this many times (default 2)
//   --keep        keep the temp directory (state and logs) at the end
//   --gateway-arg A  one more argument for the gateway (repeat it: --gateway-arg
//                 --validation-connections --gateway-arg 1)
//   --loops N     every process's shards (`--loops N` for the four; default: their own);
//                 the end clients connect to every shard of the gateway (`sys.endpoints`), as the
//                 gateway does to the services'; a --baseline build must know the option too
//   --baseline DIR  A/B: the same four binaries of another build (the commit before a change) in DIR;
//                 both stacks run, the keystroke rows are measured on each in turn, --rounds times
//                 (default 3, the order alternating), and a table shows each row's best round of the
//                 old and the new build side by side with the ratio new/old (the idle rows are the
//                 new build's alone)
//   --metrics     A/B of metrics: as --baseline, with this build on both sides: "old" with metrics
//                 off, "new" with `--metrics-listen` on all four, each scraped (/metrics fetched
//                 and read) once a second during the runs, as a Prometheus with a 1 s interval does
//   --trace-sample R  A/B of tracing, the same way: "old" untraced, "new" with `--trace-sample R` on
//                 all four and every span written to a trace file each (the export's full cost)

import BenchmarkSupport
import Contracts
import Foundation
import Measuring
import Reactive
import RemoteStreams
import ZeroMQ

/// The command line.
struct Options {
    var bin = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
    var seconds = 5.0
    var warmup = 1.0
    var keystrokes = 100_000
    var channels = 1_000
    var clients = 2
    var idle = [1_000, 5_000]
    var only: Set<String> = ["idle", "reference", "login1", "loginN", "paced", "register"]
    var keep = false
    var gatewayArguments: [String] = []
    /// `--loops` for the four processes; nil: their default.
    var loops: Int?
    var cycles = 2
    var pace = 200.0
    var baseline: String?
    var rounds = 3
    /// A/B of metrics off and on, this build on both sides.
    var metrics = false
    /// A/B of tracing off and on at this ratio, this build on both sides.
    var traceSample: Double?

    /// Parses the arguments (without the program name).
    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var index = 0
        func value() throws -> String {
            index += 1
            guard index < arguments.count else {
                throw BenchmarkError(description: "\(arguments[index - 1]) needs a value")
            }
            return arguments[index]
        }
        func number(_ text: String, _ range: ClosedRange<Double>) throws -> Double {
            guard let number = Double(text), range.contains(number) else {
                throw BenchmarkError(
                    description: "\(arguments[index - 1]) takes a number in \(range), not \(text)")
            }
            return number
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--bin": options.bin = try value()
            case "--seconds": options.seconds = try number(try value(), 0.1...600)
            case "--warmup": options.warmup = try number(try value(), 0...60)
            case "--keystrokes": options.keystrokes = Int(try number(try value(), 1...100_000_000))
            case "--channels": options.channels = Int(try number(try value(), 1...100_000))
            case "--clients": options.clients = Int(try number(try value(), 1...100))
            case "--idle":
                options.idle = try value().split(separator: ",").map {
                    Int(try number(String($0), 1...100_000))
                }
            case "--only":
                let known: Set<String> = ["idle", "reference", "login1", "loginN", "paced", "register"]
                options.only = Set(try value().split(separator: ",").map(String.init))
                guard options.only.isSubset(of: known) else {
                    throw BenchmarkError(description: "--only takes \(known.sorted().joined(separator: ","))")
                }
            case "--keep": options.keep = true
            case "--gateway-arg": options.gatewayArguments.append(try value())
            case "--loops": options.loops = Int(try number(try value(), 1...256))
            case "--cycles": options.cycles = Int(try number(try value(), 1...100))
            case "--pace": options.pace = try number(try value(), 0...60_000)
            case "--baseline": options.baseline = try value()
            case "--rounds": options.rounds = Int(try number(try value(), 1...20))
            case "--metrics": options.metrics = true
            case "--trace-sample": options.traceSample = try number(try value(), 0...1)
            case let other: throw BenchmarkError(description: "unknown option \(other)")
            }
            index += 1
        }
        return options
    }
}

/// The figures of one keystroke run.
struct Row {
    var label: String
    var count = 0
    var seconds = 0.0
    var p50 = 0.0
    var p99 = 0.0
    var gatewayCPU = 0.0
    var validationCPU = 0.0
    var authCPU = 0.0
    var ownCPU = 0.0
    var gatewaySwitches = 0.0
    var validationSwitches = 0.0

    /// Events per second.
    var rate: Double { seconds > 0 ? Double(count) / seconds : 0 }
}

/// The p50 and p99 of `samples` (nanoseconds), in milliseconds.
func percentiles(_ samples: [UInt64]) -> (p50: Double, p99: Double) {
    guard !samples.isEmpty else { return (0, 0) }
    let sorted = samples.sorted()
    func at(_ fraction: Double) -> Double {
        let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
        return Double(sorted[min(max(rank, 0), sorted.count - 1)]) / 1e6
    }
    return (at(0.5), at(0.99))
}

/// Runs one closed-loop measurement: `start` sets the participants going; after the warm-up the
/// latencies are recorded for `seconds` (or until every participant reached its count), then the
/// participants are asked to stop and awaited.
func measure(
    _ label: String, participants: Int, control: RunControl, stack: StackUnderTest, options: Options,
    start: () -> Void, samples: () -> [UInt64]
) async throws -> Row {
    start()
    let warmupEnd = monotonicNanoseconds() + UInt64(options.warmup * 1e9)
    while monotonicNanoseconds() < warmupEnd && control.finished.load(ordering: .relaxed) < participants {
        try await Task.sleep(for: .milliseconds(10))
    }
    let cpu = (
        try stack.gateway.cpuTime(), try stack.validation.cpuTime(), try stack.auth.cpuTime(), ownCPUTime()
    )
    let switches = (
        contextSwitches(ofProcess: stack.gateway.pid) ?? 0,
        contextSwitches(ofProcess: stack.validation.pid) ?? 0
    )
    let began = monotonicNanoseconds()
    control.recording.store(true, ordering: .relaxed)
    let end = began + UInt64(options.seconds * 1e9)
    while monotonicNanoseconds() < end && control.finished.load(ordering: .relaxed) < participants {
        try await Task.sleep(for: .milliseconds(10))
    }
    control.stopping.store(true, ordering: .relaxed)
    let ended = monotonicNanoseconds()
    let spent = (
        try stack.gateway.cpuTime().since(cpu.0), try stack.validation.cpuTime().since(cpu.1),
        try stack.auth.cpuTime().since(cpu.2), ownCPUTime().since(cpu.3)
    )
    // Threads that exit take their counts with them: a count can only be a lower bound.
    let switched = (
        max(0, (contextSwitches(ofProcess: stack.gateway.pid) ?? 0) - switches.0),
        max(0, (contextSwitches(ofProcess: stack.validation.pid) ?? 0) - switches.1)
    )
    let drainEnd = monotonicNanoseconds() + 15_000_000_000
    while control.finished.load(ordering: .relaxed) < participants && monotonicNanoseconds() < drainEnd {
        try await Task.sleep(for: .milliseconds(10))
    }
    control.recording.store(false, ordering: .relaxed)
    if let failure = control.failureMessages.first {
        throw BenchmarkError(description: "\(label): \(failure)")
    }
    let finished = control.finished.load(ordering: .relaxed)
    guard finished == participants else {
        throw BenchmarkError(
            description: "\(label): \(participants - finished) of \(participants) never answered")
    }
    let recorded = samples()
    let (p50, p99) = percentiles(recorded)
    let seconds = Double(ended - began) / 1e9
    let count = recorded.count
    let row = Row(
        label: label, count: count, seconds: seconds, p50: p50, p99: p99,
        gatewayCPU: spent.0.total * 1e6 / Double(max(count, 1)),
        validationCPU: spent.1.total * 1e6 / Double(max(count, 1)),
        authCPU: spent.2.total * 1e6 / Double(max(count, 1)),
        ownCPU: spent.3.total * 1e6 / Double(max(count, 1)),
        gatewaySwitches: Double(switched.0) / Double(max(count, 1)),
        validationSwitches: Double(switched.1) / Double(max(count, 1)))
    print(
        "RESULT row=\"\(label)\" count=\(count) seconds=\(fixed(seconds, 3)) rate=\(fixed(row.rate, 1))"
            + " p50_ms=\(fixed(p50, 3)) p99_ms=\(fixed(p99, 3))"
            + " cpu_us_per_event gateway=\(fixed(row.gatewayCPU, 1))"
            + " validation=\(fixed(row.validationCPU, 1))"
            + " auth=\(fixed(row.authCPU, 1)) benchmark=\(fixed(row.ownCPU, 1))"
            + " context_switches_per_event gateway=\(fixed(row.gatewaySwitches, 1))"
            + " validation=\(fixed(row.validationSwitches, 1))"
            + " busy_cores gateway=\(fixed(spent.0.total / seconds, 2))"
            + " validation=\(fixed(spent.1.total / seconds, 2))"
            + " benchmark=\(fixed(spent.3.total / seconds, 2))"
    )
    return row
}

/// Opens `count` channels of `script` spread over `clients` (round robin) and waits until each
/// screen is drawn.
func openChannels(
    _ count: Int, script: KeystrokeScript, clients: [RemoteClient], control: RunControl, limit: Int,
    alreadyOpen: Int = 0
) async throws -> [KeystrokeChannel] {
    var channels: [KeystrokeChannel] = []
    channels.reserveCapacity(count)
    for index in 0..<count {
        channels.append(
            KeystrokeChannel(
                client: clients[(alreadyOpen + index) % clients.count], script: script, control: control,
                limit: limit))
    }
    let deadline = monotonicNanoseconds() + 120_000_000_000
    while control.opened.load(ordering: .relaxed) < alreadyOpen + count {
        if let failure = control.failureMessages.first { throw BenchmarkError(description: failure) }
        guard monotonicNanoseconds() < deadline else {
            throw BenchmarkError(
                description: "only \(control.opened.load(ordering: .relaxed)) of \(alreadyOpen + count) "
                    + "\(script.method) channels opened within 120 s")
        }
        try await Task.sleep(for: .milliseconds(10))
    }
    return channels
}

/// The `open_streams` counter of a service (summed over its groups that have one).
func openStreams(_ service: ServiceChild) async throws -> Int {
    try await service.stats().values.compactMap { $0["open_streams"] }.reduce(0, +)
}

/// Waits until `service` has at least `count` streams open (at most `limit`); returns how many it has.
func waitForOpenStreams(_ service: ServiceChild, atLeast count: Int, within limit: Duration) async throws
    -> Int
{
    let end = ContinuousClock.now + limit
    var open = try await openStreams(service)
    while open < count && ContinuousClock.now < end {
        try await Task.sleep(for: .milliseconds(100))
        open = try await openStreams(service)
    }
    return open
}

/// Waits until `service` has at most `count` streams open (at most `limit`); returns how many it has.
func waitForOpenStreams(_ service: ServiceChild, atMost count: Int, within limit: Duration) async throws
    -> Int
{
    let end = ContinuousClock.now + limit
    var open = try await openStreams(service)
    while open > count && ContinuousClock.now < end {
        try await Task.sleep(for: .milliseconds(100))
        open = try await openStreams(service)
    }
    return open
}

/// Resident memory of both processes, in KiB, read after `settle`.
func resident(_ stack: StackUnderTest, settle: Duration = .seconds(1)) async throws -> (
    gateway: Int, validation: Int
) {
    try await Task.sleep(for: settle)
    return (try stack.gateway.residentKiB(), try stack.validation.residentKiB())
}

/// `12,345 KiB`.
func kib(_ value: Int) -> String { "\(grouped(Double(value))) KiB" }

/// The keystroke rows (0), (1), (2), (2b) and (3) that `options.only` selects, measured on `stack`.
func keystrokeRows(_ stack: StackUnderTest, context: Context, options: Options) async throws -> [String: Row]
{
    var rows: [String: Row] = [:]
    if options.only.contains("reference") {
        let control = RunControl()
        let loop = ReferenceLoop(client: stack.validation.client, control: control, limit: options.keystrokes)
        rows["reference"] = try await measure(
            "validate.phone, straight to validation-service, 1 in flight", participants: 1, control: control,
            stack: stack, options: options, start: { loop.start() }, samples: { loop.samples })
    }

    if options.only.contains("login1") {
        let control = RunControl()
        let client = try await stack.endClient(context: context, name: "bench-login1")
        let channels = try await openChannels(
            1, script: .loginPhone, clients: [client], control: control, limit: options.keystrokes)
        rows["login1"] = try await measure(
            "flow.login phone keystroke, 1 channel", participants: 1, control: control, stack: stack,
            options: options, start: { channels[0].start() }, samples: { channels[0].samples })
        channels[0].close()
        await client.stop()
    }

    // Before the 1,000-channel rows: a flow.register channel opened right after those close does not
    // open (both builds; see docs/BENCHMARKS.md, "Gateway").
    if options.only.contains("register") {
        let taken = "benchtaken"
        let registered = try await stack.auth.client.request(
            Methods.Auth.register, RegisterRequest(username: taken, password: "benchmark password")
        ).value
        print("  registered \(taken) for the username row: \(registered)")
        let existsBefore = try await stack.auth.stats()
        let control = RunControl()
        let client = try await stack.endClient(context: context, name: "bench-register")
        let channels = try await openChannels(
            1, script: .registerUsername(free: "benchfree", taken: taken), clients: [client],
            control: control,
            limit: options.keystrokes)
        let row = try await measure(
            "flow.register username keystroke (auth.exists behind it), 1 channel", participants: 1,
            control: control, stack: stack, options: options, start: { channels[0].start() },
            samples: { channels[0].samples })
        let existsAfter = try await stack.auth.stats()
        let typed = channels[0].keystrokes
        channels[0].close()
        await client.stop()
        var deltas: [String] = []
        for (group, counters) in existsAfter.sorted(by: { $0.key < $1.key }) {
            for (name, value) in counters.sorted(by: { $0.key < $1.key }) where name.contains("exists") {
                deltas.append("\(group).\(name)+\(value - (existsBefore[group]?[name] ?? 0))")
            }
        }
        print("  auth-service counters over \(typed) username keystrokes: \(deltas.joined(separator: " "))")
        rows["register"] = row
    }
    if options.only.contains("loginN") {
        let control = RunControl()
        var clients: [RemoteClient] = []
        for index in 0..<options.clients {
            clients.append(try await stack.endClient(context: context, name: "bench-login-\(index)"))
        }
        let channels = try await openChannels(
            options.channels, script: .loginPhone, clients: clients, control: control,
            limit: options.keystrokes)
        rows["loginN"] = try await measure(
            "flow.login phone keystroke, \(grouped(Double(options.channels))) channels",
            participants: options.channels,
            control: control, stack: stack, options: options,
            start: { for channel in channels { channel.start() } },
            samples: { channels.flatMap(\.samples) })
        for channel in channels { channel.close() }
        for client in clients { await client.stop() }
    }

    if options.only.contains("paced") {
        let control = RunControl()
        var clients: [RemoteClient] = []
        for index in 0..<options.clients {
            clients.append(try await stack.endClient(context: context, name: "bench-paced-\(index)"))
        }
        let pace = UInt64(options.pace * 1e6)
        var channels: [KeystrokeChannel] = []
        for index in 0..<options.channels {
            channels.append(
                KeystrokeChannel(
                    client: clients[index % clients.count], script: .loginPhone, control: control,
                    limit: options.keystrokes, pace: pace))
        }
        let deadline = ContinuousClock.now + .seconds(120)
        while control.opened.load(ordering: .relaxed) < options.channels && ContinuousClock.now < deadline {
            if let failure = control.failureMessages.first { throw BenchmarkError(description: failure) }
            try await Task.sleep(for: .milliseconds(10))
        }
        rows["paced"] = try await measure(
            "flow.login phone keystroke, \(grouped(Double(options.channels))) channels, one keystroke per "
                + "\(fixed(options.pace, 0)) ms each", participants: options.channels, control: control,
            stack: stack, options: options, start: { for channel in channels { channel.start() } },
            samples: { channels.flatMap(\.samples) })
        for channel in channels { channel.close() }
        for client in clients { await client.stop() }
    }

    return rows
}

/// A/B: the keystroke rows on `stack` (this build) and on a stack of `baseline`'s binaries, in turn,
/// `options.rounds` times; prints each side's best round of each row (lowest p50) and their ratio.
/// Returns this build's rows.
func compare(
    _ stack: StackUnderTest, with baseline: String, arguments: [String: [String]],
    sides: (old: String, new: String),
    context: Context, options: Options
) async throws -> [String: Row] {
    let old = try await StackUnderTest.start(bin: baseline, arguments: arguments)
    var best: [String: (old: Row?, new: Row?)] = [:]
    func keep(_ rows: [String: Row], new: Bool) {
        for (name, row) in rows {
            var pair = best[name] ?? (nil, nil)
            if new {
                if pair.new.map({ row.p50 < $0.p50 }) ?? true { pair.new = row }
            } else if pair.old.map({ row.p50 < $0.p50 }) ?? true {
                pair.old = row
            }
            best[name] = pair
        }
    }
    do {
        for round in 1...options.rounds {
            let newFirst = round % 2 == 1
            for new in newFirst ? [true, false] : [false, true] {
                print("  round \(round): \(new ? sides.new : sides.old)")
                keep(try await keystrokeRows(new ? stack : old, context: context, options: options), new: new)
            }
        }
    } catch {
        await old.stop(keep: true)
        throw error
    }
    await old.stop(keep: false)
    print("")
    print("A/B, best of \(options.rounds) rounds each (old: \(sides.old); new: \(sides.new)):")
    print(
        "| row | build | events/s | p50 ms | p99 ms | CPU µs per event: gateway / validation / auth | context switches per event: gateway / validation |"
    )
    print("|---|---|---:|---:|---:|---:|---:|")
    let labels = [
        ("reference", "(0) validate.phone"), ("login1", "(1) flow.login, 1 channel"),
        ("loginN", "(2) flow.login, \(grouped(Double(options.channels))) channels"),
        ("paced", "(2b) paced"), ("register", "(3) flow.register username"),
    ]
    for (name, label) in labels {
        guard let pair = best[name], let oldRow = pair.old, let newRow = pair.new else { continue }
        for (build, row) in [("old", oldRow), ("new", newRow)] {
            print(
                "| \(label) | \(build) | \(grouped(row.rate)) | \(fixed(row.p50, 3)) | \(fixed(row.p99, 3)) | "
                    + "\(fixed(row.gatewayCPU, 0)) / \(fixed(row.validationCPU, 0)) / \(fixed(row.authCPU, 0)) | "
                    + "\(fixed(row.gatewaySwitches, 1)) / \(fixed(row.validationSwitches, 1)) |")
        }
        print(
            "| \(label) | **new/old** | \(fixed(newRow.rate / max(oldRow.rate, 1e-9), 2))× | "
                + "\(fixed(newRow.p50 / max(oldRow.p50, 1e-9), 2))× | \(fixed(newRow.p99 / max(oldRow.p99, 1e-9), 2))× | "
                + "\(fixed(newRow.gatewayCPU / max(oldRow.gatewayCPU, 1e-9), 2))× / "
                + "\(fixed(newRow.validationCPU / max(oldRow.validationCPU, 1e-9), 2))× / | "
                + "\(fixed(newRow.gatewaySwitches / max(oldRow.gatewaySwitches, 1e-9), 2))× / "
                + "\(fixed(newRow.validationSwitches / max(oldRow.validationSwitches, 1e-9), 2))× |")
    }
    for (build, pick) in [("old", { (pair: (old: Row?, new: Row?)) in pair.old }), ("new", { $0.new })] {
        if let login = best["login1"].flatMap(pick), let reference = best["reference"].flatMap(pick),
            reference.p50 > 0, reference.p99 > 0
        {
            print(
                "| (1)/(0) | \(build) | | \(fixed(login.p50 / reference.p50, 2))× | "
                    + "\(fixed(login.p99 / reference.p99, 2))× | | |")
        }
    }
    print("")
    return best.compactMapValues(\.new)
}

let options: Options
do {
    options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    print("GatewayBenchmarks: \(error)")
    exit(2)
}
stopChildrenOnSignals()

print("Gateway benchmark, \(ISO8601DateFormatter().string(from: Date())), load average \(loadAverage())")
print(
    "  --seconds \(options.seconds) --warmup \(options.warmup) --keystrokes \(options.keystrokes) "
        + "--channels \(options.channels) --clients \(options.clients) "
        + "--idle \(options.idle.map(String.init).joined(separator: ","))"
        + options.gatewayArguments.map { " --gateway-arg \($0)" }.joined()
        + (options.loops.map { " --loops \($0)" } ?? ""))
let stack: StackUnderTest
// With --metrics, the stack measured as "new" serves /metrics on these ports (by service).
var metricsPorts: [String: Int] = [:]
// With --trace-sample, where the traced stack writes its spans (removed at the end).
var traceDirectory: String?
do {
    var arguments = StackUnderTest.benchmarkArguments(options)
    if options.metrics {
        for name in ["auth", "validation", "heroes", "gateway"] {
            let port = try freeLoopbackPort()
            metricsPorts[name] = port
            arguments[name, default: []] += ["--metrics-listen", "127.0.0.1:\(port)"]
        }
    }
    if let ratio = options.traceSample {
        let traces = try makeTemporaryDirectory(prefix: "gwbench-traces")
        traceDirectory = traces
        for name in ["auth", "validation", "heroes", "gateway"] {
            arguments[name, default: []] += [
                "--trace-sample", "\(ratio)", "--trace-file", "\(traces)/\(name).jsonl",
            ]
        }
    }
    stack = try await StackUnderTest.start(bin: options.bin, arguments: arguments)
} catch {
    print("GatewayBenchmarks: the stack did not start: \(error)")
    exit(1)
}
print(
    "  stack up (CURVE on, tcp loopback): auth-service pid \(stack.auth.pid), validation-service pid "
        + "\(stack.validation.pid), hero-catalog-service pid \(stack.heroes.pid), "
        + "gateway pid \(stack.gateway.pid)"
)

var rows: [String: Row] = [:]
var memory: [(channels: Int, gateway: Int, validation: Int, validationStreams: Int)] = []
var memoryBase = (gateway: 0, validation: 0, validationStreams: 0)
var cycles: [(label: String, resident: (gateway: Int, validation: Int))] = []
var failed = false
let context = try Context()
do {
    if options.only.contains("idle") {
        // Warm up: every code path of a login channel runs once before the baseline.
        let baseStreams = try await openStreams(stack.validation)
        let warm = RunControl()
        let warmClient = try await stack.endClient(context: context, name: "bench-warm")
        let warmChannels = try await openChannels(
            10, script: .loginPhone, clients: [warmClient], control: warm, limit: 4)
        for channel in warmChannels { channel.start() }
        let warmEnd = ContinuousClock.now + .seconds(10)
        while warm.finished.load(ordering: .relaxed) < 10 && ContinuousClock.now < warmEnd {
            try await Task.sleep(for: .milliseconds(10))
        }
        for channel in warmChannels { channel.close() }
        await warmClient.stop()
        _ = try await waitForOpenStreams(stack.validation, atMost: baseStreams, within: .seconds(30))
        let base = try await resident(stack)
        memoryBase = (base.gateway, base.validation, baseStreams)
        print("  idle: before, gateway \(kib(base.gateway)), validation-service \(kib(base.validation))")
        let control = RunControl()
        var clients: [RemoteClient] = []
        var channels: [KeystrokeChannel] = []
        for target in options.idle.sorted() where target > channels.count {
            // The gateway takes 1,024 streams per connection: 1,000 channels per client.
            while clients.count * 1_000 < target {
                clients.append(
                    try await stack.endClient(context: context, name: "bench-idle-\(clients.count)"))
            }
            let more = target - channels.count
            // Fill the clients in order, 1,000 channels each.
            var opened: [KeystrokeChannel] = []
            for index in 0..<more {
                let client = clients[(channels.count + index) / 1_000]
                opened.append(
                    KeystrokeChannel(client: client, script: .loginPhone, control: control, limit: 0))
            }
            channels += opened
            let deadline = ContinuousClock.now + .seconds(120)
            while control.opened.load(ordering: .relaxed) < target && ContinuousClock.now < deadline {
                if let failure = control.failureMessages.first { throw BenchmarkError(description: failure) }
                try await Task.sleep(for: .milliseconds(10))
            }
            let opens = control.opened.load(ordering: .relaxed)
            guard opens == target else {
                throw BenchmarkError(
                    description: "only \(opens) of \(target) idle channels opened within 120 s")
            }
            let streams = try await waitForOpenStreams(
                stack.validation, atLeast: baseStreams + target, within: .seconds(20))
            let now = try await resident(stack)
            memory.append((target, now.gateway, now.validation, streams - baseStreams))
            print(
                "  idle: \(grouped(Double(target))) channels open, gateway \(kib(now.gateway)), "
                    + "validation-service "
                    + "\(kib(now.validation)) with \(streams - baseStreams) more streams open")
        }
        // Close them all and open as many again, --cycles times: memory that closed channels free and
        // new ones reuse shows as a plateau; a leak grows with every cycle.
        for cycle in 1...max(options.cycles, 1) {
            for channel in channels { channel.close() }
            let closeEnd = ContinuousClock.now + .seconds(30)
            while try await openStreams(stack.validation) > baseStreams && ContinuousClock.now < closeEnd {
                try await Task.sleep(for: .milliseconds(100))
            }
            let closed = try await resident(stack)
            let gatewayOpen = try await stack.gateway.stats()["gateway"]?["channels_open"] ?? -1
            cycles.append(("all closed (cycle \(cycle))", closed))
            print(
                "  idle: all closed, gateway \(kib(closed.gateway)) with \(gatewayOpen) channels open, "
                    + "validation-service \(kib(closed.validation))")
            if let failure = control.failureMessages.first { throw BenchmarkError(description: failure) }
            if cycle == max(options.cycles, 1) { break }
            let again = RunControl()
            var reopened: [KeystrokeChannel] = []
            for index in 0..<channels.count {
                reopened.append(
                    KeystrokeChannel(
                        client: clients[index / 1_000], script: .loginPhone, control: again, limit: 0))
            }
            let againEnd = ContinuousClock.now + .seconds(120)
            while again.opened.load(ordering: .relaxed) < reopened.count && ContinuousClock.now < againEnd {
                if let failure = again.failureMessages.first { throw BenchmarkError(description: failure) }
                try await Task.sleep(for: .milliseconds(10))
            }
            _ = try await waitForOpenStreams(
                stack.validation, atLeast: baseStreams + reopened.count, within: .seconds(20))
            let open = try await resident(stack)
            cycles.append(("\(grouped(Double(reopened.count))) opened again (cycle \(cycle + 1))", open))
            print(
                "  idle: \(reopened.count) opened again, gateway \(kib(open.gateway)), "
                    + "validation-service \(kib(open.validation))")
            channels = reopened
        }
        for client in clients { await client.stop() }
    }

    if options.metrics {
        let scraper = MetricsScraper(ports: metricsPorts.values.sorted())
        defer { scraper.stop() }
        rows = try await compare(
            stack, with: options.bin, arguments: StackUnderTest.benchmarkArguments(options),
            sides: ("metrics off", "metrics on, scraped every second"), context: context, options: options)
        print("  \(scraper.scrapes) scrapes of \(metricsPorts.count) servers, \(scraper.failures) failed")
    } else if let ratio = options.traceSample {
        rows = try await compare(
            stack, with: options.bin, arguments: StackUnderTest.benchmarkArguments(options),
            sides: ("tracing off", "--trace-sample \(ratio), spans to a file"), context: context,
            options: options)
        if let traceDirectory {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: traceDirectory)) ?? []
            let bytes = files.reduce(0) { total, file in
                let size =
                    (try? FileManager.default.attributesOfItem(atPath: "\(traceDirectory)/\(file)")[.size])
                    as? Int
                return total + (size ?? 0)
            }
            print("  \(bytes) bytes of OTLP JSON written to \(files.count) trace files")
        }
    } else if let baseline = options.baseline {
        rows = try await compare(
            stack, with: baseline, arguments: StackUnderTest.benchmarkArguments(options),
            sides: ("the baseline build in \(baseline)", "this build"), context: context, options: options)
    } else {
        rows = try await keystrokeRows(stack, context: context, options: options)
    }
} catch {
    print("GatewayBenchmarks: \(error)")
    failed = true
}
await stack.stop(keep: options.keep || failed)
if let traceDirectory, !options.keep { try? FileManager.default.removeItem(atPath: traceDirectory) }
context.terminate()

// The table.
print("")
print("Load average at the end: \(loadAverage())")
print("")
/// The figure cells of a row of the table.
func cell(_ row: Row?) -> String {
    guard let row else { return "| (not run) | | | | |" }
    return "| \(grouped(row.rate))/s (\(grouped(Double(row.count))) in \(fixed(row.seconds, 2)) s) | "
        + "\(fixed(row.p50, 3)) | \(fixed(row.p99, 3)) | "
        + "\(fixed(row.gatewayCPU, 0)) / \(fixed(row.validationCPU, 0)) / \(fixed(row.authCPU, 0)) / "
        + "\(fixed(row.ownCPU, 0)) | \(fixed(row.gatewaySwitches, 1)) / \(fixed(row.validationSwitches, 1)) |"
}
print(
    "| row | events/s | p50 ms | p99 ms | CPU µs per event: gateway / validation / auth / benchmark "
        + "| context switches per event: gateway / validation | goal |")
print("|---|---:|---:|---:|---:|---:|---|")
print(
    "| (0) `validate.phone` straight to validation-service, 1 in flight "
        + "\(cell(rows["reference"])) reference |"
)
let goal1 =
    rows["login1"].map { $0.p99 < 2 ? "p99 < 2 ms: **met**" : "p99 < 2 ms: **missed**" } ?? "p99 < 2 ms"
print("| (1) `flow.login` phone keystroke, 1 channel \(cell(rows["login1"])) \(goal1) |")
if let login = rows["login1"], let reference = rows["reference"], reference.p50 > 0, reference.p99 > 0 {
    print(
        "| **ratio (1)/(0)** | \(fixed(login.rate / max(reference.rate, 1e-9), 2))× | "
            + "\(fixed(login.p50 / reference.p50, 2))× | \(fixed(login.p99 / reference.p99, 2))× | | | |")
}
print(
    "| (2) `flow.login` phone keystroke, \(grouped(Double(options.channels))) channels "
        + "(\(options.clients) connections) \(cell(rows["loginN"])) |")
print(
    "| (2b) the same, each channel typing one keystroke per \(fixed(options.pace, 0)) ms "
        + "\(cell(rows["paced"])) |")
print("| (3) `flow.register` username keystroke (auth.exists), 1 channel \(cell(rows["register"])) |")
if !memory.isEmpty {
    print("")
    print(
        "| idle `flow.login` channels | gateway RSS | per channel | validation-service RSS | per channel "
            + "| goal |"
    )
    print("|---:|---:|---:|---:|---:|---|")
    print("| 0 | \(kib(memoryBase.gateway)) | | \(kib(memoryBase.validation)) | | |")
    for entry in memory {
        let gateway = Double(entry.gateway - memoryBase.gateway) * 1_024 / 1_000 / Double(entry.channels)
        let validation =
            Double(entry.validation - memoryBase.validation) * 1_024 / 1_000 / Double(entry.channels)
        let verdict = gateway < 50 ? "< 50 KB: **met**" : "< 50 KB: **missed**"
        print(
            "| \(grouped(Double(entry.channels))) | \(kib(entry.gateway)) | \(fixed(gateway, 1)) KB | "
                + "\(kib(entry.validation)) (\(entry.validationStreams) streams) | "
                + "\(fixed(validation, 1)) KB | "
                + "gateway \(verdict) |")
    }
    for (label, now) in cycles {
        print("| \(label) | \(kib(now.gateway)) | | \(kib(now.validation)) | | |")
    }
}
exit(failed ? 1 : 0)
