// Catalog search over 1,000,000 generated heroes: p50 and p99 per query length (1, 2 and 5
// characters) in the core (the index) against a plain scan of the same folded names, and through
// ZeroMQ (hero-catalog-service on the generated catalog, a token from a real auth-service); with
// the time and memory it takes to index them, in the core and in the service.
//
// Usage: CatalogBenchmarks [--count N] [--queries Q] [--scan-queries S] [--wire-queries W] [--rounds R]
//                          [--bin DIR] [--baseline DIR]
//   --count         heroes to generate (default 1000000)
//   --queries       queries per length through the index (default 2000)
//   --scan-queries  queries per length through the scan (default 40: a scan takes tens of ms)
//   --wire-queries  queries per length through ZeroMQ, one in flight (default 1000; 0 skips)
//   --rounds        times each build is measured, builds alternating (default 3); the tables show
//                   the median of the rounds
//   --bin           where auth-service and hero-catalog-service are (default: next to this one)
//   --baseline      another build's directory (its CatalogBenchmarks, built from this source, and its
//                   hero-catalog-service): measured in turn with this one, old and new side by side
//   --core-only     (what the run starts for each build's core) measure the core alone and print
//                   its figures as one `CORE {json}` line
// CATBENCH_SLOWEST=1 in the environment also prints the eight slowest index queries of each length.
//
// The core of each build is measured in a child process of its own (this program with
// --core-only), so that neither sees the other's heap: it generates the heroes, indexes them,
// drops its own copy, gives freed memory back (malloc_trim) and reads its resident memory, then
// runs the queries. The services run one at a time on the same catalog file. Old and new take
// turns, round by round (old first, then new first, ...), so that a change in the machine's load
// falls on both.

import BenchmarkSupport
import Contracts
import Foundation
import HeroCatalogCore
import Reactive
import RemoteStreams

struct Options {
    var count = 1_000_000
    var queries = 2_000
    var scanQueries = 40
    var wireQueries = 1_000
    var rounds = 3
    var bin = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
    var baseline: String?
    var coreOnly = false

    static func parse() -> Options {
        var options = Options()
        var arguments = CommandLine.arguments.dropFirst()
        while let flag = arguments.popFirst() {
            if flag == "--core-only" {
                options.coreOnly = true
                continue
            }
            guard let value = arguments.popFirst() else { usage("\(flag) needs a value") }
            switch flag {
            case "--count": options.count = number(value, flag)
            case "--queries": options.queries = number(value, flag)
            case "--scan-queries": options.scanQueries = number(value, flag)
            case "--wire-queries": options.wireQueries = number(value, flag)
            case "--rounds": options.rounds = max(1, number(value, flag))
            case "--bin": options.bin = value
            case "--baseline": options.baseline = value
            default: usage("unknown option \(flag)")
            }
        }
        return options
    }

    static func number(_ text: String, _ flag: String) -> Int {
        guard let value = Int(text), value >= 0 else { usage("bad \(flag): \(text)") }
        return value
    }

    static func usage(_ problem: String) -> Never {
        print("CatalogBenchmarks: \(problem)")
        print(
            "usage: CatalogBenchmarks [--count N] [--queries Q] [--scan-queries S] [--wire-queries W] [--rounds R]"
                + " [--bin DIR] [--baseline DIR] [--core-only]"
        )
        exit(64)
    }
}

/// p50 and p99 of durations, in microseconds.
struct Percentiles: Codable {
    let p50: Double
    let p99: Double

    init(p50: Double, p99: Double) {
        self.p50 = p50
        self.p99 = p99
    }

    /// The median p50 and the median p99 of several runs.
    init(median runs: [Percentiles]) {
        self.init(p50: median(runs.map(\.p50)), p99: median(runs.map(\.p99)))
    }

