#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Memory for Argon2id hashes that one thread owns and reuses: mapped and faulted in once, wiped
/// after every hash.
///
/// ```swift
/// let workspace = try Argon2Workspace(memoryKiB: 19456)       // 19 MiB, resident from now on
/// let stored = try workspace.hashString(password: password, parameters: .owasp)
/// try workspace.verify(password: password, against: stored)  // true
/// ```
///
/// - Memory: ``residentBytes`` (the capacity, five working blocks and page rounding) is mapped
///   privately, advised for transparent huge pages and kept out of core dumps, and every page is
///   written before `init` returns, so a hash takes no page faults. It is unmapped by `deinit`.
/// - Lifetime of secrets: a hash writes the password's derived blocks into this memory and wipes
///   every byte it used (`explicit_bzero`) before it returns or throws, together with the
///   intermediate hashes; the password itself is only read. Between calls the memory holds zeros.
/// - Threads: not `Sendable`. Create it on the thread that will use it and use it from that thread
///   only; the hashes are blocking, CPU- and memory-bound work (keep them off Swift's cooperative
///   pool).
/// - Compatibility: raw output, ``hashString(password:parameters:)`` and
///   ``verify(password:against:)`` match libsodium's `crypto_pwhash`, `crypto_pwhash_str_alg` and
///   `crypto_pwhash_str_verify` for Argon2id v1.3 byte for byte.
public final class Argon2Workspace {
    /// The most memory one hash may use, in KiB (1 KiB blocks).
    public let capacityKiB: Int
    /// The kernel that runs the compression function.
    public let kernel: Argon2Kernel
    /// The bytes mapped and resident for this workspace.
    public let residentBytes: Int

    /// The start of the mapping (for `munmap`).
    private let mapping: UnsafeMutableRawPointer
    /// The memory blocks, aligned to the huge-page size inside the mapping.
    private let blocks: UnsafeMutableRawPointer
    /// Working blocks after the memory: the kernel's scratch, a zero block, the address
    /// generator's input and output, and the final block.
    private let scratch: UnsafeMutableRawPointer
    private let zeroBlock: UnsafeMutableRawPointer
    private let addressInput: UnsafeMutableRawPointer
    private let addresses: UnsafeMutableRawPointer
    private let finalBlock: UnsafeMutableRawPointer

    private static let blockSize = 1024
    private static let workingBlocks = 5
    private static let hugePage = 2 << 20

    /// Maps and faults in memory for hashes of up to `memoryKiB` KiB (at least 8) run by
    /// `kernel`. Throws ``Argon2Error/Code/unsupportedKernel`` when the CPU cannot run `kernel`
    /// and ``Argon2Error/Code/outOfMemory`` when the memory cannot be mapped.
    public init(memoryKiB: Int, kernel: Argon2Kernel = .fastest) throws(Argon2Error) {
        guard kernel.isSupported else {
            throw Argon2Error(code: .unsupportedKernel, message: "this CPU cannot run the \(kernel) kernel")
        }
        guard memoryKiB >= 8, memoryKiB <= Int(UInt32.max) else {
            throw Argon2Error(
                code: .invalidParameters, message: "a workspace of \(memoryKiB) KiB (8 KiB to 4 TiB)")
        }
        let used = (memoryKiB + Self.workingBlocks) * Self.blockSize
        let length = used + Self.hugePage
        let flags = MAP_PRIVATE | MAP_ANONYMOUS
        guard let mapped = mmap(nil, length, PROT_READ | PROT_WRITE, flags, -1, 0), mapped != MAP_FAILED
        else {
            throw Argon2Error(
                code: .outOfMemory,
                message: "mmap of \(length) bytes failed: \(String(cString: strerror(errno)))")
        }
        let address = Int(bitPattern: mapped)
        let aligned = (address + Self.hugePage - 1) / Self.hugePage * Self.hugePage
        let start = mapped + (aligned - address)
        #if os(Linux)
            // Huge pages cut the TLB misses of the random reference reads; no core dump shows the memory.
            _ = madvise(start, used, MADV_HUGEPAGE)
            _ = madvise(mapped, length, MADV_DONTDUMP)
        #endif
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        for offset in stride(from: 0, to: used, by: pageSize) {
            start.storeBytes(of: 0, toByteOffset: offset, as: UInt8.self)
        }
        self.capacityKiB = memoryKiB
        self.kernel = kernel
        self.residentBytes = (used + pageSize - 1) / pageSize * pageSize
        self.mapping = mapped
        self.blocks = start
        let working = start + memoryKiB * Self.blockSize
        scratch = working
        zeroBlock = working + Self.blockSize
        addressInput = working + 2 * Self.blockSize
        addresses = working + 3 * Self.blockSize
        finalBlock = working + 4 * Self.blockSize
        mappingLength = length
    }

