public import Dispatch
public import Foundation
import Synchronization

/// A scheduler whose work runs isolated to one actor that runs on the cooperative pool (or on any
/// executor other than an event loop's), so that a reactive graph can live inside that actor: its
/// subjects are fed, its operators run and its outputs are delivered on the actor's executor. It is
/// the server-side counterpart of RxSwift's `MainScheduler`, and a `Driver` made while running on it
/// delivers there (see ``SharingScheduler``).
///
/// State that lives on an event loop's thread (a service's socket loop) is not put in an actor with
/// this scheduler: it is bound to the loop (RemoteStreams' `LoopBound`), whose work runs on the
/// loop's thread without tasks. This scheduler is for an actor whose executor is not a loop: every
/// crossing onto it is a task.
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
    /// - Parameter batchLimit: the number of items a drain runs before it lets other work onto the
    ///   actor (the rest continues in a new drain).
    public init(_ actor: A, batchLimit: Int = 1024) {
        self.actor = actor
        self.actorID = ObjectIdentifier(actor)
        self.batchLimit = max(1, batchLimit)
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
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [weak self] in
            guard let self, !item.isDisposed else { return }
            self.enqueue(item)
        }
        return item
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
        let context = IsolationContext(actorID: actorID, scheduler: self)
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
        Task { await Self.drain(actor, self) }
    }

    private static func drain(_ actor: isolated A, _ scheduler: ActorScheduler) {
        scheduler.drainCount.add(1, ordering: .relaxed)
        let context = IsolationContext(actorID: scheduler.actorID, scheduler: scheduler)
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

/// What the calling thread is running on: set while an actor scheduler drains (or runs
/// ``ActorScheduler/run(on:_:)``), so that work scheduled from inside can run inline and
/// `SharingScheduler.make()` finds the actor's scheduler. Each restores the one outside it.
final class IsolationContext {
    let actorID: ObjectIdentifier
    let scheduler: any SchedulerType
    /// How deep inline work is nested on this thread (0 or 1). Only this thread touches it.
    var inlineDepth = 0

    init(actorID: ObjectIdentifier, scheduler: any SchedulerType) {
        self.actorID = actorID
        self.scheduler = scheduler
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
