import Glibc
public import Reactive
import Synchronization
public import ZeroMQ

public import struct Foundation.Date

/// A value, and the work on it, bound to one ``SocketLoop``'s thread: the isolation of everything
/// a service runs on its loop.
///
/// A loop's thread is a serial executor (``SocketLoop/executor``): its handlers, queued work,
/// timers and jobs run one at a time, on that one thread. Code there needs no lock and no actor to
/// own what only that loop touches; it needs to know it is there. A `LoopBound` says so once, for
/// its value and its work:
///
/// - **The value.** ``value`` and ``withValue(_:)`` check once that the caller is on the loop's
///   thread and hand the value out (a precondition: touching it from elsewhere would be a data
///   race); ``ifOnLoop(_:)`` answers nil instead. The value may be anything, `Sendable` or not:
///   it never leaves the thread. An actor whose executor is the loop's (a server's or a service's
///   state) is such a value too: work given it here runs isolated to it (`assumeIsolated`, which
///   the loop's executor grants on its thread), with no job and no task.
/// - **The work** (a reactive scheduler): work scheduled on one bound value runs in the order it
///   was scheduled (FIFO), on the loop's thread, with the value at hand.
///   - *No hop when already on the loop.* Scheduled on the loop's thread between its jobs (in a
///     socket handler, queued work or a timer), the work runs at once, right there.
///   - *Inline inside its own work.* Scheduled from inside this value's own work with nothing
///     queued ahead, it runs at once (as RxSwift's `MainScheduler` does on the main thread); work
///     scheduled from inside inline work is queued instead, so recursive scheduling never grows the
///     stack.
///   - *No re-entrancy.* Work for a value whose work is already running further up the stack
///     (values of one loop nest: a server's frame reaches a flow's graph in the same call) is
///     queued, and runs once that work returns; a value's code is never entered again from below.
///   - *Batched crossing.* Work scheduled from another thread (or from inside a job of the loop's
///     executor, such as an actor method on the loop) is queued; the first item asks the loop
///     once (``SocketLoop/execute(_:)``) to run everything queued by then, and whatever arrives
///     while it runs. A burst of events crosses once. A run yields the loop after a bounded batch.
///   - *Timers are the loop's* (``SocketLoop/schedule(after:_:)``); disposing one first cancels it.
///
/// Work queued for a loop that has stopped never runs. Create one per value and keep it: ordering
/// is per bound value. With no value (`LoopBound<Void>`, ``LoopScheduler``) it is just the loop's
/// scheduler for graphs that keep their state in their operators.
public final class LoopBound<Value>: SchedulerType, @unchecked Sendable {
    // Unchecked: `stored`, `active` and `inlineDepth` are touched only on the loop's thread (every
    // access is behind a check of it), the queue only under its lock.

    /// The loop whose thread the value and its work are bound to.
    public let loop: SocketLoop
    private var stored: Value
    private let queue = Mutex(WorkQueue())
    /// How many items one run takes before it yields the loop.
    private let batchLimit: Int
    /// How many of this value's runs (or ``run(on:_:)`` entries) are on the loop thread's stack.
    private var active = 0
    /// How deep inline work is nested inside the innermost of them (0 or 1).
    private var inlineDepth = 0
    /// How many runs (one per hop, or per nested run on the loop) have started: the tests read it.
    let runCount = Atomic<Int>(0)

    private struct WorkQueue {
        var items: [LoopWork] = []
        var head = 0
        /// A run is asked for or under way: new work only needs to be queued.
        var isDraining = false

        var hasPending: Bool { head < items.count }
    }

    /// Binds `value` to `loop`'s thread. It is made anywhere (the value is handed over) and touched
    /// only on that thread from then on.
    ///
    /// - Parameter batchLimit: how many items one run takes before it lets the loop go on (the
    ///   rest continues in a run queued behind the loop's other work).
    public init(_ value: sending Value, on loop: SocketLoop, batchLimit: Int = 1024) {
        self.loop = loop
        self.stored = value
        self.batchLimit = max(1, batchLimit)
    }

    // MARK: The value

    /// The value, on the loop's thread (anywhere else is a programming error, and traps).
    public var value: Value {
        precondition(loop.isLoopThread, "a LoopBound value touched off its socket loop's thread")
        return stored
    }

