import Foundation
import Testing
import ZeroMQ

/// A failure inside a test body that runs on its own thread.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs a blocking test body on a thread of its own (never on Swift's cooperative pool).
func onThread<T: Sendable>(_ body: sending @escaping () throws -> T) async throws -> T {
    try await OwnedThread.run(name: "zeromq-test", body)
}

/// A fresh `ipc://` endpoint in a new temporary directory.
func ipcEndpoint() throws -> String {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("zmq-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return "ipc://\(directory.path)/socket"
}

/// A unique `inproc://` endpoint.
func inprocEndpoint() -> String { "inproc://test-\(UUID().uuidString)" }

extension Socket {
    /// Binds to a loopback TCP port the system picks and returns the resolved endpoint.
    func bindLoopback() throws -> String {
        try bind("tcp://127.0.0.1:*")
        return try lastEndpoint
    }

    /// Receives a whole message, waiting at most `timeout` ms; throws when none came.
    func receiveMessage(within timeout: Int32 = 5000) throws -> [Message] {
        try set(.receiveTimeout, timeout)
        guard case .done(let parts) = try receive() else {
            throw TestFailure("nothing received within \(timeout) ms")
        }
        return parts
    }
}
