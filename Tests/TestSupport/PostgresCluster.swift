// A throwaway PostgreSQL 15 cluster for tests: deploy/local/pg-cluster.sh in a fresh temp directory.

import Foundation
public import Postgres

#if canImport(Glibc)
    import Glibc
#endif

/// A PostgreSQL cluster of a test's own: created and started in a fresh temp directory by
/// deploy/local/pg-cluster.sh (as the `postgres` user when the tests run as root), reachable only
/// through its unix socket in that directory. ``remove()`` stops it (immediate shutdown) and deletes
/// the directory.
public struct PostgresCluster: Sendable {
    /// The directory holding the data, the socket and the server's log.
    public let directory: String
    /// The connection URL (`postgresql:///postgres?host=<directory>/socket&user=postgres`).
    public let url: String

    /// The script, found from this file's place in the repository.
    public static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("deploy/local/pg-cluster.sh").path

    /// Creates and starts a cluster (about a second).
    public static func start() async throws -> PostgresCluster {
        var template = Array("/tmp/pgtest.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw ClusterError("mkdtemp failed: errno \(errno)") }
        let directory = String(cString: made)
        do {
            let url = try await run("start", directory).trimmingCharacters(in: .whitespacesAndNewlines)
            return PostgresCluster(directory: directory, url: url)
        } catch {
            _ = try? await run("remove", directory)
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    /// Stops the server at once (`pg_ctl stop -m immediate`, like a crash); the data stays.
    public func stop() async throws { _ = try await Self.run("stop", directory) }

    /// Starts the stopped server again on the same data and socket.
    public func restart() async throws { _ = try await Self.run("start", directory) }

    /// Stops the server and deletes the directory.
    public func remove() async { _ = try? await Self.run("remove", directory) }

    /// The script's stdout; throws with its output when it fails. The script runs as a child
    /// reaped by a thread of its own (`waitpid`), with its output in files next to the cluster.
    @discardableResult
    static func run(_ command: String, _ directory: String) async throws -> String {
        let output = directory + ".\(command).out"
        let errors = directory + ".\(command).err"
        defer {
            unlink(output)
            unlink(errors)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let arguments: [String] = ["/bin/bash", script, command, directory]
        let environment: [String] = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let spawned = spawnWithCleanSignals(&pid, "/bin/bash", &actions, argv, envp)
        guard spawned == 0 else { throw ClusterError("cannot run pg-cluster.sh: errno \(spawned)") }
        let child = pid
        let status: Int32 = await withCheckedContinuation { continuation in
            let reaper = Thread {
                var status: Int32 = 0
                while waitpid(child, &status, 0) == -1 && errno == EINTR {}
                continuation.resume(returning: status)
            }
            reaper.name = "pg-cluster-\(child)"
            reaper.start()
        }
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard status == 0 else {
            let message = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            throw ClusterError("pg-cluster.sh \(command) ended with status \(status): \(message)")
        }
        return text
    }
}

/// A cluster that could not be made or controlled.
public struct ClusterError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// A test's own connection to a cluster, used from a serial dispatch queue (libpq blocks, so never
/// from the cooperative pool): for what a test does beside the code under test (holding a lock,
/// counting rows).
public final class ClusterConnection: @unchecked Sendable {
    // Touched only on `queue`.
    private let connection: Connection
    private let queue: DispatchQueue

    /// Connects to `url`.
    public init(_ url: String) async throws {
        let queue = DispatchQueue(label: "test-postgres-connection")
        self.queue = queue
        connection = try await withCheckedThrowingContinuation { continuation in
            queue.async {
                do {
                    continuation.resume(returning: UncheckedBox(try Connection(url)))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }.value
    }

    /// Runs `body` with the connection on its queue.
    public func run<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        let connection = UncheckedBox(self.connection)
        return try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body(connection.value) }) }
        }
    }

    /// One statement's rows.
    public func query(_ sql: String, _ parameters: [PostgresValue] = []) async throws -> ResultSet {
        try await run { try $0.query(sql, parameters) }
    }

    /// Closes the connection.
    public func close() async {
        _ = try? await run { $0.close() }
    }
}

/// Carries a value that is used from one queue at a time across an isolation boundary.
private struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

extension PostgresCluster {
    /// Runs `body` with a fresh cluster, removed afterwards however `body` ends.
    public static func with<T>(_ body: (PostgresCluster) async throws -> T) async throws -> T {
        let cluster = try await start()
        do {
            let result = try await body(cluster)
            await cluster.remove()
            return result
        } catch {
            await cluster.remove()
            throw error
        }
    }
}
