/// Runs work on the current thread, one item after another: work scheduled while another item is
/// running (or while a subscription is being set up) is queued and runs when that finishes, instead
/// of nesting on the stack. This is RxSwift's trampoline.
///
/// `Observable.subscribe` makes the outermost subscription on a thread the trampoline's owner, so
/// sources that iterate on this scheduler (`of`, `from`) start emitting only once the whole
/// chain of sinks is wired. That is what lets `Observable.from(1...).take(3)`
/// finish: `take` can dispose the source after the third element.
public final class CurrentThreadScheduler: ImmediateSchedulerType {
    /// The shared instance.
    public static let instance = CurrentThreadScheduler()

    private init() {}

    /// Whether no trampoline runs on this thread, so that scheduled work would run at once.
    public static var isScheduleRequired: Bool { Trampoline.current.value?.isRunning != true }

    public func schedule<State: Sendable>(
        _ state: State, action: @escaping @Sendable (State) -> any Disposable
    ) -> any Disposable {
        if let trampoline = Trampoline.current.value, trampoline.isRunning {
            let item = ScheduledAction { action(state) }
            trampoline.queue.append(item)
            return item
        }
        return Self.runAsOwner { action(state) }
    }

    /// Runs `body` as the trampoline's owner on this thread (then runs what it queued), or just
    /// runs it if a trampoline is already active.
    @usableFromInline
    static func runAsOwner(_ body: () -> any Disposable) -> any Disposable {
        let trampoline = Trampoline.forCurrentThread
        if trampoline.isRunning { return body() }
        trampoline.isRunning = true
        defer {
            if !trampoline.queue.isEmpty { trampoline.queue.removeAll(keepingCapacity: true) }
            trampoline.isRunning = false
        }
        let result = body()
        var index = 0
        while index < trampoline.queue.count {
            let action = trampoline.queue[index]  // a copy: the access ends before the action runs
            action.invoke()
            index += 1
            if index >= 1024, index * 2 >= trampoline.queue.count {
                trampoline.queue.removeFirst(index)
                index = 0
            }
        }
        return result
    }
}

/// One thread's trampoline: whether it runs, and its queue. Only ever touched by that thread, and
/// kept for the thread's life, so owning it costs no allocation per subscription.
private final class Trampoline {
    // Only the trampoline's own thread touches these, and every access ends before anything is
    // called that could start another (`runAsOwner` copies an action out of the queue before running
    // it), so the runtime's exclusivity checks, paid on every subscription, would only cost time.
    @exclusivity(unchecked) var queue: [ScheduledAction] = []
    @exclusivity(unchecked) var isRunning = false

    /// This thread's trampoline, if it was ever used.
    static let current = ThreadLocal<Trampoline>()

    /// This thread's trampoline, created on first use.
    static var forCurrentThread: Trampoline {
        if let trampoline = current.value { return trampoline }
        let trampoline = Trampoline()
        current.value = trampoline
        return trampoline
    }
}
