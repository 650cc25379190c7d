import Foundation

/// Part (1): runs the C program (raw/raw_roundtrip.c, built by `make bench-transport`) with the
/// same budget and reads its `RESULT` lines, one per in-flight setting.
func rawBaseline(executable: String, budget: Budget) throws -> [Measurement] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = [
        "\(budget.roundTripsOneInFlight)", "\(budget.roundTripsManyInFlight)", "\(budget.seconds)",
    ]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self)
    guard process.terminationStatus == 0 else {
        throw BenchmarkError("\(executable) exited with status \(process.terminationStatus):\n\(text)")
    }
    let results = text.split(separator: "\n").compactMap(parseResultLine)
    guard results.map(\.inFlight) == Budget.inFlightSettings else {
        throw BenchmarkError("unexpected output from \(executable):\n\(text)")
    }
    return results
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
        inFlight: inFlight, roundTrips: roundTrips, seconds: seconds, p50: p50, p99: p99, cpuPerRoundTrip: cpu)
}

/// A failure that ends the benchmark with a message.
struct BenchmarkError: Error, CustomStringConvertible {
    /// What went wrong.
    let description: String
    init(_ description: String) { self.description = description }
}
