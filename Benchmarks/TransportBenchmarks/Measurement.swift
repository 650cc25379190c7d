import BenchmarkSupport
import Glibc
import Measuring

/// What bounds one measured run: at most `roundTrips` round trips and at most `seconds` seconds.
struct Budget: Sendable {
    /// Round trips measured with 1 request in flight.
    var roundTripsOneInFlight = 20_000
    /// Round trips measured with ``manyInFlight`` requests in flight.
    var roundTripsManyInFlight = 600_000
    /// The time budget of each measured run (and of each warm-up), in seconds.
    var seconds = 5.0
    /// Round trips run (and discarded) before each measured run.
    var warmUp = 2_000
    /// The "many in flight" setting.
    static let manyInFlight = 64
    /// The in-flight settings every contender is measured with, in order.
    static let inFlightSettings = [1, manyInFlight]

    /// The round-trip count for an in-flight setting.
    func roundTrips(inFlight: Int) -> Int {
        inFlight == 1 ? roundTripsOneInFlight : roundTripsManyInFlight
    }
}

/// The figures of one run: the same fields the C program prints in its `RESULT` line.
struct Measurement: Sendable {
    /// Requests outstanding at once.
    var inFlight: Int
    /// Round trips completed.
    var roundTrips: Int
    /// Wall time of the measured run, in seconds.
    var seconds: Double
    /// Median latency, send to reply, in microseconds.
    var p50: Double
    /// 99th percentile latency, in microseconds.
    var p99: Double
    /// The process's CPU time (user + system, every thread: client, server and libzmq's I/O
    /// thread) during the run, per round trip, in microseconds. Steadier than the rate on a shared
    /// machine: it counts the work, not the waiting.
    var cpuPerRoundTrip: Double

    /// Round trips per second.
    var rate: Double { Double(roundTrips) / seconds }

    /// Figures from every round trip's latency (nanoseconds, any order) and the run's wall time,
    /// with the C program's percentile rule: the element at `(n - 1) * q / 100` of the sorted list.
    init(inFlight: Int, latencies: [UInt64], elapsedNanoseconds: UInt64, cpu: CPUTime) {
        precondition(!latencies.isEmpty, "a run completes at least one round trip")
        let sorted = latencies.sorted()
        let last = sorted.count - 1
        self.inFlight = inFlight
        roundTrips = sorted.count
        seconds = Double(elapsedNanoseconds) / 1e9
        p50 = Double(sorted[last * 50 / 100]) / 1e3
        p99 = Double(sorted[last * 99 / 100]) / 1e3
        cpuPerRoundTrip = cpu.total * 1e6 / Double(sorted.count)
    }

    /// Figures read back from the fields of a `RESULT` line.
    init(inFlight: Int, roundTrips: Int, seconds: Double, p50: Double, p99: Double, cpuPerRoundTrip: Double) {
        self.inFlight = inFlight
        self.cpuPerRoundTrip = cpuPerRoundTrip
        self.roundTrips = roundTrips
        self.seconds = seconds
        self.p50 = p50
        self.p99 = p99
    }

    /// The machine-readable line, in the C program's format.
    func resultLine(implementation: String, server: String) -> String {
        "RESULT impl=\(implementation) server=\(server) inflight=\(inFlight) roundtrips=\(roundTrips) "
            + "seconds=\(fixed(seconds, 3)) rate=\(fixed(rate, 1)) p50_us=\(fixed(p50, 1)) "
            + "p99_us=\(fixed(p99, 1)) cpu_us=\(fixed(cpuPerRoundTrip, 2))"
    }
}

