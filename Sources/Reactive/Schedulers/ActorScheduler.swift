public import Dispatch
public import Foundation
import Synchronization

/// A scheduler whose work runs isolated to one actor, so that a reactive graph can live inside that
/// actor: its subjects are fed, its operators run and its outputs are delivered on the actor's
/// executor. It is the server-side counterpart of RxSwift's `MainScheduler`, and a `Driver` made
/// while running on it delivers there (see ``SharingScheduler``).
///
/// - **FIFO.** Work scheduled on one `ActorScheduler` runs in the order it was scheduled.
/// - **Batches, not hops.** Work scheduled from outside the actor is queued; the first item starts
///   one task that hops onto the actor and drains everything queued by then (and whatever arrives
///   while it drains). Crossing into an actor costs microseconds, so a burst of events crosses once.
/// - **Inline when already there.** Work scheduled while this thread is already running on the actor
///   (inside a drain, or inside ``run(on:_:)``) with nothing queued ahead runs at once, as
///   `MainScheduler` does on the main thread: an operator chain inside the actor pays no hop. Work
///   scheduled from inside inline work is queued instead (and drained without a hop), so recursive
///   scheduling never grows the stack.
/// - **Fair.** A drain yields the actor after a bounded batch so other work on the actor can run.
/// - **On an event loop, no hops at all.** When the actor's executor is an event loop's thread
///   (``EventLoopThread``), work scheduled from that thread between the loop's jobs runs at once, in a
///   drain right there (the thread is the actor's executor, so it is isolated to the actor), and
///   timers come from the loop's timer queue instead of Dispatch. That holds inside another actor's
///   drain on the same loop too: the actors of one loop share its thread and form one isolation
///   domain, so a frame handled by a server's actor reaches a graph's actor in the same call, with
///   no job and no task. Only an actor whose code is already running on the thread (its drain, or
///   `run(on:)`, is further up the stack) gets its work queued, and drained once that code returns
///   (or later in the same turn of the loop), so an actor's code never re-enters itself.
/// - The scheduler holds its actor weakly; once the actor is gone, queued work is dropped.
///
/// Create one scheduler per actor and keep it: ordering is per scheduler.
public final class ActorScheduler<A: Actor>: SchedulerType {
    /// The actor the work runs on (nil once it is gone).
    public weak let actor: A?

    private let actorID: ObjectIdentifier
    private let queue = Mutex(WorkQueue())
    /// How many items one drain runs before yielding the actor.
    private let batchLimit: Int
    /// Where drain tasks start (nil: the cooperative pool).
    private let taskExecutor: (any TaskExecutor)?
    /// The event loop whose thread is the actor's executor, if it is one.
    private let loop: (any EventLoopThread)?
    /// How many drains (hops onto the actor) have run: the batching tests read it.
    let drainCount = Atomic<Int>(0)

    private struct WorkQueue {
        var items: [WorkItem<A>] = []
        var head = 0
        /// A drain task is scheduled or running; new work only needs to be queued.
        var isDraining = false

        var hasPending: Bool { head < items.count }
    }

    /// Creates a scheduler for `actor`.
    ///
    /// - Parameters:
    ///   - batchLimit: the number of items a drain runs before it lets other work onto the actor
    ///     (the rest continues in a new drain).
    ///   - taskExecutor: where the drain tasks start. By default they start on the cooperative pool
    ///     and hop onto the actor; give the executor the actor itself runs on (a custom serial executor
    ///     that is also a `TaskExecutor`, such as a socket loop's) to keep its drains off the pool.
    ///   - loop: the event loop whose thread runs the actor's executor, if it is one: work scheduled
    ///     on that thread runs without a task, and timers are the loop's.
    public init(
        _ actor: A, batchLimit: Int = 1024, taskExecutor: (any TaskExecutor)? = nil,
        loop: (any EventLoopThread)? = nil
    ) {
        self.actor = actor
        self.actorID = ObjectIdentifier(actor)
        self.batchLimit = max(1, batchLimit)
        self.taskExecutor = taskExecutor
        self.loop = loop
    }

    public var now: RxTime { Date() }

