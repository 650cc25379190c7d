public import Argon2
import Dispatch
import Foundation
public import Reactive
public import Sodium
import Synchronization
import ZeroMQ

/// Why the ``PasswordHashingPool`` did not deliver a result.
public enum HashingPoolError: Error, Sendable, Hashable {
    /// The queue was full: the job was refused at once, without waiting for room. Answer the
    /// client `overloaded`.
    case overloaded
    /// The pool was shut down before the job ran (or the job was submitted after that).
    case shutDown
    /// The awaiting task was cancelled while the job was still queued; the job was removed.
    case cancelled
    /// libsodium could not hash (in practice: it could not allocate the cost's memory).
    case hashingFailed(SodiumError)
}

/// The Argon2id code a pool runs and the memory it holds for it (``PasswordHashingPool/hashingSetup``).
public struct HashingSetup: Sendable, Hashable {
    /// The implementation every worker runs.
    public let implementation: Argon2Implementation
    /// The bytes each worker's workspace keeps resident (0 with libsodium, which maps the cost's
    /// memory for the length of each hash instead).
    public let workspaceBytes: Int
    /// The workers.
    public let workers: Int

    /// `workspaceBytes × workers`: resident for the pool's whole life.
    public var residentBytes: Int { workspaceBytes * workers }
}

/// A bounded pool of worker threads that run Argon2id hash and verify jobs off Swift's cooperative
/// pool, with a bounded queue that refuses work at once when full.
///
/// ```swift
/// let pool = PasswordHashingPool(queueCapacity: 64)
/// let stored = try await pool.hash(password: Array("hunter22".utf8), cost: .owasp)
/// let ok = try await pool.verify(password: Array("hunter22".utf8), against: stored)
/// await pool.shutdown()
/// ```
///
/// - Sizing: each running job holds its cost's memory (19 MiB at ``Argon2id/Cost/owasp``), so
///   `workers` jobs run at once and hold `workers × m` bytes; at most `queueCapacity` more wait.
/// - Implementation: libsodium by default, or ``Argon2Implementation/swift(_:)``, where every
///   worker owns one workspace of the cost's memory for the pool's whole life: mapped and faulted
///   in by `init` (so `workers × m` bytes are resident from the start, and a hash takes no page
///   faults), wiped after every hash, unmapped when the worker ends.
/// - Overload: ``hash(password:cost:)`` and ``verify(password:against:)`` throw
///   ``HashingPoolError/overloaded`` immediately when `queueCapacity` jobs are already waiting.
/// - Cancellation: cancelling the awaiting task while its job is queued removes the job and throws
///   ``HashingPoolError/cancelled``; a job that is already running finishes and its result is
///   delivered.
/// - Shutdown: ``shutdown()`` fails every queued job with ``HashingPoolError/shutDown``, lets running
///   jobs finish, and returns once every worker thread has ended.
/// - Two faces: `async` methods for code in tasks, and `Single`s (``hashing(password:cost:)``,
///   ``verifying(password:against:)``, ``verifyingDummy(password:cost:)``) for reactive graphs: the
///   job is queued when the single is subscribed to, its outcome is delivered on the worker's thread
///   (no task, no cooperative thread), and disposing removes a job that is still queued.
public final class PasswordHashingPool: Sendable {
    /// A snapshot of the pool's counters.
    public struct Counters: Sendable, Hashable {
        /// Jobs waiting in the queue now.
        public var queued: Int
        /// Jobs running on a worker now.
        public var running: Int
        /// Jobs that ran to the end (successfully or with a hashing error) since the pool started.
        public var completed: Int
        /// Jobs refused as ``HashingPoolError/overloaded`` since the pool started.
        public var rejected: Int
        /// Hashes and verifications run by the `Argon2` module in a worker's workspace.
        public var ownHashes: Int = 0
        /// Hashes and verifications run by libsodium (all of them with ``Argon2Implementation/libsodium``;
        /// with the Swift implementation, strings of another variant or of a larger cost).
        public var libsodiumHashes: Int = 0
    }

    /// The default number of workers: one hash per core the process may use (``AvailableCores``:
    /// its affinity mask and CPU quota).
    public static var defaultWorkers: Int { AvailableCores.count }

    /// The number of worker threads.
    public let workers: Int
    /// The most jobs that may wait in the queue (running jobs not included).
    public let queueCapacity: Int

    /// The implementation the workers run and the memory it holds.
    public let hashingSetup: HashingSetup

    /// The state shared with the worker threads.
    private let core: Core
    /// The dummy hash of each cost, made once (see ``dummyHash(for:)``).
    private let dummyHashes = Mutex<[Argon2id.Cost: String]>([:])

