import Foundation
import Postgres
import TestSupport
import Testing

/// Runs `body` on a thread of its own: libpq calls block, so they stay off the cooperative pool.
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// `Connection` against a throwaway cluster: queries, parameters, SQLSTATEs, pipelines, a lost server.
@Suite("Postgres.Connection", .timeLimit(.minutes(1)))
struct ConnectionTests {
    @Test("parameters in text and binary come back as sent; errors carry the SQLSTATE")
    func queries() async throws {
        try await PostgresCluster.with { cluster in
            let url = cluster.url
            try await onThread {
                let connection = try Connection(url)
                defer { connection.close() }
                try connection.execute("CREATE TABLE t (id bigint PRIMARY KEY, name text, data bytea)")
                let bytes: [UInt8] = [0, 1, 2, 255, 0, 39]
                let inserted = try connection.query(
                    "INSERT INTO t VALUES ($1, $2, $3)", [.integer(7), .text("it's ünïcode"), .bytes(bytes)])
                #expect(inserted.affectedRows == 1)
                let rows = try connection.query(
                    "SELECT id, name, data = $1, name IS NULL FROM t WHERE id = $2",
                    [.bytes(bytes), .integer(7)])
                #expect(try rows.integer(0, 0) == 7)
                #expect(try rows.text(0, 1) == "it's ünïcode")
                #expect(try rows.boolean(0, 2))
                #expect(try !rows.boolean(0, 3))
                #expect(throws: PostgresError.self) { try rows.integer(0, 1) }
                do {
                    try connection.query("INSERT INTO t VALUES ($1, NULL, NULL)", [.integer(7)])
                    Issue.record("a duplicate key was accepted")
                } catch let error as PostgresError {
                    #expect(error.kind == .server)
                    #expect(error.sqlState == .uniqueViolation)
                    #expect(!error.isConnectionFailure)
                } catch {
                    throw error
                }
                #expect(connection.isUsable)
            }
        }
    }

    @Test("a pipeline answers each statement in order; after a failure the rest is aborted")
    func pipeline() async throws {
        try await PostgresCluster.with { cluster in
            let url = cluster.url
            try await onThread {
                let connection = try Connection(url)
                defer { connection.close() }
                try connection.execute("CREATE TABLE t (id bigint PRIMARY KEY)")
                let insert = PreparedStatement("insert_t", "INSERT INTO t VALUES ($1) RETURNING id")
                let outcomes = try connection.pipeline(
                    [.sql("BEGIN")] + (1...100).map { .prepared(insert, [.integer($0)]) } + [.sql("COMMIT")])
                #expect(outcomes.count == 102)
                #expect(try outcomes[100].get().rows == [["100"]])
                #expect(try connection.query("SELECT count(*) FROM t").integer(0, 0) == 100)

                let failing = try connection.pipeline([
                    .prepared(insert, [.integer(101)]), .prepared(insert, [.integer(1)]),
                    .prepared(insert, [.integer(102)]),
                ])
                #expect((try? failing[0].get()) != nil)
                guard case .failure(let duplicate) = failing[1], case .failure(let skipped) = failing[2]
                else {
                    Issue.record("expected failures: \(failing)")
                    return
                }
                #expect(duplicate.sqlState == .uniqueViolation)
                #expect(skipped.kind == .aborted)
                // One sync, one implicit transaction: the first insert was rolled back with it.
                #expect(try connection.query("SELECT count(*) FROM t").integer(0, 0) == 100)
                #expect(try connection.pipeline([.sql("SELECT 1")])[0].get().rows == [["1"]])

                // A statement that cannot be prepared fails with the server's reason, every time.
                let missing = PreparedStatement("missing", "SELECT * FROM nowhere")
                for _ in 0..<2 {
                    let outcomes = try connection.pipeline([.prepared(missing), .sql("SELECT 1")])
                    guard case .failure(let error) = outcomes[0] else {
                        Issue.record("prepared a statement on a missing table")
                        return
                    }
                    #expect(error.sqlState == .undefinedTable)
                    #expect(error.kind == .server)
                }
            }
        }
    }

    @Test("a pipeline with a sync after each statement: each commits alone, a failure fails alone")
    func pipelineSeparately() async throws {
        try await PostgresCluster.with { cluster in
            let url = cluster.url
            try await onThread {
                let connection = try Connection(url)
                defer { connection.close() }
                try connection.execute("CREATE TABLE t (id bigint PRIMARY KEY)")
                let insert = PreparedStatement("insert_t", "INSERT INTO t VALUES ($1) RETURNING id")
                let outcomes = try connection.pipelineSeparately(
                    [1, 2, 1, 3].map { .prepared(insert, [.integer($0)]) }
                        + [.sql("SELECT txid_current()"), .sql("SELECT txid_current()")])
                #expect(outcomes.count == 6)
                #expect(try outcomes[0].get().rows == [["1"]])
                #expect(try outcomes[1].get().rows == [["2"]])
                guard case .failure(let duplicate) = outcomes[2] else {
                    Issue.record("a duplicate key was accepted")
                    return
                }
                #expect(duplicate.sqlState == .uniqueViolation)
                // Not aborted by the failure before it: its own transaction.
                #expect(try outcomes[3].get().rows == [["3"]])
                #expect(try connection.query("SELECT count(*) FROM t").integer(0, 0) == 3)
                // Two statements, two transactions.
                let first = try outcomes[4].get().integer(0, 0)
                let second = try outcomes[5].get().integer(0, 0)
                #expect(second > first)
                // The connection is in its ordinary state afterwards.
                #expect(try connection.query("SELECT 1").integer(0, 0) == 1)
            }
        }
    }

    @Test("a server that goes away is a connection failure; connecting to none fails")
    func lostServer() async throws {
        try await PostgresCluster.with { cluster in
            let url = cluster.url
            let connection = try await ClusterConnection(url)
            try await cluster.stop()
            let error = try await connection.run { connection -> PostgresError? in
                do {
                    _ = try connection.pipeline([.sql("SELECT 1")], timeout: .seconds(5))
                    return nil
                } catch let error as PostgresError {
                    return error
                } catch {
                    throw error
                }
            }
            #expect(error?.isConnectionFailure == true)
            #expect(try await connection.run { !$0.isUsable })
            await connection.close()
            let refused = try await onThread { () -> PostgresError? in
                do {
                    _ = try Connection(url)
                    return nil
                } catch let error as PostgresError {
                    return error
                } catch {
                    throw error
                }
            }
            #expect(refused?.kind == .connection)
        }
    }
}