    init(_ samples: [Duration]) {
        let sorted = samples.map {
            Double($0.components.attoseconds) / 1e12 + Double($0.components.seconds) * 1e6
        }
        .sorted()
        func at(_ fraction: Double) -> Double {
            sorted.isEmpty
                ? .nan
                : sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)]
        }
        p50 = at(0.50)
        p99 = at(0.99)
    }
}

/// What one build's core measured: the `CORE` line of its `--core-only` run.
struct CoreFigures: Codable {
    struct Row: Codable {
        var length: Int
        var meanTotal: Double
        var index: Percentiles
        var scan: Percentiles
    }

    /// Seconds to build the `HeroCatalog` from the generated heroes.
    var indexSeconds: Double
    /// MiB resident for the catalog: after indexing and dropping the benchmark's own heroes, freed
    /// memory given back, above what the process held before generating them.
    var residentMiB: Double
    /// The process's peak resident MiB (`VmHWM`) above the same start.
    var peakMiB: Double
    var rows: [Row]

    /// Each figure's median over `rounds`.
    init(median rounds: [CoreFigures]) {
        indexSeconds = median(rounds.map(\.indexSeconds))
        residentMiB = median(rounds.map(\.residentMiB))
        peakMiB = median(rounds.map(\.peakMiB))
        rows = rounds[0].rows.indices.map { index in
            Row(
                length: rounds[0].rows[index].length, meanTotal: rounds[0].rows[index].meanTotal,
                index: Percentiles(median: rounds.map { $0.rows[index].index }),
                scan: Percentiles(median: rounds.map { $0.rows[index].scan }))
        }
    }

    init(indexSeconds: Double, residentMiB: Double, peakMiB: Double, rows: [Row]) {
        self.indexSeconds = indexSeconds
        self.residentMiB = residentMiB
        self.peakMiB = peakMiB
        self.rows = rows
    }
}

/// What one build's hero-catalog-service measured.
struct ServiceFigures {
    /// From start until `sys.health` said ready: the file read and indexed.
    var readySeconds: Double
    /// `VmRSS` then, in MiB.
    var residentMiB: Double
    /// `VmHWM` then: the peak while loading.
    var peakMiB: Double
    /// Per query length.
    var wire: [Int: Percentiles] = [:]

    /// Each figure's median over `rounds`.
    init(median rounds: [ServiceFigures]) {
        readySeconds = median(rounds.map(\.readySeconds))
        residentMiB = median(rounds.map(\.residentMiB))
        peakMiB = median(rounds.map(\.peakMiB))
        for length in rounds[0].wire.keys {
            wire[length] = Percentiles(median: rounds.compactMap { $0.wire[length] })
        }
    }

    init(readySeconds: Double, residentMiB: Double, peakMiB: Double) {
        self.readySeconds = readySeconds
        self.residentMiB = residentMiB
        self.peakMiB = peakMiB
    }
}

/// The median of `values` (the mean of the middle two for an even count).
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func milliseconds(_ microseconds: Double) -> String { String(format: "%.3f", microseconds / 1_000) }

func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// `field` (`VmRSS`, `VmHWM`) of /proc/`pid`/status, in MiB.
func statusMiB(_ field: String, of pid: Int32 = getpid()) -> Double {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
        let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
        let kib = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) })
    else { return .nan }
    return kib / 1_024
}

/// glibc's `malloc_trim(0)`: free heap memory goes back to the system, so that resident memory is
/// what is live.
func trimHeap() {
    typealias Trim = @convention(c) (Int) -> Int32
    guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "malloc_trim") else { return }
    _ = unsafeBitCast(symbol, to: Trim.self)(0)
}

let options = Options.parse()
let lengths = [1, 2, 5]

// MARK: The core of one build (--core-only)

