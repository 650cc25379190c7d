import Foundation
import SQLite
import Synchronization
import ZeroMQ

/// A thread that owns one SQLite connection and runs jobs on it in batches.
///
/// SQLite calls block (a durable commit waits for the disk), so they never run on Swift's
/// cooperative pool or an actor. Jobs are queued without blocking; the thread takes everything
/// queued at once and hands the batch to its `process` function, so callers pay one wake-up per
/// batch rather than per job. The queue is bounded: ``submit(_:)`` refuses work when it is full.
final class DatabaseThread<Job: Sendable>: Sendable {
    private struct State: Sendable {
        var jobs: [Job] = []
        var stopping = false
        var stopped = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    /// The most jobs queued at once.
    let capacity: Int

    /// Starts the thread, which opens its connection with `open` and then runs `process` on each
    /// batch until ``stop()``. Returns once the connection is open, or throws what `open` threw.
    /// `name` names the thread where `top -H` and `perf` show it (its first 15 bytes).
    init(
        name: String, capacity: Int, open: @escaping @Sendable () throws -> Database,
        process: @escaping @Sendable ([Job], Database) -> Void
    ) async throws {
        self.capacity = capacity
        try await withCheckedThrowingContinuation { (started: CheckedContinuation<Void, any Error>) in
            OwnedThread.spawn(name: name) { [self] in
                let database: Database
                do {
                    database = try open()
                } catch {
                    finish()
                    started.resume(throwing: error)
                    return
                }
                started.resume()
                run(database, process)
                database.close()
                finish()
            }
        }
    }

    /// Queues `job`; false when the queue is full or the thread is stopping.
    func submit(_ job: Job) -> Bool {
        let queued = state.withLock { state -> Bool in
            guard !state.stopping, state.jobs.count < capacity else { return false }
            state.jobs.append(job)
            return true
        }
        if queued { wake.signal() }
        return queued
    }

    /// The number of jobs waiting.
    var queued: Int { state.withLock { $0.jobs.count } }

    /// Runs what is queued, then closes the connection and ends the thread; returns once it has.
    func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                if state.stopped { return true }
                state.stopping = true
                state.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() } else { wake.signal() }
        }
    }

    private func run(_ database: Database, _ process: ([Job], Database) -> Void) {
        var batch: [Job] = []
        while true {
            wake.wait()
            let stopping = state.withLock { state -> Bool in
                swap(&batch, &state.jobs)
                return state.stopping
            }
            if !batch.isEmpty { process(batch, database) }
            batch.removeAll(keepingCapacity: true)
            if stopping, state.withLock({ $0.jobs.isEmpty }) { return }
        }
    }

    private func finish() {
        let waiters = state.withLock { state in
            state.stopping = true
            state.stopped = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
