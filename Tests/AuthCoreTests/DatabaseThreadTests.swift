import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import AuthCore

/// A database the tests take down and bring back, and what a ``DatabaseThread`` did with it.
private final class FakeDatabase: Sendable {
    struct Log {
        /// Each batch `process` was handed.
        var batches: [[Int]] = []
        /// Jobs refused by the thread's recovery.
        var refused: [Int] = []
        /// The connection changes the recovery heard.
        var changes: [Bool] = []
        /// The reasons given with each loss.
        var reasons: [String] = []
        var opens = 0
        var closes = 0
        /// The name of the thread `process` ran on, as the kernel shows it.
        var threadName: String?
    }

    struct Lost: Error, CustomStringConvertible {
        var description: String { "the fake server went away" }
    }

    let log = Mutex(Log())
    /// Whether the server answers: while false, `open` throws and batches fail.
    let up = Mutex(true)
    /// A batch holding ``held`` waits on it inside `process`, so the test can queue jobs behind it.
    let gate = DispatchSemaphore(value: 0)
    let held: Int?

    init(held: Int? = nil) { self.held = held }

    var isUp: Bool { up.withLock { $0 } }

    func open() throws -> FakeConnection {
        guard isUp else { throw Lost() }
        log.withLock { $0.opens += 1 }
        return FakeConnection(database: self)
    }

    /// Records `jobs`, waits at the gate when they hold ``held``, then fails if the server is down.
    func process(_ jobs: [Int]) -> (any Error)? {
        let name = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
        log.withLock {
            $0.batches.append(jobs)
            $0.threadName = name?.trimmingCharacters(in: .newlines)
        }
        if let held, jobs.contains(held) { gate.wait() }
        return isUp ? nil : Lost()
    }

    var recovery: DatabaseThread<Int>.Recovery {
        .init(
            backoff: .milliseconds(1)...(.milliseconds(20)),
            refuse: { jobs in self.log.withLock { $0.refused += jobs } },
            changed: { connected, reason in
                self.log.withLock {
                    $0.changes.append(connected)
                    if let reason { $0.reasons.append(reason) }
                }
            })
    }

    /// Starts a thread on this database.
    func thread(name: String = "test-db", capacity: Int = 16, recovers: Bool = false) async throws
        -> DatabaseThread<Int>
    {
        try await DatabaseThread<Int>(
            name: name, capacity: capacity, open: { _ in try self.open() },
            process: { jobs, _ in self.process(jobs) }, recovery: recovers ? recovery : nil)
    }
}

private struct FakeConnection: OwnedConnection {
    let database: FakeDatabase
    var isUsable: Bool { database.isUp }
    func close() { database.log.withLock { $0.closes += 1 } }
}

