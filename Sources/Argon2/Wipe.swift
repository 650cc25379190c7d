#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Overwrites `bytes` with zeros in a way the optimiser cannot remove (`explicit_bzero`, or
/// `memset_s` on Darwin), for memory that held passwords or data derived from them.
func wipeMemory(_ bytes: UnsafeMutableRawBufferPointer) {
    guard let base = bytes.baseAddress, bytes.count > 0 else { return }
    #if canImport(Glibc)
        explicit_bzero(base, bytes.count)
    #else
        _ = memset_s(base, bytes.count, 0, bytes.count)
    #endif
}

/// Overwrites the array's bytes with zeros (see ``wipeMemory(_:)``). The array must be uniquely
/// referenced for the wipe to reach its only copy.
func wipeArray(_ array: inout [UInt8]) {
    array.withUnsafeMutableBytes { wipeMemory($0) }
}