if options.coreOnly {
    let base = statusMiB("VmRSS")
    var heroes = CatalogGenerator.heroes(count: options.count)
    let queries = lengths.map { length in
        CatalogGenerator.queries(length: length, count: options.queries, in: heroes, seed: UInt64(length))
    }
    let start = ContinuousClock.now
    let catalog = try HeroCatalog(heroes: heroes)
    let indexSeconds = seconds(since: start)
    heroes = []
    trimHeap()
    var figures = CoreFigures(
        indexSeconds: indexSeconds, residentMiB: statusMiB("VmRSS") - base,
        peakMiB: statusMiB("VmHWM") - base,
        rows: [])
    for (length, queries) in zip(lengths, queries) {
        var samples: [Duration] = []
        var totals = 0
        for query in queries {
            let begin = ContinuousClock.now
            let answer = catalog.search(query, offset: 0, limit: 50)
            samples.append(ContinuousClock.now - begin)
            totals += answer.total
        }
        if ProcessInfo.processInfo.environment["CATBENCH_SLOWEST"] != nil {
            for (query, time) in zip(queries, samples).sorted(by: { $0.1 > $1.1 }).prefix(8) {
                print(
                    "  slow: \(query.debugDescription) \(time) total \(catalog.search(query, offset: 0, limit: 1).total)"
                )
            }
        }
        let index = Percentiles(samples)
        samples = []
        for query in queries.prefix(options.scanQueries) {
            let begin = ContinuousClock.now
            let matches = catalog.index.scan(folded: SearchFolding.fold(query), offset: 0, limit: 50)
            let page = matches.page.map { catalog.heroes[Int($0)] }
            samples.append(ContinuousClock.now - begin)
            precondition(
                matches.total == catalog.search(query, offset: 0, limit: 50).total && page.count <= 50)
        }
        figures.rows.append(
            .init(
                length: length, meanTotal: Double(totals) / Double(max(1, queries.count)), index: index,
                scan: Percentiles(samples)))
    }
    let line = try JSONEncoder().encode(figures)
    print("CORE " + String(decoding: line, as: UTF8.self))
    exit(0)
}

// MARK: The run

/// Runs `executable --core-only` with this run's options and reads its figures.
func measureCore(_ executable: String) throws -> CoreFigures {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = [
        "--core-only", "--count", "\(options.count)", "--queries", "\(options.queries)", "--scan-queries",
        "\(options.scanQueries)",
    ]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    for line in text.split(separator: "\n") where !line.hasPrefix("CORE ") { print(line) }
    guard process.terminationStatus == 0,
        let line = text.split(separator: "\n").first(where: { $0.hasPrefix("CORE ") })
    else {
        throw BenchmarkError(
            description: "\(executable) --core-only failed (status \(process.terminationStatus))")
    }
    return try JSONDecoder().decode(CoreFigures.self, from: Data(line.dropFirst(5).utf8))
}

/// Starts `executable` (a hero-catalog-service) on `file`, measures its start and `queries` per
/// length through ZeroMQ with `token`, and stops it.
func measureService(
    _ executable: String, name: String, file: String, auth: ServiceChild, token: String,
    queries: [Int: [String]], directory: String
) async throws -> ServiceFigures {
    let start = ContinuousClock.now
    let service = try await ServiceChild(
        name: name, executable: executable,
        arguments: [
            "--curve", "off", "--auth-curve", "off", "--auth-endpoint", auth.endpoint, "--catalog", file,
        ],
        directory: directory, timeout: .seconds(300))
    var figures = ServiceFigures(
        readySeconds: seconds(since: start), residentMiB: statusMiB("VmRSS", of: service.pid),
        peakMiB: statusMiB("VmHWM", of: service.pid))
    do {
        for length in lengths {
            var samples: [Duration] = []
            for query in queries[length] ?? [] {
                let begin = ContinuousClock.now
                let answer: HeroSearchResponse = try await service.client.request(
                    Methods.Heroes.search, HeroSearchRequest(query: query, token: token)
                ).value
                samples.append(ContinuousClock.now - begin)
                precondition(answer.total >= 1)
            }
            figures.wire[length] = Percentiles(samples)
        }
    } catch {
        await service.stop()
        throw error
    }
    await service.stop()
    return figures
}

