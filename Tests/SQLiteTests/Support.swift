import Foundation
import SQLite

/// Runs a blocking test body (disk I/O) on a thread of its own, never on Swift's cooperative pool.
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.name = "sqlite-test"
        thread.start()
    }
}

/// A fresh temporary directory, removed when the body returns or throws.
func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("sqlite-test-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try body(directory)
}

/// Runs `body` on a thread of its own with the path of a database file in a fresh temporary directory.
func withDatabasePath<T: Sendable>(_ body: @escaping @Sendable (String) throws -> T) async throws -> T {
    try await onThread {
        try withTemporaryDirectory { directory in
            try body(directory.appendingPathComponent("test.sqlite").path)
        }
    }
}
