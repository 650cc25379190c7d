import Dispatch
import Foundation
import Reactive
import RemoteStreams
import Synchronization
import Testing
import ZeroMQ

/// An actor on a loop's executor, with a log of what ran in it.
private actor Graphs {
    nonisolated let loop: SocketLoop
    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor.asUnownedSerialExecutor() }
    private(set) var log: [String] = []

    init(loop: SocketLoop) { self.loop = loop }

    func append(_ entry: String) { log.append(entry) }

    /// From inside one of the actor's jobs: schedules `b`, then appends `a`.
    func scheduleFromAJob(_ scheduler: ActorScheduler<Graphs>) {
        _ = scheduler.schedule(()) { [self] _ in
            assumeIsolated { $0.append("b") }
            return Disposables.create()
        }
        append("a")
    }
}

/// The kernel's name of the calling thread.
private func threadName() -> String {
    ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "")
        .trimmingCharacters(in: .newlines)
}

/// Waits for a semaphore, up to 10 s, off the cooperative pool.
private func signalled(_ semaphore: DispatchSemaphore) async -> Bool {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(returning: semaphore.wait(timeout: .now() + 10) == .success)
        }
    }
}

@Suite("ActorScheduler on a socket loop", .timeLimit(.minutes(1)))
struct EventLoopSchedulerTests {
    @Test(
        "scheduled from the loop's thread between jobs: it runs at once, right there, isolated to the actor")
    func runsAtOnceFromTheLoop() async throws {
        let loop = try SocketLoop(name: "graphs-loop")
        let graphs = Graphs(loop: loop)
        let scheduler = ActorScheduler(graphs, on: loop)
        let outcome = Mutex<(ranBeforeReturn: Bool, thread: String)?>(nil)
        let done = DispatchSemaphore(value: 0)
        loop.execute {
            let ran = Mutex(false)
            let thread = Mutex("")
            _ = scheduler.schedule(()) { _ in
                ran.withLock { $0 = true }
                thread.withLock { $0 = threadName() }
                graphs.assumeIsolated { $0.append("inline") }
                return Disposables.create()
            }
            outcome.withLock { $0 = (ran.withLock { $0 }, thread.withLock { $0 }) }
            done.signal()
        }
        #expect(await signalled(done))
        #expect(outcome.withLock { $0?.ranBeforeReturn } == true)
        #expect(outcome.withLock { $0?.thread } == "graphs-loop")
        #expect(await graphs.log == ["inline"])
        await loop.stop()
    }

    @Test("scheduled from inside the actor's own job: queued after it, never re-entering it")
    func neverReentersAJob() async throws {
        let loop = try SocketLoop(name: "graphs-job")
        let graphs = Graphs(loop: loop)
        let scheduler = ActorScheduler(graphs, on: loop)
        await graphs.scheduleFromAJob(scheduler)
        // The queued work runs in a drain of its own, still on the loop.
        let flushed = await scheduler.run { _ in true }
        #expect(flushed)
        #expect(await graphs.log == ["a", "b"])
        await loop.stop()
    }

    @Test(
        "from one actor's drain into another's on the same loop: nested, at once; never back into one running"
    )
    func actorsOfOneLoopNest() async throws {
        let loop = try SocketLoop(name: "graphs-nest")
        let server = Graphs(loop: loop)
        let flows = Graphs(loop: loop)
        let serverScheduler = ActorScheduler(server, on: loop)
        let flowScheduler = ActorScheduler(flows, on: loop)
        let order = Mutex<[String]>([])
        let done = DispatchSemaphore(value: 0)
        loop.execute {
            _ = serverScheduler.schedule(()) { _ in
                order.withLock { $0.append("server: frame") }
                _ = flowScheduler.schedule(()) { _ in
                    order.withLock { $0.append("flow: input") }
                    // Back to the server, whose work is further up the stack: queued, not re-entered.
                    _ = serverScheduler.schedule(()) { _ in
                        order.withLock { $0.append("server: answer") }
                        done.signal()
                        return Disposables.create()
                    }
                    order.withLock { $0.append("flow: output") }
                    return Disposables.create()
                }
                order.withLock { $0.append("server: next frame") }
                return Disposables.create()
            }
        }
        #expect(await signalled(done))
        #expect(
            order.withLock { $0 } == [
                "server: frame", "flow: input", "flow: output", "server: next frame", "server: answer",
            ])
        await loop.stop()
    }

    @Test("timers are the loop's: due work runs on its thread; disposed before it is due, it never runs")
    func timersAreTheLoops() async throws {
        let loop = try SocketLoop(name: "graphs-timer")
        let graphs = Graphs(loop: loop)
        let scheduler = ActorScheduler(graphs, on: loop)
        let thread = Mutex("")
        let cancelledRan = Mutex(false)
        let done = DispatchSemaphore(value: 0)
        let cancelled = scheduler.scheduleRelative((), dueTime: .milliseconds(5)) { _ in
            cancelledRan.withLock { $0 = true }
            return Disposables.create()
        }
        cancelled.dispose()
        _ = scheduler.scheduleRelative((), dueTime: .milliseconds(20)) { _ in
            thread.withLock { $0 = threadName() }
            done.signal()
            return Disposables.create()
        }
        #expect(await signalled(done))
        #expect(thread.withLock { $0 } == "graphs-timer")
        #expect(!cancelledRan.withLock { $0 })
        await loop.stop()
    }
}