print(
    "Catalog search: \(options.count) generated heroes (a Latin and a Chinese name each), page of 50"
        + (options.baseline.map { ", against the baseline build in \($0)" } ?? ""))
let builds: [(name: String, bin: String)] =
    [("new", options.bin)] + (options.baseline.map { [("old", $0)] } ?? [])
/// The builds in the order of round `round`: old first in even rounds, new first in odd ones.
func order(_ round: Int) -> [(name: String, bin: String)] { round % 2 == 0 ? builds.reversed() : builds }
var coreRounds: [String: [CoreFigures]] = [:]
for round in 0..<options.rounds {
    for build in order(round) {
        let figures = try measureCore(build.bin + "/CatalogBenchmarks")
        coreRounds[build.name, default: []].append(figures)
        print(
            String(
                format: "round %d, core (%@): indexed in %.2f s, %.0f MiB", round + 1, build.name,
                figures.indexSeconds, figures.residentMiB))
    }
}
let cores = coreRounds.mapValues { CoreFigures(median: $0) }

var serviceRounds: [String: [ServiceFigures]] = [:]
if options.wireQueries > 0 {
    let heroes = CatalogGenerator.heroes(count: options.count)
    var queries: [Int: [String]] = [:]
    for length in lengths {
        queries[length] = CatalogGenerator.queries(
            length: length, count: options.wireQueries, in: heroes, seed: UInt64(length))
    }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbench-\(getpid())").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let file = directory + "/catalog.json"
    let start = ContinuousClock.now
    try CatalogGenerator.json(heroes).write(toFile: file, atomically: false, encoding: .utf8)
    print(String(format: "catalog file written in %.1f s", seconds(since: start)))
    let auth = try await ServiceChild(
        name: "auth", executable: options.bin + "/auth-service",
        arguments: ["--curve", "off", "--hash-cost", "test"],
        directory: directory, timeout: .seconds(60))
    do {
        let _: RegisterResponse = try await auth.client.request(
            Methods.Auth.register, RegisterRequest(username: "benchmark", password: "benchmark password")
        ).value
        let login: LoginResponse = try await auth.client.request(
            Methods.Auth.login, LoginRequest(username: "benchmark", password: "benchmark password")
        ).value
        guard let token = login.user?.userToken else {
            throw BenchmarkError(description: "login failed: \(login)")
        }
        for round in 0..<options.rounds {
            for build in order(round) {
                let figures = try await measureService(
                    build.bin + "/hero-catalog-service", name: "heroes-\(build.name)-\(round)", file: file,
                    auth: auth, token: token, queries: queries, directory: directory)
                serviceRounds[build.name, default: []].append(figures)
                print(
                    String(
                        format:
                            "round %d, hero-catalog-service (%@): ready in %.1f s, %.0f MiB resident (peak %.0f MiB)",
                        round + 1, build.name, figures.readySeconds, figures.residentMiB, figures.peakMiB))
            }
        }
    } catch {
        print("wire measurement failed: \(error)")
    }
    await auth.stop()
}
let services = serviceRounds.mapValues { ServiceFigures(median: $0) }

// MARK: Tables

func ratio(_ new: Double, _ old: Double, _ format: String = "%.2f×") -> String {
    old > 0 && new.isFinite && old.isFinite ? String(format: format, new / old) : "-"
}