    /// Whether the calling thread is running on this scheduler's actor (inside a drain or
    /// `run(on:_:)` of any scheduler for it).
    public var isOnActor: Bool { IsolationContext.current.value?.actorID == actorID }

    // MARK: Scheduling

    public func schedule<State: Sendable>(
        _ state: State, action: @escaping @Sendable (State) -> any Disposable
    ) -> any Disposable {
        if let context = inlineContext() {
            context.inlineDepth += 1
            defer { context.inlineDepth -= 1 }
            return action(state)
        }
        let item = WorkItem<A> { _ in action(state) }
        enqueue(item)
        return item
    }

    /// Schedules `action` isolated to the actor: inline when that is allowed (see
    /// `schedule(_:action:)`), otherwise queued. Binders for actors use it.
    public func schedule(isolated action: @escaping @Sendable (isolated A) -> Void) {
        if let context = inlineContext(), let actor {
            context.inlineDepth += 1
            defer { context.inlineDepth -= 1 }
            actor.assumeIsolated { action($0) }
            return
        }
        perform(action)
    }

    /// The calling thread's context if work may run inline: the thread is running on this actor,
    /// not already inside inline work (so inline runs never nest, and recursive schedules cannot
    /// grow the stack), and nothing is queued ahead (so FIFO order holds).
    private func inlineContext() -> IsolationContext? {
        guard let context = IsolationContext.current.value, context.actorID == actorID,
            context.inlineDepth == 0, !queue.withLock({ $0.hasPending })
        else { return nil }
        return context
    }

    public func scheduleRelative<State: Sendable>(
        _ state: State, dueTime: RxTimeInterval,
        action: @escaping @Sendable (State) -> any Disposable
    ) -> any Disposable {
        let nanoseconds = dueTime.nanoseconds
        guard nanoseconds > 0 else { return schedule(state, action: action) }
        guard nanoseconds < Int.max else { return Disposables.create() }
        let item = WorkItem<A> { _ in action(state) }
        if let loop {
            let timer = loop.runLater(.nanoseconds(nanoseconds)) { [weak self] in
                guard let self, !item.isDisposed else { return }
                self.enqueue(item)
            }
            return Disposables.create(item, timer)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [weak self] in
            guard let self, !item.isDisposed else { return }
            self.enqueue(item)
        }
        return item
    }

    /// Runs `body` isolated to the actor at once, on the calling thread, when that needs no hop and
    /// keeps the order of the work already scheduled: inline work on the actor (as `schedule`
    /// runs it), or, on the actor's event loop between its jobs, with nothing queued for the actor
    /// and its code not running further up the stack (as a nested drain would run it). Returns nil,
    /// running nothing, otherwise; the caller then schedules the work instead. A request handler on
    /// the loop uses it to read or update the actor's state without building a graph for it.
    public func runNow<R: Sendable>(_ body: @Sendable (isolated A) throws -> R) rethrows -> R? {
        if let context = inlineContext(), let actor {
            context.inlineDepth += 1
            defer { context.inlineDepth -= 1 }
            return try actor.assumeIsolated { try body($0) }
        }
        guard let loop, loop.inLoop, IsolationContext.current.value?.encloses(actorID) != true,
            !queue.withLock({ $0.isDraining || $0.hasPending }), let actor
        else { return nil }
        return try actor.assumeIsolated { actor in try run(on: actor) { try body(actor) } }
    }

    /// Runs `action` isolated to the actor, after the work already queued (fire and forget).
    public func perform(_ action: @escaping @Sendable (isolated A) -> Void) {
        enqueue(
            WorkItem<A> { actor in
                action(actor)
                return Disposables.create()
            })
    }

    /// Runs `body` isolated to the actor, after the work already queued, and returns its result.
    public func run<R: Sendable>(_ body: @escaping @Sendable (isolated A) -> R) async -> R {
        await withCheckedContinuation { continuation in
            perform { actor in continuation.resume(returning: body(actor)) }
        }
    }

