// Catalog search over 1,000,000 generated heroes: p50 and p99 per query length (1, 2 and 5
// characters) in the core (the index) against a plain scan of the same folded names, and through
// ZeroMQ (hero-catalog-service on the generated catalog, a token from a real auth-service).
//
// Usage: CatalogBenchmarks [--count N] [--queries Q] [--scan-queries S] [--wire-queries W] [--bin DIR]
//   --count         heroes to generate (default 1000000)
//   --queries       queries per length through the index (default 2000)
//   --scan-queries  queries per length through the scan (default 40: a scan takes tens of ms)
//   --wire-queries  queries per length through ZeroMQ, one in flight (default 1000; 0 skips)
//   --bin           where auth-service and hero-catalog-service are (default: next to this one)
// CATBENCH_SLOWEST=1 in the environment also prints the eight slowest index queries of each length.

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
    var bin = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path

    static func parse() -> Options {
        var options = Options()
        var arguments = CommandLine.arguments.dropFirst()
        while let flag = arguments.popFirst() {
            guard let value = arguments.popFirst() else { usage("\(flag) needs a value") }
            switch flag {
            case "--count": options.count = number(value, flag)
            case "--queries": options.queries = number(value, flag)
            case "--scan-queries": options.scanQueries = number(value, flag)
            case "--wire-queries": options.wireQueries = number(value, flag)
            case "--bin": options.bin = value
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
            "usage: CatalogBenchmarks [--count N] [--queries Q] [--scan-queries S] [--wire-queries W] [--bin DIR]"
        )
        exit(64)
    }
}

/// p50 and p99 of durations, in microseconds.
struct Percentiles {
    let p50: Double
    let p99: Double

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

func milliseconds(_ microseconds: Double) -> String { String(format: "%.3f", microseconds / 1_000) }

func seconds(since start: ContinuousClock.Instant) -> String {
    let elapsed = ContinuousClock.now - start
    return String(
        format: "%.1f s", Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
}

let options = Options.parse()
let lengths = [1, 2, 5]
print("Catalog search: \(options.count) generated heroes (a Latin and a Chinese name each), page of 50")

var start = ContinuousClock.now
let heroes = CatalogGenerator.heroes(count: options.count)
print("generated in \(seconds(since: start))")
start = ContinuousClock.now
let catalog = try HeroCatalog(heroes: heroes)
print("indexed in \(seconds(since: start))")

struct Row {
    var length: Int
    var meanTotal = 0.0
    var index = Percentiles([])
    var scan = Percentiles([])
    var wire: Percentiles?
}

var rows: [Row] = []
for length in lengths {
    var row = Row(length: length)
    let queries = CatalogGenerator.queries(
        length: length, count: options.queries, in: heroes, seed: UInt64(length))
    var samples: [Duration] = []
    var totals = 0
    for query in queries {
        let begin = ContinuousClock.now
        let answer = catalog.search(query, offset: 0, limit: 50)
        samples.append(ContinuousClock.now - begin)
        totals += answer.total
    }
    row.meanTotal = Double(totals) / Double(queries.count)
    if ProcessInfo.processInfo.environment["CATBENCH_SLOWEST"] != nil {
        let slowest = zip(queries, samples).sorted { $0.1 > $1.1 }.prefix(8)
        for (query, time) in slowest {
            print(
                "  slow: \(query.debugDescription) \(time) total \(catalog.search(query, offset: 0, limit: 1).total)"
            )
        }
    }
    row.index = Percentiles(samples)
    samples = []
    for query in queries.prefix(options.scanQueries) {
        let begin = ContinuousClock.now
        let matches = catalog.index.scan(folded: SearchFolding.fold(query), offset: 0, limit: 50)
        let page = matches.page.map { catalog.heroes[Int($0)] }
        samples.append(ContinuousClock.now - begin)
        precondition(matches.total == catalog.search(query, offset: 0, limit: 50).total && page.count <= 50)
    }
    row.scan = Percentiles(samples)
    rows.append(row)
}

if options.wireQueries > 0 {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbench-\(getpid())").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let file = directory + "/catalog.json"
    start = ContinuousClock.now
    try CatalogGenerator.json(heroes).write(toFile: file, atomically: false, encoding: .utf8)
    print("catalog file written in \(seconds(since: start))")
    let auth = try await ServiceChild(
        name: "auth", executable: options.bin + "/auth-service",
        arguments: ["--curve", "off", "--hash-cost", "test"],
        directory: directory, timeout: .seconds(60))
    start = ContinuousClock.now
    let service: ServiceChild
    do {
        service = try await ServiceChild(
            name: "heroes", executable: options.bin + "/hero-catalog-service",
            arguments: [
                "--curve", "off", "--auth-curve", "off", "--auth-endpoint", auth.endpoint, "--catalog", file,
            ],
            directory: directory, timeout: .seconds(300))
    } catch {
        await auth.stop()
        throw error
    }
    print(
        "hero-catalog-service loaded the file and was ready in \(seconds(since: start)), \(service.residentMiB) MiB resident"
    )
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
        for index in rows.indices {
            let queries = CatalogGenerator.queries(
                length: rows[index].length, count: options.wireQueries, in: heroes,
                seed: UInt64(rows[index].length))
            var samples: [Duration] = []
            for query in queries {
                let begin = ContinuousClock.now
                let answer: HeroSearchResponse = try await service.client.request(
                    Methods.Heroes.search, HeroSearchRequest(query: query, token: token)
                ).value
                samples.append(ContinuousClock.now - begin)
                precondition(answer.total >= 1)
            }
            rows[index].wire = Percentiles(samples)
        }
    } catch {
        print("wire measurement failed: \(error)")
    }
    await service.stop()
    await auth.stop()
}

print("")
print(
    "| query | mean matches | index p50 ms | index p99 ms | scan p50 ms | scan p99 ms | scan/index p50 | scan/index p99 | ZeroMQ p50 ms | ZeroMQ p99 ms | ZeroMQ/index p50 |"
)
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for row in rows {
    let wire = row.wire.map { ($0.p50, $0.p99) }
    print(
        "| \(row.length) char | \(Int(row.meanTotal.rounded())) | \(milliseconds(row.index.p50)) | \(milliseconds(row.index.p99)) "
            + "| \(milliseconds(row.scan.p50)) | \(milliseconds(row.scan.p99)) "
            + "| \(String(format: "%.0f×", row.scan.p50 / row.index.p50)) | \(String(format: "%.0f×", row.scan.p99 / row.index.p99)) "
            + "| \(wire.map { milliseconds($0.0) } ?? "-") | \(wire.map { milliseconds($0.1) } ?? "-") "
            + "| \(wire.map { String(format: "%.1f×", $0.0 / row.index.p50) } ?? "-") |")
}
let goal = rows.allSatisfy { $0.index.p99 < 5_000 }
print("")
print("goal (index p99 < 5 ms for every length): \(goal ? "met" : "NOT met")")
