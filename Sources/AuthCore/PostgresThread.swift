import Dispatch
import Foundation
import Postgres
import Synchronization
import ZeroMQ

/// A thread that owns one PostgreSQL connection, runs jobs on it in batches, and reconnects by
/// itself when the connection is lost.
///
/// libpq calls block (a commit waits for the server's disk, a lost server for the deadline), so
/// they never run on Swift's cooperative pool or an actor. Jobs are queued without blocking; the
/// thread takes everything queued at once and hands the batch to `process` (one pipeline, one round
/// trip). While the connection is down, ``submit(_:)`` refuses at once with
/// ``Submission/unreachable`` and the thread retries the connection with exponential backoff.
final class PostgresThread<Job: Sendable>: Sendable {
    /// What ``submit(_:)`` did.
    enum Submission: Sendable {
        /// Queued: it will be processed or refused.
        case queued
        /// The queue is full or the thread is stopping.
        case full
        /// The connection is down (the thread is reconnecting).
        case unreachable
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

    /// Starts the thread, which connects with `connect(true)` and then runs `process` on each batch
    /// until ``stop()``. Returns once connected, or throws what the first `connect` threw.
    ///
    /// `process` answers the connection failure it met, if any: the thread then drops the
    /// connection, refuses what is queued with `refuse`, tells `changed(false, reason)`, and calls
    /// `connect(false)` after `backoff.lowerBound`, doubling up to `backoff.upperBound`, until it
    /// succeeds (`changed(true, nil)`).
    init(
        name: String, capacity: Int, backoff: ClosedRange<Duration>,
        connect: @escaping @Sendable (_ first: Bool) throws -> Connection,
        process: @escaping @Sendable ([Job], Connection) -> PostgresError?,
        refuse: @escaping @Sendable ([Job]) -> Void,
        changed: @escaping @Sendable (_ connected: Bool, _ reason: String?) -> Void
    ) async throws {
        self.capacity = capacity
        try await withCheckedThrowingContinuation { (started: CheckedContinuation<Void, any Error>) in
            OwnedThread.spawn(name: name) { [self] in
                let connection: Connection
                do {
                    connection = try connect(true)
                } catch {
                    finish()
                    started.resume(throwing: error)
                    return
                }
                started.resume()
                run(
                    connection, backoff: backoff, connect: connect, process: process, refuse: refuse,
                    changed: changed)
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
        if case .queued = submission { wake.signal() }
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

    private func run(
        _ first: Connection, backoff: ClosedRange<Duration>, connect: (_ first: Bool) throws -> Connection,
        process: ([Job], Connection) -> PostgresError?, refuse: ([Job]) -> Void,
        changed: (_ connected: Bool, _ reason: String?) -> Void
    ) {
        var connection: Connection? = first
        var delay = backoff.lowerBound
        var batch: [Job] = []
        while true {
            guard let open = connection else {
                if state.withLock({ $0.stopping }) {
                    let deferred = state.withLock { state -> [Job] in
                        defer { state.deferred = [] }
                        return state.deferred
                    }
                    if !deferred.isEmpty { refuse(deferred) }
                    return
                }
                do {
                    connection = try connect(false)
                    let resumed = state.withLock { state -> Bool in
                        state.connected = true
                        state.jobs.insert(contentsOf: state.deferred, at: 0)
                        state.deferred = []
                        return !state.jobs.isEmpty
                    }
                    if resumed { wake.signal() }
                    delay = backoff.lowerBound
                    changed(true, nil)
                } catch {
                    _ = wake.wait(timeout: .now() + Self.seconds(delay))
                    delay = min(delay * 2, backoff.upperBound)
                }
                continue
            }
            wake.wait()
            let stopping = state.withLock { state -> Bool in
                swap(&batch, &state.jobs)
                return state.stopping
            }
            var failure: PostgresError?
            if !batch.isEmpty { failure = process(batch, open) }
            batch.removeAll(keepingCapacity: true)
            if failure != nil || !open.isUsable {
                open.close()
                connection = nil
                let queued = state.withLock { state -> [Job] in
                    state.connected = false
                    defer { state.jobs = [] }
                    return state.jobs
                }
                if !queued.isEmpty { refuse(queued) }
                changed(false, failure?.description ?? "the connection was lost")
                continue
            }
            if stopping, state.withLock({ $0.jobs.isEmpty }) {
                open.close()
                return
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