    /// Runs `body` with the value, on the loop's thread (anywhere else traps).
    public func withValue<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        precondition(loop.isLoopThread, "a LoopBound value touched off its socket loop's thread")
        return try body(&stored)
    }

    /// Runs `body` with the value when called on the loop's thread; nil, running nothing,
    /// elsewhere.
    public func ifOnLoop<R>(_ body: (inout Value) throws -> R) rethrows -> R? {
        guard loop.isLoopThread else { return nil }
        return try body(&stored)
    }

    /// Runs `body` with the value on the loop's thread, in order with this value's other work: at
    /// once when that needs no hop (as ``schedule(_:action:)`` runs work), else queued.
    public func execute(_ body: @escaping @Sendable (inout Value) -> Void) {
        _ = schedule(()) { [self] _ in
            body(&stored)
            return Disposables.create()
        }
    }

    // MARK: The scheduler

    public var now: RxTime { Date() }

    /// Whether the calling code runs on the loop's thread between its executor's jobs: a handler,
    /// queued work or a timer of the loop, where this value's work may start at once.
    public var inLoop: Bool { loop.executor.isBetweenJobs }

    public func schedule<State: Sendable>(
        _ state: State, action: @escaping @Sendable (State) -> any Disposable
    ) -> any Disposable {
        if mayRunInline() {
            inlineDepth += 1
            defer { inlineDepth -= 1 }
            return action(state)
        }
        let item = LoopWork { action(state) }
        enqueue(item)
        return item
    }

    public func scheduleRelative<State: Sendable>(
        _ state: State, dueTime: RxTimeInterval, action: @escaping @Sendable (State) -> any Disposable
    ) -> any Disposable {
        let nanoseconds = dueTime.nanoseconds
        guard nanoseconds > 0 else { return schedule(state, action: action) }
        guard nanoseconds < Int.max else { return Disposables.create() }
        let item = LoopWork { action(state) }
        let loop = self.loop
        let timer = loop.schedule(after: .nanoseconds(nanoseconds)) { [weak self] in
            guard let self, !item.isDisposed else { return }
            self.enqueue(item)
        }
        return Disposables.create(item, Disposables.create { loop.cancelTimer(timer) })
    }

    /// Runs `body` at once, on the calling thread, when that needs no hop and keeps the order of
    /// the work already scheduled: inline inside this value's own work (as ``schedule(_:action:)``
    /// runs it), or on the loop's thread between its jobs, with nothing queued and this value's
    /// work not running further up the stack (as a run started there would). Returns nil, running
    /// nothing, otherwise; the caller then schedules the work instead.
    public func runNow<R>(_ body: (inout Value) throws -> R) rethrows -> R? {
        if mayRunInline() {
            inlineDepth += 1
            defer { inlineDepth -= 1 }
            return try body(&stored)
        }
        guard inLoop, active == 0, !queue.withLock({ $0.isDraining || $0.hasPending }) else { return nil }
        return try entered { try body(&stored) }
    }

    /// Whether work scheduled now may run inline: this value's work is the innermost running on
    /// this thread (which is then the loop's), not already inside inline work, with nothing queued
    /// ahead.
    private func mayRunInline() -> Bool {
        isInnermost && inlineDepth == 0 && !queue.withLock({ $0.hasPending })
    }

    /// Whether this value's work (a run or ``run(on:_:)``) is the innermost on the calling thread.
    private var isInnermost: Bool { pthread_getspecific(innermostKey) == identity }

    private var identity: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// Runs `body` as this value's innermost work on the loop's thread: work scheduled meanwhile
    /// runs inline once, and the value is not entered again from below.
    private func entered<R>(_ body: () throws -> R) rethrows -> R {
        let outer = pthread_getspecific(innermostKey)
        let outerInlineDepth = inlineDepth
        pthread_setspecific(innermostKey, identity)
        active += 1
        inlineDepth = 0
        defer {
            inlineDepth = outerInlineDepth
            active -= 1
            pthread_setspecific(innermostKey, outer)
        }
        return try body()
    }

    // MARK: Running queued work

    private func enqueue(_ item: LoopWork) {
        let askLoop = queue.withLock { queue -> Bool in
            queue.items.append(item)
            guard !queue.isDraining else { return false }
            queue.isDraining = true
            return true
        }
        // On the loop's thread between its jobs, with this value's work not running further up the
        // stack: run the queue right here (in order: it runs from the head), even when a run is
        // already asked of the loop (it then finds the queue empty).
        if inLoop, active == 0 {
            drain()
            return
        }
        if askLoop { askForRun() }
    }

    /// Asks the loop to run the queue; drops it when the loop has stopped.
    private func askForRun() {
        let accepted = loop.execute { [self] in
            // Queued work runs between the loop's handlers and jobs, never inside a run of this
            // value, so `active` is 0 here.
            drain()
        }
        guard !accepted else { return }
        let dropped = queue.withLock { queue -> [LoopWork] in
            defer {
                queue.items = []
                queue.head = 0
                queue.isDraining = false
            }
            return Array(queue.items[queue.head...])
        }
        dropped.forEach { $0.dispose() }
    }

    /// Runs queued items, on the loop's thread, until the queue is empty or the batch is done.
    private func drain() {
        runCount.add(1, ordering: .relaxed)
        let exhausted = entered { () -> Bool in
            for _ in 0..<batchLimit {
                guard let item = next() else { return true }
                item.invoke()
            }
            return false
        }
        // The batch limit was reached with work left: let the loop go on, then continue.
        if !exhausted { askForRun() }
    }

    /// Takes the next item, or ends the run when the queue is empty.
    private func next() -> LoopWork? {
        queue.withLock { queue in
            guard queue.hasPending else {
                queue.items.removeAll(keepingCapacity: true)
                queue.head = 0
                queue.isDraining = false
                return nil
            }
            let item = queue.items[queue.head]
            queue.head += 1
            return item
        }
    }
}

