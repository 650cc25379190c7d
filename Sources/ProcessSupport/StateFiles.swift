#if canImport(Glibc)
    import Glibc
#endif

/// The small text files in a state directory (keys, allow-lists): read whole, replaced atomically,
/// every failure a ``StateError`` with the caller's code and the path.
public enum StateFile {
    /// Reads a whole (small) text file; failures are `code` errors naming `path`.
    public static func read(_ path: String, code: StateError.Code) throws(StateError) -> String {
        let bytes: [UInt8]
        do throws(Posix.PosixError) {
            let descriptor = try Posix.open(path, O_RDONLY | O_CLOEXEC)
            defer { Posix.close(descriptor) }
            bytes = try Posix.readAll(descriptor)
        } catch {
            throw .system(code, error.function, path: path, errno: error.code)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw StateError(code: code, path: path, message: "is not valid UTF-8 text")
        }
        return text
    }

    /// Writes `line` and a line break to a temporary file with `mode`, syncs it and renames it over
    /// `path`, so a crash leaves either the old file or the new one.
    public static func replace(_ path: String, _ line: String, mode: UInt32, code: StateError.Code = .keyFile)
        throws(StateError)
    {
        do throws(Posix.PosixError) {
            try Posix.replaceFile(path, with: Array((line + "\n").utf8), mode: mode)
        } catch {
            throw .system(code, error.function, path: error.path ?? path, errno: error.code)
        }
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and line breaks: how a state file's
    /// line (a pid, a key, an allow-list entry) is read.
    public func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}
