import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs `body` with a fresh temporary directory, removed afterwards.
func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
    var template = Array((NSTemporaryDirectory() + "/servicekit-test-XXXXXX").utf8CString)
    guard let created = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
    let path = String(cString: created)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}

/// The permission bits of `path`.
func mode(_ path: String) -> mode_t {
    var status = stat()
    return stat(path, &status) == 0 ? status.st_mode & 0o777 : 0
}

/// Writes `text` to `path` with `permissions`.
func write(_ text: String, to path: String, permissions: Int = 0o600) throws {
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    try FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: path)
}

/// The contents of `path`.
func read(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }
