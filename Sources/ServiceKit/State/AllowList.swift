public import ProcessSupport
import ZeroMQ

#if canImport(Glibc)
    import Glibc
#endif

/// The public keys of the clients a service accepts over CURVE (`allowed_clients` in the state
/// directory).
///
/// One key per line: a line whose first word is 40 Z85 characters is a key (anything after it, past
/// whitespace, is a label); other lines starting with `#` are comments; blank lines are ignored.
/// (Z85 itself uses `#`, so a key may start with it; a commented-out key has 41 characters and is a
/// comment.) Anything else is an error reported with its line number.
public struct AllowList: Sendable, Hashable {
    /// The allowed public keys (32 bytes each).
    public let keys: Set<[UInt8]>

    /// An allow-list of these keys.
    public init(keys: Set<[UInt8]>) { self.keys = keys }

    /// True when `publicKey` is allowed.
    public func contains(_ publicKey: [UInt8]) -> Bool { keys.contains(publicKey) }

    /// Parses the file's text; `path` names the file in errors. Every bad line is reported, each
    /// with its line number.
    public static func parse(_ text: String, path: String) throws(StateError) -> AllowList {
        var keys: Set<[UInt8]> = []
        var problems: [String] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(rawLine).trimmingWhitespace()
            if line.isEmpty { continue }
            let word = String(line.prefix { !$0.isWhitespace })
            if word.utf8.count == 40, let key = try? Z85.decode(word) {
                keys.insert(key)
            } else if !line.hasPrefix("#") {
                problems.append("line \(index + 1): expected a 40-character Z85 public key or a # comment")
            }
        }
        guard problems.isEmpty else {
            throw StateError(code: .allowList, path: path, message: problems.joined(separator: "; "))
        }
        return AllowList(keys: keys)
    }

    /// Loads `allowed_clients` from the state directory, creating it (empty but for a comment, mode
    /// 0600) when missing.
    public static func loadOrCreate(in directory: StateDirectory) throws(StateError) -> AllowList {
        let path = directory.file("allowed_clients")
        if access(path, F_OK) != 0 {
            try StateFile.replace(
                path, "# Public keys (Z85) of the clients allowed to connect, one per line.", mode: 0o600,
                code: .allowList)
        }
        return try parse(try StateFile.read(path, code: .allowList), path: path)
    }
}
