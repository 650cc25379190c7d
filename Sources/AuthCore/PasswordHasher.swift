public import Argon2
import Sodium
import Synchronization

/// The Argon2id code a ``PasswordHashingPool``'s workers run.
///
/// - ``libsodium``: `crypto_pwhash_str_alg` and `crypto_pwhash_str_verify`; libsodium maps and
///   faults in the cost's memory on every hash.
/// - ``swift(_:)``: the `Argon2` module with the given kernel; every worker owns one
///   ``Argon2/Argon2Workspace`` of the configured cost's memory, faulted in when the pool starts
///   and wiped after every hash. Strings whose cost does not fit it, and strings of other Argon2
///   variants, are verified by libsodium.
///
/// Both read and write the same PHC strings, so either verifies what the other stored.
public enum Argon2Implementation: Sendable, Hashable, CustomStringConvertible {
    case libsodium
    case swift(Argon2Kernel)

    /// The kernels that verify faster than libsodium, measured with `make bench-argon2` (see
    /// docs/BENCHMARKS.md): AVX2 and AVX-512. The portable kernel is about half as fast.
    public static let kernelsFasterThanLibsodium: Set<Argon2Kernel> = [.avx2, .avx512]

    /// `libsodium` or `swift/avx2`.
    public var description: String {
        switch self {
        case .libsodium: "libsodium"
        case .swift(let kernel): "swift/\(kernel)"
        }
    }
}

/// `--argon2`: which implementation to run, or `auto` to let the CPU decide.
public enum Argon2Choice: String, CaseIterable, Sendable {
    /// The fastest kernel of ours on this CPU when it beats libsodium, else libsodium.
    case auto
    /// The fastest kernel of ours on this CPU, even the portable one.
    case swift
    /// libsodium.
    case libsodium

    /// The implementation this choice means on a CPU that can run `kernels`, and why.
    public func resolve(kernels: [Argon2Kernel] = Argon2Kernel.supported) -> (
        implementation: Argon2Implementation, reason: String
    ) {
        let fastest = kernels.last ?? .portable
        switch self {
        case .libsodium:
            return (.libsodium, "chosen by --argon2 libsodium")
        case .swift:
            return (.swift(fastest), "chosen by --argon2 swift; \(fastest) is this CPU's fastest kernel")
        case .auto:
            if Argon2Implementation.kernelsFasterThanLibsodium.contains(fastest) {
                return (.swift(fastest), "auto: this CPU runs the \(fastest) kernel, faster than libsodium")
            }
            return (.libsodium, "auto: no kernel faster than libsodium on this CPU (fastest: \(fastest))")
        }
    }
}

/// One worker's hashing: through its own workspace, or through libsodium. Never shared: each worker
/// thread has one and uses it alone.
final class PasswordHasher {
    /// The worker's workspace; nil when the pool runs libsodium.
    private let workspace: Argon2Workspace?
    /// The pool's counts of hashes by implementation.
    private let counts: HashCounts

    init(workspace: Argon2Workspace?, counts: HashCounts) {
        self.workspace = workspace
        self.counts = counts
    }

    /// A PHC string of `password` at `cost` (see ``Argon2id/hash(password:cost:)``).
    func hash(password: [UInt8], cost: Argon2id.Cost) throws(SodiumError) -> String {
        if let workspace, let parameters = Self.parameters(of: cost), workspace.fits(parameters) {
            counts.own.wrappingAdd(1, ordering: .relaxed)
            do {
                return try workspace.hashString(password: password, parameters: parameters)
            } catch {
                throw SodiumError(
                    code: .hashingFailed, function: "Argon2Workspace.hashString", message: error.message)
            }
        }
        counts.libsodium.wrappingAdd(1, ordering: .relaxed)
        return try Argon2id.hash(password: password, cost: cost)
    }

    /// True when `password` matches `stored`; false for a wrong password and for a string
    /// libsodium would not accept (see ``Argon2id/verify(password:against:)``).
    func verify(password: [UInt8], against stored: String) -> Bool {
        if let workspace, stored.hasPrefix("$argon2id$") {
            do {
                let outcome = try workspace.verify(password: password, against: stored)
                counts.own.wrappingAdd(1, ordering: .relaxed)
                return outcome
            } catch  where error.code == .insufficientMemory {
                // A cost larger than this workspace (a string stored at another cost): libsodium.
            } catch {
                return false
            }
        }
        counts.libsodium.wrappingAdd(1, ordering: .relaxed)
        return Argon2id.verify(password: password, against: stored)
    }

    /// The cost as Argon2 parameters (one lane), or nil when it does not fit in 32 bits.
    private static func parameters(of cost: Argon2id.Cost) -> Argon2Parameters? {
        guard let passes = UInt32(exactly: cost.opsLimit), let memory = UInt32(exactly: cost.memoryKiB) else {
            return nil
        }
        return try? Argon2Parameters(passes: passes, memoryKiB: memory, lanes: 1)
    }
}

/// Hashes and verifications run so far, by implementation, counted by every worker.
final class HashCounts: Sendable {
    /// By the `Argon2` module in a worker's workspace.
    let own = Atomic<Int>(0)
    /// By libsodium.
    let libsodium = Atomic<Int>(0)
}

/// A value handed from the thread that made it to the one thread that uses it from then on.
struct Handover<Value>: @unchecked Sendable {
    let value: Value
}
