import Dispatch
import Glibc
import Reactive
import Sodium
import Synchronization
import Testing

@testable import AuthCore

/// A job that tells the test it started, then blocks its worker until the test opens the gate.
private struct GatedJobs: Sendable {
    let gate = DispatchSemaphore(value: 0)
    let started: AsyncStream<Int>
    let startedContinuation: AsyncStream<Int>.Continuation

    init() { (started, startedContinuation) = AsyncStream.makeStream(of: Int.self) }

    /// Submits a job that reports `number` as started, waits for the gate and returns `number`.
    func submit(_ number: Int, to pool: PasswordHashingPool) async throws(HashingPoolError) -> Int {
        let gate = self.gate
        let started = startedContinuation
        return try await pool.submit {
            started.yield(number)
            gate.wait()
            return .success(number)
        }
    }

    /// Waits until `count` gated jobs have started (the suite's time limit is the deadline).
    func waitForStarts(_ count: Int) async {
        var iterator = started.makeAsyncIterator()
        for _ in 0..<count { _ = await iterator.next() }
    }

    /// Lets `count` gated jobs finish.
    func open(_ count: Int) { for _ in 0..<count { gate.signal() } }
}

/// Waits until `condition` holds, yielding between checks, for at most `seconds`.
private func waitUntil(seconds: Int = 10, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while !condition() {
        if ContinuousClock.now > deadline { return false }
        await Task.yield()
    }
    return true
}

@Suite("PasswordHashingPool", .timeLimit(.minutes(1)))
struct PasswordHashingPoolTests {
    @Test("hash and verify jobs give correct results under concurrency")
    func concurrentResults() async throws {
        let pool = PasswordHashingPool(workers: 2, queueCapacity: 16)
        let passwords = (0..<4).map { Array("password-\($0)".utf8) }
        let hashes = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for (index, password) in passwords.enumerated() {
                group.addTask { (index, try await pool.hash(password: password, cost: .test)) }
            }
            var hashes = [String](repeating: "", count: passwords.count)
            for try await (index, hash) in group { hashes[index] = hash }
            return hashes
        }
        let outcomes = try await withThrowingTaskGroup(of: (Int, Int, Bool).self) { group in
            for index in passwords.indices {
                for candidate in passwords.indices {
                    group.addTask {
                        let ok = try await pool.verify(password: passwords[candidate], against: hashes[index])
                        return (index, candidate, ok)
                    }
                }
            }
            var outcomes: [(Int, Int, Bool)] = []
            for try await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
        #expect(outcomes.count == 16)
        for (index, candidate, ok) in outcomes { #expect(ok == (index == candidate)) }
        await pool.shutdown()
        #expect(
            pool.counters
                == .init(queued: 0, running: 0, completed: 20, rejected: 0, ownHashes: 0, libsodiumHashes: 20)
        )
    }

