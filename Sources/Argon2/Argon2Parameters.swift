/// The cost of one Argon2id hash: passes over memory (`t`), memory in KiB (`m`) and lanes (`p`).
///
/// Validated as libsodium validates them: t ≥ 1, 1 ≤ p ≤ 2²⁴ − 1, 8·p ≤ m, all within 32 bits.
/// ```swift
/// let owasp = try Argon2Parameters(passes: 2, memoryKiB: 19456, lanes: 1)
/// owasp.description  // "m=19456,t=2,p=1"
/// ```
public struct Argon2Parameters: Sendable, Hashable, CustomStringConvertible {
    /// The number of passes (`t`).
    public let passes: UInt32
    /// The memory in KiB (`m`), as written in a PHC string.
    public let memoryKiB: UInt32
    /// The number of lanes (`p`).
    public let lanes: UInt32

    /// Validated parameters; throws ``Argon2Error/Code/invalidParameters`` outside the limits.
    public init(passes: UInt32, memoryKiB: UInt32, lanes: UInt32 = 1) throws(Argon2Error) {
        guard passes >= 1 else {
            throw Argon2Error(code: .invalidParameters, message: "t=\(passes): at least one pass is needed")
        }
        guard (1...0x00FF_FFFF).contains(lanes) else {
            throw Argon2Error(code: .invalidParameters, message: "p=\(lanes) is outside 1...16777215")
        }
        guard UInt64(memoryKiB) >= 8 * UInt64(lanes) else {
            throw Argon2Error(
                code: .invalidParameters,
                message: "m=\(memoryKiB) KiB is less than 8 KiB per lane (p=\(lanes))")
        }
        self.init(unchecked: passes, memoryKiB: memoryKiB, lanes: lanes)
    }

    /// Parameters already known to be valid (the presets).
    private init(unchecked passes: UInt32, memoryKiB: UInt32, lanes: UInt32) {
        self.passes = passes
        self.memoryKiB = memoryKiB
        self.lanes = lanes
    }

    /// OWASP's first choice for Argon2id: m = 19 MiB (19456 KiB), t = 2, p = 1.
    public static let owasp = Argon2Parameters(unchecked: 2, memoryKiB: 19456, lanes: 1)

    /// The 1 KiB blocks one hash fills (m′ of RFC 9106: m rounded down to a multiple of 4·p).
    public var blockCount: Int { Int(memoryKiB) / (4 * Int(lanes)) * 4 * Int(lanes) }

    /// The blocks of one lane's segment (a quarter of the lane).
    var segmentLength: Int { blockCount / (4 * Int(lanes)) }

    /// `m=19456,t=2,p=1`, as in a PHC string.
    public var description: String { "m=\(memoryKiB),t=\(passes),p=\(lanes)" }
}