    private let mappingLength: Int

    deinit {
        wipeMemory(UnsafeMutableRawBufferPointer(start: blocks, count: residentBytes))
        munmap(mapping, mappingLength)
    }

    /// Argon2id v1.3 of `password` and `salt` with `parameters`: `tagLength` bytes (libsodium's
    /// `crypto_pwhash` for one lane; RFC 9106's secret `K` and associated data `X` are optional).
    ///
    /// Throws ``Argon2Error/Code/invalidParameters`` for a salt shorter than 8 bytes or a tag shorter
    /// than 16 (libsodium's limits), ``Argon2Error/Code/insufficientMemory`` when the parameters
    /// need more than ``capacityKiB``.
    public func hash(
        password: [UInt8], salt: [UInt8], parameters: Argon2Parameters, tagLength: Int = 32,
        secret: [UInt8] = [], associatedData: [UInt8] = []
    ) throws(Argon2Error) -> [UInt8] {
        try validate(salt: salt, parameters: parameters, tagLength: tagLength)
        var tag = [UInt8](repeating: 0, count: tagLength)
        tag.withUnsafeMutableBytes { output in
            compute(
                password: password, salt: salt, parameters: parameters, secret: secret,
                associatedData: associatedData, into: output)
        }
        return tag
    }

    /// Hashes `password` with a fresh random 16-byte salt into a 32-byte tag and returns the PHC
    /// string, as libsodium's `crypto_pwhash_str_alg` writes it.
    public func hashString(password: [UInt8], parameters: Argon2Parameters) throws(Argon2Error) -> String {
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let tag = try hash(password: password, salt: salt, parameters: parameters)
        return PHCString(parameters: parameters, salt: salt, tag: tag).description
    }

    /// True when `password` matches the PHC string `stored`, false when it does not (compared in
    /// constant time).
    ///
    /// Throws ``Argon2Error/Code/malformedString`` for a string libsodium would not accept (see
    /// ``PHCString/init(parsing:)``) and ``Argon2Error/Code/insufficientMemory`` when its cost needs
    /// more than ``capacityKiB``.
    public func verify(password: [UInt8], against stored: String) throws(Argon2Error) -> Bool {
        let phc = try PHCString(parsing: stored)
        return try verify(password: password, against: phc)
    }

    /// True when `password` matches the parsed PHC string `stored`.
    public func verify(password: [UInt8], against stored: PHCString) throws(Argon2Error) -> Bool {
        try validate(salt: stored.salt, parameters: stored.parameters, tagLength: stored.tag.count)
        var tag = [UInt8](repeating: 0, count: stored.tag.count)
        defer { wipeArray(&tag) }
        tag.withUnsafeMutableBytes { output in
            compute(
                password: password, salt: stored.salt, parameters: stored.parameters, secret: [],
                associatedData: [], into: output)
        }
        return constantTimeEquals(tag, stored.tag)
    }

    /// True when the parameters fit this workspace.
    public func fits(_ parameters: Argon2Parameters) -> Bool { parameters.blockCount <= capacityKiB }

    // MARK: - The algorithm (RFC 9106, 3.2 to 3.4)

    /// Throws when the salt, the parameters or the tag length cannot be hashed here.
    private func validate(salt: [UInt8], parameters: Argon2Parameters, tagLength: Int) throws(Argon2Error) {
        guard tagLength >= 16 else {
            throw Argon2Error(code: .invalidParameters, message: "a \(tagLength)-byte tag (at least 16)")
        }
        guard salt.count >= 8 else {
            throw Argon2Error(code: .invalidParameters, message: "a \(salt.count)-byte salt (at least 8)")
        }
        guard fits(parameters) else {
            throw Argon2Error(
                code: .insufficientMemory,
                message:
                    "\(parameters) needs \(parameters.blockCount) KiB; the workspace holds \(capacityKiB) KiB"
            )
        }
    }

    /// Fills memory and writes the tag into `output`; wipes everything it used before returning.
    /// The inputs are valid (``validate(salt:parameters:tagLength:)``).
    private func compute(
        password: [UInt8], salt: [UInt8], parameters: Argon2Parameters, secret: [UInt8],
        associatedData: [UInt8], into output: UnsafeMutableRawBufferPointer
    ) {
        let blockCount = parameters.blockCount
        defer {
            wipeMemory(UnsafeMutableRawBufferPointer(start: blocks, count: blockCount * Self.blockSize))
            wipeMemory(
                UnsafeMutableRawBufferPointer(start: scratch, count: Self.workingBlocks * Self.blockSize))
        }
        initialBlocks(
            password: password, salt: salt, parameters: parameters, secret: secret,
            associatedData: associatedData, tagLength: output.count)
        let lanes = Int(parameters.lanes)
        for pass in 0..<Int(parameters.passes) {
            for slice in 0..<4 {
                for lane in 0..<lanes {
                    fillSegment(parameters: parameters, pass: pass, lane: lane, slice: slice)
                }
            }
        }
        // C = the last blocks of every lane, exclusive-or'ed; the tag is H'(C).
        let laneLength = blockCount / lanes
        let words = finalBlock.assumingMemoryBound(to: UInt64.self)
        for index in 0..<128 { words[index] = 0 }
        for lane in 0..<lanes {
            let last = block(lane * laneLength + laneLength - 1).assumingMemoryBound(to: UInt64.self)
            for index in 0..<128 { words[index] ^= last[index] }
        }
        variableLengthHash([UnsafeRawBufferPointer(start: finalBlock, count: Self.blockSize)], into: output)
    }

    @inline(__always)
    private func block(_ index: Int) -> UnsafeMutableRawPointer { blocks + index &* Self.blockSize }

    /// H0, then the first two blocks of every lane from it (RFC 9106, 3.2 steps 1 to 5).
    private func initialBlocks(
        password: [UInt8], salt: [UInt8], parameters: Argon2Parameters, secret: [UInt8],
        associatedData: [UInt8], tagLength: Int
    ) {
        // H0 (64 bytes), then LE32(0 or 1) and LE32(lane).
        var seed = InlineArray<72, UInt8>(repeating: 0)
        withUnsafeMutableBytes(of: &seed) { seedBytes in
            var hasher = BLAKE2b(outputLength: 64)
            hasher.update(parameters.lanes)
            hasher.update(UInt32(tagLength))
            hasher.update(parameters.memoryKiB)
            hasher.update(parameters.passes)
            hasher.update(UInt32(0x13))  // version 1.3
            hasher.update(UInt32(2))  // type: Argon2id
            for part in [password, salt, secret, associatedData] {
                hasher.update(UInt32(part.count))
                part.withUnsafeBytes { hasher.update($0) }
            }
            hasher.finish(into: seedBytes)
            let laneLength = parameters.blockCount / Int(parameters.lanes)
            for lane in 0..<Int(parameters.lanes) {
                seedBytes.storeBytes(of: UInt32(lane).littleEndian, toByteOffset: 68, as: UInt32.self)
                for column in 0..<2 {
                    seedBytes.storeBytes(of: UInt32(column).littleEndian, toByteOffset: 64, as: UInt32.self)
                    variableLengthHash(
                        [UnsafeRawBufferPointer(seedBytes)],
                        into: UnsafeMutableRawBufferPointer(
                            start: block(lane * laneLength + column), count: Self.blockSize))
                }
            }
            wipeMemory(seedBytes)
        }
    }

    /// H′ (RFC 9106, 3.3): a hash of any length from BLAKE2b, of `LE32(length) || parts`.
    private func variableLengthHash(
        _ parts: [UnsafeRawBufferPointer], into output: UnsafeMutableRawBufferPointer
    ) {
        let length = output.count
        var hasher = BLAKE2b(outputLength: min(length, 64))
        hasher.update(UInt32(length))
        for part in parts { hasher.update(part) }
        if length <= 64 {
            hasher.finish(into: output)
            return
        }
        var chain = InlineArray<64, UInt8>(repeating: 0)
        withUnsafeMutableBytes(of: &chain) { v in
            hasher.finish(into: v)
            let whole = (length + 31) / 32 - 2
            var offset = 0
            for index in 1...whole {
                UnsafeMutableRawBufferPointer(rebasing: output[offset..<offset + 32])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: v[0..<32]))
                offset += 32
                if index < whole { BLAKE2b.hash([UnsafeRawBufferPointer(v)], outputLength: 64, into: v) }
            }
            let rest = length - 32 * whole
            var last = BLAKE2b(outputLength: rest)
            last.update(UnsafeRawBufferPointer(v))
            last.finish(into: UnsafeMutableRawBufferPointer(rebasing: output[offset...]))
            wipeMemory(v)
        }
    }

    /// One segment: a quarter of one lane in one pass (RFC 9106, 3.4).
    private func fillSegment(parameters: Argon2Parameters, pass: Int, lane: Int, slice: Int) {
        let lanes = Int(parameters.lanes)
        let segmentLength = parameters.segmentLength
        let laneLength = segmentLength * 4
        let independent = pass == 0 && slice < 2  // Argon2id: data-independent addressing first
        let input = addressInput.assumingMemoryBound(to: UInt64.self)
        let addressWords = addresses.assumingMemoryBound(to: UInt64.self)
        if independent {
            for index in 0..<128 { input[index] = 0 }
            input[0] = UInt64(pass)
            input[1] = UInt64(lane)
            input[2] = UInt64(slice)
            input[3] = UInt64(parameters.blockCount)
            input[4] = UInt64(parameters.passes)
            input[5] = 2  // Argon2id
        }
        var start = 0
        if pass == 0 && slice == 0 {
            start = 2
            if independent { nextAddresses() }
        }
        var current = lane * laneLength + slice * segmentLength + start
        var previous = current % laneLength == 0 ? current + laneLength - 1 : current - 1
        let accumulate = pass > 0
        let startPosition = pass == 0 || slice == 3 ? 0 : (slice + 1) * segmentLength
        /// The block that block `index` of the segment refers to, picked by `pseudoRandom`.
        func reference(_ pseudoRandom: UInt64, index: Int) -> UnsafeMutableRawPointer {
            let referenceLane = pass == 0 && slice == 0 ? lane : Int((pseudoRandom >> 32) % UInt64(lanes))
            let sameLane = referenceLane == lane
            // The reference area: blocks of this lane or another that are finished (RFC 9106, 3.4.1.2).
            let areaSize: Int
            if pass == 0 {
                if slice == 0 {
                    areaSize = index - 1
                } else if sameLane {
                    areaSize = slice * segmentLength + index - 1
                } else {
                    areaSize = slice * segmentLength - (index == 0 ? 1 : 0)
                }
            } else {
                areaSize = laneLength - segmentLength + (sameLane ? index - 1 : (index == 0 ? -1 : 0))
            }
            let j1 = pseudoRandom & 0xFFFF_FFFF
            let x = (j1 &* j1) >> 32
            let y = (UInt64(areaSize) &* x) >> 32
            let relative = Int(UInt64(areaSize) - 1 - y)
            return block(referenceLane * laneLength + (startPosition + relative) % laneLength)
        }
        for index in start..<segmentLength {
            if current % laneLength == 1 { previous = current - 1 }
            let pseudoRandom: UInt64
            if independent {
                if index % 128 == 0 { nextAddresses() }
                pseudoRandom = addressWords[index % 128]
            } else {
                pseudoRandom = block(previous).load(as: UInt64.self)
            }
            kernel.compress(
                previous: block(previous), reference: reference(pseudoRandom, index: index),
                next: block(current), scratch: scratch, accumulate: accumulate
            ) { first in
                // The next block's reference, to prefetch: known from `first` (data-dependent) or
                // from the address block (data-independent, unless a new one is due).
                let following = index + 1
                guard following < segmentLength else { return nil }
                if independent {
                    guard following % 128 != 0 else { return nil }
                    return UnsafeRawPointer(reference(addressWords[following % 128], index: following))
                }
                return UnsafeRawPointer(reference(first, index: following))
            }
            current += 1
            previous += 1
        }
    }

    /// The next 128 pseudo-random addresses: G(0, G(0, input)) with the input's counter advanced.
    private func nextAddresses() {
        let input = addressInput.assumingMemoryBound(to: UInt64.self)
        input[6] &+= 1
        kernel.compress(
            previous: zeroBlock, reference: addressInput, next: addresses, scratch: scratch, accumulate: false
        )
        kernel.compress(
            previous: zeroBlock, reference: addresses, next: addresses, scratch: scratch, accumulate: false)
    }
}

/// True when `a` and `b` have the same length and bytes; the time depends on the length only.
func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for index in a.indices { difference |= a[index] ^ b[index] }
    return difference == 0
}

extension Argon2Workspace {
    /// True when every byte of the workspace is zero (for tests of the wipe).
    var isWiped: Bool {
        let bytes = UnsafeRawBufferPointer(
            start: scratch - capacityKiB * 1024, count: (capacityKiB + 5) * 1024)
        return bytes.allSatisfy { $0 == 0 }
    }
}