/// The loop's own scheduler: work on the loop with no value bound to it (graphs that keep their
/// state in their operators).
public typealias LoopScheduler = LoopBound<Void>

extension LoopBound where Value == Void {
    /// A scheduler on `loop`'s thread.
    public convenience init(on loop: SocketLoop, batchLimit: Int = 1024) {
        self.init((), on: loop, batchLimit: batchLimit)
    }
}

extension LoopBound where Value: Actor {
    /// Schedules `action` isolated to the actor (whose executor must be the loop's): inline when
    /// that is allowed (see ``schedule(_:action:)``), otherwise queued.
    public func schedule(isolated action: @escaping @Sendable (isolated Value) -> Void) {
        if mayRunInline() {
            inlineDepth += 1
            defer { inlineDepth -= 1 }
            stored.assumeIsolated { action($0) }
            return
        }
        perform(action)
    }

    /// Runs `action` isolated to the actor, after the work already queued (fire and forget).
    public func perform(_ action: @escaping @Sendable (isolated Value) -> Void) {
        enqueue(
            LoopWork { [self] in
                stored.assumeIsolated { action($0) }
                return Disposables.create()
            })
    }

    /// Runs `body` isolated to the actor, after the work already queued, and returns its result.
    public func run<R: Sendable>(_ body: @escaping @Sendable (isolated Value) -> R) async -> R {
        await withCheckedContinuation { continuation in
            perform { actor in continuation.resume(returning: body(actor)) }
        }
    }

    /// Runs `body` isolated to the actor at once when that needs no hop and keeps the order (see
    /// ``runNow(_:)``); nil, running nothing, otherwise.
    public func runNow<R: Sendable>(isolated body: @Sendable (isolated Value) throws -> R) rethrows -> R? {
        try runNow({ (actor: inout Value) in try actor.assumeIsolated { try body($0) } })
    }

    /// Marks the calling code, on the loop's thread and already isolated to the actor (a socket
    /// handler that entered it with `assumeIsolated`), as this value's work while `body` runs: work
    /// scheduled meanwhile runs inline instead of being queued, and other values' work it reaches
    /// does not come back into it.
    public func run<R>(on actor: isolated Value, _ body: () throws -> R) rethrows -> R {
        precondition(actor === stored, "LoopBound.run(on:) given another actor")
        return try entered { try body() }
    }
}

/// The key of the loop thread's innermost running ``LoopBound`` (unretained; nil outside any).
private let innermostKey: pthread_key_t = {
    var key = pthread_key_t()
    precondition(pthread_key_create(&key, nil) == 0, "no thread-local key for LoopBound")
    return key
}()

/// One piece of queued work; disposing it before it runs cancels it.
final class LoopWork: Cancelable {
    private let action: @Sendable () -> any Disposable
    private let result = SingleAssignmentDisposable()

    init(_ action: @escaping @Sendable () -> any Disposable) {
        self.action = action
    }

    var isDisposed: Bool { result.isDisposed }

    func invoke() {
        guard !result.isDisposed else { return }
        result.setDisposable(action())
    }

    func dispose() { result.dispose() }
}
