// Row (1): libsodium's `crypto_pwhash_str_verify` through `Argon2id.verify`, on one thread per
// core, at the service's default cost. The limit for row (2).

import BenchmarkSupport
import Foundation
import Measuring
import Sodium
import Synchronization

/// Verifies one password against one stored hash on `threads` threads until `limit` verifications
/// or `seconds` have passed (after `warmUpSeconds` discarded), and returns every verification's time.
func rawVerifyRate(threads: Int, limit: Int, seconds: Double, warmUpSeconds: Double) async throws
    -> Figures
{
    let password = Array("bench-password-raw".utf8)
    let stored = try Argon2id.hash(password: password, cost: .owasp)
    _ = await verifyOnThreads(
        threads, password: password, stored: stored, limit: limit, seconds: warmUpSeconds)
    let cpuBefore = ownCPUTime()
    let start = monotonicNanoseconds()
    let latencies = await verifyOnThreads(
        threads, password: password, stored: stored, limit: limit, seconds: seconds)
    let elapsed = monotonicNanoseconds() - start
    let cpu = ownCPUTime().since(cpuBefore)
    var figures = Figures(latencies: latencies, elapsedNanoseconds: elapsed)
    figures.extras =
        [("threads", "\(threads)"), ("cost", "\(Argon2id.Cost.owasp)")]
        + cpu.extras(prefix: "", operations: figures.count, seconds: figures.seconds)
    return figures
}

/// Runs the verification loop on `threads` threads of its own (never Swift's pool) and returns the
/// latencies of all of them once every thread has stopped.
private func verifyOnThreads(
    _ threads: Int, password: [UInt8], stored: String, limit: Int, seconds: Double
) async -> [UInt64] {
    let deadline = monotonicNanoseconds() + UInt64(seconds * 1e9)
    let state = Mutex<(issued: Int, finished: Int, latencies: [UInt64])>((0, 0, []))
    return await withCheckedContinuation { (continuation: CheckedContinuation<[UInt64], Never>) in
        for index in 0..<threads {
            let thread = Thread {
                var mine: [UInt64] = []
                while monotonicNanoseconds() < deadline {
                    let go = state.withLock { state -> Bool in
                        guard state.issued < limit else { return false }
                        state.issued += 1
                        return true
                    }
                    guard go else { break }
                    let begin = monotonicNanoseconds()
                    let ok = Argon2id.verify(password: password, against: stored)
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
    }
}
