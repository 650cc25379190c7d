import Dispatch
import Foundation
import Reactive
@testable import RemoteStreams
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
    func scheduleFromAJob(_ scheduler: LoopBound<Graphs>) {
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

@Suite("LoopBound: work and values bound to a socket loop", .timeLimit(.minutes(1)))
struct LoopBoundTests {
    @Test(
        "scheduled from the loop's thread between jobs: it runs at once, right there, isolated to the actor")
    func runsAtOnceFromTheLoop() async throws {
        let loop = try SocketLoop(name: "graphs-loop")
        let graphs = Graphs(loop: loop)
        let scheduler = LoopBound(graphs, on: loop)
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
        let scheduler = LoopBound(graphs, on: loop)
        await graphs.scheduleFromAJob(scheduler)
        // The queued work runs in a drain of its own, still on the loop.
        let flushed = await scheduler.run { _ in true }
        #expect(flushed)
        #expect(await graphs.log == ["a", "b"])
        await loop.stop()
    }

    @Test(
        "from one bound value's work into another's on the same loop: nested, at once; never back into one running"
    )
    func actorsOfOneLoopNest() async throws {
        let loop = try SocketLoop(name: "graphs-nest")
        let server = Graphs(loop: loop)
        let serverScheduler = LoopBound(server, on: loop)
        let flowScheduler = LoopScheduler(on: loop)
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
        let scheduler = LoopBound(graphs, on: loop)
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

    @Test("scheduled from another thread: queued, run on the loop in order, crossing once for the burst")
    func crossesInOneBatch() async throws {
        let loop = try SocketLoop(name: "bound-cross")
        let scheduler = LoopScheduler(on: loop)
        // The loop is held inside queued work while the burst is scheduled from this thread.
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        loop.execute {
            held.signal()
            release.wait()
        }
        #expect(await signalled(held))
        let order = Mutex<[Int]>([])
        let threads = Mutex<Set<String>>([])
        let done = DispatchSemaphore(value: 0)
        let ranBeforeReturn = Mutex(false)
        for index in 0..<1_000 {
            _ = scheduler.schedule(()) { _ in
                order.withLock { $0.append(index) }
                threads.withLock { _ = $0.insert(threadName()) }
                if index == 999 { done.signal() }
                return Disposables.create()
            }
        }
        ranBeforeReturn.withLock { $0 = !order.withLock { $0 }.isEmpty }
        release.signal()
        #expect(await signalled(done))
        #expect(!ranBeforeReturn.withLock { $0 })
        #expect(order.withLock { $0 } == Array(0..<1_000))
        #expect(threads.withLock { $0 } == ["bound-cross"])
        #expect(scheduler.runCount.load(ordering: .relaxed) == 1)
        await loop.stop()
    }

    @Test("a run yields the loop after its batch limit; the rest follows in order")
    func yieldsAfterTheBatchLimit() async throws {
        let loop = try SocketLoop(name: "bound-batch")
        let scheduler = LoopScheduler(on: loop, batchLimit: 10)
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        loop.execute {
            held.signal()
            release.wait()
        }
        #expect(await signalled(held))
        let order = Mutex<[Int]>([])
        let done = DispatchSemaphore(value: 0)
        for index in 0..<25 {
            _ = scheduler.schedule(()) { _ in
                order.withLock { $0.append(index) }
                if index == 24 { done.signal() }
                return Disposables.create()
            }
        }
        release.signal()
        #expect(await signalled(done))
        #expect(order.withLock { $0 } == Array(0..<25))
        #expect(scheduler.runCount.load(ordering: .relaxed) == 3)
        await loop.stop()
    }

    @Test("inside its own work: once inline, then queued behind it, so recursion never grows the stack")
    func inlineOnceInsideItsOwnWork() async throws {
        let loop = try SocketLoop(name: "bound-inline")
        let scheduler = LoopScheduler(on: loop)
        let order = Mutex<[String]>([])
        let done = DispatchSemaphore(value: 0)
        loop.execute {
            _ = scheduler.schedule(()) { _ in
                order.withLock { $0.append("outer") }
                _ = scheduler.schedule(()) { _ in
                    order.withLock { $0.append("inline") }
                    _ = scheduler.schedule(()) { _ in
                        order.withLock { $0.append("queued") }
                        done.signal()
                        return Disposables.create()
                    }
                    order.withLock { $0.append("inline end") }
                    return Disposables.create()
                }
                order.withLock { $0.append("outer end") }
                return Disposables.create()
            }
        }
        #expect(await signalled(done))
        #expect(order.withLock { $0 } == ["outer", "inline", "inline end", "outer end", "queued"])
        await loop.stop()
    }

    @Test("the value: handed out on the loop's thread, in order with its work; refused elsewhere")
    func valueOnTheLoopOnly() async throws {
        let loop = try SocketLoop(name: "bound-value")
        let bound = LoopBound([Int](), on: loop)
        #expect(bound.ifOnLoop { $0.count } == nil)
        for index in 0..<100 { bound.execute { $0.append(index) } }
        let seen = Mutex<[Int]?>(nil)
        let done = DispatchSemaphore(value: 0)
        loop.execute {
            bound.withValue { $0.append(100) }
            seen.withLock { $0 = bound.value }
            done.signal()
        }
        #expect(await signalled(done))
        #expect(seen.withLock { $0 } == Array(0...100))
        await loop.stop()
    }

    @Test("the value touched off the loop's thread is a programming error: it traps")
    func valueOffTheLoopTraps() async {
        await #expect(processExitsWith: .failure) {
            let loop = try SocketLoop(name: "bound-trap")
            let bound = LoopBound(0, on: loop)
            _ = bound.value
        }
    }

    @Test("runNow: at once on the loop between jobs; nil elsewhere or with work queued ahead")
    func runNowOnlyWithoutAHop() async throws {
        let loop = try SocketLoop(name: "bound-now")
        let graphs = Graphs(loop: loop)
        let bound = LoopBound(graphs, on: loop)
        #expect(bound.runNow(isolated: { _ in 1 }) == nil)
        let outcome = Mutex<[Int?]>([])
        let done = DispatchSemaphore(value: 0)
        loop.execute {
            outcome.withLock {
                $0.append(
                    bound.runNow(isolated: {
                        $0.append("now"); return 1
                    }))
            }
            bound.schedule(isolated: { _ in
                // Inside its own work, with work queued ahead of it: not at once.
                bound.perform { $0.append("queued") }
                outcome.withLock { $0.append(bound.runNow(isolated: { _ in 2 })) }
                done.signal()
            })
        }
        #expect(await signalled(done))
        #expect(outcome.withLock { $0 } == [1, nil])
        #expect(await bound.run { $0.log } == ["now", "queued"])
        await loop.stop()
    }
}