    /// Starts `workers` threads (default: the number of active processors) and a queue in which at
    /// most `queueCapacity` jobs wait for a busy worker (with zero, a job is refused unless a worker
    /// is idle).
    /// The workers run libsodium.
    public convenience init(
        workers: Int = PasswordHashingPool.defaultWorkers, queueCapacity: Int
    ) {
        self.init(workers: workers, queueCapacity: queueCapacity, workspaces: nil)
    }

    /// Starts `workers` threads running `implementation`. With ``Argon2Implementation/swift(_:)``
    /// each worker gets a workspace of `cost`'s memory, mapped and faulted in here before any
    /// thread starts; throws ``Argon2/Argon2Error`` when one cannot be (out of memory, or a kernel
    /// this CPU cannot run).
    public convenience init(
        workers: Int = PasswordHashingPool.defaultWorkers, queueCapacity: Int,
        implementation: Argon2Implementation, cost: Argon2id.Cost
    ) throws(Argon2Error) {
        precondition(workers > 0, "PasswordHashingPool needs at least one worker")
        switch implementation {
        case .libsodium:
            self.init(workers: workers, queueCapacity: queueCapacity, workspaces: nil)
        case .swift(let kernel):
            var workspaces: [Argon2Workspace] = []
            for _ in 0..<workers {
                workspaces.append(try Argon2Workspace(memoryKiB: cost.memoryKiB, kernel: kernel))
            }
            self.init(workers: workers, queueCapacity: queueCapacity, workspaces: workspaces)
        }
    }

    /// Starts the workers; worker `i` owns `workspaces[i]` when there are workspaces.
    private init(workers: Int, queueCapacity: Int, workspaces: [Argon2Workspace]?) {
        precondition(workers > 0, "PasswordHashingPool needs at least one worker")
        precondition(queueCapacity >= 0, "PasswordHashingPool's queue capacity cannot be negative")
        self.workers = workers
        self.queueCapacity = queueCapacity
        self.core = Core(workers: workers, queueCapacity: queueCapacity)
        let first = workspaces?.first
        self.hashingSetup = HashingSetup(
            implementation: first.map { .swift($0.kernel) } ?? .libsodium,
            workspaceBytes: first?.residentBytes ?? 0,
            workers: workers)
        for index in 0..<workers {
            let core = self.core
            // Each workspace moves to its worker's thread and is used there only.
            let workspace = Handover(value: workspaces?[index])
            // Named where `top -H` and `perf` look (Foundation's `Thread.name` does not reach them).
            OwnedThread.spawn(name: "auth-hash-\(index)") {
                core.workerLoop(hasher: PasswordHasher(workspace: workspace.value, counts: core.hashCounts))
            }
        }
    }

    deinit { core.beginShutdown() }

    /// Hashes `password` with `cost` on a worker and returns the PHC string.
    public func hash(password: [UInt8], cost: Argon2id.Cost) async throws(HashingPoolError) -> String {
        try await submit { hasher in
            Result { () throws(SodiumError) in try hasher.hash(password: password, cost: cost) }
                .mapError { .hashingFailed($0) }
        }
    }

    /// Verifies `password` against the PHC string `hash` on a worker. A wrong password or a
    /// malformed string is `false` (see ``Argon2id/verify(password:against:)``).
    public func verify(password: [UInt8], against hash: String) async throws(HashingPoolError) -> Bool {
        try await submit { hasher in .success(hasher.verify(password: password, against: hash)) }
    }

    /// A fixed PHC string of `cost` (a random password, never disclosed), made on a worker the first
    /// time it is asked for and then reused, so that logins of unknown users can verify against it.
    public func dummyHash(for cost: Argon2id.Cost) async throws(HashingPoolError) -> String {
        if let known = dummyHashes.withLock({ $0[cost] }) { return known }
        let made = try await hash(password: SecureRandom.bytes(32), cost: cost)
        return keepDummy(made, for: cost)
    }

    /// Keeps `made` as the dummy hash of `cost` unless one is kept already, and returns the one kept:
    /// two first callers may both have made one, and the first stored is the one everyone uses.
    private func keepDummy(_ made: String, for cost: Argon2id.Cost) -> String {
        dummyHashes.withLock { hashes in
            if let known = hashes[cost] { return known }
            hashes[cost] = made
            return made
        }
    }

    /// Does the work of verifying `password` against a hash of `cost` (the dummy hash) and discards
    /// the outcome: a login of an unknown user costs what a known user's login costs.
    public func verifyDummy(password: [UInt8], cost: Argon2id.Cost) async throws(HashingPoolError) {
        _ = try await verify(password: password, against: dummyHash(for: cost))
    }

