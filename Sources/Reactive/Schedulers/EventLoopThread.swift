/// An event loop's thread, seen from the reactive core: one thread that is the executor of actors
/// and runs timers. An ``ActorScheduler`` for an actor on such a loop runs work scheduled from the
/// loop's thread without a task hop, and takes its timers from the loop.
public protocol EventLoopThread: Sendable {
    /// Whether the calling code runs on the loop's thread.
    var inLoop: Bool { get }

    /// Runs `work` once on the loop's thread, `delay` from now; disposing the result first cancels
    /// it.
    func runLater(_ delay: Duration, _ work: @escaping @Sendable () -> Void) -> any Disposable
}
