import Foundation

/// Part (1): runs the C program (raw/raw_roundtrip.c, built by `make bench-transport`) with the
/// same budget and reads its `RESULT` lines, one per in-flight setting.
func rawBaseline(executable: String, budget: Budget) throws -> [Measurement] {
    let text = try output(
        of: executable,
        ["\(budget.roundTripsOneInFlight)", "\(budget.roundTripsManyInFlight)", "\(budget.seconds)"])
    let results = text.split(separator: "\n").compactMap(parseResultLine)
    guard results.map(\.inFlight) == Budget.inFlightSettings else {
        throw BenchmarkError("unexpected output from \(executable):\n\(text)")
    }
    return results
}

/// What `executable` run with `arguments` printed on its standard output; a failure if it did not
/// exit with status 0.
func output(of executable: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self)
    guard process.terminationStatus == 0 else {
        throw BenchmarkError("\(executable) exited with status \(process.terminationStatus):\n\(text)")
    }
    return text
}

/// A `RESULT key=value ...` line as printed by the C program (and by ``Measurement/resultLine``).
func parseResultLine(_ line: Substring) -> Measurement? {
    guard line.hasPrefix("RESULT ") else { return nil }
    var fields: [Substring: Substring] = [:]
    for field in line.split(separator: " ").dropFirst() {
        guard let equals = field.firstIndex(of: "=") else { continue }
        fields[field[..<equals]] = field[field.index(after: equals)...]
    }
    guard let inFlight = fields["inflight"].flatMap({ Int($0) }),
        let roundTrips = fields["roundtrips"].flatMap({ Int($0) }),
        let seconds = fields["seconds"].flatMap({ Double($0) }),
        let p50 = fields["p50_us"].flatMap({ Double($0) }),
        let p99 = fields["p99_us"].flatMap({ Double($0) }),
        let cpu = fields["cpu_us"].flatMap({ Double($0) })
    else { return nil }
    return Measurement(
        inFlight: inFlight, roundTrips: roundTrips, seconds: seconds, p50: p50, p99: p99, cpuPerRoundTrip: cpu
    )
}

/// A failure that ends the benchmark with a message.
struct BenchmarkError: Error, CustomStringConvertible {
    /// What went wrong.
    let description: String
    init(_ description: String) { self.description = description }
}

/// Rows (3) and (4) of a build of this benchmark run as a child process, for A/B runs in one run:
/// an older build (`--baseline PATH`), and then this build too, so that both sides run alike (a
/// fresh process each, not rows measured after the others in a long-lived one). The binary is run
/// with `--raw none --only remotestreams --rounds 1` and the same budget, and its `RESULT` lines are
/// read. One run gives both rows; the row asked for second takes the figures kept from the first.
final class ChildRows {
    private let executable: String
    private var kept: [String: [Measurement]] = [:]

    init(executable: String) {
        self.executable = executable
    }

    /// The baseline's figures for `implementation` (`swift-remotestreams`, or
    /// `swift-remotestreams-empty`), from the run made for the other row if it is kept, else from a
    /// new run.
    func measure(_ implementation: String, budget: Budget) throws -> [Measurement] {
        if let results = kept.removeValue(forKey: implementation) { return results }
        let text = try output(
            of: executable,
            [
                "--raw", "none", "--only", "remotestreams", "--rounds", "1",
                "--count1", "\(budget.roundTripsOneInFlight)", "--count64",
                "\(budget.roundTripsManyInFlight)",
                "--seconds", "\(budget.seconds)",
            ])
        var byImplementation: [String: [Measurement]] = [:]
        for line in text.split(separator: "\n") {
            guard let result = parseResultLine(line),
                let field = line.split(separator: " ").first(where: { $0.hasPrefix("impl=") })
            else { continue }
            byImplementation[String(field.dropFirst("impl=".count)), default: []].append(result)
        }
        for (name, results) in byImplementation where results.map(\.inFlight) != Budget.inFlightSettings {
            throw BenchmarkError("unexpected output from \(executable) for \(name):\n\(text)")
        }
        guard let results = byImplementation.removeValue(forKey: implementation) else {
            throw BenchmarkError("no \(implementation) rows from \(executable):\n\(text)")
        }
        kept = byImplementation
        return results
    }
}
