// `make bench-argon2`: raw Argon2id verifications at the production cost (m=19456 KiB, t=2, p=1),
// side by side in one run: libsodium's `crypto_pwhash_str_verify` against this package's Argon2id
// with each kernel the CPU can run (one reused workspace per thread), on 1 thread and on every core.
// Per row: verifications per second, the ratio to libsodium's row with the same threads, and per
// verification the user and kernel CPU milliseconds and minor page faults (getrusage per thread).
// Rounds are interleaved so that load from other processes hits every row alike; each row keeps its
// best round.
//
// Usage: Argon2Benchmarks [--seconds S] [--rounds N] [--threads 1,2] [--only libsodium,avx2,...]

import Argon2
import Foundation
import Glibc
import Measuring
import Sodium
import Synchronization

/// One implementation under test.
enum Implementation: Hashable, CustomStringConvertible {
    case libsodium
    case swift(Argon2Kernel)

    var description: String {
        switch self {
        case .libsodium: "libsodium"
        case .swift(let kernel): "swift/\(kernel)"
        }
    }
}

/// What one thread measured.
struct ThreadFigures: Sendable {
    var verifications = 0
    var userSeconds = 0.0
    var systemSeconds = 0.0
    var minorFaults = 0
    var majorFaults = 0
}

/// The figures of one row in one round.
struct RowFigures {
    var verifications = 0
    var seconds = 0.0
    var userSeconds = 0.0
    var systemSeconds = 0.0
    var minorFaults = 0
    var majorFaults = 0

    var rate: Double { Double(verifications) / seconds }
    func perVerification(_ value: Double) -> Double { value / Double(max(verifications, 1)) }
}

/// This thread's CPU time and faults.
func threadUsage() -> ThreadFigures {
    var usage = rusage()
    // RUSAGE_THREAD (1): Glibc's module leaves it out (it needs _GNU_SOURCE).
    getrusage(1, &usage)
    return ThreadFigures(
        verifications: 0,
        userSeconds: Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6,
        systemSeconds: Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6,
        minorFaults: usage.ru_minflt, majorFaults: usage.ru_majflt)
}

/// Verifies on `threads` threads of its own for `seconds` and returns the row's figures. Each
/// thread sets up first (its workspace faulted in); all start together.
func measure(
    _ implementation: Implementation, threads: Int, seconds: Double, password: [UInt8], stored: String
)
    -> RowFigures
{
    let ready = DispatchSemaphore(value: 0)
    let go = DispatchSemaphore(value: 0)
    let done = DispatchSemaphore(value: 0)
    let results = Mutex<[ThreadFigures]>([])
    let deadline = Mutex<UInt64>(0)
    for index in 0..<threads {
        let thread = Thread {
            let workspace: Argon2Workspace?
            switch implementation {
            case .libsodium: workspace = nil
            case .swift(let kernel): workspace = makeWorkspace(kernel)
            }
            ready.signal()
            go.wait()
            let end = deadline.withLock { $0 }
            let before = threadUsage()
            var count = 0
            while monotonicNanoseconds() < end {
                let ok: Bool
                if let workspace {
                    ok = (try? workspace.verify(password: password, against: stored)) ?? false
                } else {
                    ok = Argon2id.verify(password: password, against: stored)
                }
                precondition(ok, "the stored hash must verify")
                count += 1
            }
            let after = threadUsage()
            results.withLock {
                $0.append(
                    ThreadFigures(
                        verifications: count, userSeconds: after.userSeconds - before.userSeconds,
                        systemSeconds: after.systemSeconds - before.systemSeconds,
                        minorFaults: after.minorFaults - before.minorFaults,
                        majorFaults: after.majorFaults - before.majorFaults))
            }
            done.signal()
        }
        thread.name = "argon2-bench-\(index)"
        thread.start()
    }
    for _ in 0..<threads { ready.wait() }
    let start = monotonicNanoseconds()
    deadline.withLock { $0 = start + UInt64(seconds * 1e9) }
    for _ in 0..<threads { go.signal() }
    for _ in 0..<threads { done.wait() }
    let elapsed = Double(monotonicNanoseconds() - start) / 1e9
    var row = RowFigures(seconds: elapsed)
    for figures in results.withLock({ $0 }) {
        row.verifications += figures.verifications
        row.userSeconds += figures.userSeconds
        row.systemSeconds += figures.systemSeconds
        row.minorFaults += figures.minorFaults
        row.majorFaults += figures.majorFaults
    }
    return row
}

