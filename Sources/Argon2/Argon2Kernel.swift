#if arch(x86_64)
    import Argon2KernelAVX2
    import Argon2KernelAVX512
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// The code that runs Argon2's compression function, chosen at run time for the CPU.
///
/// - ``portable``: plain 64-bit arithmetic, any CPU.
/// - ``avx2``: 256-bit vectors, compiled for x86-64-v3 (AVX2, BMI1/2, FMA, MOVBE, …).
/// - ``avx512``: the same code compiled for x86-64-v4 (AVX-512 F/BW/CD/DQ/VL: one `vprorq` per
///   rotation).
///
/// ```swift
/// Argon2Kernel.fastest         // .avx2 on a CPU with AVX2 but not AVX-512
/// Argon2Kernel.avx512.isSupported
/// ```
public enum Argon2Kernel: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case portable
    case avx2
    case avx512

    /// True when this CPU (and this build) can run the kernel.
    public var isSupported: Bool {
        switch self {
        case .portable: true
        case .avx2: CPUFeatures.current.hasX86_64v3
        case .avx512: CPUFeatures.current.hasX86_64v4
        }
    }

    /// The kernels this CPU can run, fastest last.
    public static var supported: [Argon2Kernel] { allCases.filter(\.isSupported) }

    /// The fastest kernel this CPU can run.
    public static var fastest: Argon2Kernel { supported.last ?? .portable }

    /// `avx2`.
    public var description: String { rawValue }

    /// Runs the kernel's compression function (see `BlockKernel.compress`).
    @inline(__always)
    func compress(
        previous: UnsafeRawPointer, reference: UnsafeRawPointer, next: UnsafeMutableRawPointer,
        scratch: UnsafeMutableRawPointer, accumulate: Bool,
        upcoming: (UInt64) -> UnsafeRawPointer? = { _ in nil }
    ) {
        switch self {
        case .portable:
            PortableKernel.compress(
                previous: previous, reference: reference, next: next, scratch: scratch,
                accumulate: accumulate, upcoming: upcoming)
        #if arch(x86_64)
            case .avx2:
                Argon2KernelAVX2.BlockKernel.compress(
                    previous: previous, reference: reference, next: next, scratch: scratch,
                    accumulate: accumulate, upcoming: upcoming)
            case .avx512:
                Argon2KernelAVX512.BlockKernel.compress(
                    previous: previous, reference: reference, next: next, scratch: scratch,
                    accumulate: accumulate, upcoming: upcoming)
        #else
            case .avx2, .avx512:
                preconditionFailure("the \(self) kernel exists on x86-64 only")
        #endif
        }
    }
}

/// The instruction-set levels the kernels need, read once from the CPU flags the Linux kernel
/// reports in /proc/cpuinfo (which lists a feature only when the CPU has it and the OS saves its
/// registers).
struct CPUFeatures: Sendable {
    /// Every flag of the first processor in /proc/cpuinfo.
    let flags: Set<String>

    static let current = CPUFeatures(cpuinfo: readCPUInfo())

    /// /proc/cpuinfo's text, or "" where there is none.
    private static func readCPUInfo() -> String {
        #if os(Linux)
            guard let file = fopen("/proc/cpuinfo", "r") else { return "" }
            defer { fclose(file) }
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = fread(&chunk, 1, chunk.count, file)
                if count <= 0 { break }
                bytes += chunk[0..<count]
            }
            return String(decoding: bytes, as: UTF8.self)
        #else
            return ""
        #endif
    }

    init(cpuinfo: String) {
        let line = cpuinfo.split(separator: "\n").first { $0.hasPrefix("flags") }
        let values = line.flatMap { $0.split(separator: ":", maxSplits: 1).last } ?? ""
        flags = Set(values.split(separator: " ").map(String.init))
    }

    /// x86-64-v3: what `-march=x86-64-v3` lets the compiler use.
    var hasX86_64v3: Bool {
        #if arch(x86_64)
            ["avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "xsave"].allSatisfy(
                flags.contains)
        #else
            false
        #endif
    }

    /// x86-64-v4: x86-64-v3 and AVX-512 F, BW, CD, DQ and VL.
    var hasX86_64v4: Bool {
        hasX86_64v3 && ["avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"].allSatisfy(flags.contains)
    }
}
