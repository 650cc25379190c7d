import Dispatch
import Foundation
import Synchronization
import ZeroMQ

/// A database connection that a ``DatabaseThread`` owns.
protocol OwnedConnection: SendableMetatype {
    /// Whether the connection still works; checked after every batch of a thread that recovers.
    var isUsable: Bool { get }
    /// Closes the connection.
    func close()
}

/// A thread that owns one database connection (SQLite or PostgreSQL) and runs jobs on it in
/// batches; with a ``Recovery``, it also reconnects by itself when the connection is lost.
///
/// Database calls block (a durable commit waits for the disk, a lost server for the deadline), so
/// they never run on Swift's cooperative pool or an actor. Jobs are queued without blocking; the
/// thread takes everything queued at once and hands the batch to its `process` function (one
/// transaction, one pipeline), so callers pay one wake-up per batch rather than per job. The queue
/// is bounded: ``submit(_:)`` refuses work when it is full or the thread is stopping, and, while
/// the connection is down, refuses at once with ``Submission/unreachable`` as the thread retries
/// the connection with exponential backoff. ``stop()`` returns once everything queued before it
/// has run (or, when the connection was lost, been refused) and the connection is closed.
final class DatabaseThread<Job: Sendable>: Sendable {
    /// What ``submit(_:)`` did.
    enum Submission: Sendable, Equatable {
        /// Queued: it will be processed or refused.
        case queued
        /// The queue is full or the thread is stopping.
        case full
        /// The connection is down (the thread is reconnecting).
        case unreachable
    }

    /// What a thread does when its connection is lost.
    struct Recovery: Sendable {
        /// The wait before the first attempt to reconnect, and the most it grows to by doubling.
        var backoff: ClosedRange<Duration>
        /// Fails jobs that will not run: those queued when the connection was lost, and those kept
        /// by ``DatabaseThread/submitDeferrable(_:)`` when the thread stops before it is back.
        var refuse: @Sendable ([Job]) -> Void
        /// Hears each loss, with its reason, and each reconnection (`(true, nil)`).
        var changed: @Sendable (_ connected: Bool, _ reason: String?) -> Void
    }

    private struct State: Sendable {
        var jobs: [Job] = []
        /// Jobs kept while the connection is down, run first once it is back.
        var deferred: [Job] = []
        var connected = true
        var stopping = false
        var stopped = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    /// The most jobs queued at once.
    let capacity: Int

    /// Starts the thread, which opens its connection with `open(true)` and then runs `process` on
    /// each batch until ``stop()``. Returns once the connection is open, or throws what the first
    /// `open` threw. `name` names the thread where `top -H` and `perf` show it (its first 15 bytes).
    ///
    /// `process` answers the failure that broke the connection, if it met one. Without `recovery`
    /// the thread keeps its first connection for its whole life. With it, when a batch broke the
    /// connection or, at any wake-up, the connection is no longer usable, the thread closes it,
    /// refuses what is queued with `recovery.refuse`, tells `recovery.changed(false, reason)`, and
    /// calls `open(false)` after `backoff.lowerBound`, doubling up to `backoff.upperBound` (a
    /// deferred job or ``stop()`` cuts a wait short), until it succeeds
    /// (`recovery.changed(true, nil)`) or the thread stops.
    init<Connection: OwnedConnection>(
        name: String, capacity: Int,
        open: @escaping @Sendable (_ first: Bool) throws -> Connection,
        process: @escaping @Sendable ([Job], Connection) -> (any Error)?,
        recovery: Recovery? = nil
    ) async throws {
        self.capacity = capacity
        try await withCheckedThrowingContinuation { (started: CheckedContinuation<Void, any Error>) in
            OwnedThread.spawn(name: name) { [self] in
                let connection: Connection
                do {
                    connection = try open(true)
                } catch {
                    finish()
                    started.resume(throwing: error)
                    return
                }
                started.resume()
                run(connection, open: open, process: process, recovery: recovery)
                finish()
            }
        }
    }

