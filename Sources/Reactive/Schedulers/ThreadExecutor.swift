import Dispatch
import Foundation
import Synchronization

/// A serial executor, and task executor, backed by one thread of its own.
///
/// Swift's cooperative pool has as many threads as cores (two on this project's machines), so one
/// blocking call on it stalls unrelated tasks. An actor that must stay responsive whatever else the
/// process does (a service's core) can run on a `ThreadExecutor` instead:
///
/// ```swift
/// actor ServiceCore {
///     nonisolated let executor = ThreadExecutor(name: "auth.core")
///     nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
/// }
/// let scheduler = ActorScheduler(core, taskExecutor: core.executor)
/// ```
///
/// Given to an ``ActorScheduler`` as its task executor too, the scheduler's drains start on this
/// thread and never touch the cooperative pool. Jobs run in the order they were enqueued. The thread
/// keeps its executor alive, so both last as long as the process: make one per long-lived actor.
public final class ThreadExecutor: SerialExecutor, TaskExecutor {
    private struct Queue: ~Copyable {
        var jobs: [UnownedJob] = []
        var sleeping = false
    }

    private let queue = Mutex(Queue())
    private let wake = DispatchSemaphore(value: 0)

    /// Starts the executor's thread, named `name`.
    public init(name: String) {
        let thread = Thread { self.run() }
        thread.name = name
        thread.start()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let wakeUp = queue.withLock { queue in
            queue.jobs.append(job)
            defer { queue.sleeping = false }
            return queue.sleeping
        }
        if wakeUp { wake.signal() }
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    private func run() {
        var batch: [UnownedJob] = []
        while true {
            let idle = queue.withLock { queue in
                swap(&batch, &queue.jobs)
                if batch.isEmpty { queue.sleeping = true }
                return batch.isEmpty
            }
            if idle {
                wake.wait()
                continue
            }
            for job in batch {
                job.runSynchronously(
                    isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
            }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
