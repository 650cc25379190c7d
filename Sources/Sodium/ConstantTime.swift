internal import CSodium

/// Compares two byte strings in time that depends only on their lengths, not on where they differ
/// (`sodium_memcmp`): use it for secrets such as token digests and MACs.
///
/// Strings of different lengths are unequal at once (their lengths are not secret).
public func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
    guard lhs.count == rhs.count else { return false }
    LibSodium.ensureInitialized()
    return sodium_memcmp(lhs, rhs, lhs.count) == 0
}
