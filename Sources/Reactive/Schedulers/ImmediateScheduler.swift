/// Runs every action at once, on the calling thread.
public struct ImmediateScheduler: ImmediateSchedulerType {
    /// The shared instance.
    public static let instance = ImmediateScheduler()

    public init() {}

    public func schedule<State: Sendable>(
        _ state: State, action: @escaping @Sendable (State) -> any Disposable
    ) -> any Disposable {
        action(state)
    }
}
