import Glibc
import Synchronization

/// A serial executor (and task executor) whose jobs run on a ``SocketLoop``'s thread, between its
/// polls.
///
/// An actor that serves a socket loop (a service's core) can use it as its executor: a batch of
/// messages then reaches the actor without leaving the loop's thread, and the replies the actor
/// queues go out in the same turn. Every thread hand-off costs microseconds and wake-ups here, and a
/// request/response round trip would otherwise cross two more threads.
///
/// A loop makes one (``SocketLoop/executor``), or takes one made first; give it to the actor
/// (`unownedExecutor`). Jobs enqueued before the loop starts run once it does; jobs of a stopped
/// loop never run, so stop the actor's work before the loop.
public final class LoopExecutor: SerialExecutor, TaskExecutor {
    private struct State: ~Copyable {
        var jobs: [UnownedJob] = []
        /// Wakes the loop when jobs arrive while it waits in `poll`; set by the loop.
        var waker: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())
    /// The loop thread's id (`pthread_self()`), 0 while not attached: read without the lock on
    /// every isolation check.
    private let threadID = Atomic<UInt>(0)
    /// Whether the loop thread is running this executor's jobs now.
    private let runningJobs = Atomic<Bool>(false)

    /// An executor not yet attached to a loop.
    public init() {}

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let waker = state.withLock { state in
            state.jobs.append(job)
            return state.waker
        }
        waker?()
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Called by the loop's thread: who to wake when jobs arrive (nil when the loop ends).
    func attach(waker: (@Sendable () -> Void)?) {
        let thread = waker == nil ? nil : pthread_self()
        state.withLock { state in state.waker = waker }
        threadID.store(thread.map { UInt($0) } ?? 0, ordering: .releasing)
    }

    /// Whether the calling thread is the loop's. Code running there is isolated to this executor:
    /// its jobs run on that thread only, one at a time, between the loop's handler calls, so the
    /// loop's handler (which never runs during a job) may enter an actor on this executor with
    /// `assumeIsolated` and skip a job hop.
    public var isLoopThread: Bool {
        let thread = threadID.load(ordering: .acquiring)
        return thread != 0 && pthread_equal(pthread_t(thread), pthread_self()) != 0
    }

    /// Whether the calling code runs on the loop's thread outside any job of this executor: in a
    /// socket handler, queued work or a timer of the loop. Nothing isolated to an actor on this
    /// executor is running then, so such code may enter one synchronously (`assumeIsolated`)
    /// without re-entering code already running.
    public var isBetweenJobs: Bool {
        isLoopThread && !runningJobs.load(ordering: .relaxed)
    }

    public func isIsolatingCurrentContext() -> Bool? { isLoopThread }

    public func checkIsolated() {
        precondition(isLoopThread, "not on the socket loop's thread that this executor runs on")
    }

    /// Called by the loop's thread: takes the queued jobs (swapping buffers to keep capacity).
    func take(into jobs: inout [UnownedJob]) -> Bool {
        state.withLock { state in
            swap(&jobs, &state.jobs)
            return !jobs.isEmpty
        }
    }

    /// Called by the loop's thread: runs `jobs` isolated to this executor.
    func run(_ jobs: [UnownedJob]) {
        runningJobs.store(true, ordering: .relaxed)
        defer { runningJobs.store(false, ordering: .relaxed) }
        for job in jobs {
            job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
        }
    }

    /// Whether jobs are waiting.
    var hasJobs: Bool { state.withLock { !$0.jobs.isEmpty } }
}
