public import ZeroMQ

/// The event loop the unit tests' services run on, as a service process's shard loop: one for the
/// whole test process, made on first use and never stopped (it ends with the process).
public enum TestLoop {
    /// The loop.
    public static let shared: SocketLoop = {
        do {
            return try SocketLoop(name: "test-services")
        } catch {
            preconditionFailure("cannot start the tests' service loop: \(error)")
        }
    }()
}
