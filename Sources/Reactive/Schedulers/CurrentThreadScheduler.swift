#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs work on the current thread, one item after another: work scheduled while another item is
/// running (or while a subscription is being set up) is queued and runs when that finishes, instead
/// of nesting on the stack. This is RxSwift's trampoline.
///
/// `Observable.subscribe` makes the outermost subscription on a thread the trampoline's owner, so
/// sources that iterate on this scheduler (`of`, `from`, `concat`, `retry`) start emitting only
/// once the whole chain of sinks is wired. That is what lets `Observable.from(1...).take(3)`
/// finish: `take` can dispose the source after the third element.
public final class CurrentThreadScheduler: ImmediateSchedulerType {
    /// The shared instance.
    public static let instance = CurrentThreadScheduler()

    private init() {}

    /// Whether no trampoline runs on this thread, so that scheduled work would run at once.
    public static var isScheduleRequired: Bool { Trampoline.current == nil }

    public func schedule<State: Sendable>(
        _ state: State, action: @escaping @Sendable (State) -> any Disposable
    ) -> any Disposable {
        if let trampoline = Trampoline.current {
            let item = TrampolineItem { action(state) }
            trampoline.queue.append(item)
            return item
        }
        return Self.runAsOwner { action(state) }
    }

    /// Runs `body` as the trampoline's owner on this thread (then runs what it queued), or just
    /// runs it if a trampoline is already active.
    @usableFromInline
    static func runAsOwner<R>(_ body: () -> R) -> R {
        if Trampoline.current != nil { return body() }
        let trampoline = Trampoline()
        Trampoline.current = trampoline
        defer { Trampoline.current = nil }
        let result = body()
        while !trampoline.queue.isEmpty {
            let item = trampoline.queue.removeFirst()
            item.invoke()
        }
        return result
    }
}

/// The queue of one thread's trampoline. Only ever touched by that thread.
private final class Trampoline {
    var queue: [TrampolineItem] = []

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "pthread_key_create failed: \(status)")
        return key
    }()

    static var current: Trampoline? {
        get {
            guard let raw = pthread_getspecific(key) else { return nil }
            return Unmanaged<Trampoline>.fromOpaque(raw).takeUnretainedValue()
        }
        set {
            if let old = pthread_getspecific(key) {
                Unmanaged<Trampoline>.fromOpaque(old).release()
            }
            let raw = newValue.map { Unmanaged.passRetained($0).toOpaque() }
            pthread_setspecific(key, raw)
        }
    }
}

/// One queued piece of work; disposing it before it runs cancels it.
private final class TrampolineItem: Cancelable {
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
