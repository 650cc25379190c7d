public import Reactive
public import ZeroMQ

/// A ``SocketLoop`` as the reactive core sees it (``EventLoopThread``): code on the loop's thread
/// between its executor's jobs is "in the loop", and timers are the loop's.
public struct SocketLoopThread: EventLoopThread {
    /// The loop.
    public let loop: SocketLoop

    /// The thread of `loop`.
    public init(_ loop: SocketLoop) { self.loop = loop }

    public var inLoop: Bool { loop.executor.isBetweenJobs }

    public func runLater(_ delay: Duration, _ work: @escaping @Sendable () -> Void) -> any Disposable {
        let timer = loop.schedule(after: delay, work)
        return Disposables.create { [loop] in loop.cancelTimer(timer) }
    }
}

extension ActorScheduler {
    /// A scheduler for `actor`, whose executor is `loop`'s (``SocketLoop/executor``): work
    /// scheduled on the loop's thread runs there at once, drains queued from elsewhere start on the
    /// loop, and timers are the loop's. The cooperative pool is never involved.
    public convenience init(_ actor: A, on loop: SocketLoop) {
        self.init(actor, taskExecutor: loop.executor, loop: SocketLoopThread(loop))
    }
}