    /// ``hash(password:cost:)`` as a `Single`, delivered on the worker's thread.
    public func hashing(password: [UInt8], cost: Argon2id.Cost) -> Single<String> {
        job { hasher in
            Result { () throws(SodiumError) in try hasher.hash(password: password, cost: cost) }
                .mapError { .hashingFailed($0) }
        }
    }

    /// ``verify(password:against:)`` as a `Single`, delivered on the worker's thread.
    public func verifying(password: [UInt8], against hash: String) -> Single<Bool> {
        job { hasher in .success(hasher.verify(password: password, against: hash)) }
    }

    /// ``verifyDummy(password:cost:)`` as a `Single`, delivered on the worker's thread (the first
    /// one of a cost makes the dummy hash first, on a worker too).
    public func verifyingDummy(password: [UInt8], cost: Argon2id.Cost) -> Single<Void> {
        let dummy: Single<String>
        if let known = dummyHashes.withLock({ $0[cost] }) {
            dummy = .just(known)
        } else {
            dummy = hashing(password: SecureRandom.bytes(32), cost: cost).map { [self] made in
                keepDummy(made, for: cost)
            }
        }
        return dummy.flatMap { [self] hash in verifying(password: password, against: hash).map { _ in () } }
    }

    /// The pool's counters now.
    public var counters: Counters { core.counters }

    /// Worker threads that have not ended yet (for tests of ``shutdown()``).
    var liveWorkers: Int { core.liveWorkers }

    /// Fails every queued job with ``HashingPoolError/shutDown``, lets running jobs finish, and
    /// returns once every worker thread has ended (without blocking a cooperative thread). Later
    /// submissions throw ``HashingPoolError/shutDown``. Calling it again just waits for the end.
    public func shutdown() async {
        core.beginShutdown()
        await core.waitForWorkersToEnd()
    }

    /// Runs `work` on a worker and returns its result. Throws ``HashingPoolError/overloaded`` at
    /// once when the queue is full.
    func submit<Output: Sendable>(
        _ work: @escaping @Sendable (PasswordHasher) -> Result<Output, HashingPoolError>
    ) async throws(HashingPoolError) -> Output {
        let core = self.core
        let id = core.makeJobID()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<Output, HashingPoolError>, Never>) in
                start(id, work, isCancelled: Task.isCancelled) { continuation.resume(returning: $0) }
            }
        } onCancel: {
            core.cancel(id)
        }
        return try result.get()
    }

    /// `work` on a worker, as a `Single`: queued on subscription, delivered on the worker's thread,
    /// removed from the queue when disposed before a worker takes it.
    func job<Output: Sendable>(
        _ work: @escaping @Sendable (PasswordHasher) -> Result<Output, HashingPoolError>
    ) -> Single<Output> {
        let core = self.core
        return Single.create { [self] done in
            let id = core.makeJobID()
            start(id, work, isCancelled: false) { result in
                switch result {
                case .success(let output): done(.success(output))
                case .failure(let error): done(.failure(error))
                }
            }
            return Disposables.create { core.cancel(id) }
        }
    }

    /// ``submit(_:)`` for work that needs no hasher (tests that hold a worker).
    func submit<Output: Sendable>(
        _ work: @escaping @Sendable () -> Result<Output, HashingPoolError>
    ) async throws(HashingPoolError) -> Output {
        try await submit { (_: PasswordHasher) in work() }
    }

    /// ``job(_:)`` for work that needs no hasher (tests that hold a worker).
    func job<Output: Sendable>(
        _ work: @escaping @Sendable () -> Result<Output, HashingPoolError>
    ) -> Single<Output> {
        job { (_: PasswordHasher) in work() }
    }

    /// Queues job `id` (or refuses it at once); `deliver` gets its outcome exactly once, on the worker
    /// or, when refused, here. The one path every job takes.
    private func start<Output: Sendable>(
        _ id: UInt64, _ work: @escaping @Sendable (PasswordHasher) -> Result<Output, HashingPoolError>,
        isCancelled: Bool,
        deliver: @escaping @Sendable (Result<Output, HashingPoolError>) -> Void
    ) {
        let job = Job(
            id: id,
            run: { hasher in
                let result = work(hasher)
                return { deliver(result) }
            },
            fail: { deliver(.failure($0)) })
        if let refusal = core.enqueue(job, isCancelled: isCancelled) { job.fail(refusal) }
    }
}

/// One queued job: `run` computes with the worker's hasher and returns what resumes its caller (the worker counts the job
/// first, so a caller never sees its result before the counters do); `fail` resumes it with an
/// error. Exactly one of them is called, exactly once, by whoever takes the job out of the queue (or
/// refuses it).
private struct Job: Sendable {
    let id: UInt64
    let run: @Sendable (PasswordHasher) -> @Sendable () -> Void
    let fail: @Sendable (HashingPoolError) -> Void
}

