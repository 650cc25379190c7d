import Foundation
import Glibc
import ProcessSupport

/// Dedicated threads for blocking libzmq calls.
///
/// Blocking calls must never run on Swift's cooperative pool (two threads here) or on an actor:
/// they stall unrelated tasks. These helpers start a Foundation `Thread` and move non-`Sendable`
/// values (sockets) into it with `sending`, so the compiler proves that the caller keeps no access.
public enum OwnedThread {
    /// Carries a closure received as `sending` into `Thread`'s `@Sendable` block.
    ///
    /// Safe without compiler checking: the closure was received as `sending`, so its region
    /// (everything it captures) is no longer reachable by the caller; the box is written once before
    /// `Thread.start()` (which orders the write before the thread runs) and then touched only by the
    /// new thread, which takes the closure out exactly once.
    private final class Box<Body>: @unchecked Sendable {
        private var body: Body?
        init(_ body: Body) { self.body = body }

        /// Takes the closure out (once).
        func take() -> Body? {
            defer { body = nil }
            return body
        }
    }

    /// Starts a thread named `name` that runs `body` and ends.
    public static func spawn(name: String, _ body: sending @escaping () -> Void) {
        let box = Box(body)
        start(name: name) { box.take()?() }
    }

    /// Runs `body` on a new thread and suspends (without blocking a pool thread) until it finishes,
    /// returning its result or rethrowing its error.
    public static func run<T: Sendable>(
        name: String, _ body: sending @escaping () throws -> T
    ) async throws -> T {
        let box = Box(body)
        return try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<T, any Error>) in
            start(name: name) {
                guard let body = box.take() else { return }
                continuation.resume(with: Result { try body() })
            }
        }
    }

    /// Starts a named Foundation thread.
    private static func start(name: String, _ block: @escaping @Sendable () -> Void) {
        let thread = Thread {
            nameKernelThread(name)
            block()
        }
        thread.name = name
        thread.start()
    }

    /// Gives the calling thread `name` (its first 15 bytes) where `top -H`, `perf` and debuggers
    /// look: Foundation's `Thread.name` does not reach the kernel on Linux, and a new thread
    /// otherwise inherits its creator's name (often a Dispatch queue's).
    private static func nameKernelThread(_ name: String) {
        guard let descriptor = try? Posix.open("/proc/thread-self/comm", O_WRONLY) else { return }
        defer { Posix.close(descriptor) }
        try? Posix.write(descriptor, name.utf8.prefix(15))
    }
}