    @Test("a full queue refuses a job at once with overloaded")
    func overloaded() async throws {
        let pool = PasswordHashingPool(workers: 2, queueCapacity: 1)
        let jobs = GatedJobs()
        defer { jobs.open(8) }
        async let first = jobs.submit(1, to: pool)
        async let second = jobs.submit(2, to: pool)
        await jobs.waitForStarts(2)
        async let third = jobs.submit(3, to: pool)
        #expect(await waitUntil { pool.counters.queued == 1 })
        #expect(pool.counters == .init(queued: 1, running: 2, completed: 0, rejected: 0))
        await #expect(throws: HashingPoolError.overloaded) {
            try await pool.verify(password: [], against: "")
        }
        #expect(pool.counters.rejected == 1)
        jobs.open(3)
        #expect(try await [first, second, third] == [1, 2, 3])
        await pool.shutdown()
        #expect(pool.counters == .init(queued: 0, running: 0, completed: 3, rejected: 1))
    }

    @Test("shutdown fails queued jobs, lets the running one finish and joins the workers")
    func shutdown() async throws {
        let pool = PasswordHashingPool(workers: 1, queueCapacity: 2)
        let jobs = GatedJobs()
        defer { jobs.open(8) }
        async let running = jobs.submit(1, to: pool)
        await jobs.waitForStarts(1)
        let queuedA = Task { try await jobs.submit(2, to: pool) }
        let queuedB = Task { try await jobs.submit(3, to: pool) }
        #expect(await waitUntil { pool.counters.queued == 2 })
        async let shutdown: Void = pool.shutdown()
        await #expect(throws: HashingPoolError.shutDown) { try await queuedA.value }
        await #expect(throws: HashingPoolError.shutDown) { try await queuedB.value }
        #expect(pool.liveWorkers == 1)
        jobs.open(1)
        #expect(try await running == 1)
        await shutdown
        #expect(pool.liveWorkers == 0)
        await #expect(throws: HashingPoolError.shutDown) {
            try await pool.hash(password: [], cost: .test)
        }
        await pool.shutdown()  // again: returns at once
    }

    @Test("cancelling a task whose job is queued removes the job")
    func cancellation() async throws {
        let pool = PasswordHashingPool(workers: 1, queueCapacity: 2)
        let jobs = GatedJobs()
        defer { jobs.open(8) }
        async let running = jobs.submit(1, to: pool)
        await jobs.waitForStarts(1)
        let queued = Task { try await jobs.submit(2, to: pool) }
        #expect(await waitUntil { pool.counters.queued == 1 })
        queued.cancel()
        await #expect(throws: HashingPoolError.cancelled) { try await queued.value }
        #expect(pool.counters.queued == 0)
        jobs.open(1)
        #expect(try await running == 1)
        await pool.shutdown()
        #expect(pool.counters.completed == 1)
    }

    @Test("the dummy hash is made once per cost and never verifies a guess")
    func dummyHash() async throws {
        let pool = PasswordHashingPool(workers: 2, queueCapacity: 4)
        let first = try await pool.dummyHash(for: .test)
        #expect(try await pool.dummyHash(for: .test) == first)
        #expect(try Argon2id.cost(of: first) == .test)
        #expect(try await !pool.verify(password: Array("guess".utf8), against: first))
        try await pool.verifyDummy(password: Array("guess".utf8), cost: .test)
        await pool.shutdown()
        #expect(pool.counters.completed == 3)
    }
    @Test("the Single face: results come on a worker's thread; disposing a queued job removes it")
    func singles() async throws {
        let pool = PasswordHashingPool(workers: 1, queueCapacity: 2)
        let stored = try await pool.hashing(password: Array("hunter22".utf8), cost: .test).value
        #expect(try await pool.verifying(password: Array("hunter22".utf8), against: stored).value)
        // The outcome is delivered on the thread that ran the job: a worker's, no hop.
        let ranOn = Mutex<pthread_t?>(nil)
        let deliveredOn = Mutex<pthread_t?>(nil)
        _ = try await pool.job { () -> Result<Int, HashingPoolError> in
            ranOn.withLock { $0 = pthread_self() }
            return .success(1)
        }
        .do(onSuccess: { _ in deliveredOn.withLock { $0 = pthread_self() } })
        .value
        let worker = try #require(ranOn.withLock { $0 })
        let delivery = try #require(deliveredOn.withLock { $0 })
        #expect(pthread_equal(worker, delivery) != 0)
        #expect(try await !pool.verifying(password: Array("wrong".utf8), against: stored).value)
        try await pool.verifyingDummy(password: Array("guess".utf8), cost: .test).value

        let jobs = GatedJobs()
        defer { jobs.open(8) }
        async let running = jobs.submit(1, to: pool)
        await jobs.waitForStarts(1)
        let delivered = Mutex(false)
        let queued = pool.verifying(password: Array("hunter22".utf8), against: stored)
            .subscribe { _ in delivered.withLock { $0 = true } }
        #expect(await waitUntil { pool.counters.queued == 1 })
        queued.dispose()
        #expect(pool.counters.queued == 0)
        jobs.open(1)
        #expect(try await running == 1)
        await pool.shutdown()
        #expect(!delivered.withLock { $0 })
        // hashing, two verifications, the job, the dummy hash and its verification, the gated job.
        #expect(pool.counters.completed == 7)
    }
}