print("")
if options.rounds > 1 { print("Medians of \(options.rounds) rounds.") }
if let old = cores["old"], let new = cores["new"] {
    print("| set-up, \(options.count) heroes | old | new | new/old |")
    print("|---|---:|---:|---:|")
    func row(_ name: String, _ old: Double, _ new: Double, _ format: String) {
        print(
            "| \(name) | \(String(format: format, old)) | \(String(format: format, new)) | \(ratio(new, old)) |"
        )
    }
    row("core: index (s)", old.indexSeconds, new.indexSeconds, "%.2f")
    row("core: catalog resident (MiB)", old.residentMiB, new.residentMiB, "%.0f")
    row("core: peak while indexing (MiB)", old.peakMiB, new.peakMiB, "%.0f")
    if let oldService = services["old"], let newService = services["new"] {
        row(
            "service: load and index, until ready (s)", oldService.readySeconds, newService.readySeconds,
            "%.2f")
        row("service: resident when ready (MiB)", oldService.residentMiB, newService.residentMiB, "%.0f")
        row("service: peak while loading (MiB)", oldService.peakMiB, newService.peakMiB, "%.0f")
    }
    print("")
    print(
        "| query | mean matches | index p50 ms old | new | new/old | index p99 ms old | new | new/old "
            + "| scan p50 ms old | new | ZeroMQ p50 ms old | new | ZeroMQ p99 ms old | new | new/old |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for (oldRow, newRow) in zip(old.rows, new.rows) {
        let oldWire = services["old"]?.wire[newRow.length]
        let newWire = services["new"]?.wire[newRow.length]
        func ms(_ value: Double?) -> String { value.map(milliseconds) ?? "-" }
        print(
            "| \(newRow.length) char | \(Int(newRow.meanTotal.rounded())) "
                + "| \(ms(oldRow.index.p50)) | \(ms(newRow.index.p50)) | \(ratio(newRow.index.p50, oldRow.index.p50)) "
                + "| \(ms(oldRow.index.p99)) | \(ms(newRow.index.p99)) | \(ratio(newRow.index.p99, oldRow.index.p99)) "
                + "| \(ms(oldRow.scan.p50)) | \(ms(newRow.scan.p50)) "
                + "| \(ms(oldWire?.p50)) | \(ms(newWire?.p50)) "
                + "| \(ms(oldWire?.p99)) | \(ms(newWire?.p99)) | \(ratio(newWire?.p99 ?? .nan, oldWire?.p99 ?? .nan)) |"
        )
        if oldRow.meanTotal != newRow.meanTotal {
            print("MISMATCH: \(newRow.length) char: old and new find different totals")
        }
    }
} else if let new = cores["new"] {
    print(
        String(
            format: "core: indexed in %.2f s, %.0f MiB resident for the catalog (peak %.0f MiB)",
            new.indexSeconds, new.residentMiB, new.peakMiB))
    print("")
    print(
        "| query | mean matches | index p50 ms | index p99 ms | scan p50 ms | scan p99 ms | scan/index p50 | scan/index p99 | ZeroMQ p50 ms | ZeroMQ p99 ms | ZeroMQ/index p50 |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in new.rows {
        let wire = services["new"]?.wire[row.length].map { ($0.p50, $0.p99) }
        print(
            "| \(row.length) char | \(Int(row.meanTotal.rounded())) | \(milliseconds(row.index.p50)) | \(milliseconds(row.index.p99)) "
                + "| \(milliseconds(row.scan.p50)) | \(milliseconds(row.scan.p99)) "
                + "| \(String(format: "%.0f×", row.scan.p50 / row.index.p50)) | \(String(format: "%.0f×", row.scan.p99 / row.index.p99)) "
                + "| \(wire.map { milliseconds($0.0) } ?? "-") | \(wire.map { milliseconds($0.1) } ?? "-") "
                + "| \(wire.map { String(format: "%.1f×", $0.0 / row.index.p50) } ?? "-") |")
    }
}

if let new = cores["new"] {
    let goal = new.rows.allSatisfy { $0.index.p99 < 5_000 }
    print("")
    print("goal (index p99 < 5 ms for every length): \(goal ? "met" : "NOT met")")
    if options.count == 1_000_000, let service = services["new"] {
        let met = service.residentMiB <= 300 && service.readySeconds <= 4
        print(
            "goal (1,000,000 heroes: hero-catalog-service ≤ 300 MiB resident and ready in ≤ 4 s): \(met ? "met" : "NOT met")"
        )
    }
}