    /// Queues `job` unless the queue is full, the thread stops, or the connection is down.
    func submit(_ job: Job) -> Submission {
        let submission = state.withLock { state -> Submission in
            guard !state.stopping, state.jobs.count < capacity else { return .full }
            guard state.connected else { return .unreachable }
            state.jobs.append(job)
            return .queued
        }
        if submission == .queued { wake.signal() }
        return submission
    }

    /// Queues `job` like ``submit(_:)``, except that while the connection is down it is kept
    /// (within the capacity) and run first once the connection is back, instead of refused.
    func submitDeferrable(_ job: Job) -> Submission {
        let submission = state.withLock { state -> Submission in
            guard !state.stopping, state.jobs.count + state.deferred.count < capacity else { return .full }
            if state.connected {
                state.jobs.append(job)
            } else {
                state.deferred.append(job)
            }
            return .queued
        }
        wake.signal()
        return submission
    }

    /// The number of jobs waiting.
    var queued: Int { state.withLock { $0.jobs.count } }

    /// Whether the thread holds a working connection.
    var isConnected: Bool { state.withLock { $0.connected } }

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

    private func run<Connection: OwnedConnection>(
        _ first: Connection, open: (_ first: Bool) throws -> Connection,
        process: ([Job], Connection) -> (any Error)?, recovery: Recovery?
    ) {
        var connection = first
        var batch: [Job] = []
        while true {
            wake.wait()
            let stopping = state.withLock { state -> Bool in
                swap(&batch, &state.jobs)
                return state.stopping
            }
            var failure: (any Error)?
            if !batch.isEmpty { failure = process(batch, connection) }
            batch.removeAll(keepingCapacity: true)
            if let recovery, failure != nil || !connection.isUsable {
                connection.close()
                disconnect(
                    recovery, reason: failure.map { String(describing: $0) } ?? "the connection was lost")
                guard let reopened = reconnect(open, recovery) else { return }
                connection = reopened
                continue
            }
            if stopping, state.withLock({ $0.jobs.isEmpty }) {
                connection.close()
                return
            }
        }
    }

    /// Marks the connection down and refuses what is queued.
    private func disconnect(_ recovery: Recovery, reason: String) {
        let queued = state.withLock { state -> [Job] in
            state.connected = false
            defer { state.jobs = [] }
            return state.jobs
        }
        if !queued.isEmpty { recovery.refuse(queued) }
        recovery.changed(false, reason)
    }

    /// Opens a new connection, waiting with backoff between attempts; nil once the thread stops
    /// first, after refusing what was deferred.
    private func reconnect<Connection>(
        _ open: (_ first: Bool) throws -> Connection, _ recovery: Recovery
    ) -> Connection? {
        var delay = recovery.backoff.lowerBound
        while true {
            if state.withLock({ $0.stopping }) {
                let deferred = state.withLock { state -> [Job] in
                    defer { state.deferred = [] }
                    return state.deferred
                }
                if !deferred.isEmpty { recovery.refuse(deferred) }
                return nil
            }
            do {
                let connection = try open(false)
                let resumed = state.withLock { state -> Bool in
                    state.connected = true
                    state.jobs.insert(contentsOf: state.deferred, at: 0)
                    state.deferred = []
                    return !state.jobs.isEmpty
                }
                if resumed { wake.signal() }
                recovery.changed(true, nil)
                return connection
            } catch {
                _ = wake.wait(timeout: .now() + Self.seconds(delay))
                delay = min(delay * 2, recovery.backoff.upperBound)
            }
        }
    }

    /// Ends the thread's life. Nothing is queued by then: a stopping or disconnected thread takes
    /// no jobs, and the loop runs or refuses every job it took.
    private func finish() {
        let waiters = state.withLock { state in
            state.stopping = true
            state.stopped = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
