import Synchronization

/// One action scheduled once; disposing it before it runs cancels it and releases the closure.
///
/// The action is taken out of its slot to run it, so once `dispose()` returns, the action has either
/// started already or never will.
final class ScheduledAction: Cancelable {
    private let action: Mutex<(@Sendable () -> any Disposable)?>
    private let result = SingleAssignmentDisposable()

    init(_ action: @escaping @Sendable () -> any Disposable) {
        self.action = Mutex(action)
    }

    var isDisposed: Bool { result.isDisposed }

    /// Runs the action unless it was disposed (or already ran).
    func invoke() {
        let action = self.action.withLock { action in
            defer { action = nil }
            return action
        }
        guard let action else { return }
        result.setDisposable(action())
    }

    func dispose() {
        // The flag first: `invoke` of an action taken before this line has started already.
        result.dispose()
        action.withLock { $0 = nil }
    }
}
