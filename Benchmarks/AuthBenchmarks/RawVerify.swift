// Rows (1): raw verifications on one thread per core at the service's default cost: libsodium's
// `crypto_pwhash_str_verify` through `Argon2id.verify` (the limit for rows (2)), and the Argon2
// module with each kernel this CPU runs, one workspace per thread made before the clock starts.

import Argon2
import BenchmarkSupport
import Foundation
import Measuring
import Sodium
import Synchronization

/// The code a raw row verifies with.
enum RawImplementation: Sendable, Hashable, CustomStringConvertible {
    case libsodium
    case swift(Argon2Kernel)

    /// Every implementation this CPU runs: libsodium, then each kernel of ours.
    static var available: [RawImplementation] { [.libsodium] + Argon2Kernel.supported.map { .swift($0) } }

    var description: String {
        switch self {
        case .libsodium: "libsodium"
        case .swift(let kernel): "swift/\(kernel)"
        }
    }
}

/// Verifies one password against one stored hash on `threads` threads until `limit` verifications
/// or `seconds` have passed (after `warmUpSeconds` discarded), and returns every verification's time,
/// with CPU time and minor page faults per verification.
func rawVerifyRate(
    _ implementation: RawImplementation, threads: Int, limit: Int, seconds: Double, warmUpSeconds: Double
) async throws -> Figures {
    let password = Array("bench-password-raw".utf8)
    let stored = try Argon2id.hash(password: password, cost: .owasp)
    _ = await verifyOnThreads(
        implementation, threads, password: password, stored: stored, limit: limit, seconds: warmUpSeconds,
        start: {})
    let counters = Mutex<(cpu: CPUTime, faults: Int, start: UInt64)?>(nil)
    let latencies = await verifyOnThreads(
        implementation, threads, password: password, stored: stored, limit: limit, seconds: seconds,
        start: { counters.withLock { $0 = (ownCPUTime(), ownMinorFaults(), monotonicNanoseconds()) } })
    let end = monotonicNanoseconds()
    let (cpuBefore, faultsBefore, start) = counters.withLock { $0 } ?? (ownCPUTime(), ownMinorFaults(), end)
    let elapsed = end - start
    let cpu = ownCPUTime().since(cpuBefore)
    let faults = ownMinorFaults() - faultsBefore
    var figures = Figures(latencies: latencies, elapsedNanoseconds: elapsed)
    figures.extras =
        [("impl", "\(implementation)"), ("threads", "\(threads)"), ("cost", "\(Argon2id.Cost.owasp)")]
        + cpu.extras(prefix: "", operations: figures.count, seconds: figures.seconds)
        + [
            ("sys_ms_per_op", fixed(cpu.system * 1e3 / Double(max(figures.count, 1)), 3)),
            ("faults_per_op", fixed(Double(faults) / Double(max(figures.count, 1)), 1)),
        ]
    return figures
}

/// This process's minor page faults so far.
func ownMinorFaults() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_minflt
}

/// Runs the verification loop on `threads` threads of its own (never Swift's pool) and returns the
/// latencies of all of them once every thread has stopped. Each thread makes its workspace first;
/// once all have, `start` runs and the clock starts.
private func verifyOnThreads(
    _ implementation: RawImplementation, _ threads: Int, password: [UInt8], stored: String, limit: Int,
    seconds: Double, start: @escaping @Sendable () -> Void
) async -> [UInt64] {
    let state = Mutex<(issued: Int, finished: Int, latencies: [UInt64])>((0, 0, []))
    let ready = DispatchSemaphore(value: 0)
    let go = DispatchSemaphore(value: 0)
    let deadline = Mutex<UInt64>(0)
    return await withCheckedContinuation { (continuation: CheckedContinuation<[UInt64], Never>) in
        for index in 0..<threads {
            let thread = Thread {
                let workspace: Argon2Workspace?
                switch implementation {
                case .libsodium: workspace = nil
                case .swift(let kernel): workspace = makeWorkspace(kernel)
                }
                ready.signal()
                go.wait()
                let deadline = deadline.withLock { $0 }
                var mine: [UInt64] = []
                while monotonicNanoseconds() < deadline {
                    let go = state.withLock { state -> Bool in
                        guard state.issued < limit else { return false }
                        state.issued += 1
                        return true
                    }
                    guard go else { break }
                    let begin = monotonicNanoseconds()
                    let ok =
                        if let workspace {
                            (try? workspace.verify(password: password, against: stored)) ?? false
                        } else {
                            Argon2id.verify(password: password, against: stored)
                        }
                    mine.append(monotonicNanoseconds() - begin)
                    precondition(ok, "the stored hash must verify")
                }
                let all = state.withLock { state -> [UInt64]? in
                    state.latencies += mine
                    state.finished += 1
                    return state.finished == threads ? state.latencies : nil
                }
                if let all { continuation.resume(returning: all) }
            }
            thread.name = "raw-verify-\(index)"
            thread.start()
        }
        // The threads wait for every workspace; then the counters are read and the clock starts.
        Thread {
            for _ in 0..<threads { ready.wait() }
            start()
            deadline.withLock { $0 = monotonicNanoseconds() + UInt64(seconds * 1e9) }
            for _ in 0..<threads { go.signal() }
        }.start()
    }
}

/// A workspace for the default cost, or the end of the benchmark with the reason.
func makeWorkspace(_ kernel: Argon2Kernel) -> Argon2Workspace {
    do {
        return try Argon2Workspace(memoryKiB: 19456, kernel: kernel)
    } catch {
        fatalError("cannot make a \(kernel) workspace: \(error)")
    }
}