/// The pool's state machine and the workers' loop, shared by the pool and its threads.
private final class Core: Sendable {
    /// Whether the pool takes jobs.
    enum Phase {
        /// Jobs are accepted and run.
        case accepting
        /// ``beginShutdown()`` was called: nothing is accepted, workers end when they find no job.
        case shuttingDown
    }

    /// Everything the lock protects.
    struct State {
        var phase = Phase.accepting
        /// Waiting jobs, oldest first.
        var queue: [Job] = []
        var running = 0
        var completed = 0
        var rejected = 0
        var nextJobID: UInt64 = 0
        /// Worker threads that have not ended yet.
        var liveWorkers: Int
        /// Callers of ``waitForWorkersToEnd()`` waiting for `liveWorkers` to reach zero.
        var endWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// What a worker does next.
    private enum Step {
        /// Run this job.
        case run(Job)
        /// Wait for the next signal (a job was removed by cancellation before it was taken).
        case wait
        /// End the thread.
        case end
    }

    private let state: Mutex<State>
    /// Counts jobs offered to the workers (one signal per enqueue, one per worker at shutdown).
    private let available = DispatchSemaphore(value: 0)
    private let workers: Int
    private let queueCapacity: Int
    /// Hashes by implementation, counted by the workers' hashers.
    let hashCounts = HashCounts()

    init(workers: Int, queueCapacity: Int) {
        self.workers = workers
        self.queueCapacity = queueCapacity
        self.state = Mutex(State(liveWorkers: workers))
    }

    func makeJobID() -> UInt64 {
        state.withLock { state in
            defer { state.nextJobID += 1 }
            return state.nextJobID
        }
    }

    /// Queues `job`, or returns why it is refused (the caller then fails it).
    func enqueue(_ job: Job, isCancelled: Bool) -> HashingPoolError? {
        let refusal: HashingPoolError? = state.withLock { state in
            guard case .accepting = state.phase else { return .shutDown }
            guard !isCancelled else { return .cancelled }
            // Idle workers take queued jobs at once: only jobs beyond them wait for a busy worker.
            guard state.queue.count < queueCapacity + (workers - state.running) else {
                state.rejected += 1
                return .overloaded
            }
            state.queue.append(job)
            return nil
        }
        if refusal == nil { available.signal() }
        return refusal
    }

    /// Removes the job `id` if it is still queued and fails it as cancelled.
    func cancel(_ id: UInt64) {
        let removed: Job? = state.withLock { state in
            guard let index = state.queue.firstIndex(where: { $0.id == id }) else { return nil }
            return state.queue.remove(at: index)
        }
        removed?.fail(.cancelled)
    }

    /// Stops accepting, fails the queued jobs and wakes every worker so that it can end.
    func beginShutdown() {
        let dropped: [Job]? = state.withLock { state in
            guard case .accepting = state.phase else { return nil }
            state.phase = .shuttingDown
            defer { state.queue.removeAll() }
            return state.queue
        }
        guard let dropped else { return }
        for job in dropped { job.fail(.shutDown) }
        for _ in 0..<workers { available.signal() }
    }

    /// Suspends until every worker thread has ended.
    func waitForWorkersToEnd() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ended = state.withLock { state in
                if state.liveWorkers == 0 { return true }
                state.endWaiters.append(continuation)
                return false
            }
            if ended { continuation.resume() }
        }
    }

    /// A worker thread's whole life: take jobs and run them with `hasher` until shutdown finds the
    /// queue empty.
    func workerLoop(hasher: PasswordHasher) {
        loop: while true {
            available.wait()
            let step: Step = state.withLock { state in
                if !state.queue.isEmpty {
                    state.running += 1
                    return .run(state.queue.removeFirst())
                }
                if case .shuttingDown = state.phase { return .end }
                return .wait
            }
            switch step {
            case .run(let job):
                let resumeCaller = job.run(hasher)
                state.withLock { state in
                    state.running -= 1
                    state.completed += 1
                }
                resumeCaller()
            case .wait: continue loop
            case .end: break loop
            }
        }
        let waiters = state.withLock { state in
            state.liveWorkers -= 1
            guard state.liveWorkers == 0 else { return [CheckedContinuation<Void, Never>]() }
            defer { state.endWaiters.removeAll() }
            return state.endWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    var liveWorkers: Int { state.withLock { $0.liveWorkers } }

    var counters: PasswordHashingPool.Counters {
        state.withLock { state in
            PasswordHashingPool.Counters(
                queued: state.queue.count, running: state.running, completed: state.completed,
                rejected: state.rejected, ownHashes: hashCounts.own.load(ordering: .relaxed),
                libsodiumHashes: hashCounts.libsodium.load(ordering: .relaxed))
        }
    }
}