    /// Marks the calling code, already isolated to the actor (an actor method entered with
    /// `await`), as running on this scheduler while `body` runs: work scheduled meanwhile runs
    /// inline instead of hopping, and `SharingScheduler.make()` returns this scheduler.
    public func run<R>(on actor: isolated A, _ body: () throws -> R) rethrows -> R {
        precondition(ObjectIdentifier(actor) == actorID, "ActorScheduler.run(on:) given another actor")
        let context = IsolationContext(
            actorID: actorID, scheduler: self, outer: IsolationContext.current.value)
        return try IsolationContext.current.withValue(context) {
            try body()
        }
    }

    // MARK: Draining

    private func enqueue(_ item: WorkItem<A>) {
        let startDrain = queue.withLock { queue -> Bool in
            queue.items.append(item)
            guard !queue.isDraining else { return false }
            queue.isDraining = true
            return true
        }
        guard startDrain else { return }
        // On the loop's thread between its jobs, with this actor's code not running further up the
        // stack (so it never re-enters itself): drain right here, the thread being the actor's
        // executor. The actors whose drains enclose this one are the loop's too (their code runs
        // on no other thread), so this nests one actor's work in another's without a hop.
        if let loop, loop.inLoop, IsolationContext.current.value?.encloses(actorID) != true, let actor {
            actor.assumeIsolated { Self.drain($0, self) }
            return
        }
        scheduleDrain()
    }

    private func scheduleDrain() {
        guard let actor else {
            let dropped = queue.withLock { queue -> [WorkItem<A>] in
                defer {
                    queue.items = []
                    queue.head = 0
                    queue.isDraining = false
                }
                return Array(queue.items[queue.head...])
            }
            dropped.forEach { $0.dispose() }
            return
        }
        if let taskExecutor {
            Task(executorPreference: taskExecutor) { await Self.drain(actor, self) }
        } else {
            Task { await Self.drain(actor, self) }
        }
    }

    private static func drain(_ actor: isolated A, _ scheduler: ActorScheduler) {
        scheduler.drainCount.add(1, ordering: .relaxed)
        let context = IsolationContext(
            actorID: scheduler.actorID, scheduler: scheduler, outer: IsolationContext.current.value)
        let exhausted = IsolationContext.current.withValue(context) { () -> Bool in
            for _ in 0..<scheduler.batchLimit {
                guard let item = scheduler.next() else { return true }
                item.invoke(actor)
            }
            return false
        }
        // The batch limit was reached with work left: give the actor to others, then continue.
        if !exhausted { scheduler.scheduleDrain() }
    }

    /// Takes the next item, or ends the drain when the queue is empty.
    private func next() -> WorkItem<A>? {
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

/// What the calling thread is running on: set while an actor scheduler drains, so that work
/// scheduled from inside can run inline and `SharingScheduler.make()` finds the actor's scheduler.
/// Drains of different actors on one event loop's thread nest; each restores the one outside it,
/// and each knows the ones outside it (`outer`), so that an actor whose code is running further up
/// the stack is never entered again.
final class IsolationContext {
    let actorID: ObjectIdentifier
    let scheduler: any SchedulerType
    /// The context this one is nested in, on the same thread.
    let outer: IsolationContext?
    /// How deep inline work is nested on this thread (0 or 1). Only this thread touches it.
    var inlineDepth = 0

    init(actorID: ObjectIdentifier, scheduler: any SchedulerType, outer: IsolationContext?) {
        self.actorID = actorID
        self.scheduler = scheduler
        self.outer = outer
    }

    /// Whether the actor `id` runs in this context or one it is nested in.
    func encloses(_ id: ObjectIdentifier) -> Bool {
        var context: IsolationContext? = self
        while let current = context {
            if current.actorID == id { return true }
            context = current.outer
        }
        return false
    }

    /// The context of the calling thread.
    static let current = ThreadLocal<IsolationContext>()
}

/// One piece of queued work; disposing it before it runs cancels it.
final class WorkItem<A: Actor>: Cancelable {
    private let action: @Sendable (isolated A) -> any Disposable
    private let result = SingleAssignmentDisposable()

    init(_ action: @escaping @Sendable (isolated A) -> any Disposable) {
        self.action = action
    }

    var isDisposed: Bool { result.isDisposed }

    func invoke(_ actor: isolated A) {
        guard !result.isDisposed else { return }
        result.setDisposable(action(actor))
    }

    func dispose() { result.dispose() }
}