func usage() -> Never {
    print("usage: Argon2Benchmarks [--seconds S] [--rounds N] [--threads 1,2] [--only libsodium,avx2,...]")
    exit(2)
}

let cores = ProcessInfo.processInfo.activeProcessorCount
var seconds = 5.0
var rounds = 3
var threadCounts = Array(Set([1, cores])).sorted()
var only: Set<String>?
var arguments = CommandLine.arguments.dropFirst()
while let option = arguments.popFirst() {
    guard let value = arguments.popFirst() else { usage() }
    switch option {
    case "--seconds": seconds = Double(value) ?? 0
    case "--rounds": rounds = Int(value) ?? 0
    case "--threads": threadCounts = value.split(separator: ",").compactMap { Int($0) }
    case "--only": only = Set(value.split(separator: ",").map(String.init))
    default: usage()
    }
}
guard seconds > 0, rounds > 0, !threadCounts.isEmpty, threadCounts.allSatisfy({ $0 > 0 }) else { usage() }

let password = Array("bench-password-raw".utf8)
let stored = try Argon2id.hash(password: password, cost: .owasp)
let implementations = ([Implementation.libsodium] + Argon2Kernel.supported.map { .swift($0) }).filter {
    implementation in
    switch implementation {
    case .libsodium: only?.contains("libsodium") ?? true
    case .swift(let kernel): only?.contains(kernel.rawValue) ?? true
    }
}
print(
    "Argon2Benchmarks: \(cores) cores, m=19456 KiB t=2 p=1, \(fixed(seconds, 1)) s per run, \(rounds) rounds; "
        + "kernels on this CPU: \(Argon2Kernel.supported.map(\.description).joined(separator: ", "))")
var best: [String: RowFigures] = [:]
for round in 1...rounds {
    for threads in threadCounts {
        for implementation in implementations {
            let figures = measure(
                implementation, threads: threads, seconds: seconds, password: password, stored: stored)
            let key = "\(implementation) \(threads)"
            print(
                "RESULT row=raw-verify impl=\(implementation) threads=\(threads) round=\(round) "
                    + "count=\(figures.verifications) rate=\(fixed(figures.rate, 1)) "
                    + "user_ms=\(fixed(figures.perVerification(figures.userSeconds) * 1e3, 2)) "
                    + "sys_ms=\(fixed(figures.perVerification(figures.systemSeconds) * 1e3, 2)) "
                    + "minflt=\(fixed(figures.perVerification(Double(figures.minorFaults)), 1))")
            if figures.rate > best[key]?.rate ?? -1 { best[key] = figures }
        }
    }
}
print()
print("implementation    threads | verify/s | × libsodium | user ms | sys ms | faults/verify")
for threads in threadCounts {
    let reference = best["libsodium \(threads)"]?.rate ?? 0
    for implementation in implementations {
        guard let figures = best["\(implementation) \(threads)"] else { continue }
        let name = "\(implementation)".padding(toLength: 17, withPad: " ", startingAt: 0)
        print(
            "\(name) \(String(repeating: " ", count: max(0, 7 - "\(threads)".count)))\(threads) | "
                + "\(fixed(figures.rate, 1).leftPadded(8)) | \(fixed(figures.rate / reference, 2).leftPadded(11)) | "
                + "\(fixed(figures.perVerification(figures.userSeconds) * 1e3, 2).leftPadded(7)) | "
                + "\(fixed(figures.perVerification(figures.systemSeconds) * 1e3, 2).leftPadded(6)) | "
                + "\(fixed(figures.perVerification(Double(figures.minorFaults)), 1).leftPadded(13))")
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}

/// A workspace for the default cost, or the end of the benchmark with the reason.
@Sendable func makeWorkspace(_ kernel: Argon2Kernel) -> Argon2Workspace {
    do {
        return try Argon2Workspace(memoryKiB: 19456, kernel: kernel)
    } catch {
        fatalError("cannot make a \(kernel) workspace: \(error)")
    }
}
