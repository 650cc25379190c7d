internal import CZeroMQ
import Glibc
import Synchronization

/// A libzmq context: the I/O threads and the registry of `inproc://` endpoints its sockets share.
///
/// A context is thread-safe and `Sendable`. Every ``Socket`` keeps its context alive, so the context
/// is terminated (in `deinit`) only after its last socket is gone; since every ``Socket`` sets linger
/// explicitly, termination never hangs on queued messages.
///
/// Shutting down: ``shutdown()`` makes every blocking call on the context's sockets fail at once with
/// `ETERM` (without waiting); ``terminate()`` then waits until every socket is closed.
public final class Context: Sendable {
    /// The `void *` handle, or nil once terminated. Guarded by the mutex.
    private let state: Mutex<Handle?>

    /// The raw handle, wrapped so that it can be stored in a `Sendable` mutex. libzmq documents a
    /// context as thread-safe, so sharing the pointer between threads is safe.
    struct Handle: @unchecked Sendable {
        let pointer: UnsafeMutableRawPointer
    }

    /// Creates a context with `ioThreads` I/O threads.
    public init(ioThreads: Int = 1) throws(ZMQError) {
        guard let pointer = zmq_ctx_new() else {
            throw ZMQError(code: ZMQError.Code(rawValue: zmq_errno()), function: "zmq_ctx_new")
        }
        do {
            _ = try checkedCallOrThrow("zmq_ctx_set") {
                zmq_ctx_set(pointer, ZMQ_IO_THREADS, Int32(clamping: ioThreads))
            }
        } catch {
            zmq_ctx_term(pointer)
            throw error
        }
        state = Mutex(Handle(pointer: pointer))
    }

    /// Creates a raw socket of a C type. The mutex is held during `zmq_socket`, so a concurrent
    /// ``terminate()`` cannot free the context under it; after termination this throws `ETERM`.
    func makeSocket(_ type: Int32) throws(ZMQError) -> UnsafeMutableRawPointer {
        let result: Result<UnsafeMutableRawPointer, ZMQError> = state.withLock { handle in
            guard let handle else { return .failure(ZMQError(code: .ETERM, function: "zmq_socket")) }
            guard let socket = zmq_socket(handle.pointer, type) else {
                return .failure(ZMQError(code: ZMQError.Code(rawValue: zmq_errno()), function: "zmq_socket"))
            }
            return .success(socket)
        }
        return try result.get()
    }

    /// Makes every blocking call on this context's sockets return `ETERM` now, without waiting.
    /// The sockets must still be closed (by their owners) before ``terminate()`` can return.
    public func shutdown() {
        state.withLock { handle in
            if let handle { _ = zmq_ctx_shutdown(handle.pointer) }
        }
    }

    /// Terminates the context: blocks until every socket of the context is closed. Call it from a
    /// thread you own (never from an actor or a task), after the sockets' owners closed them.
    /// Later calls do nothing. `deinit` does the same when it was not called.
    public func terminate() {
        guard
            let handle = state.withLock({ handle in
                defer { handle = nil }; return handle
            })
        else { return }
        while zmq_ctx_term(handle.pointer) != 0 && zmq_errno() == Glibc.EINTR {}
    }

    deinit {
        terminate()
    }
}