@Suite("DatabaseThread", .timeLimit(.minutes(1)))
struct DatabaseThreadTests {
    @Test("jobs queued while a batch runs are run together as the next batch, on the named thread")
    func batches() async throws {
        let database = FakeDatabase(held: 1)
        let thread = try await database.thread(name: "auth-db-writer-and-more")
        #expect(thread.submit(1) == .queued)
        #expect(await eventually { database.log.withLock { $0.batches.count == 1 } })
        for job in 2...4 { #expect(thread.submit(job) == .queued) }
        #expect(thread.queued == 3)
        database.gate.signal()
        await thread.stop()
        let log = database.log.withLock { $0 }
        #expect(log.batches == [[1], [2, 3, 4]])
        #expect(log.threadName == "auth-db-writer-")
        #expect(thread.queued == 0)
    }

    @Test("the queue is bounded; a stopped thread refuses work")
    func capacity() async throws {
        let database = FakeDatabase(held: 1)
        let thread = try await database.thread(capacity: 2)
        #expect(thread.submit(1) == .queued)
        #expect(await eventually { database.log.withLock { $0.batches.count == 1 } })
        #expect(thread.submit(2) == .queued)
        #expect(thread.submit(3) == .queued)
        #expect(thread.submit(4) == .full)
        #expect(thread.submitDeferrable(4) == .full)
        database.gate.signal()
        #expect(await eventually { database.log.withLock { $0.batches.count == 2 } })
        #expect(thread.submit(5) == .queued)
        await thread.stop()
        #expect(thread.submit(6) == .full)
        #expect(thread.submitDeferrable(6) == .full)
        #expect(database.log.withLock { $0.batches } == [[1], [2, 3], [5]])
    }

    @Test("stop returns after the queued jobs ran and the connection closed; a second one at once")
    func stopRunsWhatIsQueued() async throws {
        let database = FakeDatabase(held: 1)
        let thread = try await database.thread()
        #expect(thread.submit(1) == .queued)
        #expect(await eventually { database.log.withLock { $0.batches.count == 1 } })
        #expect(thread.submit(2) == .queued)
        #expect(thread.submit(3) == .queued)
        async let stopped: Void = thread.stop()
        database.gate.signal()
        await stopped
        var log = database.log.withLock { $0 }
        #expect(log.batches == [[1], [2, 3]])
        #expect(log.opens == 1)
        #expect(log.closes == 1)
        await thread.stop()
        log = database.log.withLock { $0 }
        #expect(log.closes == 1)
    }

    @Test("a connection that cannot be opened fails the initializer")
    func openFails() async throws {
        let database = FakeDatabase()
        database.up.withLock { $0 = false }
        await #expect(throws: FakeDatabase.Lost.self) { _ = try await database.thread(recovers: true) }
        #expect(database.log.withLock { $0.opens } == 0)
    }

    @Test("without recovery, a failed batch keeps the connection")
    func noRecoveryKeepsTheConnection() async throws {
        let database = FakeDatabase()
        let thread = try await database.thread()
        database.up.withLock { $0 = false }
        #expect(thread.submit(1) == .queued)
        #expect(await eventually { database.log.withLock { $0.batches.count == 1 } })
        #expect(thread.submit(2) == .queued)
        await thread.stop()
        let log = database.log.withLock { $0 }
        #expect(log.batches == [[1], [2]])
        #expect(log.opens == 1)
        #expect(log.closes == 1)
        #expect(log.changes.isEmpty)
        #expect(thread.isConnected)
    }

    @Test("a lost connection: queued jobs refused, others unreachable, deferred ones run first once back")
    func reconnects() async throws {
        let database = FakeDatabase(held: 1)
        let thread = try await database.thread(recovers: true)
        #expect(thread.submit(1) == .queued)
        #expect(await eventually { database.log.withLock { $0.batches.count == 1 } })
        #expect(thread.submit(2) == .queued)
        #expect(thread.submit(3) == .queued)
        database.up.withLock { $0 = false }
        database.gate.signal()
        #expect(await eventually { database.log.withLock { $0.changes == [false] } })
        #expect(!thread.isConnected)
        var log = database.log.withLock { $0 }
        #expect(log.refused == [2, 3])
        #expect(log.changes == [false])
        #expect(log.reasons == ["the fake server went away"])
        #expect(log.closes == 1)
        #expect(thread.submit(4) == .unreachable)
        #expect(thread.submitDeferrable(5) == .queued)
        #expect(thread.submitDeferrable(6) == .queued)
        #expect(thread.queued == 0)

        database.up.withLock { $0 = true }
        #expect(await eventually { database.log.withLock { $0.batches.count == 2 } })
        #expect(thread.isConnected)
        #expect(thread.submit(7) == .queued)
        await thread.stop()
        log = database.log.withLock { $0 }
        #expect(log.batches.prefix(2) == [[1], [5, 6]])
        #expect(log.batches.joined().last == 7)
        #expect(log.changes == [false, true])
        #expect(log.opens == 2)
        #expect(log.closes == 2)
    }

    @Test("an unusable connection is noticed at the next wake, even one without jobs")
    func unusableWithoutJobs() async throws {
        let database = FakeDatabase()
        let thread = try await database.thread(recovers: true)
        database.up.withLock { $0 = false }
        await thread.stop()
        let log = database.log.withLock { $0 }
        #expect(log.batches.isEmpty)
        #expect(log.changes == [false])
        #expect(log.reasons == ["the connection was lost"])
        #expect(log.closes == 1)
        #expect(!thread.isConnected)
    }

    @Test("stopping while disconnected refuses the deferred jobs; deferral is bounded by the capacity")
    func stopWhileDisconnected() async throws {
        let database = FakeDatabase()
        let thread = try await database.thread(capacity: 2, recovers: true)
        database.up.withLock { $0 = false }
        #expect(thread.submit(1) == .queued)
        #expect(await eventually { database.log.withLock { $0.changes == [false] } })
        #expect(thread.submit(2) == .unreachable)
        #expect(thread.submitDeferrable(2) == .queued)
        #expect(thread.submitDeferrable(3) == .queued)
        #expect(thread.submitDeferrable(4) == .full)
        await thread.stop()
        let log = database.log.withLock { $0 }
        #expect(log.refused == [2, 3])
        #expect(log.batches == [[1]])
        #expect(log.changes == [false])
        #expect(log.opens == 1)
        #expect(log.closes == 1)
        #expect(thread.submitDeferrable(5) == .full)
    }
}
