import Foundation
import Glibc
import Synchronization
import Testing
import ZeroMQ

/// An actor that runs on a socket loop's thread.
private actor LoopBound {
    nonisolated let executor = LoopExecutor()
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    private(set) var calls = 0

    /// The thread the actor runs on, counting the call.
    func threadID() -> UInt {
        calls += 1
        return UInt(bitPattern: Int(bitPattern: pthread_self()))
    }
}

@Suite("Loop executor", .timeLimit(.minutes(1)))
struct LoopExecutorTests {
    @Test("an actor on a LoopExecutor runs on the loop's thread, with or without socket traffic")
    func actorRunsOnTheLoopThread() async throws {
        let context = try Context()
        let bound = LoopBound()
        let pull = try Socket(context, .pull, linger: 0)
        let endpoint = inprocEndpoint()
        try pull.bind(endpoint)
        let handlerThread = Mutex<UInt?>(nil)
        let handled = DispatchSemaphore(value: 0)
        let loop = try SocketLoop(context: context, sockets: [pull], executor: bound.executor) { _ in
            handlerThread.withLock { $0 = UInt(bitPattern: Int(bitPattern: pthread_self())) }
            handled.signal()
        }
        // No traffic yet: jobs alone wake the loop.
        let first = await bound.threadID()
        // Traffic: the handler runs on the same thread as the actor.
        try await onThread {
            let push = try Socket(context, .push, linger: 0)
            try push.connect(endpoint)
            _ = try push.send(parts: [[1]])
            push.close()
        }
        let arrived = try await onThread { handled.wait(timeout: .now() + 10) == .success }
        #expect(arrived)
        let second = await bound.threadID()
        #expect(first == second)
        #expect(handlerThread.withLock { $0 } == first)
        #expect(first != UInt(bitPattern: Int(bitPattern: pthread_self())))
        await loop.stop()
        context.terminate()
    }
}
