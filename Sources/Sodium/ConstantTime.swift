internal import CSodium

/// Compares two byte strings in time that depends only on their lengths, not on where they differ
/// (`sodium_memcmp`): use it for secrets such as token digests and MACs.
///
/// Strings of different lengths are unequal at once (their lengths are not secret).
public func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
    guard lhs.count == rhs.count else { return false }
    guard !lhs.isEmpty else { return true }
    LibSodium.ensureInitialized()
    return lhs.withUnsafeBytes { left in
        rhs.withUnsafeBytes { right in
            sodium_memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0
        }
    }
}
